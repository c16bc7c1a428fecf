import Foundation
import Glibc
import JukeboxTestSupport
import Testing

/// The queue's limit on the real daemon: a first start on a library larger than the queue
/// holds (a limit of 5 here, over 12 generated tracks, as a library past the default 16,384
/// behaves) plays at once with the first tracks in path order, and an add of the whole
/// library answers with MPD's ACK on the MPD listener and on the console, and says why.
@Suite(.serialized) struct QueueLimitDaemonTests {
    @Test func aFirstStartOnALibraryPastTheLimitPlaysAndAddsAnswer() throws {
        let source = try TemporaryDirectory(prefix: "jukebox-queue-limit")
        defer { source.remove() }
        let names = (1...12).map { "track \($0 < 10 ? "0" : "")\($0).wav" }
        for name in names { try InputLatencyProbe.writeFlatWAV(path: source.file(name), seconds: 2) }
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(
            tracks: names.map { source.file($0) }, configExtra: "[network]\nport = \(port)",
            queueExtra: "max_length = 5")
        let process = try harness.start()
        defer { MPDDaemonTests.stop(harness) }
        #expect(
            process.waitForLine(matching: "the library has 12 tracks; the queue holds its first 5", on: .stderr)
                != nil, "\(harness.log)")
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        let status = harness.waitForStatus { $0.state == "play" }
        #expect(status?.playlistLength == 5, "\(harness.log)")

        let client = try MPDTestClient(port: port)
        #expect(client.command("playlist") == (0..<5).map { "\($0):file: \(names[$0])" } + ["OK"])
        // Full: nothing is added.
        #expect(client.command("add \"\"") == ["ACK [51@0] {add} Playlist is too large"])
        #expect(process.waitForLine(matching: "the queue is full: added 0 of 12 tracks", on: .stderr) != nil)
        // Room for two: the first two are added, then the ACK.
        #expect(client.command("delete 0:2") == ["OK"])
        #expect(client.command("add \"\"") == ["ACK [51@0] {add} Playlist is too large"])
        #expect(process.waitForLine(matching: "the queue is full: added 2 of 12 tracks", on: .stderr) != nil)
        #expect(client.command("playlist").suffix(3) == ["3:file: \(names[0])", "4:file: \(names[1])", "OK"])

        // The console: the clear message, then MPD's answer.
        harness.send("add \"\"")
        #expect(process.waitForLine(matching: "the queue is full: added 0 of 12 tracks", on: .stdout) != nil)
        #expect(process.waitForLine(matching: "ACK [51@0] {add} Playlist is too large", on: .stdout) != nil)
        #expect(harness.status()?.state == "play", "\(harness.log)")
        #expect(client.fields("status")["playlistlength"] == "5")
    }
}
