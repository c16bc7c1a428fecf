import Glibc
import JukeboxStore
import LinuxSupport
import Testing

@Suite struct PositionJournalTests {
    @Test func roundTripAndSequenceContinuesAfterReopen() throws {
        let dir = TemporaryDirectory()
        let db = dir.at("jukebox.sqlite")
        let journal = try #require(PositionJournal.open(databasePath: db, logger: quietLogger))
        #expect(journal.path == db + "-position")
        #expect(journal.read() == nil)
        #expect(journal.write(trackID: 7, positionMs: 1000) == 1)
        #expect(journal.write(trackID: 7, positionMs: 3000) == 2)
        #expect(journal.read() == .init(trackID: 7, positionMs: 3000, sequence: 2))

        var info = stat()
        stat(journal.path, &info)
        // A whole sector with O_DIRECT, else just the record.
        #expect(journal.writesSectors ? [512, 4096].contains(info.st_size) : info.st_size == 48)

        let reopened = try #require(PositionJournal.open(databasePath: db, logger: quietLogger))
        #expect(reopened.read() == .init(trackID: 7, positionMs: 3000, sequence: 2))
        #expect(reopened.write(trackID: -1, positionMs: Int64.max) == 3)
        #expect(journal.read() == .init(trackID: -1, positionMs: Int64.max, sequence: 3))
    }

