import Foundation
import Glibc
import JukeboxTestSupport
import Testing

/// The display in the running daemon: a terminal display on a pipe prints `lcd|` lines,
/// the lyric row follows the audio clock, and the per-track nudge survives a restart.
@Suite(.serialized) struct DisplayDaemonTests {
    static let display = """

        [display]
        kind = "terminal"
        columns = 16
        rows = 2
        """

    @Test func lyricLineFollowsTheSongAndTheNudgeIsSavedPerTrack() throws {
        let track = Fixtures.demoMusic + "/01 Morning Light.mp3"
        let harness = try DaemonHarness(tracks: [track], configExtra: Self.display)
        try FileManager.default.copyItem(
            atPath: Fixtures.demoMusic + "/01 Morning Light.lrc", toPath: harness.musicDir + "/01 Morning Light.lrc")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "display: terminal", on: .stderr) != nil, "\(harness.log)")
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        // [00:02.50]Open the window, let the morning in: 16 cells of it, held still at first.
        let line = process.waitForOutputLine(matching: "| Open the window,", on: .stderr, timeout: .seconds(6))
        #expect(line != nil, "\(harness.log)")
        let status = try #require(harness.status())
        #expect(status.elapsed >= 2.4, "the lyric line appeared before its timestamp: \(status.elapsed)")

        harness.send("lyrics offset +1500")
        #expect(process.waitForLine(matching: "lyrics offset: 1500 ms", on: .stdout) != nil, "\(harness.log)")
        harness.send("lyrics offset -500")
        #expect(process.waitForLine(matching: "lyrics offset: 1000 ms", on: .stdout) != nil, "\(harness.log)")
        harness.send("lyrics offset x")
        #expect(process.waitForLine(matching: "error: lyrics offset takes milliseconds", on: .stdout) != nil)
        let saved = try String(contentsOfFile: harness.database + "-lyric-offsets", encoding: .utf8)
        #expect(saved == "1000\t01 Morning Light.mp3\n")

        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)
        let again = try harness.start()
        #expect(again.waitForLine(matching: "resuming", on: .stderr) != nil, "\(harness.log)")
        // Asks until the resumed track's lyrics are loaded.
        let loaded = waitUntil(pollingEvery: .milliseconds(50)) {
            harness.send("lyrics")
            return again.waitForLine(
                matching: "01 Morning Light.lrc (5 lines, offset 1000 ms)", on: .stdout, timeout: .milliseconds(200))
                != nil
        }
        #expect(loaded, "\(harness.log)")
        again.kill(SIGTERM)
        #expect(again.waitForExit(timeout: .seconds(3)) == 0)
    }

    /// The menu on the terminal display (on a pseudo-terminal: it draws the LCD box and
    /// sends each changed row), driven by typed gestures; its Settings set the play mode.
    @Test func theMenuIsShownAndItsSettingsSetTheMode() throws {
        let pty = try PseudoTerminal()
        let harness = try DaemonHarness(
            tracks: DaemonTests.demoTracks, configExtra: Self.display + "\ndevice = \"\(pty.slavePath)\"")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "display: terminal", on: .stderr) != nil, "\(harness.log)")
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        // Each step waits for the row it changes; a row is sent as `ESC[<row>;2H` + colours + text.
        func expectRow(_ row: Int, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let found = pty.waitFor(text)
            #expect(found != nil, "row \(row): \(text)", sourceLocation: sourceLocation)
            #expect(found.map { $0.contains("\u{1B}[\(row + 1);2H") } == true, sourceLocation: sourceLocation)
        }
        harness.send("knob long")
        expectRow(1, "Menu         1/7")
        expectRow(2, "▶Folders")
        harness.send("knob +6")
        expectRow(2, "▶Settings")
        harness.send("knob press")
        expectRow(2, "▶Play mode: rep…")
        harness.send("knob press")
        // The modes, with the current one (repeat-all, the harness's) highlighted and ticked.
        expectRow(1, "Play mode    2/4")
        expectRow(2, "▶✓ repeat-all")
        harness.send("knob +2")
        harness.send("knob press")
        #expect(harness.waitForStatus { $0.mode == "shuffle" } != nil, "\(harness.log)")
        expectRow(2, "▶Play mode: shu…")
        // Back twice: closed, what plays is shown again.
        harness.send("knob long")
        harness.send("knob long")
        expectRow(1, "Morning Light")
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)
    }
}
