import Glibc
import JukeboxCore
import LinuxSupport
import Logging

/// The playing position between durable SQLite commits: a side file `<database>-position`
/// holding one fixed 72-byte record, rewritten in place with `pwrite` at offset 0 and never
/// fsync'd. A `kill -9` or a crash loses nothing (the data is in the page cache); a power
/// cut may lose it, and then the last durable commit in SQLite is the fallback.
///
/// Record (little-endian): `0..<4` magic "JBP4", `4..<8` CRC-32 (IEEE) of bytes `8..<72`,
/// `8..<16` track id, `16..<24` position in ms, `24..<32` sequence number, `32..<40` volume
/// (percent), `40..<44` queue index (-1: none), `44..<48` flags (bit 0: playing, bit 1:
/// written in place of the checkpoint device, `JournalRecord.inPlaceOfDevice`), `48..<72`
/// the track's seek hint: MPEG frame (0: none), byte offset, file size. The queue index lets
/// a skip or a track change be saved here alone, without a database transaction; the flag
/// tells a restart after a power cut that the position had moved on since; the hint lets it
/// start reading a long MP3 near the position instead of at its first frame.
/// Version 3 ("JBP3", 48 bytes, no hint), version 2 ("JBP2", 40 bytes, no queue index or
/// flags either) and version 1 ("JBPJ", 32 bytes, no volume either) records are still read.
///
/// `direct` (the journal on the SD card, fdatasync'd every `sync_interval_s`): the record is
/// written with O_DIRECT as one 512-byte sector (4 KiB where the device needs it), not the
/// 4 KiB page the page cache would write back. On ext4 each write still makes the journal log
/// the file's inode (mtime) at its next commit; `openDevice` puts the record on a raw
/// partition instead (docs/design/STORE.md, "Persistence policy"). Where O_DIRECT is refused
/// (tmpfs, some FUSE file systems) it writes through the page cache.
///
/// Used by the control thread only.
public final class PositionJournal {
    /// What the journal last recorded (the core decides what goes in it).
    public typealias Entry = JournalRecord

    /// The file name suffix after the database path.
    public static let suffix = "-position"
    static let recordSize = 72
    static let magic: [UInt8] = Array("JBP4".utf8)
    /// Every record version this reads, by magic: its size (what it holds is nested: each
    /// version appends fields to the one before).
    static let versions: [(magic: [UInt8], size: Int)] = [
        (magic, recordSize), (Array("JBP3".utf8), version3Size), (Array("JBP2".utf8), version2Size),
        (Array("JBPJ".utf8), 32),
    ]
    /// A journal file's length: one 4 KiB file system block.
    static let fileSize = 4096
    static let version3Size = 48
    static let version2Size = 40

