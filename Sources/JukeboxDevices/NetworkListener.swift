import Glibc
import JukeboxCore
import LinuxSupport
import Logging
import MPDProtocol

/// The MPD listeners (TCP and an optional Unix socket) and their clients, served from the
/// control loop's poll. Limits follow MPD's defaults: lines up to 4 KiB (a longer one closes
/// the connection), 8 MiB of unsent output, `max_connections` clients, and 60 s for a client
/// that neither sends nor waits in `idle`. A reply that lists library songs (`listallinfo`,
/// `find`, `search`) is made as the socket takes it, `pendingTarget` bytes ahead, so it has
/// no size limit (MPD closes at 8 MiB) and costs no memory. Used on the control thread only.
public final class NetworkListener {
    static let maximumOutputBytes = 8 << 20
    /// How much of a streamed reply is made ahead of the socket.
    static let pendingTarget = 65536
    static let idleTimeoutNanoseconds: UInt64 = 60_000_000_000

    private let logger: Logger
    private let password: String?
    private let maxConnections: Int
    private var listeners: [FileDescriptor] = []
    private var clients: [Int32: Client] = [:]
    public private(set) var tcpPort: Int?
    private var unixPath: String?
    private var nextClientNumber = 0

    /// One connected client.
    final class Client {
        let fd: FileDescriptor
        let number: Int
        var session: MPDSession
        var input: [UInt8] = []
        var output: [UInt8] = []
        var outputOffset = 0
        /// The rest of a streamed reply; the client's next lines wait until it was sent.
        var rows: MPDReplyStream?
        var closing = false
        var lastActivity: UInt64

        init(fd: FileDescriptor, number: Int, session: MPDSession) {
            self.fd = fd
            self.number = number
            self.session = session
            lastActivity = MonotonicClock.nanoseconds()
        }

        var pendingOutput: Int { output.count - outputOffset }
    }

    /// Opens the configured listeners; a listener that cannot open is logged and skipped.
    public init?(config: JukeboxConfig.Network, password: String?, logger: Logger) {
        self.logger = logger
        self.password = password
        maxConnections = config.maxConnections
        if config.address != "none" {
            do {
                let listener = try FileDescriptor.listenTCP(address: config.address, port: config.port)
                let port = try listener.localPort()
                tcpPort = port
                listeners.append(listener)
                logger.info("MPD protocol on \(config.address):\(port)")
            } catch {
                logger.error("cannot listen: \(error); going on without it")
            }
        }
        if !config.socket.isEmpty {
            do {
                listeners.append(try FileDescriptor.listenUnix(path: config.socket))
                unixPath = config.socket
                logger.info("MPD protocol on \(config.socket)")
            } catch {
                logger.error("cannot listen: \(error); going on without it")
            }
        }
        if listeners.isEmpty { return nil }
    }

    deinit {
        if let unixPath { unlink(unixPath) }
    }

    public func interests() -> [Poller.Interest] {
        var result = listeners.map { Poller.Interest(fd: $0.rawValue) }
        for client in clients.values {
            result.append(
                Poller.Interest(
                    fd: client.fd.rawValue, readable: !client.closing && client.rows == nil,
                    writable: client.pendingOutput > 0 || client.rows != nil))
        }
        return result
    }

    public func owns(_ fd: Int32) -> Bool {
        clients[fd] != nil || listeners.contains { $0.rawValue == fd }
    }

    public func handle(_ readiness: Poller.Readiness, host: MPDPlayerHost) {
        if let listener = listeners.first(where: { $0.rawValue == readiness.fd }) {
            accept(from: listener)
            return
        }
        guard let client = clients[readiness.fd] else { return }
        if readiness.writable {
            flush(client)
            if client.rows == nil { run(client, host: host) }
        }
        if readiness.readable || readiness.hangup || readiness.error {
            read(client, host: host)
        }
        finishIfDone(client)
    }

    /// Idle notifications for every client. A client woken from `idle` has its 60 s from
    /// `now` on, as MPD re-arms its timeout when idle ends: a long wait is no silence.
    public func notify(_ changes: Set<MPDSubsystem>, now: UInt64) {
        guard !changes.isEmpty else { return }
        for client in clients.values {
            if let text = client.session.notify(changes) {
                client.lastActivity = now
                send(text, to: client)
                flush(client)
                finishIfDone(client)
            }
        }
    }

    /// Drops clients that have been silent too long outside `idle` (MPD's connection_timeout).
    public func dropTimedOut(now: UInt64) {
        for client in clients.values where !client.session.isIdle {
            if now > client.lastActivity + Self.idleTimeoutNanoseconds {
                logger.debug("MPD client \(client.number): timed out")
                remove(client)
            }
        }
    }

    public func closeAll() {
        for client in Array(clients.values) { remove(client) }
    }

    // MARK: private

