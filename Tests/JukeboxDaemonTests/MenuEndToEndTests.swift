import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The knob's menu in the real daemon, driven only by injected gestures on a console (the
/// MPD listener here), as a box without a knob would be.
@Suite(.serialized) struct MenuEndToEndTests {
    /// Three artists with two albums of two tracks each, tagged with ID3v2.4, in folders.
    static func writeLibrary(in musicDir: String) throws {
        // A demo track (21 s) without its own ID3v2 tag, which would hide the new one.
        var audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(Fixtures.demoMusic)/01 Morning Light.mp3")))
        if audio.starts(with: Array("ID3".utf8)) {
            let size = audio[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
            audio.removeFirst(10 + size)
        }
        let source = "\(musicDir)/untagged.mp3.part"
        try Data(audio).write(to: URL(fileURLWithPath: source))
        defer { unlink(source) }
        for artist in ["Gamma", "Alpha", "Beta"] {
            for album in ["Second", "First"] {
                let folder = "\(musicDir)/\(artist)/\(album)"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for number in 1...2 {
                    let result = try runTool(
                        "/usr/bin/python3",
                        [
                            Fixtures.path("Tests/Fixtures/write_id3.py"), "frames", "4", "3", source,
                            "\(folder)/0\(number).mp3", "TIT2=\(artist) \(album) \(number)", "TPE1=\(artist)",
                            "TALB=\(album)", "TRCK=\(number)",
                        ])
                    try #require(result.status == 0, "\(result.output)")
                }
            }
        }
    }

    @Test func secondArtistsSecondAlbumFromTheKnob() throws {
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(tracks: [], configExtra: "[network]\nport = \(port)\n")
        try Self.writeLibrary(in: harness.musicDir)
        let process = try harness.start()
        defer { MPDDaemonTests.stop(harness) }
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: port)
        #expect(client.fields("currentsong")["Title"] == "Alpha First 1")  // the library in path order
        #expect(client.fields("status")["volume"] == "100")

        // Open (long press), Artists, the second artist, its second album, Play all.
        for gesture in ["long", "+1", "press", "+1", "press", "+1", "press", "press"] {
            #expect(client.command("knob \(gesture)") == ["OK"], "knob \(gesture)")
        }
        let end = MonotonicClock.nanoseconds() + 5_000_000_000
        var song: [String: String] = [:]
        repeat {
            song = client.fields("currentsong")
            if song["Title"] == "Beta Second 1" { break }
            sleepMilliseconds(20)
        } while MonotonicClock.nanoseconds() < end
        #expect(song["Title"] == "Beta Second 1", "\(harness.log)")
        #expect(song["Album"] == "Second")
        #expect(song["Pos"] == "0")
        let queue = client.command("playlistinfo").filter { $0.hasPrefix("Title: ") }
        #expect(queue == ["Title: Beta Second 1", "Title: Beta Second 2"])
        let status = client.fields("status")
        #expect(status["state"] == "play")
        // The knob's turns went to the menu, its presses did not pause: the volume is as it was.
        #expect(status["volume"] == "100")
        // The menu closed when it played: the knob is the volume knob again.
        #expect(client.command("knob -1") == ["OK"])
        #expect(try InjectedInputTests.waitFor("volume", "98", port: port) == "98")
    }

    /// The same with edges as the GPIO lines give them (contact bounce, quadrature clicks):
    /// a held switch opens the menu, and the knob's clicks move it instead of the volume.
    @Test func theSameFromTheHardware() throws {
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(
            tracks: [], configExtra: ControlsEndToEndTests.pins + "\n\n[network]\nport = \(port)\n")
        try Self.writeLibrary(in: harness.musicDir)
        let fifo = harness.directory.file("edges.fifo")
        let process = try harness.start(extraArguments: ["--input-replay-fifo", fifo])
        defer { MPDDaemonTests.stop(harness) }
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        let writer = try EdgeWriter(path: fifo)
        writer.press(13, ms: 1000)  // held past long_press_ms (800): the menu
        for step in ["turn", "press", "turn", "press", "turn", "press", "press"] {
            if step == "turn" { writer.turn(1) } else { writer.press(13, ms: 60) }
            sleepMilliseconds(200)  // the hand's pace between gestures (slow clicks: one entry each)
        }
        let client = try MPDTestClient(port: port)
        #expect(
            waitUntil(timeout: .seconds(5), pollingEvery: .milliseconds(20)) {
                client.fields("currentsong")["Title"] == "Beta Second 1"
            }, "\(harness.log)")
        #expect(client.fields("status")["volume"] == "100")
        #expect(client.fields("status")["state"] == "play")
    }

    /// `[menu] play_next` and `timeout_s`: another button's gesture adds the highlighted album
    /// after the current track (its own mapping, stop, is not carried out), and the menu goes
    /// back to what plays after the configured idle time.
    @Test func aConfiguredPlayNextGestureAndTimeout() throws {
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(
            tracks: [],
            configExtra: "[menu]\ntimeout_s = 5\nplay_next = \"play_pause_long\"\n\n[network]\nport = \(port)\n")
        try Self.writeLibrary(in: harness.musicDir)
        let process = try harness.start()
        defer { MPDDaemonTests.stop(harness) }
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: port)
        #expect(client.command("playlistinfo").filter { $0.hasPrefix("Title: ") }.count == 12)
        // Open, Artists, Alpha: its album First highlighted; play_pause's long press adds it.
        for gesture in ["knob long", "knob +1", "knob press", "knob press", "button play_pause long"] {
            #expect(client.command(gesture) == ["OK"], "\(gesture)")
        }
        var titles: [String] = []
        #expect(
            waitUntil(timeout: .seconds(5), pollingEvery: .milliseconds(20)) {
                titles = client.command("playlistinfo").filter { $0.hasPrefix("Title: ") }
                return titles.count == 14
            }, "\(harness.log)")
        #expect(titles.prefix(3) == ["Title: Alpha First 1", "Title: Alpha First 1", "Title: Alpha First 2"])
        #expect(client.fields("status")["state"] == "play")
        // Idle: the menu closes 5 s after the last gesture, and the knob is the volume knob again.
        #expect(client.command("knob -1") == ["OK"])
        let lastGesture = MonotonicClock.nanoseconds()
        #expect(client.fields("status")["volume"] == "100", "the open menu took the click")
        #expect(process.waitForLine(matching: "menu: closed", on: .stderr, timeout: .seconds(10)) != nil)
        let closedAfter = Double(MonotonicClock.nanoseconds() - lastGesture) / 1e9
        #expect(client.command("knob -1") == ["OK"])
        #expect(try InjectedInputTests.waitFor("volume", "98", port: port) == "98")
        #expect(closedAfter > 4.8 && closedAfter < 7, "closed after \(closedAfter) s")
    }
}