    /// The journal file.
    public let path: String
    private let file: FileDescriptor
    /// The O_DIRECT descriptor and its sector-aligned buffer, when `direct` works here.
    private var directFile: FileDescriptor?
    private var directBlock = 512
    private let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 4096)
    private let logger: Logger
    private var sequence: UInt64
    private var writeFailing = false
    private var syncFailing = false

    /// Opens (creating) `<databasePath>-position`. Never fails the daemon: on error it logs
    /// one line and returns nil, and the daemon carries on with SQLite checkpoints only.
    public static func open(databasePath: String, logger: Logger) -> PositionJournal? {
        let path = databasePath + suffix
        do {
            return try PositionJournal(path: path, logger: logger, direct: true)
        } catch {
            logger.info("position journal unavailable, resuming from database checkpoints only: \(error)")
            return nil
        }
    }

    /// Why a configured checkpoint device was not used.
    public struct DeviceRefused: Error, CustomStringConvertible {
        public var description: String
    }

    /// Opens an existing device of its own for the journal: a raw partition (or a plain file).
    /// The record goes at offset 0, so the first 4 KiB must be zeros or hold a
    /// journal record and zeros: that refuses a partition table, a file system or a swap
    /// header, and a block device that is mounted or otherwise in use (O_EXCL: EBUSY).
    public static func openDevice(path: String, logger: Logger) throws -> PositionJournal {
        let info = try FileSystem.status(path)
        if info.st_mode & S_IFMT == S_IFBLK {
            do {
                _ = try FileDescriptor(path: path, flags: O_RDONLY | O_EXCL)
            } catch {
                if error.code == EBUSY {
                    throw DeviceRefused(
                        description: "\(path) is in use (mounted, swap or a holder); refusing to write to it")
                }
                throw error
            }
        } else if info.st_mode & S_IFMT != S_IFREG {
            // a character device (/dev/zero would swallow every record), a FIFO, a directory
            throw DeviceRefused(description: "\(path) is not a block device or a file")
        }
        let head = try FileDescriptor(path: path, flags: O_RDONLY)
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = try bytes.withUnsafeMutableBytes { try head.read(into: $0.baseAddress!, count: 4096, at: 0) }
        let isZero = bytes[0..<count].allSatisfy { $0 == 0 }
        let holdsRecord =
            decode(Array(bytes.prefix(recordSize))) != nil && bytes[512..<max(512, count)].allSatisfy { $0 == 0 }
        guard isZero || holdsRecord else {
            throw DeviceRefused(
                description: "\(path) holds other data in its first 4 KiB (a file system, a partition table?); "
                    + "if it is meant for the checkpoint, clear it first: dd if=/dev/zero of=\(path) bs=4096 count=1")
        }
        return try PositionJournal(path: path, logger: logger, direct: true, create: false)
    }

    /// Opens (creating) the journal at `path`; `direct` writes whole sectors with O_DIRECT.
    public init(path: String, logger: Logger, direct: Bool = false, create: Bool = true) throws(Errno) {
        self.path = path
        self.logger = logger
        let existed = FileSystem.exists(path)
        self.file = try FileDescriptor(path: path, flags: O_RDWR | (create ? O_CREAT : 0), mode: 0o644)
        // A new journal's name must outlive a power cut as its sectors will.
        if !existed { try? FileDescriptor.syncFolder(containing: path) }
        block.initializeMemory(as: UInt8.self, repeating: 0)
        self.sequence = 0
        self.sequence = read()?.sequence ?? 0
        if direct {
            // A record ending at the end of the file makes the kernel zero the rest of its file
            // system block with it (iomap's tail zeroing past EOF): 4 KiB per checkpoint instead
            // of the sector. A file one block long keeps each write to its sector.
            if let info = try? FileSystem.status(path), info.st_mode & S_IFMT == S_IFREG,
                info.st_size < Self.fileSize
            {
                try? file.truncate(to: Self.fileSize)
            }
            do {
                directFile = try FileDescriptor(path: path, flags: O_RDWR | FileDescriptor.directIO)
            } catch {
                logger.debug("position journal: no O_DIRECT on \(path) (\(error)); writing through the page cache")
            }
        }
    }

    deinit { block.deallocate() }

    /// Whether records go to the device as single sectors (O_DIRECT).
    public var writesSectors: Bool { directFile != nil }

    /// The last record, or nil when the file is missing, short, or fails its checksum.
    public func read() -> Entry? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.recordSize, alignment: 8)
        defer { buffer.deallocate() }
        guard let count = try? file.read(into: buffer.baseAddress!, count: Self.recordSize, at: 0) else { return nil }
        return Self.decode(Array(buffer.prefix(count)))
    }

    /// The sequence number of the last record read or written.
    public var lastSequence: UInt64 { sequence }

    /// Makes the next write's sequence exceed `sequence`. Call at start-up with the loaded
    /// `PlaybackRecord.journalSequence`: after a power cut the file may hold an older record
    /// than the database, and new writes must still compare as newer than the database.
    public func continueAfter(_ sequence: UInt64) {
        self.sequence = max(self.sequence, sequence)
    }

    /// Records the position; returns the sequence number written (0 if the write failed,
    /// which is logged once until a write succeeds again).
    @discardableResult
    public func write(trackID: Int64, positionMs: Int64, volume: Int? = nil) -> UInt64 {
        write(Entry(trackID: trackID, positionMs: positionMs, sequence: sequence + 1, volume: volume))
    }

    /// Records `entry` (its sequence number is the caller's); returns the sequence, or 0 if
    /// the write failed.
    @discardableResult
    public func write(_ entry: Entry) -> UInt64 {
        let sequence = entry.sequence
        self.sequence = sequence
        let bytes = Self.encode(entry)
        block.copyBytes(from: bytes)
        do {
            if let directFile {
                do {
                    try directFile.writeAll(block.baseAddress!, count: directBlock, at: 0)
                } catch let error where error.code == EINVAL && directBlock < block.count {
                    directBlock = block.count  // a device with 4 KiB logical sectors
                    try directFile.writeAll(block.baseAddress!, count: directBlock, at: 0)
                }
            } else {
                try file.writeAll(block.baseAddress!, count: Self.recordSize, at: 0)
            }
            writeFailing = false
            return sequence
        } catch {
            if !writeFailing { logger.info("position journal write failed: \(error)") }
            writeFailing = true
            return 0
        }
    }

    /// Makes the last record durable (fdatasync of one block): the periodic power-cut
    /// checkpoint while playing, far cheaper than a database transaction. Returns whether it
    /// succeeded.
    @discardableResult
    public func sync() -> Bool {
        do {
            try (directFile ?? file).syncData()
            syncFailing = false
            return true
        } catch {
            if !writeFailing && !syncFailing { logger.info("position journal sync failed: \(error)") }
            syncFailing = true
            return false
        }
    }

    static func encode(_ entry: Entry) -> [UInt8] {
        var bytes = magic + [0, 0, 0, 0]
        appendLittleEndian(UInt64(bitPattern: entry.trackID), to: &bytes)
        appendLittleEndian(UInt64(bitPattern: entry.positionMs), to: &bytes)
        appendLittleEndian(entry.sequence, to: &bytes)
        // -1: not recorded.
        appendLittleEndian(UInt64(bitPattern: Int64(entry.volume ?? -1)), to: &bytes)
        let index = UInt32(bitPattern: entry.queueIndex.flatMap { Int32(exactly: $0) } ?? -1)
        let flags: UInt32 = (entry.playing ? 1 : 0) | (entry.inPlaceOfDevice ? 2 : 0)
        appendLittleEndian(UInt64(index) | UInt64(flags) << 32, to: &bytes)
        let hint = entry.seekHint.flatMap { $0.mpegFrame > 0 ? $0 : nil }
        appendLittleEndian(UInt64(bitPattern: hint?.mpegFrame ?? 0), to: &bytes)
        appendLittleEndian(UInt64(bitPattern: hint?.byteOffset ?? 0), to: &bytes)
        appendLittleEndian(UInt64(bitPattern: hint?.fileSize ?? 0), to: &bytes)
        let crc = CRC32.checksum(bytes[8..<recordSize])
        for index in 0..<4 { bytes[4 + index] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * index)) }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> Entry? {
        guard bytes.count >= 4,
            let size = versions.first(where: { bytes.count >= $0.size && bytes[0..<4].elementsEqual($0.magic) })?.size
        else { return nil }
        var stored: UInt32 = 0
        for index in 0..<4 { stored |= UInt32(bytes[4 + index]) << UInt32(8 * index) }
        guard stored == CRC32.checksum(bytes[8..<size]) else { return nil }
        func word(_ offset: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[offset + index]) << UInt64(8 * index) }
            return value
        }
        var volume: Int?
        if size >= version2Size {
            let raw = Int64(bitPattern: word(32))
            volume = (0...100).contains(raw) ? Int(raw) : nil
        }
        var queueIndex: Int?
        var playing = false
        var inPlaceOfDevice = false
        if size >= version3Size {
            let raw = word(40)
            let index = Int32(bitPattern: UInt32(truncatingIfNeeded: raw))
            queueIndex = index >= 0 ? Int(index) : nil
            playing = (raw >> 32) & 1 == 1
            inPlaceOfDevice = (raw >> 33) & 1 == 1
        }
        var seekHint: SeekHint?
        if size >= recordSize, Int64(bitPattern: word(48)) > 0 {
            seekHint = SeekHint(
                mpegFrame: Int64(bitPattern: word(48)), byteOffset: Int64(bitPattern: word(56)),
                fileSize: Int64(bitPattern: word(64)))
        }
        return Entry(
            trackID: Int64(bitPattern: word(8)), positionMs: Int64(bitPattern: word(16)), sequence: word(24),
            volume: volume, queueIndex: queueIndex, playing: playing, seekHint: seekHint,
            inPlaceOfDevice: inPlaceOfDevice)
    }

    private static func appendLittleEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index))) }
    }
}

/// CRC-32 as in zlib/PNG (IEEE 802.3, reflected polynomial 0xEDB88320).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
