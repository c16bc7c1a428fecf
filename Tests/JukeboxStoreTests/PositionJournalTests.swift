import Glibc
import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import Testing

@Suite struct PositionJournalTests {
    @Test func roundTripAndSequenceContinuesAfterReopen() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("jukebox.sqlite")
        let journal = try #require(PositionJournal.open(databasePath: db, logger: quietLogger))
        #expect(journal.path == db + "-position")
        #expect(journal.read() == nil)
        #expect(journal.write(trackID: 7, positionMs: 1000) == 1)
        #expect(journal.write(trackID: 7, positionMs: 3000) == 2)
        #expect(journal.read() == .init(trackID: 7, positionMs: 3000, sequence: 2))

        var info = stat()
        stat(journal.path, &info)
        // A whole sector with O_DIRECT, else just the record.
        #expect(journal.writesSectors ? [512, 4096].contains(info.st_size) : info.st_size == 72)

        let reopened = try #require(PositionJournal.open(databasePath: db, logger: quietLogger))
        #expect(reopened.read() == .init(trackID: 7, positionMs: 3000, sequence: 2))
        #expect(reopened.write(trackID: -1, positionMs: Int64.max) == 3)
        #expect(journal.read() == .init(trackID: -1, positionMs: Int64.max, sequence: 3))
    }

    @Test func volumeRoundTripsAndVersion1RecordsAreStillRead() throws {
        let dir = try TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.file("db"), logger: quietLogger))
        journal.write(trackID: 3, positionMs: 61_000, volume: 35)
        #expect(journal.read() == .init(trackID: 3, positionMs: 61_000, sequence: 1, volume: 35))
        journal.write(trackID: 3, positionMs: 62_000)
        #expect(journal.read()?.volume == nil)

        // A journal left by version 1: 32 bytes, "JBPJ", CRC over 8..<32, no volume.
        let path = dir.file("old-position")
        let fd = try FileDescriptor(path: path, flags: O_RDWR | O_CREAT | O_TRUNC)
        try fd.writeAll(Self.oldRecord(magic: "JBPJ", words: [9, 125_000, 77]))
        let reopened = try PositionJournal(path: path, logger: quietLogger)
        #expect(reopened.read() == .init(trackID: 9, positionMs: 125_000, sequence: 77))
        #expect(reopened.lastSequence == 77)
    }

    @Test func queueEntryAndPlayingFlagRoundTripAndVersion2RecordsAreStillRead() throws {
        let dir = try TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.file("db"), logger: quietLogger))
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
        let inPlaceOfDevice = PositionJournal.Entry(
            trackID: 3, positionMs: 2, sequence: 7, queueIndex: 0, playing: true, inPlaceOfDevice: true)
        journal.write(inPlaceOfDevice)
        #expect(journal.read() == inPlaceOfDevice)

        // A journal left by version 2 (40 bytes, "JBP2", a volume but no queue entry or flags),
        // as it lies on the card: one sector, the rest zeros.
        let path = dir.file("v2-position")
        let fd = try FileDescriptor(path: path, flags: O_RDWR | O_CREAT | O_TRUNC)
        try fd.writeAll(Self.oldRecord(magic: "JBP2", words: [8, 30_000, 41, 55]) + [UInt8](repeating: 0, count: 472))
        let reopened = try PositionJournal(path: path, logger: quietLogger)
        #expect(reopened.read() == .init(trackID: 8, positionMs: 30_000, sequence: 41, volume: 55))
        #expect(reopened.read()?.queueIndex == nil && reopened.read()?.playing == false)
    }

    @Test func seekHintRoundTripsAndVersion3RecordsAreStillRead() throws {
        let dir = try TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.file("db"), logger: quietLogger))
        let hint = SeekHint(mpegFrame: 412_345, byteOffset: 171_234_567, fileSize: 518_400_000)
        let entry = PositionJournal.Entry(
            trackID: 5, positionMs: 36_000_000, sequence: 9, volume: 20, queueIndex: 3, playing: true, seekHint: hint)
        journal.write(entry)
        #expect(journal.read() == entry)
        let reopened = try #require(PositionJournal.open(databasePath: dir.file("db"), logger: quietLogger))
        #expect(reopened.read()?.seekHint == hint)
        journal.write(PositionJournal.Entry(trackID: 5, positionMs: 1, sequence: 10))
        #expect(journal.read()?.seekHint == nil)

        // A journal left by version 3 (48 bytes, "JBP3": queue entry and flags, no hint).
        let path = dir.file("v3-position")
        let fd = try FileDescriptor(path: path, flags: O_RDWR | O_CREAT | O_TRUNC)
        let queueAndFlags: UInt64 = 7 | 1 << 32  // entry 7, playing
        try fd.writeAll(
            Self.oldRecord(magic: "JBP3", words: [8, 30_000, 41, 55, queueAndFlags]) + [UInt8](repeating: 0, count: 464)
        )
        let old = try PositionJournal(path: path, logger: quietLogger)
        #expect(
            old.read()
                == .init(trackID: 8, positionMs: 30_000, sequence: 41, volume: 55, queueIndex: 7, playing: true))
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
        let dir = try TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.file("db"), logger: quietLogger))
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

    // MARK: a checkpoint device of its own

    @Test func aZeroedDeviceTakesRecordsAndKeepsThemAcrossReopening() throws {
        let dir = try TemporaryDirectory()
        let device = dir.file("nvram")
        writeFile(device, [UInt8](repeating: 0, count: 8192))
        do {
            let journal = try PositionJournal.openDevice(path: device, logger: quietLogger)
            #expect(journal.read() == nil)
            journal.write(.init(trackID: 4, positionMs: 61_000, sequence: 9, volume: 35, queueIndex: 3, playing: true))
            journal.sync()
        }
        // reopening finds its own record (not foreign data) and the record itself
        let reopened = try PositionJournal.openDevice(path: device, logger: quietLogger)
        #expect(
            reopened.read()
                == .init(trackID: 4, positionMs: 61_000, sequence: 9, volume: 35, queueIndex: 3, playing: true))
        var info = stat()
        #expect(stat(device, &info) == 0 && info.st_size == 8192)  // written in place, never grown
    }

    @Test(arguments: ["file system", "text", "partition table"])
    func aDeviceHoldingOtherDataIsRefusedAndLeftAlone(kind: String) throws {
        let dir = try TemporaryDirectory()
        let device = dir.file("disk")
        var bytes = [UInt8](repeating: 0, count: 8192)
        switch kind {
        case "file system":  // ext4: an empty boot block, the superblock magic at 1024 + 56
            bytes[1024 + 56] = 0x53
            bytes[1024 + 57] = 0xEF
        case "text": bytes.replaceSubrange(0..<12, with: Array("music_dir = ".utf8))
        default: bytes[510] = 0x55; bytes[511] = 0xAA  // an MBR's signature
        }
        writeFile(device, bytes)
        let error = #expect(throws: PositionJournal.DeviceRefused.self) {
            try PositionJournal.openDevice(path: device, logger: quietLogger)
        }
        #expect(error?.description.contains("dd if=/dev/zero of=\(device) bs=4096 count=1") == true)
        #expect(try readWholeFile(device, limit: 16384) == bytes)
    }

    @Test func aMissingDeviceADirectoryOrACharacterDeviceIsRefused() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: Errno.self) { try PositionJournal.openDevice(path: dir.file("missing"), logger: quietLogger) }
        #expect(throws: PositionJournal.DeviceRefused.self) {
            try PositionJournal.openDevice(path: dir.path, logger: quietLogger)
        }
        // reads as zeros, swallows every record
        #expect(throws: PositionJournal.DeviceRefused.self) {
            try PositionJournal.openDevice(path: "/dev/zero", logger: quietLogger)
        }
    }

    /// A loop device stands in for a raw partition: each checkpoint costs it exactly its
    /// sector, and a mounted device is refused. Needs root and losetup.
    @Test(.enabled(if: LoopDevice.isUsable, "needs root, losetup and mkfs.ext4"))
    func onARawPartitionEachCheckpointCostsTheDeviceOneSector() throws {
        let dir = try TemporaryDirectory()
        writeFile(dir.file("part.img"), [UInt8](repeating: 0, count: 1 << 20))
        let loop = try LoopDevice(image: dir.file("part.img"))
        defer { loop.detach() }
        let journal = try PositionJournal.openDevice(path: loop.device, logger: quietLogger)
        try #require(journal.writesSectors)
        journal.write(trackID: 1, positionMs: 0)
        journal.sync()
        let before = try loop.bytesWritten()
        for second in 1...40 {
            journal.write(trackID: 1, positionMs: Int64(second) * 4000)
            journal.sync()
        }
        #expect(try loop.bytesWritten() - before == 40 * 512)
        #expect(journal.read() == .init(trackID: 1, positionMs: 160_000, sequence: 41))

        // the same device with a mounted file system on it
        let fs = dir.file("fs.img")
        writeFile(fs, [UInt8](repeating: 0, count: 8 << 20))
        #expect(try run(["mkfs.ext4", "-q", "-F", fs]).status == 0)
        let mountedLoop = try LoopDevice(image: fs)
        defer { mountedLoop.detach() }
        #expect(mkdir(dir.file("mnt"), 0o755) == 0)
        #expect(try run(["mount", mountedLoop.device, dir.file("mnt")]).status == 0)
        defer { _ = try? run(["umount", dir.file("mnt")]) }
        let error = #expect(throws: PositionJournal.DeviceRefused.self) {
            try PositionJournal.openDevice(path: mountedLoop.device, logger: quietLogger)
        }
        #expect(error?.description.contains("in use") == true)
    }

    /// The file beside the database on a journaled ext4 with 4 KiB blocks, as on a card: each
    /// checkpoint reaches the device as its sector, not as a whole block (a record that ends
    /// at the end of the file makes the kernel zero the rest of the block in the same write).
    @Test(.enabled(if: LoopDevice.isUsable, "needs root, losetup and mkfs.ext4"))
    func onExt4EachCheckpointReachesTheDeviceAsItsSector() throws {
        let dir = try TemporaryDirectory()
        let image = dir.file("fs.img")
        writeFile(image, [UInt8](repeating: 0, count: 16 << 20))
        #expect(try run(["mkfs.ext4", "-q", "-F", "-b", "4096", image]).status == 0)
        let loop = try LoopDevice(image: image)
        defer { loop.detach() }
        #expect(mkdir(dir.file("mnt"), 0o755) == 0)
        try #require(try run(["mount", "-o", "noatime,lazytime", loop.device, dir.file("mnt")]).status == 0)
        defer { _ = try? run(["umount", dir.file("mnt")]) }
        let journal = try #require(PositionJournal.open(databasePath: dir.file("mnt/db"), logger: quietLogger))
        try #require(journal.writesSectors)
        journal.write(trackID: 1, positionMs: 0)
        journal.sync()
        sync()
        let before = try loop.bytesWritten()
        for second in 1...40 {
            journal.write(trackID: 1, positionMs: Int64(second) * 4000)
            journal.sync()
        }
        // 40 sectors, and at most an ext4 journal commit of the inode; 40 blocks without the fix
        let written = try loop.bytesWritten() - before
        #expect(written < 40 * 4096 / 2, "\(written) bytes at the device for 40 checkpoints")
        #expect(journal.read() == .init(trackID: 1, positionMs: 160_000, sequence: 41))
    }

    private func writeBytes() throws -> Int {
        let text = String(decoding: try readWholeFile("/proc/thread-self/io", limit: 4096), as: UTF8.self)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("write_bytes:") })
        return try #require(Int(line.dropFirst("write_bytes:".count).trimmingPrefix(" ")))
    }

    @Test(arguments: [4, 8, 12, 20, 31, 36, 41, 44])
    func corruptRecordReadsAsNil(flippedByte: Int) throws {
        let dir = try TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.file("db"), logger: quietLogger))
        journal.write(trackID: 42, positionMs: 90_000)
        let fd = try FileDescriptor(path: journal.path, flags: O_RDWR)
        var byte: UInt8 = 0
        _ = try fd.read(into: &byte, count: 1, at: Int64(flippedByte))
        byte ^= 0x10
        try fd.writeAll(&byte, count: 1, at: Int64(flippedByte))
        #expect(journal.read() == nil)
    }

    @Test func shortOrForeignFileReadsAsNil() throws {
        let dir = try TemporaryDirectory()
        writeFile(dir.file("db-position"), [UInt8](repeating: 0, count: 20))
        let journal = try #require(PositionJournal.open(databasePath: dir.file("db"), logger: quietLogger))
        #expect(journal.read() == nil)
        writeFile(dir.file("db-position"), [UInt8](repeating: 0, count: 32))
        #expect(journal.read() == nil)
        // A fresh write after garbage starts the sequence again and reads back.
        #expect(journal.write(trackID: 1, positionMs: 2) == 1)
        #expect(journal.read()?.positionMs == 2)
    }

    /// The daemon resumes from the journal when its entry is at least as new as the database
    /// row's `journalSequence`; a journal found empty or damaged must continue after that
    /// sequence, or its new entries would look older than the row.
    @Test func sequencesGrowAndContinueAfterTheDatabaseRow() throws {
        let dir = try TemporaryDirectory()
        let journal = try #require(PositionJournal.open(databasePath: dir.file("db"), logger: quietLogger))
        let first = journal.write(trackID: 5, positionMs: 10_000)
        let committed = journal.write(trackID: 5, positionMs: 12_000)
        #expect(committed > first)
        journal.write(trackID: 5, positionMs: 14_000)  // then kill -9
        let found = try #require(journal.read())
        #expect(found.positionMs == 14_000 && found.sequence > committed)

        writeFile(journal.path, [UInt8](repeating: 0, count: 32))
        let reopened = try #require(PositionJournal.open(databasePath: dir.file("db"), logger: quietLogger))
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

/// A loop device over an image file (`losetup --find --show`).
struct LoopDevice {
    let device: String

    /// Root, the tools, and a loop device that really attaches (a container may have
    /// /dev/loop-control and still refuse): probed once with a small image.
    static let isUsable: Bool = {
        let tools = ["losetup", "mkfs.ext4", "mount"].allSatisfy { tool in
            ["/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"].contains { access($0 + tool, X_OK) == 0 }
        }
        guard geteuid() == 0, access("/dev/loop-control", W_OK) == 0, tools,
            let dir = try? TemporaryDirectory()
        else { return false }
        let image = dir.file("probe.img")
        writeFile(image, [UInt8](repeating: 0, count: 1 << 20))
        guard let probe = try? run(["losetup", "--find", "--show", image]), probe.status == 0,
            let device = probe.stdoutText.split(separator: "\n").first
        else { return false }
        _ = try? run(["losetup", "-d", String(device)])
        return true
    }()

    init(image: String) throws {
        let result = try run(["losetup", "--find", "--show", image])
        device = result.stdoutText.split(separator: "\n").first.map(String.init) ?? ""
        try #require(result.status == 0 && device.hasPrefix("/dev/loop"), "losetup: \(result.stderrText)")
    }

    /// Bytes the device was asked to write (field 7 of /sys/block/loopN/stat, in sectors).
    func bytesWritten() throws -> Int {
        let name = device.split(separator: "/").last.map(String.init) ?? device
        let text = String(decoding: try readWholeFile("/sys/block/\(name)/stat", limit: 4096), as: UTF8.self)
        let fields = text.split(separator: " ")
        return try #require(fields.count > 6 ? Int(fields[6]) : nil) * 512
    }

    func detach() { _ = try? run(["losetup", "-d", device]) }
}
