import Testing

@testable import JukeboxCore

/// The card checkpoint's two stores with `[resume] checkpoint_device` set: the newest record
/// wins whichever holds it, also across a boot that could not open the device.
@Suite struct CardCheckpointTests {
    static func record(_ positionMs: Int64, sequence: UInt64, marked: Bool = false) -> JournalRecord {
        JournalRecord(
            trackID: 101, positionMs: positionMs, sequence: sequence, queueIndex: 0, playing: true,
            inPlaceOfDevice: marked)
    }

    @Test func withoutADeviceTheFileIsTheCard() {
        let file = Self.record(5000, sequence: 9)
        let card = CardCheckpoint(file: file, device: .notConfigured)
        #expect(card.newest == file && card.lastSequence == 9)
        #expect(card.movingToDevice == nil && !card.marksRecords)
        #expect(CardCheckpoint(file: nil, device: .notConfigured).newest == nil)
    }

    @Test func aDeviceThatCannotBeOpenedLeavesTheFileMarked() {
        let file = Self.record(5000, sequence: 9)
        let card = CardCheckpoint(file: file, device: .unavailable)
        #expect(card.newest == file && card.lastSequence == 9)
        #expect(card.movingToDevice == nil)
        #expect(card.marksRecords)
    }

    /// (file, device, newest, moved onto the device)
    static let openedDevice: [(String, JournalRecord?, JournalRecord?, JournalRecord?, JournalRecord?)] = [
        ("both empty", nil, nil, nil, nil),
        ("a new device takes the file's place", record(5000, sequence: 40), nil, record(5000, sequence: 40), nil),
        (
            "the device on from the file", record(5000, sequence: 40), record(9000, sequence: 80),
            record(9000, sequence: 80), nil
        ),
        (
            "a file newer by number (written without the mark)", record(9000, sequence: 90), record(5000, sequence: 80),
            record(9000, sequence: 90), nil
        ),
        (
            "a marked file wins with a lower number", record(7000, sequence: 30, marked: true),
            record(9000, sequence: 80), record(7000, sequence: 30, marked: true), record(7000, sequence: 30)
        ),
        (
            "a marked file and a new device", record(7000, sequence: 30, marked: true), nil,
            record(7000, sequence: 30, marked: true), record(7000, sequence: 30)
        ),
    ]

    @Test(arguments: openedDevice)
    func anOpenedDeviceAndTheFile(
        row: (String, JournalRecord?, JournalRecord?, JournalRecord?, JournalRecord?)
    ) {
        let (name, file, onDevice, newest, moved) = row
        let card = CardCheckpoint(file: file, device: .opened(record: onDevice))
        #expect(card.newest == newest, "\(name)")
        #expect(card.movingToDevice == moved, "\(name)")
        #expect(card.lastSequence == max(file?.sequence ?? 0, onDevice?.sequence ?? 0), "\(name)")
        #expect(!card.marksRecords, "\(name)")
    }

    // MARK: - boots on a manual clock

    /// What is on the card across boots, and the database's record (saved once, at 0 s).
    struct Box {
        static let durations: [TrackID: Int64] = [101: 3_600_000, 102: 3_600_000]
        var device: JournalRecord?
        var file: JournalRecord?
        let saved = PlayerMachine.Snapshot(
            queue: PlayQueue(entries: [101, 102], mode: .inOrder, seed: 1).snapshot, currentTrack: 101,
            positionMs: 0, state: .playing, volume: 50)
        let savedSequence: UInt64 = 1

        /// A boot after a power cut (RAM lost), the device opening or not: the start as the
        /// daemon makes it, then `playMs` of music with the keeper's writes performed as the
        /// daemon performs them, on a manual clock (a tick every 250 ms). Returns the
        /// position it resumed at and the one it played to.
        mutating func boot(deviceOpens: Bool, playMs: Int64) -> (resumedMs: Int64, playedToMs: Int64) {
            let card = CardCheckpoint(file: file, device: deviceOpens ? .opened(record: device) : .unavailable)
            if let moving = card.movingToDevice { (device, file) = (moving, moving) }
            var sequence = max(card.lastSequence, savedSequence)
            var keeper = ResumeKeeper(syncIntervalMs: 4000)
            let start = ResumeStart(
                saved: saved, savedSequence: savedSequence, journal: card.newest, journalSurvivedRestart: true,
                durations: Self.durations)
            guard case .resume(var player, _) = keeper.handle(.start(start), now: .zero).first else {
                Issue.record("no resume")
                return (-1, -1)
            }
            let resumedMs = player.positionMs
            for now in stride(from: Int64(250), through: playMs, by: 250) {
                player.positionMs = resumedMs + now
                for action in keeper.handle(.tick(player, positionKnown: true), now: .milliseconds(now)) {
                    switch action {
                    case .writeRAM: sequence += 1
                    case .writeCheckpoint(var record):
                        sequence += 1
                        record.sequence = sequence
                        record.inPlaceOfDevice = card.marksRecords
                        if deviceOpens { device = record } else { file = record }
                    default: break
                    }
                }
            }
            return (resumedMs, player.positionMs)
        }
    }

    /// A long boot with the device, a shorter one without it (its numbers stay below the
    /// device's: it cannot see them), then the device again: each resumes within half a sync
    /// interval either side of where the last one stopped.
    @Test func eachBootResumesWhereTheLastStoppedWhicheverStoreHasIt() {
        var box = Box()
        let first = box.boot(deviceOpens: true, playMs: 600_000)
        #expect(first.resumedMs == 0)
        // The device cannot be read: the file has nothing, the database's record is at 0 s.
        let withoutDevice = box.boot(deviceOpens: false, playMs: 120_000)
        #expect(withoutDevice.resumedMs == 0)
        #expect(box.file!.sequence < box.device!.sequence && box.file!.inPlaceOfDevice)
        let deviceAgain = box.boot(deviceOpens: true, playMs: 30_000)
        #expect(abs(deviceAgain.resumedMs - withoutDevice.playedToMs) <= 2000, "\(deviceAgain), \(withoutDevice)")
        #expect(box.file?.inPlaceOfDevice == false)
        let afterThat = box.boot(deviceOpens: true, playMs: 10_000)
        #expect(abs(afterThat.resumedMs - deviceAgain.playedToMs) <= 2000, "\(afterThat), \(deviceAgain)")
        // Without the device again: its newest is out of reach, the file's older one is used;
        // what that boot plays wins at the next boot with the device.
        let againWithout = box.boot(deviceOpens: false, playMs: 20_000)
        #expect(againWithout.resumedMs <= afterThat.resumedMs)
        let last = box.boot(deviceOpens: true, playMs: 5000)
        #expect(abs(last.resumedMs - againWithout.playedToMs) <= 2000, "\(last), \(againWithout)")
    }
}
