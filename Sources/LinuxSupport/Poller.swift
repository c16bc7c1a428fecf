import CLinuxShims
import Glibc

/// An eventfd that another thread writes to wake a `poll` loop (NIO's wakeup fd).
public final class WakeupEvent: @unchecked Sendable {
    public let fd: FileDescriptor

    public init() throws(Errno) {
        fd = FileDescriptor(owning: try SystemCall.value("eventfd") { jb_eventfd() }, path: "eventfd")
    }

    /// Wakes the poller. Safe from any thread, the audio threads included: one 8-byte write,
    /// no allocation, nothing to report (an eventfd write fails only when the counter would
    /// overflow, and then a wakeup is pending anyway).
    public func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(fd.rawValue, &one, 8)
    }

    /// Clears pending wakeups; call from the polling thread after it woke.
    public func drain() {
        var value: UInt64 = 0
        _ = try? fd.callUnlessWouldBlock("read") { Glibc.read($0, &value, 8) }
    }
}

/// One `poll(2)` call over a set of fds. The control loop builds the list each turn.
public enum Poller {
    public struct Interest: Sendable {
        public var fd: Int32
        public var readable: Bool
        public var writable: Bool
        public init(fd: Int32, readable: Bool = true, writable: Bool = false) {
            self.fd = fd
            self.readable = readable
            self.writable = writable
        }
    }

    public struct Readiness: Sendable {
        public var fd: Int32
        public var readable: Bool
        public var writable: Bool
        public var hangup: Bool
        public var error: Bool
    }

    /// Waits until an fd is ready or `timeoutMilliseconds` passes (-1 waits forever). A wait
    /// interrupted by a signal starts again with the whole timeout (the daemon takes its
    /// signals through a signalfd: only a stop and continue or a debugger interrupt it).
    public static func wait(_ interests: [Interest], timeoutMilliseconds: Int32) throws(Errno) -> [Readiness] {
        var fds = interests.map { interest in
            var events: Int16 = 0
            if interest.readable { events |= Int16(POLLIN) }
            if interest.writable { events |= Int16(POLLOUT) }
            return pollfd(fd: interest.fd, events: events, revents: 0)
        }
        _ = try SystemCall.value("poll") { poll(&fds, nfds_t(fds.count), timeoutMilliseconds) }
        return fds.compactMap { p in
            guard p.revents != 0 else { return nil }
            return Readiness(
                fd: p.fd,
                readable: p.revents & Int16(POLLIN) != 0,
                writable: p.revents & Int16(POLLOUT) != 0,
                hangup: p.revents & Int16(POLLHUP) != 0,
                error: p.revents & Int16(POLLERR | POLLNVAL) != 0)
        }
    }
}
