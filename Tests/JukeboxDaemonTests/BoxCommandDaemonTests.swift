import Foundation
import Glibc
import JukeboxTestSupport
import Testing

/// The box's words beyond MPD's on the MPD listener (a raw TCP client), answered as on the
/// stdin console: the sleep timer, the podcast list, moving by chapter; and a console on a pipe.
@Suite(.serialized) struct BoxCommandDaemonTests {
    static func start(tracks: [String], extra: String = "", onStart: String = "play") throws -> (
        DaemonHarness, DaemonProcess, Int
    ) {
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(
            tracks: tracks, configExtra: "[network]\nport = \(port)\n" + extra, onStart: onStart, mode: "in-order")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        return (harness, process, port)
    }

    /// `sleep 5` from a client sets the timer the console shows; a short one stops the box.
    @Test func sleepOverTheMPDListener() throws {
        let (harness, process, port) = try Self.start(tracks: DaemonTests.demoTracks, extra: "[sleep]\nfade_s = 1\n")
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: port)
        #expect(client.fields("sleep") == ["sleep": "off"])
        #expect(client.command("sleep 5") == ["sleep: 5 min", "OK"])
        let timer = client.fields("sleep")
        #expect(timer["sleep"] == "5 min", "\(timer)")
        #expect(timer["sleep_left"].flatMap(Int.init).map { (1...300).contains($0) } == true, "\(timer)")
        // The console's status shows the client's timer.
        process.skipOutput()
        harness.send("status")
        #expect(process.waitForLine(matching: "sleep: 5 min", on: .stdout) != nil, "\(harness.log)")
        #expect(client.command("sleep soon").first?.hasPrefix("ACK [2@0] {sleep}") == true)
        #expect(client.command("sleep 2s") == ["sleep: 2 s", "OK"])
        #expect(
            process.waitForLine(matching: "sleep timer: time is up", on: .stderr, timeout: .seconds(10)) != nil,
            "\(harness.log)")
        #expect(
            waitUntil(timeout: .seconds(20), pollingEvery: .milliseconds(100)) {
                client.fields("status")["state"] == "stop"
            }, "\(harness.log)")
        #expect(client.fields("sleep") == ["sleep": "off"])
        MPDDaemonTests.stop(harness)
    }

    /// `podcast add` with a quoted URL and `podcast list`: a client reads the console's lines.
    @Test func podcastListOverTheMPDListener() throws {
        let (harness, process, port) = try Self.start(tracks: [], extra: "[podcasts]\n", onStart: "off")
        let client = try MPDTestClient(port: port)
        #expect(client.command("podcast list") == ["podcast: no podcasts (podcast add URL)", "OK"])
        // Nothing listens on port 9 of the loopback: the feed stays unread, its problem noted.
        let feed = "http://127.0.0.1:9/a feed.xml"
        #expect(client.command("podcast add \"\(feed)\"") == ["podcast: podcast 1: \(feed)", "OK"])
        #expect(
            process.waitForLine(matching: "podcasts: \(feed): ", on: .stderr, timeout: .seconds(20)) != nil,
            "\(harness.log)")
        let listed = client.command("podcast list")
        #expect(listed.count == 2 && listed[0].hasPrefix("podcast: 1. ") && listed[1] == "OK", "\(listed)")
        process.skipOutput()
        harness.send("podcast list")
        let line = process.waitForLine(matching: "1. ", on: .stdout)
        #expect(line.map { "podcast: " + $0 } == listed.first, "console \(line ?? "nothing"), client \(listed)")
        // The console takes the same quotes.
        harness.send("podcast add \"\(feed)\"")
        #expect(process.waitForLine(matching: "(already subscribed)", on: .stdout) != nil, "\(harness.log)")
        MPDDaemonTests.stop(harness)
    }

    /// `chapter next` from a client moves to the next chapter of an M4B (MPD's `next` would
    /// leave the file); `chapter` shows the chapter.
    @Test func chapterNextOverTheMPDListener() throws {
        let sources = try TemporaryDirectory(prefix: "jukebox-chapters")
        defer { sources.remove() }
        let book = try ChapterDaemonTests.book(EncodedMedia(directory: sources.path))
        let (harness, process, port) = try Self.start(tracks: [book])
        #expect(process.waitForLine(matching: "playing \"The Book\"", on: .stderr) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: port)
        #expect(
            waitUntil(timeout: .seconds(20), pollingEvery: .milliseconds(100)) {
                client.fields("status")["state"] == "play"
            })
        let first = client.fields("chapter")
        #expect(first["chapter"] == "1" && first["chapters"] == "3" && first["chapter_title"] == "Opening", "\(first)")
        #expect(client.command("chapter next") == ["OK"])
        #expect(
            waitUntil(timeout: .seconds(20), pollingEvery: .milliseconds(100)) {
                client.fields("status")["elapsed"].flatMap(Double.init).map { $0 >= 15 } == true
            },
            "\(harness.log)")
        // The same file (MPD's song 0), in the next chapter.
        #expect(client.fields("status")["song"] == "0")
        #expect(client.fields("chapter")["chapter_title"] == "Middle")
        // Past the chapter's first 3 s, previous goes back to its start.
        #expect(client.command("seekcur 25") == ["OK"])
        #expect(client.command("chapter previous") == ["OK"])
        #expect(
            waitUntil(timeout: .seconds(20), pollingEvery: .milliseconds(100)) {
                client.fields("status")["elapsed"].flatMap(Double.init).map { $0 < 24 } == true
            }, "\(harness.log)")
        #expect(client.fields("chapter")["chapter_title"] == "Middle")
        MPDDaemonTests.stop(harness)
    }

    /// A program that starts jukeboxd with a pipe on stdin (no `--console`) gets each reply
    /// while the daemon runs.
    @Test func aConsoleOnAPipeAnswersAtOnce() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks)
        let process = try DaemonProcess(
            executable: Jukeboxd.binary, arguments: ["--config", harness.configPath, "--log-level", "debug"])
        defer {
            _ = process.kill(SIGTERM)
            _ = process.waitForExit(timeout: .seconds(5))
            withExtendedLifetime(harness) {}  // its folder holds the config and the music
        }
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(process.text(of: .stderr))")
        try process.send("status")
        #expect(process.waitForLine(matching: "state: play", on: .stdout) != nil, "\(process.text(of: .stderr))")
        try process.send("sleep 10")
        #expect(process.waitForLine(matching: "sleep: 10 min", on: .stdout) != nil)
        #expect(process.isRunning)
    }

    /// The serial console (a pty) has the box's words too, quoted as MPD quotes them.
    @Test func theSerialConsoleHasTheBoxWords() throws {
        let pty = try PseudoTerminal()
        let scratch = try TemporaryDirectory(prefix: "jukebox-serial")
        defer { scratch.remove() }
        let link = scratch.file("serial")
        #expect(symlink(pty.slavePath, link) == 0)
        let (harness, port) = try MPDDaemonTests.start(console: link)
        defer { MPDDaemonTests.stop(harness) }
        #expect(pty.waitFor("Type 'help'") != nil)
        pty.write("sleep 5\r")
        #expect(pty.waitFor("sleep: 5 min") != nil, "\(harness.log)")
        pty.write("card assign K1 folder \"Name With Spaces\"\r")
        #expect(pty.waitFor(#"K1 folder "Name With Spaces""#) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: port)
        #expect(client.fields("sleep")["sleep"] == "5 min")
        #expect(client.command("card list") == [#"card: K1 folder "Name With Spaces""#, "OK"])
    }
}