    private func accept(from listener: FileDescriptor) {
        while true {
            let owned: FileDescriptor
            do {
                guard let accepted = try listener.accept() else { return }
                owned = accepted
            } catch {
                logger.warning("MPD accept: \(error)")
                return
            }
            guard clients.count < maxConnections else {
                logger.warning("MPD: too many clients (max_connections = \(maxConnections)); refusing one")
                continue
            }
            nextClientNumber += 1
            // A peer on the box itself (the Unix socket, loopback) may also ask for what only
            // the box may (`restart`); one whose address cannot be read is taken as remote.
            let local = (try? owned.isLocalPeer()) ?? false
            let client = Client(
                fd: owned, number: nextClientNumber,
                session: MPDSession(options: .init(password: password, local: local)))
            clients[owned.rawValue] = client
            logger.debug("MPD client \(client.number) connected")
            send(MPDProtocol.greeting, to: client)
            flush(client)
        }
    }

    private func read(_ client: Client, host: MPDPlayerHost) {
        let bytes: [UInt8]
        do {
            guard let read = try client.fd.readIfReady(upTo: 16384) else { return }
            bytes = read
        } catch {
            bytes = []  // a read error (the peer reset the connection) ends the client as end of file does
        }
        if bytes.isEmpty {
            remove(client)
            return
        }
        client.lastActivity = MonotonicClock.nanoseconds()
        client.input.append(contentsOf: bytes)
        run(client, host: host)
    }

    /// Runs the client's complete request lines and sends the replies. After a reply that
    /// streams, the lines after it wait (and the socket is not read) until it was sent.
    private func run(_ client: Client, host: MPDPlayerHost) {
        guard client.rows == nil, !client.closing else { return }
        var start = 0
        var lines: [(text: String, next: Int)] = []
        while let newline = client.input[start...].firstIndex(of: 0x0A) {
            var end = newline
            if end > start, client.input[end - 1] == 0x0D { end -= 1 }
            if end - start > MPDProtocol.maximumLineBytes { break }
            lines.append((String(decoding: client.input[start..<end], as: UTF8.self), newline + 1))
            start = newline + 1
        }
        let overlong = client.input.count - start > MPDProtocol.maximumLineBytes
        var used = 0
        while used < lines.count, client.rows == nil, !client.closing {
            let waiting = lines[used...].map(\.text)
            let (bytes, close, rows, ran) = host.runMPD { world -> ([UInt8], Bool, MPDReplyStream?, Int) in
                var bytes: [UInt8] = []
                for (index, line) in waiting.enumerated() {
                    let (output, rows) = client.session.handleStreaming(line: line, world: &world)
                    bytes += output.bytes
                    if output.close || rows != nil { return (bytes, output.close, rows, index + 1) }
                }
                return (bytes, false, nil, waiting.count)
            }
            used += ran
            send(bytes, to: client)
            client.rows = rows
            if close { client.closing = true }
            flush(client)  // a short streamed reply ends here, and the next lines run
        }
        if used > 0 { client.input.removeFirst(lines[used - 1].next) }
        if overlong && used == lines.count && !client.closing {
            logger.warning(
                "MPD client \(client.number): line longer than \(MPDProtocol.maximumLineBytes) bytes; closing")
            client.closing = true
            client.input = []
        }
        flush(client)
    }

    private func send(_ text: String, to client: Client) { send(Array(text.utf8), to: client) }

    private func send(_ bytes: [UInt8], to client: Client) {
        guard !bytes.isEmpty else { return }
        client.output.append(contentsOf: bytes)
        if client.pendingOutput > Self.maximumOutputBytes {
            logger.warning("MPD client \(client.number): output buffer full; closing")
            client.output = []
            client.outputOffset = 0
            client.closing = true
        }
    }

    /// Makes a streamed reply's next rows (up to `pendingTarget` unsent bytes; the rest in
    /// later turns of the loop), then sends what the socket takes.
    private func flush(_ client: Client) {
        // A client taking a long reply is not silent.
        if client.rows != nil { client.lastActivity = MonotonicClock.nanoseconds() }
        while client.pendingOutput < Self.pendingTarget, client.rows != nil {
            if client.rows!.next(into: &client.output) { client.rows = nil }
        }
        while client.pendingOutput > 0 {
            let sent = client.output[client.outputOffset...].withUnsafeBytes { bytes in
                Result { () throws(Errno) in try client.fd.send(bytes) }
            }
            guard case .success(let n) = sent else {
                client.output = []
                client.outputOffset = 0
                client.rows = nil
                client.closing = true
                break
            }
            guard let n else { break }
            client.outputOffset += n
        }
        if client.outputOffset == client.output.count {
            client.output.removeAll(keepingCapacity: client.output.capacity <= 65536)
            client.outputOffset = 0
        } else if client.outputOffset > 65536 {
            client.output.removeFirst(client.outputOffset)
            client.outputOffset = 0
        }
    }

    private func finishIfDone(_ client: Client) {
        if client.closing, client.pendingOutput == 0 { remove(client) }
    }

    private func remove(_ client: Client) {
        guard clients.removeValue(forKey: client.fd.rawValue) != nil else { return }
        client.session.leave()
        logger.debug("MPD client \(client.number) disconnected")
    }
}
