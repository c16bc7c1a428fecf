import Foundation
import Glibc
import LinuxSupport

/// A TCP relay in front of an MPD server that counts the command lines clients send through
/// it, with their arrival times: the same measurement for jukeboxd and for MPD, so a client's
/// command rate against one is compared with its rate against the other.
final class CommandCounter: @unchecked Sendable {
    /// The port clients connect to.
    let port: Int
    private let target: Int
    private let listener: Int32
    private let lock = NSLock()
    private var arrivals: [UInt64] = []
    private var stopping = false
    private var thread: Thread?

    /// Relays 127.0.0.1:`port` (a free port) to 127.0.0.1:`target`.
    init(target: Int) throws {
        self.target = target
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        guard listener >= 0 else { throw Errno.current("socket") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 8) == 0 else {
            let error = Errno.current("bind/listen")
            close(listener)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [unowned self] in relay() }
        self.thread = thread
        thread.start()
    }

    deinit {
        lock.withLock { stopping = true }
        while thread?.isFinished == false { usleep(10_000) }
        close(listener)
    }

    /// Command lines received since `start` (MonotonicClock nanoseconds).
    func commands(since start: UInt64) -> Int {
        lock.withLock { arrivals.filter { $0 >= start }.count }
    }

    /// Every command line received so far.
    var total: Int { lock.withLock { arrivals.count } }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func connectToTarget() -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: target)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        if connected { return fd }
        close(fd)
        return nil
    }

    /// The relay loop: accepts clients, and copies bytes both ways until either side closes.
    private func relay() {
        var pairs: [(client: Int32, server: Int32)] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !lock.withLock({ stopping }) {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            for pair in pairs {
                fds.append(pollfd(fd: pair.client, events: Int16(POLLIN), revents: 0))
                fds.append(pollfd(fd: pair.server, events: Int16(POLLIN), revents: 0))
            }
            guard poll(&fds, nfds_t(fds.count), 50) > 0 else { continue }
            var closed: Set<Int> = []
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                if index == 0 {
                    let client = accept(listener, nil, nil)
                    if client >= 0 {
                        if let server = connectToTarget() { pairs.append((client, server)) } else { close(client) }
                    }
                    continue
                }
                let pairIndex = (index - 1) / 2
                let fromClient = (index - 1) % 2 == 0
                let pair = pairs[pairIndex]
                let n = buffer.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else {
                    closed.insert(pairIndex)
                    continue
                }
                if fromClient {
                    let now = MonotonicClock.nanoseconds()
                    let lines = buffer[0..<n].filter { $0 == 0x0A }.count
                    lock.withLock { arrivals += Array(repeating: now, count: lines) }
                }
                let destination = fromClient ? pair.server : pair.client
                var offset = 0
                while offset < n {
                    let sent = buffer[offset..<n].withUnsafeBytes {
                        send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                    }
                    if sent <= 0 {
                        closed.insert(pairIndex)
                        break
                    }
                    offset += sent
                }
            }
            for index in closed.sorted(by: >) {
                close(pairs[index].client)
                close(pairs[index].server)
                pairs.remove(at: index)
            }
        }
        for pair in pairs {
            close(pair.client)
            close(pair.server)
        }
    }
}
