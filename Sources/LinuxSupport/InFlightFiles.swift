import CLinuxShims
import Glibc

/// The files the box is reading right now, one per thread that reads untrusted media (the
/// scan's probe, the decoder, the control loop's lyrics and cover reads), kept in a small
/// shared mapping of a file beside the database. A write is a memcpy into the page cache, so it
/// costs no system call and survives the process dying at any instruction. A crash signal (a
/// trap, a bad access, abort(), the watchdog's SIGABRT) marks the record as crashed
/// (`markCrashes`): the next start finds the paths that were being read and skips them
/// instead of crashing on them again at every start. A power cut or a kill -9 is no crash:
/// nothing is held against the files then (the boot id also tells a reboot apart).
public final class InFlightFiles: @unchecked Sendable {
    /// Who was reading: each slot has one writer thread.
    public enum Reader: Int, CaseIterable, Sendable {
        case scan = 0
        case decode = 1
        case control = 2

        var offset: Int { Layout.header + rawValue * Layout.slot }
    }

    /// A file that was being read when the previous run of the daemon died.
    public struct Suspect: Equatable, Sendable {
        public var path: String
        public var reader: Reader

        public init(path: String, reader: Reader) {
            self.path = path
            self.reader = reader
        }
    }

    private enum Layout {
        static let magic: [UInt8] = Array("JBIF".utf8)
        static let stateOffset = 4
        static let bootOffset = 8
        static let bootLength = 40
        static let header = 64
        /// A path's length (2 bytes) and its bytes; longer paths are cut (and so never match).
        static let slot = 1344
        static let size = header + 3 * slot
    }

    private enum State: UInt8 {
        case running = 1
        case stopped = 2
        case crashed = 3
    }

    public let path: String
    private let memory: UnsafeMutableRawPointer
    /// What the previous run left: the files it was reading when it crashed (empty after a
    /// clean stop, a kill -9, a reboot or a first start).
    public let suspects: [Suspect]

    /// Opens (or creates) the file at `path`, reads what the previous run left in it and marks
    /// this run as running.
    public init(path: String, bootID: String? = InFlightFiles.currentBootID()) throws(Errno) {
        let file = try FileDescriptor(path: path, flags: O_RDWR | O_CREAT, mode: 0o644)
        let size = try file.call("fstat") { fd -> Int in
            var info = stat()
            return fstat(fd, &info) == 0 ? Int(info.st_size) : -1
        }
        if size != Layout.size { try file.truncate(to: Layout.size) }
        memory = try file.mapShared(length: Layout.size)
        self.path = path
        let previous = Self.read(memory, bootID: bootID)
        suspects = previous
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: Layout.size)
        Layout.magic.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: 4) }
        let boot = Array((bootID ?? "").utf8.prefix(Layout.bootLength))
        boot.withUnsafeBytes { (memory + Layout.bootOffset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        memory.storeBytes(of: State.running.rawValue, toByteOffset: Layout.stateOffset, as: UInt8.self)
    }

    deinit { munmap(memory, Layout.size) }

    /// What a reader says of a file it skips as a suspect.
    public static let skipReason =
        "skipped: the box's previous start stopped abnormally while reading this file"

    /// Whether `file` was being read when the previous run died.
    public func isSuspect(_ file: String) -> Bool { suspects.contains { $0.path == file } }

    /// Notes that `reader` starts reading `file` (nil: it reads nothing now). Writes only what
    /// changed: a store dirties the page, and a dirty page is written back to the card (once
    /// per track, not at every read of jb-decode, which names its file at every read).
    public func note(_ reader: Reader, _ file: String?) {
        let slot = memory + reader.offset
        let length = Int(slot.loadUnaligned(as: UInt16.self))
        guard var file else {
            if length != 0 { slot.storeBytes(of: UInt16(0), as: UInt16.self) }
            return
        }
        // In place, without a copy on the heap.
        file.withUTF8 { bytes in
            let count = min(bytes.count, Layout.slot - 2)
            if count == length, count > 0, memcmp(slot + 2, bytes.baseAddress!, count) == 0 { return }
            // The length last, so that a death mid-copy leaves no half path behind.
            slot.storeBytes(of: UInt16(0), as: UInt16.self)
            if count > 0 { (slot + 2).copyMemory(from: bytes.baseAddress!, byteCount: count) }
            slot.storeBytes(of: UInt16(count), as: UInt16.self)
        }
    }

    /// From now on a crash signal marks the record as crashed (then the handler that was there
    /// before, the Swift runtime's backtracer or the default, handles it). For the process's
    /// one record: the handler keeps writing into this mapping.
    public func markCrashes() throws(Errno) {
        let state = (memory + Layout.stateOffset).assumingMemoryBound(to: UInt8.self)
        _ = try SystemCall.value("sigaction", path) { jb_mark_on_crash(state, State.crashed.rawValue) }
    }

    /// What the crash handler stores, for a record written by hand (the tests' stand-in for a
    /// crash).
    public func markCrashed() {
        memory.storeBytes(of: State.crashed.rawValue, toByteOffset: Layout.stateOffset, as: UInt8.self)
    }

    /// A clean stop: the next start holds nothing against the files noted.
    public func markStopped() {
        memory.storeBytes(of: State.stopped.rawValue, toByteOffset: Layout.stateOffset, as: UInt8.self)
    }

    /// The suspects left in a mapping written by an earlier run: none unless that run crashed
    /// in this boot.
    private static func read(_ memory: UnsafeMutableRawPointer, bootID: String?) -> [Suspect] {
        let bytes = UnsafeRawBufferPointer(start: memory, count: Layout.size)
        guard Array(bytes[0..<4]) == Layout.magic, bytes[Layout.stateOffset] == State.crashed.rawValue,
            let bootID, !bootID.isEmpty
        else { return [] }
        let boot = Array(bytes[Layout.bootOffset..<Layout.bootOffset + Layout.bootLength]).prefix { $0 != 0 }
        guard Array(boot) == Array(bootID.utf8.prefix(Layout.bootLength)) else { return [] }
        return Reader.allCases.compactMap { reader in
            let start = reader.offset
            let length = Int(UInt16(bytes[start]) | UInt16(bytes[start + 1]) << 8)
            guard length > 0, length <= Layout.slot - 2 else { return nil }
            return Suspect(path: String(decoding: bytes[start + 2..<start + 2 + length], as: UTF8.self), reader: reader)
        }
    }

    /// This boot's id (/proc/sys/kernel/random/boot_id); nil when it cannot be read.
    public static func currentBootID() -> String? {
        guard let file = try? FileDescriptor(path: "/proc/sys/kernel/random/boot_id", flags: O_RDONLY) else {
            return nil
        }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { (try? file.read(into: $0.baseAddress!, count: 64)) ?? 0 }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self).trimmingSuffix { $0 == "\n" }
        return text.isEmpty ? nil : text
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return String(self[..<end])
    }
}
