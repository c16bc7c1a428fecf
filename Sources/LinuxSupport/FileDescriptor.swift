import CLinuxShims
import Glibc

/// An open file descriptor that closes itself when released. The one owner of the fd;
/// `rawValue` may be lent to C calls and to `poll`, never closed by anyone else.
public final class FileDescriptor: @unchecked Sendable {
    public let rawValue: Int32
    public let path: String?

    /// Takes ownership of an fd that is already open.
    public init(owning rawValue: Int32, path: String? = nil) {
        precondition(rawValue >= 0, "invalid file descriptor")
        self.rawValue = rawValue
        self.path = path
    }

    /// O_DIRECT for this architecture (0o40000 on x86-64, 0o200000 on ARM).
    public static let directIO: Int32 = jb_o_direct_flag()

    /// Opens `path` (open(2)); flags are O_* values, O_CLOEXEC is always added.
    public convenience init(path: String, flags: Int32, mode: UInt32 = 0o644) throws(Errno) {
        let fd = retryingOnInterrupt { jb_open(path, flags | O_CLOEXEC, mode) }
        if fd < 0 { throw Errno.current("open", path: path) }
        self.init(owning: fd, path: path)
    }

    deinit { close(rawValue) }

    /// Reads up to `count` bytes; returns 0 at end of file.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(Errno) -> Int {
        let n = retryingOnInterrupt { Glibc.read(rawValue, buffer, count) }
        if n < 0 { throw Errno.current("read", path: path) }
        return n
    }

    /// Reads at an absolute offset (pread).
    public func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws(Errno) -> Int {
        let n = retryingOnInterrupt { pread(rawValue, buffer, count, off_t(offset)) }
        if n < 0 { throw Errno.current("pread", path: path) }
        return n
    }

    /// Writes all of `count` bytes, continuing after short writes.
    public func writeAll(_ buffer: UnsafeRawPointer, count: Int) throws(Errno) {
        var done = 0
        while done < count {
            let n = retryingOnInterrupt { Glibc.write(rawValue, buffer + done, count - done) }
            if n < 0 { throw Errno.current("write", path: path) }
            done += n
        }
    }

    /// Writes all bytes at an absolute offset (pwrite).
    public func writeAll(_ buffer: UnsafeRawPointer, count: Int, at offset: Int64) throws(Errno) {
        var done = 0
        while done < count {
            let n = retryingOnInterrupt { pwrite(rawValue, buffer + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0 { throw Errno.current("pwrite", path: path) }
            done += n
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
        if retryingOnInterrupt({ fdatasync(rawValue) }) < 0 { throw Errno.current("fdatasync", path: path) }
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
        if retryingOnInterrupt({ fsync(fd.rawValue) }) < 0 { throw Errno.current("fsync", path: folder) }
    }

    /// Bytes that can be read without blocking (FIONREAD): what a pipe or tty still holds.
    public func bytesReadable() throws(Errno) -> Int {
        let n = jb_bytes_readable(rawValue)
        if n < 0 { throw Errno.current("ioctl(FIONREAD)", path: path) }
        return Int(n)
    }

    public func setNonBlocking(_ on: Bool = true) throws(Errno) {
        if jb_set_nonblocking(rawValue, on ? 1 : 0) < 0 { throw Errno.current("fcntl(O_NONBLOCK)", path: path) }
    }
}

/// Reads a whole file (small files: configs, lyric files, tags).
public func readWholeFile(_ path: String, limit: Int = 64 << 20) throws(Errno) -> [UInt8] {
    let fd = try FileDescriptor(path: path, flags: O_RDONLY)
    var result: [UInt8] = []
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 8)
    defer { chunk.deallocate() }
    while result.count < limit {
        let n = try fd.read(into: chunk.baseAddress!, count: chunk.count)
        if n == 0 { break }
        result.append(contentsOf: chunk[0..<n])
    }
    return result
}
