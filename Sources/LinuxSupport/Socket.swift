import CLinuxShims
import Glibc

/// Listening and connected stream sockets (the MPD front ends): non-blocking, close-on-exec.
extension FileDescriptor {
    /// A TCP socket listening on `address:port` ("any" or "*" for every IPv4 address, else
    /// an IPv4 or IPv6 literal; EINVAL for one that does not parse), with SO_REUSEADDR.
    public static func listenTCP(address: String, port: Int, backlog: Int32 = 16) throws(Errno) -> FileDescriptor {
        let fd = try SystemCall.value("bind", "\(address):\(port)") { jb_tcp_listen(address, Int32(port), backlog) }
        return FileDescriptor(owning: fd, path: "\(address):\(port)")
    }

    /// A Unix stream socket listening at `path` (a stale socket file there is removed first).
    public static func listenUnix(path: String, backlog: Int32 = 16) throws(Errno) -> FileDescriptor {
        let fd = try SystemCall.value("bind", path) { jb_unix_listen(path, backlog) }
        return FileDescriptor(owning: fd, path: path)
    }

    /// The local port a TCP socket is bound to (getsockname).
    public func localPort() throws(Errno) -> Int {
        Int(try call("getsockname") { jb_socket_port($0) })
    }

    /// The next waiting connection (accept4), or nil when none is waiting (or the one that
    /// was went away before it was accepted: ECONNABORTED).
    public func accept() throws(Errno) -> FileDescriptor? {
        do {
            guard let fd = try callUnlessWouldBlock("accept", { jb_accept($0) }) else { return nil }
            return FileDescriptor(owning: fd)
        } catch {
            if error.code == ECONNABORTED { return nil }
            throw error
        }
    }

    /// Sends what the socket takes now (MSG_DONTWAIT, no SIGPIPE): the bytes sent, nil when
    /// it would block.
    public func send(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int? {
        let sent: Int? = try callUnlessWouldBlock("send") { Int(jb_send($0, bytes.baseAddress, UInt(bytes.count))) }
        return sent
    }
}
