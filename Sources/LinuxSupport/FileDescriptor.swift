import CLinuxShims
import Glibc

/// An open file descriptor that closes itself when released. The one owner of the fd;
/// `rawValue` may be lent to C calls and to `poll`, never closed by anyone else. Its calls
/// go through `SystemCall`, with the path (or `fd N`) named in their errors.
public final class FileDescriptor: @unchecked Sendable {
    public let rawValue: Int32
    public let path: String?
    /// False for an inherited standard stream: not closed here, and EBADF on it is thrown,
    /// not trapped (the parent may have started us with it closed).
    private let owned: Bool

    /// Takes ownership of an fd that is already open.
    public init(owning rawValue: Int32, path: String? = nil) {
        precondition(rawValue >= 0, "invalid file descriptor")
        self.rawValue = rawValue
        self.path = path
        owned = true
    }

    private init(inherited rawValue: Int32, path: String) {
        self.rawValue = rawValue
        self.path = path
        owned = false
    }

    /// The standard streams, as inherited; never closed.
    public static let standardInput = FileDescriptor(inherited: STDIN_FILENO, path: "standard input")
    public static let standardOutput = FileDescriptor(inherited: STDOUT_FILENO, path: "standard output")
    public static let standardError = FileDescriptor(inherited: STDERR_FILENO, path: "standard error")

    /// O_DIRECT for this architecture (0o40000 on x86-64, 0o200000 on ARM).
    public static let directIO: Int32 = jb_o_direct_flag()

    /// Opens `path` (open(2)); flags are O_* values, O_CLOEXEC is always added.
    public convenience init(path: String, flags: Int32, mode: UInt32 = 0o644) throws(Errno) {
        let fd = try SystemCall.value("open", path) { jb_open(path, flags | O_CLOEXEC, mode) }
        self.init(owning: fd, path: path)
    }

    deinit { if owned { close(rawValue) } }

    /// What errors name: the path, or `fd N`.
    public var context: String { path ?? "fd \(rawValue)" }

    /// Runs a call on this descriptor through `SystemCall.value`.
    @inlinable
    public func call<T: BinaryInteger>(_ name: String, _ body: (Int32) -> T) throws(Errno) -> T {
        let fd = rawValue
        return try SystemCall.value(name, context, badDescriptorIsBug: isOwned) { body(fd) }
    }

    /// Runs a call on this (non-blocking) descriptor; nil when it would block.
    @inlinable
    public func callUnlessWouldBlock<T: BinaryInteger>(_ name: String, _ body: (Int32) -> T) throws(Errno) -> T? {
        let fd = rawValue
        return try SystemCall.valueUnlessWouldBlock(name, context, badDescriptorIsBug: isOwned) { body(fd) }
    }

    @usableFromInline var isOwned: Bool { owned }

