import Glibc

/// A failed system call: the errno value, the call that failed and, where one was involved,
/// the file, device or descriptor it was about. Every `-1`/errno API in the wrappers throws
/// this once, through `SystemCall`.
public struct Errno: Error, Equatable, CustomStringConvertible, Sendable {
    public var code: Int32
    public var call: String
    /// The file or device path, or `fd N` for a descriptor without one.
    public var path: String?

    public init(code: Int32, call: String, path: String? = nil) {
        self.code = code
        self.call = call
        self.path = path
    }

    /// The current thread's errno, for the call that just returned -1.
    public static func current(_ call: String, path: String? = nil) -> Errno {
        Errno(code: errno, call: call, path: path)
    }

    /// EAGAIN (the same value as EWOULDBLOCK on Linux): a non-blocking call had nothing to do.
    public var isWouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }

    public var message: String { String(cString: strerror(code)) }

    /// The call and the system's message, without the path: for a log line that names it.
    public var summary: String { "\(call) failed: \(message)" }

    public var description: String {
        if let path { return "\(path): \(summary)" }
        return summary
    }
}
