import Glibc
import LinuxSupport

/// A pseudo-terminal pair: the test holds the master, the daemon opens `slavePath` as its
/// serial console.
public final class PseudoTerminal {
    private let device: FileDescriptor
    /// The master's descriptor, for `poll`.
    public var master: Int32 { device.rawValue }
    /// The slave's path (/dev/pts/N).
    public let slavePath: String
    private var buffer: [UInt8] = []

    /// Opens a new pair (the slave is opened by whoever uses `slavePath`).
    public init() throws(Errno) {
        (device, slavePath) = try FileDescriptor.openPseudoTerminal()
    }

    public func write(_ text: String) { writeBytes(Array(text.utf8)) }

    public func writeBytes(_ bytes: [UInt8]) {
        var offset = 0
        let end = deadline(after: .seconds(10))
        while offset < bytes.count, MonotonicClock.nanoseconds() < end {
            let written = bytes[offset...].withUnsafeBytes { try? device.writeIfReady($0) }
            if let n = written ?? nil, n > 0 {
                offset += n
            } else {
                _ = drain()
                MonotonicClock.sleep(nanoseconds: 1_000_000)  // the pty is full: let the reader catch up
            }
        }
    }

    /// Reads what is there (non-blocking) into the buffer; returns the number of bytes.
    @discardableResult
    public func drain() -> Int {
        var total = 0
        while let chunk = (try? device.readIfReady(upTo: 65536)) ?? nil, !chunk.isEmpty {
            buffer += chunk
            total += chunk.count
        }
        return total
    }

    /// Waits until the output so far contains `text`; returns everything up to and including
    /// it (and drops that from the buffer), or nil on timeout.
    public func waitFor(_ text: String, timeout: Duration = .seconds(5)) -> String? {
        let end = deadline(after: timeout)
        let needle = Array(text.utf8)
        while true {
            if let range = find(needle) {
                let found = String(decoding: buffer[..<range.upperBound], as: UTF8.self)
                buffer.removeFirst(range.upperBound)
                return found
            }
            guard MonotonicClock.nanoseconds() < end else { return nil }
            var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 20)
            drain()
        }
    }

    /// Forgets what was read so far.
    public func discard() {
        drain()
        buffer = []
    }

    private func find(_ needle: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty, buffer.count >= needle.count else { return nil }
        for start in 0...(buffer.count - needle.count) where buffer[start] == needle[0] {
            if Array(buffer[start..<start + needle.count]) == needle { return start..<start + needle.count }
        }
        return nil
    }
}