    /// Reads up to `count` bytes; returns 0 at end of file.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(Errno) -> Int {
        try call("read") { Glibc.read($0, buffer, count) }
    }

    /// Reads at an absolute offset (pread).
    public func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws(Errno) -> Int {
        try call("pread") { pread($0, buffer, count, off_t(offset)) }
    }

    /// Reads from a non-blocking descriptor: the bytes read (0 at end of file), nil when
    /// nothing is there yet.
    public func readIfReady(into buffer: UnsafeMutableRawPointer, count: Int) throws(Errno) -> Int? {
        try callUnlessWouldBlock("read") { Glibc.read($0, buffer, count) }
    }

    /// Reads into the start of `buffer` (non-empty), as `readIfReady(into:count:)`.
    public func readIfReady(into buffer: inout [UInt8]) throws(Errno) -> Int? {
        let result = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(Errno) in try readIfReady(into: raw.baseAddress!, count: raw.count) }
        }
        return try result.get()
    }

    /// Reads what a non-blocking descriptor holds, up to `limit` bytes: nil when nothing is
    /// there yet, empty at end of file.
    public func readIfReady(upTo limit: Int) throws(Errno) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: limit)
        guard let n = try readIfReady(into: &bytes) else { return nil }
        bytes.removeLast(limit - n)
        return bytes
    }

    /// Writes what a non-blocking descriptor takes now: the bytes written, nil when it
    /// would block.
    public func writeIfReady(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int? {
        try callUnlessWouldBlock("write") { Glibc.write($0, bytes.baseAddress, bytes.count) }
    }

    /// Writes all of `count` bytes, continuing after short writes.
    public func writeAll(_ buffer: UnsafeRawPointer, count: Int) throws(Errno) {
        var done = 0
        while done < count {
            let offset = done
            done += try call("write") { Glibc.write($0, buffer + offset, count - offset) }
        }
    }

    /// Writes all bytes at an absolute offset (pwrite).
    public func writeAll(_ buffer: UnsafeRawPointer, count: Int, at offset: Int64) throws(Errno) {
        var done = 0
        while done < count {
            let written = done
            done += try call("pwrite") { pwrite($0, buffer + written, count - written, off_t(offset) + off_t(written)) }
        }
    }

    public func writeAll(_ bytes: [UInt8]) throws(Errno) {
        let result: Result<Void, Errno> = bytes.withUnsafeBytes { raw in
            Result { () throws(Errno) in try writeAll(raw.baseAddress!, count: raw.count) }
        }
        try result.get()
    }

    /// Flushes file data to the device (fdatasync).
    public func syncData() throws(Errno) {
        _ = try call("fdatasync") { fdatasync($0) }
    }

    /// Makes the names in the folder that holds `path` durable (fsync of the folder): after a
    /// file there was created or renamed into place, so that a power cut cannot take the name
    /// back while the data it points to survived.
    public static func syncFolder(containing path: String) throws(Errno) {
        var folder = path
        if let slash = folder.lastIndex(of: "/") {
            folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
        } else {
            folder = "."
        }
        let fd = try FileDescriptor(path: folder, flags: O_RDONLY | O_DIRECTORY)
        _ = try fd.call("fsync") { fsync($0) }
    }

    /// Bytes that can be read without blocking (FIONREAD): what a pipe or tty still holds.
    public func bytesReadable() throws(Errno) -> Int {
        Int(try call("ioctl(FIONREAD)") { jb_bytes_readable($0) })
    }

    public func setNonBlocking(_ on: Bool = true) throws(Errno) {
        _ = try call("fcntl(O_NONBLOCK)") { jb_set_nonblocking($0, on ? 1 : 0) }
    }

    /// Sets a pipe's or FIFO's capacity (F_SETPIPE_SZ); returns the capacity the kernel chose.
    @discardableResult
    public func setPipeCapacity(_ bytes: Int) throws(Errno) -> Int {
        Int(try call("fcntl(F_SETPIPE_SZ)") { jb_set_pipe_size($0, Int32(bytes)) })
    }

    /// A pipe's or FIFO's capacity (F_GETPIPE_SZ, 1032: Glibc's Swift module hides it).
    public func pipeCapacity() throws(Errno) -> Int {
        Int(try call("fcntl(F_GETPIPE_SZ)") { fcntl($0, 1032) })
    }

    /// A pipe (pipe2 with O_CLOEXEC): the read end and the write end.
    public static func pipe() throws(Errno) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        _ = try SystemCall.value("pipe2") { jb_pipe_cloexec(&ends) }
        return (FileDescriptor(owning: ends[0]), FileDescriptor(owning: ends[1]))
    }

    /// Sets the file's length (ftruncate).
    public func truncate(to length: Int) throws(Errno) {
        _ = try call("ftruncate") { ftruncate($0, off_t(length)) }
    }

    /// A second descriptor for the same open file (dup), closed on exec.
    public func duplicate() throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try call("fcntl(F_DUPFD_CLOEXEC)") { fcntl($0, F_DUPFD_CLOEXEC, 0) }, path: path)
    }
}

extension FileDescriptor {
    /// Reads until end of file, or until at least `limit` bytes were read.
    public func readToEnd(limit: Int = 64 << 20) throws(Errno) -> [UInt8] {
        var result: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 8)
        defer { chunk.deallocate() }
        while result.count < limit {
            let n = try read(into: chunk.baseAddress!, count: chunk.count)
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }
}

/// Reads a whole file (small files: configs, lyric files, tags).
public func readWholeFile(_ path: String, limit: Int = 64 << 20) throws(Errno) -> [UInt8] {
    try FileDescriptor(path: path, flags: O_RDONLY).readToEnd(limit: limit)
}
