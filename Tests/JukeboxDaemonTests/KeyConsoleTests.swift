import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// `[console] input = "keys"` with a real terminal (a pty) on stdin: keys act as the box's
/// buttons in the running daemon, `:` takes a command line, and the terminal gets its
/// settings back when the daemon stops.
@Suite(.serialized) struct KeyConsoleTests {
    @Test func keysAreButtonsOnATerminal() throws {
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(
            tracks: DaemonTests.demoTracks,
            configExtra: """
                input = "keys"

                [network]
                port = \(port)
                """)
        let pty = try PseudoTerminal()
        // The slave's settings as a shell leaves them: canonical with echo.
        let slave = open(pty.slavePath, O_RDWR | O_NOCTTY)
        defer { close(slave) }
        var before = termios()
        #expect(tcgetattr(slave, &before) == 0)
        #expect(before.c_lflag & tcflag_t(ICANON) != 0)

        let process = try harness.start(stdinPath: pty.slavePath)
        #expect(process.waitForLine(matching: "space = play/pause", on: .stdout) != nil, "\(harness.log)")
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: port)
        #expect(client.fields("status")["state"] == "play")
        var during = termios()
        #expect(tcgetattr(slave, &during) == 0)
        #expect(during.c_lflag & tcflag_t(ICANON | ECHO) == 0, "the terminal is in key mode")

        pty.write(" ")  // play/pause short press: toggle
        #expect(
            waitUntil(timeout: .seconds(3), pollingEvery: .milliseconds(20)) {
                client.fields("status")["state"] == "pause"
            })
        pty.write(" ")
        #expect(
            waitUntil(timeout: .seconds(3), pollingEvery: .milliseconds(20)) {
                client.fields("status")["state"] == "play"
            })
        let volume = Int(client.fields("status")["volume"] ?? "") ?? -1
        pty.write("\u{1B}[B\u{1B}[B")  // two clicks of the knob down
        #expect(
            waitUntil(timeout: .seconds(3), pollingEvery: .milliseconds(20)) {
                Int(client.fields("status")["volume"] ?? "") == volume - 4
            }, "from \(volume)")
        pty.write("\u{1B}[A")  // and one up
        #expect(
            waitUntil(timeout: .seconds(3), pollingEvery: .milliseconds(20)) {
                Int(client.fields("status")["volume"] ?? "") == volume - 2
            }, "from \(volume)")
        pty.write("n")  // next
        #expect(
            waitUntil(timeout: .seconds(3), pollingEvery: .milliseconds(20)) { client.fields("status")["song"] == "1" })
        // A command line after ':'.
        pty.write(":seek 5\r")
        #expect(
            waitUntil(timeout: .seconds(3), pollingEvery: .milliseconds(20)) {
                (Double(client.fields("status")["elapsed"] ?? "") ?? 0) >= 5
            })
        // The menu: Escape holds the knob's switch (open), ↑ is a click (Artists), Enter
        // presses it: the artist, its album, "Play all". The queue becomes the album from its
        // first track; the click moved the menu, not the volume.
        pty.write("\u{1B}\u{1B}[A\r\r\r\r")
        #expect(
            waitUntil(timeout: .seconds(3), pollingEvery: .milliseconds(20)) {
                let status = client.fields("status")
                return status["song"] == "0" && (Double(status["elapsed"] ?? "") ?? 99) < 5
            }, "\(harness.log)")
        #expect(Int(client.fields("status")["volume"] ?? "") == volume - 2)
        pty.write("?")
        #expect(process.waitForLine(matching: "= knob switch", on: .stdout) != nil)

        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(5)) == 0, "\(harness.log)")
        var after = termios()
        #expect(tcgetattr(slave, &after) == 0)
        #expect(after.c_lflag & tcflag_t(ICANON | ECHO) == before.c_lflag & tcflag_t(ICANON | ECHO))
    }

    @Test func keysOnAPipeFallBackToLines() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks, configExtra: "input = \"keys\"")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "needs a terminal on stdin; reading lines", on: .stderr) != nil)
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        #expect(harness.status()?.state == "play", "\(harness.log)")
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(5)) == 0)
    }
}
