import Glibc

/// The one place that turns a raw C call's failure into Swift: EINTR is retried here, EBADF
/// and EFAULT stop the process (a closed or wrong descriptor, or a bad pointer, is a bug in
/// this program, not a condition to handle), and any other errno is thrown as `Errno`
/// naming the call and what it was about. The daemon, the adapters and the test support
/// call the typed wrappers built on this and never read errno.
public enum SystemCall {
    /// Runs `body`, a call returning -1 and setting errno on failure, until it is not
    /// interrupted. `context` is the path, device or `fd N` named in the error.
    /// `badDescriptorIsBug: false` is for descriptors this process inherited (the standard
    /// streams), which the parent may have closed.
    @inlinable
    public static func value<T: BinaryInteger>(
        _ call: String, _ context: @autoclosure () -> String? = nil, badDescriptorIsBug: Bool = true,
        _ body: () -> T
    ) throws(Errno) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw failure(code, call, context(), badDescriptorIsBug: badDescriptorIsBug)
        }
    }

    /// As `value`, for a non-blocking descriptor: nil when the call would block (EAGAIN).
    @inlinable
    public static func valueUnlessWouldBlock<T: BinaryInteger>(
        _ call: String, _ context: @autoclosure () -> String? = nil, badDescriptorIsBug: Bool = true,
        _ body: () -> T
    ) throws(Errno) -> T? {
        do {
            return try value(call, context(), badDescriptorIsBug: badDescriptorIsBug, body)
        } catch {
            if error.isWouldBlock { return nil }
            throw error
        }
    }

    /// Runs `body`, a call returning nil (or MAP_FAILED, mapped to nil by the caller) and
    /// setting errno on failure, until it is not interrupted.
    @inlinable
    public static func nonNil<T>(
        _ call: String, _ context: @autoclosure () -> String? = nil, _ body: () -> T?
    ) throws(Errno) -> T {
        while true {
            if let result = body() { return result }
            let code = errno
            if code == EINTR { continue }
            throw failure(code, call, context(), badDescriptorIsBug: true)
        }
    }

    /// Runs `body`, a call returning 0 or an errno value (pthread_*, posix_spawn).
    @inlinable
    public static func code(
        _ call: String, _ context: @autoclosure () -> String? = nil, _ body: () -> Int32
    ) throws(Errno) {
        while true {
            let code = body()
            if code == 0 { return }
            if code == EINTR { continue }
            throw failure(code, call, context(), badDescriptorIsBug: true)
        }
    }

    /// The error for `code`; traps for EFAULT, and for EBADF unless the descriptor was inherited.
    @usableFromInline
    static func failure(_ code: Int32, _ call: String, _ context: String?, badDescriptorIsBug: Bool) -> Errno {
        let error = Errno(code: code, call: call, path: context)
        if code == EFAULT || (code == EBADF && badDescriptorIsBug) {
            preconditionFailure("\(error) (a closed or wrong descriptor, or a bad pointer: a bug in jukebox)")
        }
        return error
    }
}
