import CLinuxShims
import Glibc

/// systemd's notification protocol (sd_notify), spoken directly: one datagram per state
/// ("READY=1", "WATCHDOG=1", "STOPPING=1") to the Unix socket systemd names in
/// $NOTIFY_SOCKET for a `Type=notify` service. libsystemd is not needed for that, and a board
/// without systemd (or a run from a shell) has no $NOTIFY_SOCKET and so no notifier.
public struct ServiceNotifier: Sendable {
    /// The socket's path; a leading '@' is an abstract socket.
    public let socketPath: String
    /// How often systemd wants "WATCHDOG=1" at the latest (`WatchdogSec=`), when it watches
    /// this process.
    public let watchdogNanoseconds: UInt64?

    /// From the values systemd sets: `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` (the
    /// watchdog is for `pid` only when WATCHDOG_PID names it or is absent). Nil without a socket.
    public init?(notifySocket: String?, watchdogMicroseconds: String?, watchdogPid: String?, pid: Int32) {
        guard let notifySocket, notifySocket.hasPrefix("/") || notifySocket.hasPrefix("@") else { return nil }
        socketPath = notifySocket
        let forThisProcess = watchdogPid.map { Int32($0) == pid } ?? true
        if forThisProcess, let usec = watchdogMicroseconds.flatMap({ UInt64($0) }), usec > 0 {
            watchdogNanoseconds = usec * 1000
        } else {
            watchdogNanoseconds = nil
        }
    }

    /// The notifier systemd asked for through this process's environment, if any.
    public static func fromEnvironment() -> ServiceNotifier? {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        return ServiceNotifier(
            notifySocket: variable("NOTIFY_SOCKET"), watchdogMicroseconds: variable("WATCHDOG_USEC"),
            watchdogPid: variable("WATCHDOG_PID"), pid: getpid())
    }

    /// Sends `state` (newline-separated `KEY=VALUE` lines) as one datagram.
    public func send(_ state: String) throws(Errno) {
        let bytes = Array(state.utf8)
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(Errno) in
                try SystemCall.value("sendto", socketPath) {
                    jb_unix_datagram_send(socketPath, buffer.baseAddress, UInt(buffer.count))
                }
            }
        }
        _ = try result.get()
    }

}
