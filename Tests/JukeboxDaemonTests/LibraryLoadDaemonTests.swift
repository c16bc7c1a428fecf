import Foundation
import Glibc
import JukeboxTestSupport
import Testing

/// After a scan the library is read from the database and indexed away from the control
/// loop (on 100,000 tracks that took the loop 11-14 s, with buttons and clients dead). The
/// daemon holds the read at `--library-load-gate` until the test writes to it: while it waits,
/// the MPD listener and the console answer from the library of before; once released, the
/// scanned library is swapped in and plays.
@Suite(.serialized) struct LibraryLoadDaemonTests {
    @Test func controlsAnswerWhileAScannedLibraryIsRead() throws {
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(tracks: [], configExtra: "[network]\nport = \(port)")
        let template = harness.directory.file("tone.wav")
        try InputLatencyProbe.writeFlatWAV(path: template, seconds: 1)
        let albums = 20
        let tracksPerAlbum = 10
        for album in 1...albums {
            let folder = "\(harness.musicDir)/Album \(album)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for track in 1...tracksPerAlbum {
                try FileManager.default.copyItem(atPath: template, toPath: "\(folder)/track \(track).wav")
            }
        }
        let gate = harness.directory.file("library-load-gate")
        #expect(mkfifo(gate, 0o600) == 0)
        let process = try harness.start(extraArguments: ["--library-load-gate", gate])
        defer { MPDDaemonTests.stop(harness) }
        try #require(
            process.waitForLine(matching: "library scanned; waiting on", on: .stderr) != nil, "\(harness.log)")

        // Scanned, not yet read: the loop answers, from the empty library of before.
        let client = try MPDTestClient(port: port)
        #expect(client.fields("stats")["songs"] == "0", "\(harness.log)")
        #expect(client.fields("status")["state"] == "stop", "\(harness.log)")
        #expect(harness.status()?.state == "stop", "\(harness.log)")

        let writer = open(gate, O_WRONLY)
        try #require(writer >= 0)
        var byte: UInt8 = 1
        #expect(write(writer, &byte, 1) == 1)
        close(writer)
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        #expect(client.fields("stats")["songs"] == "\(albums * tracksPerAlbum)", "\(harness.log)")
        #expect(harness.waitForStatus { $0.state == "play" }?.playlistLength == albums * tracksPerAlbum)
    }
}
