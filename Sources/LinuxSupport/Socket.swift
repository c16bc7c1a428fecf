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

    /// Whether the connected peer is on this machine: a Unix socket, or a TCP peer on a
    /// loopback address (getpeername). What only the box itself may ask (`restart`) depends on it.
    public func isLocalPeer() throws(Errno) -> Bool {
        try call("getpeername") { jb_peer_is_local($0) } == 1
    }

    /// Sends what the socket takes now (MSG_DONTWAIT, no SIGPIPE): the bytes sent, nil when
    /// it would block.
    public func send(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int? {
        let sent: Int? = try callUnlessWouldBlock("send") { Int(jb_send($0, bytes.baseAddress, UInt(bytes.count))) }
        return sent
    }
}

/// Connected client sockets (jukebox-mqtt's link to the daemon): blocking, close-on-exec.
extension FileDescriptor {
    /// A stream socket connected to the Unix socket at `path`.
    public static func connectUnix(path: String) throws(Errno) -> FileDescriptor {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw Errno(code: ENAMETOOLONG, call: "connect", path: path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = FileDescriptor(
            owning: try SystemCall.value("socket", path) {
                socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            },
            path: path)
        _ = try SystemCall.value("connect", path) {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        return fd
    }

    /// A TCP socket connected to `host:port` (a name or an IPv4/IPv6 literal; the first
    /// address that answers), with TCP_NODELAY.
    public static func connectTCP(host: String, port: Int) throws(Errno) -> FileDescriptor {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, "\(port)", &hints, &list) == 0, let first = list else {
            throw Errno(code: EHOSTUNREACH, call: "getaddrinfo", path: host)
        }
        defer { freeaddrinfo(list) }
        var lastError = Errno(code: ECONNREFUSED, call: "connect", path: "\(host):\(port)")
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let raw = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard raw >= 0 else { continue }
            let fd = FileDescriptor(owning: raw, path: "\(host):\(port)")
            if Glibc.connect(raw, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                var one: Int32 = 1
                _ = setsockopt(raw, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(4))
                return fd
            }
            lastError = Errno.current("connect", path: "\(host):\(port)")
        }
        throw lastError
    }

    /// Makes a blocking read or write that waits longer than `seconds` fail with EAGAIN.
    public func setTimeouts(seconds: Int) throws(Errno) {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            _ = try call("setsockopt") {
                setsockopt($0, SOL_SOCKET, option, &limit, socklen_t(MemoryLayout<timeval>.size))
            }
        }
    }
}