    @Test func volumeRoundTripsAndVersion1RecordsAreStillRead() throws {
        let dir = TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.at("db"), logger: quietLogger))
        journal.write(trackID: 3, positionMs: 61_000, volume: 35)
        #expect(journal.read() == .init(trackID: 3, positionMs: 61_000, sequence: 1, volume: 35))
        journal.write(trackID: 3, positionMs: 62_000)
        #expect(journal.read()?.volume == nil)

        // A journal left by version 1: 32 bytes, "JBPJ", CRC over 8..<32, no volume.
        let path = dir.at("old-position")
        let fd = try FileDescriptor(path: path, flags: O_RDWR | O_CREAT | O_TRUNC)
        try fd.writeAll(Self.oldRecord(magic: "JBPJ", words: [9, 125_000, 77]))
        let reopened = try PositionJournal(path: path, logger: quietLogger)
        #expect(reopened.read() == .init(trackID: 9, positionMs: 125_000, sequence: 77))
        #expect(reopened.lastSequence == 77)
    }

    @Test func queueEntryAndPlayingFlagRoundTripAndVersion2RecordsAreStillRead() throws {
        let dir = TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.at("db"), logger: quietLogger))
        let playing = PositionJournal.Entry(
            trackID: 12, positionMs: 95_500, sequence: 4, volume: 60, queueIndex: 1_999, playing: true)
        #expect(journal.write(playing) == 4)
        #expect(journal.read() == playing)
        let paused = PositionJournal.Entry(trackID: 12, positionMs: 95_600, sequence: 5, volume: 0, queueIndex: 0)
        journal.write(paused)
        #expect(journal.read() == paused)
        let noEntry = PositionJournal.Entry(trackID: 3, positionMs: 1, sequence: 6, queueIndex: nil, playing: true)
        journal.write(noEntry)
        #expect(journal.read() == noEntry)

        // A journal left by version 2 (40 bytes, "JBP2", a volume but no queue entry or flags),
        // as it lies on the card: one sector, the rest zeros.
        let path = dir.at("v2-position")
        let fd = try FileDescriptor(path: path, flags: O_RDWR | O_CREAT | O_TRUNC)
        try fd.writeAll(Self.oldRecord(magic: "JBP2", words: [8, 30_000, 41, 55]) + [UInt8](repeating: 0, count: 472))
        let reopened = try PositionJournal(path: path, logger: quietLogger)
        #expect(reopened.read() == .init(trackID: 8, positionMs: 30_000, sequence: 41, volume: 55))
        #expect(reopened.read()?.queueIndex == nil && reopened.read()?.playing == false)
    }

    /// An old-format record: magic, CRC-32 of the words, the words little-endian.
    static func oldRecord(magic: String, words: [UInt64]) -> [UInt8] {
        var bytes = Array(magic.utf8) + [0, 0, 0, 0]
        for value in words {
            for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index))) }
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes[8...] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        for index in 0..<4 { bytes[4 + index] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * index)) }
        return bytes
    }

    /// What a durable checkpoint costs the storage, from this process's /proc io counters:
    /// one sector with O_DIRECT, where the page cache would write back a 4 KiB page.
    @Test func aDurableCheckpointWritesOneSector() throws {
        let dir = TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.at("db"), logger: quietLogger))
        try #require(journal.writesSectors, "O_DIRECT is not available in \(dir.path)")
        journal.write(trackID: 1, positionMs: 0)
        journal.sync()
        let before = try writeBytes()
        for second in 1...50 {
            journal.write(trackID: 1, positionMs: Int64(second) * 2000)
            journal.sync()
        }
        let perCheckpoint = (try writeBytes() - before) / 50
        #expect(perCheckpoint <= 512, "\(perCheckpoint) bytes to storage per checkpoint")
        #expect(journal.read() == .init(trackID: 1, positionMs: 100_000, sequence: 51))
    }

    private func writeBytes() throws -> Int {
        let text = String(decoding: try readWholeFile("/proc/thread-self/io", limit: 4096), as: UTF8.self)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("write_bytes:") })
        return try #require(Int(line.dropFirst("write_bytes:".count).trimmingPrefix(" ")))
    }

    @Test(arguments: [4, 8, 12, 20, 31, 36, 41, 44])
    func corruptRecordReadsAsNil(flippedByte: Int) throws {
        let dir = TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.at("db"), logger: quietLogger))
        journal.write(trackID: 42, positionMs: 90_000)
        let fd = try FileDescriptor(path: journal.path, flags: O_RDWR)
        var byte: UInt8 = 0
        _ = try fd.read(into: &byte, count: 1, at: Int64(flippedByte))
        byte ^= 0x10
        try fd.writeAll(&byte, count: 1, at: Int64(flippedByte))
        #expect(journal.read() == nil)
    }

    @Test func shortOrForeignFileReadsAsNil() throws {
        let dir = TemporaryDirectory()
        writeFile(dir.at("db-position"), [UInt8](repeating: 0, count: 20))
        let journal = try #require(PositionJournal.open(databasePath: dir.at("db"), logger: quietLogger))
        #expect(journal.read() == nil)
        writeFile(dir.at("db-position"), [UInt8](repeating: 0, count: 32))
        #expect(journal.read() == nil)
        // A fresh write after garbage starts the sequence again and reads back.
        #expect(journal.write(trackID: 1, positionMs: 2) == 1)
        #expect(journal.read()?.positionMs == 2)
    }

    /// The daemon resumes from the journal when its entry is at least as new as the database
    /// row's `journalSequence`; a journal found empty or damaged must continue after that
    /// sequence, or its new entries would look older than the row.
    @Test func sequencesGrowAndContinueAfterTheDatabaseRow() throws {
        let dir = TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.at("db"), logger: quietLogger))
        let first = journal.write(trackID: 5, positionMs: 10_000)
        let committed = journal.write(trackID: 5, positionMs: 12_000)
        #expect(committed > first)
        journal.write(trackID: 5, positionMs: 14_000)  // then kill -9
        let found = try #require(journal.read())
        #expect(found.positionMs == 14_000 && found.sequence > committed)

        writeFile(journal.path, [UInt8](repeating: 0, count: 32))
        let reopened = try #require(PositionJournal.open(databasePath: dir.at("db"), logger: quietLogger))
        #expect(reopened.read() == nil)
        reopened.continueAfter(committed)
        reopened.write(trackID: 5, positionMs: 16_000)
        let after = try #require(reopened.read())
        #expect(after.positionMs == 16_000 && after.sequence > committed)
    }

    @Test func openingInAMissingDirectoryLogsAndReturnsNil() {
        let handler = RecordingLogHandler()
        let journal = PositionJournal.open(databasePath: "/nonexistent-dir/x/jukebox.sqlite", logger: handler.logger())
        #expect(journal == nil)
        #expect(handler.messages.count == 1)
        #expect(handler.messages.first?.contains("position journal unavailable") == true)
    }
}
