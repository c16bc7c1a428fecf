import Foundation
import Glibc
import JukeboxStore
import JukeboxTestSupport
import Logging
import Testing

@testable import JukeboxDaemon

@Suite struct ResumeJournalTests {
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A database file whose card checkpoint beside it holds a record, as before a device was
    /// set, and no RAM journal (removed at both ends: a later file may reuse the inode number,
    /// and with it the RAM journal's name).
    final class Setup {
        let dir: TemporaryDirectory
        let database: String

        init(logger: Logger) throws {
            dir = try TemporaryDirectory()
            database = dir.file("jukebox.sqlite")
            try Data().write(to: URL(fileURLWithPath: database))
            forgetRAMJournal()
            let old = try PositionJournal(path: database + PositionJournal.suffix, logger: logger)
            old.write(.init(trackID: 7, positionMs: 95_000, sequence: 40, volume: 55, queueIndex: 6, playing: true))
        }

        deinit {
            forgetRAMJournal()
            dir.remove()
        }

        /// A zeroed 4 KiB file standing in for a raw partition.
        func zeroedDevice() throws -> String {
            let device = dir.file("nvram")
            try Data(count: 4096).write(to: URL(fileURLWithPath: device))
            return device
        }

        func forgetRAMJournal() {
            if let path = ResumeJournal.ramPath(databasePath: database) { unlink(path) }
        }
    }

    @Test func takingADeviceIntoUseCarriesTheLastCheckpointOver() throws {
        let setup = try Setup(logger: logger)
        let (database, device) = (setup.database, try setup.zeroedDevice())

        let journal = ResumeJournal(databasePath: database, checkpointDevice: device, logger: logger)
        let found = try #require(journal.read())
        #expect(found.entry.trackID == 7 && found.entry.positionMs == 95_000 && found.entry.queueIndex == 6)
        // the device has it now, on its own: the next checkpoint goes there and numbers on
        journal.recordDurably(.init(trackID: 7, positionMs: 99_000, sequence: 0, playing: true))
        let onDevice = try PositionJournal.openDevice(path: device, logger: logger).read()
        #expect(onDevice?.positionMs == 99_000)
        #expect(onDevice?.sequence == 41)
    }

    @Test func aRefusedDeviceFallsBackToTheFileBesideTheDatabase() throws {
        let setup = try Setup(logger: logger)
        let (dir, database) = (setup.dir, setup.database)
        let device = dir.file("not-ours")
        let foreign = Data("# a config file, not a device\n".utf8)
        try foreign.write(to: URL(fileURLWithPath: device))

        let journal = ResumeJournal(databasePath: database, checkpointDevice: device, logger: logger)
        #expect(journal.read()?.entry.positionMs == 95_000)
        journal.recordDurably(.init(trackID: 7, positionMs: 97_000, sequence: 0, playing: true))
        #expect(try Data(contentsOf: URL(fileURLWithPath: device)) == foreign)
        let beside = try PositionJournal(path: database + PositionJournal.suffix, logger: logger)
        #expect(beside.read()?.positionMs == 97_000)
    }

    /// A run without the device (missing) marks its records in the file, numbered below the
    /// device's; the next run with the device resumes from the file, puts that record on the
    /// device, clears the mark, and numbers on past both.
    @Test func aRunWithoutTheDeviceIsTakenOverByTheNextWithIt() throws {
        let setup = try Setup(logger: logger)
        let (database, device) = (setup.database, try setup.zeroedDevice())
        let withDevice = ResumeJournal(databasePath: database, checkpointDevice: device, logger: logger)
        for second in 96...150 {
            withDevice.recordDurably(.init(trackID: 7, positionMs: Int64(second) * 1000, sequence: 0, playing: true))
        }
        setup.forgetRAMJournal()  // a reboot

        try FileManager.default.moveItem(atPath: device, toPath: device + "-away")
        let withoutDevice = ResumeJournal(databasePath: database, checkpointDevice: device, logger: logger)
        #expect(withoutDevice.read()?.entry.positionMs == 95_000)
        withoutDevice.recordDurably(.init(trackID: 7, positionMs: 99_000, sequence: 0, playing: true))
        let beside = try PositionJournal(path: database + PositionJournal.suffix, logger: logger)
        #expect(beside.read()?.inPlaceOfDevice == true)
        #expect(beside.read()?.sequence == 41)
        setup.forgetRAMJournal()

        try FileManager.default.moveItem(atPath: device + "-away", toPath: device)
        let deviceAgain = ResumeJournal(databasePath: database, checkpointDevice: device, logger: logger)
        let found = try #require(deviceAgain.read())
        #expect(found.entry.positionMs == 99_000 && found.survivedRestart)
        let onDevice = { try PositionJournal.openDevice(path: device, logger: self.logger).read() }
        #expect(try onDevice()?.positionMs == 99_000)
        #expect(beside.read()?.inPlaceOfDevice == false)
        deviceAgain.recordDurably(.init(trackID: 7, positionMs: 103_000, sequence: 0, playing: true))
        #expect(try onDevice()?.sequence == 96)
        #expect(beside.read()?.positionMs == 99_000)
    }
}
