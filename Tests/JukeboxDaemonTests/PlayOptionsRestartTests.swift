import Foundation
import Glibc
import JukeboxCore
import JukeboxStore
import Testing

@testable import JukeboxDaemon

/// MPD's play flags are saved with the playback record (its `mode` text) and come back after
/// a restart; records written before the flags existed (a preset's name) still load.
@Suite(.serialized) struct PlayOptionsRestartTests {
    static func record(mode: String) -> PlaybackRecord {
        PlaybackRecord(queueIndex: 0, trackID: 1, positionMs: 0, state: "stopped", mode: mode, volume: 40)
    }

    @Test func theRecordsModeTextHoldsTheFlags() {
        let older = PlayerMachine.Snapshot(
            record: Self.record(mode: "shuffle"), queue: [QueueRecord(trackID: 1)], fallbackMode: .inOrder)
        #expect(older.queue.options == PlayOptions(.shuffle))
        let unknown = PlayerMachine.Snapshot(
            record: Self.record(mode: "loop"), queue: [QueueRecord(trackID: 1)], fallbackMode: .repeatOne)
        #expect(unknown.queue.options == PlayOptions(.repeatOne))
        let flags = PlayOptions(random: true, single: .oneshot, consume: true)
        var snapshot = older
        snapshot.queue.options = flags
        let written = snapshot.record(sequence: 0)
        #expect(written.mode == "random single-oneshot consume")
        #expect(
            PlayerMachine.Snapshot(record: written, queue: [QueueRecord(trackID: 1)], fallbackMode: .inOrder).queue
                .options == flags)
    }

    @Test func flagsSetOverMPDSurviveARestart() throws {
        let (harness, port) = try MPDDaemonTests.start()
        let client = try MPDTestClient(port: port)
        for line in ["repeat 0", "random 1", "single oneshot", "consume 1"] { #expect(client.command(line) == ["OK"]) }
        let flags = ["repeat", "random", "single", "consume"]
        let before = client.fields("status").filter { flags.contains($0.key) }
        #expect(before == ["repeat": "0", "random": "1", "single": "oneshot", "consume": "1"])
        MPDDaemonTests.stop(harness)

        let process = try harness.start()
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        let again = try MPDTestClient(port: port)
        #expect(again.fields("status").filter { flags.contains($0.key) } == before)
        MPDDaemonTests.stop(harness)
    }
}
