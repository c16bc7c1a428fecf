import Glibc

/// A failed system call: the errno value, the call that failed and, where one was involved,
/// the file or device it was about. Every `-1`/errno API in the wrappers throws this once.
public struct Errno: Error, Equatable, CustomStringConvertible, Sendable {
    public var code: Int32
    public var call: String
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

    public var message: String { String(cString: strerror(code)) }

    public var description: String {
        if let path { return "\(path): \(call) failed: \(message)" }
        return "\(call) failed: \(message)"
    }
}

/// Runs a system call, retrying while it is interrupted by a signal (EINTR).
@inlinable
public func retryingOnInterrupt<T: BinaryInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
