import JukeboxWeb
import NIOCore
import NIOPosix

/// Where jukeboxd listens for MPD clients: its Unix socket if the config sets one, else its
/// TCP port (on loopback when it listens on every address).
public struct MPDEndpoint: Sendable, CustomStringConvertible {
    enum Address: Sendable {
        case socket(String)
        case tcp(host: String, port: Int)
    }

    let address: Address
    /// `[network] password`, sent first when set.
    let password: String

    public init(socket: String, host: String, port: Int, password: String) {
        if !socket.isEmpty {
            address = .socket(socket)
        } else {
            address = .tcp(host: ["any", "0.0.0.0", "::", "none"].contains(host) ? "127.0.0.1" : host, port: port)
        }
        self.password = password
    }

    public var description: String {
        switch address {
        case .socket(let path): path
        case .tcp(let host, let port): "\(host):\(port)"
        }
    }
}

/// One connection to the daemon, in the task that opened it: commands out, replies in.
struct MPDLink: ~Copyable {
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var reader = MPDReplyReader()

    init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// The next reply; throws `MPDReplyError.ack` for a refused command, `closed` at the end.
    mutating func reply() async throws -> MPDReply {
        while true {
            if let reply = try reader.nextReply() { return reply }
            guard var buffer = try await inbound.next() else { throw MPDClient.Closed() }
            reader.append(buffer.readBytes(length: buffer.readableBytes) ?? [])
        }
    }

    /// Sends `line` and reads its reply.
    mutating func run(_ line: String) async throws -> MPDReply {
        try await outbound.write(ByteBuffer(string: line + "\n"))
        return try await reply()
    }

    /// Runs `commands` as one command list; the reply has a section per command.
    mutating func runList(_ commands: [String]) async throws -> MPDReply {
        try await run((["command_list_ok_begin"] + commands + ["command_list_end"]).joined(separator: "\n"))
    }
}

/// Opens connections to the daemon (SwiftNIO, on the server's event loop group).
public struct MPDClient: Sendable {
    /// The daemon closed the connection.
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the daemon closed the connection" }
    }

    let endpoint: MPDEndpoint
    let group: any EventLoopGroup

    public init(endpoint: MPDEndpoint, group: any EventLoopGroup) {
        self.endpoint = endpoint
        self.group = group
    }

    /// Connects, reads the greeting, logs in when a password is set, runs `body`, closes.
    func withLink<Result: Sendable>(_ body: (inout MPDLink) async throws -> Result) async throws -> Result {
        let bootstrap = ClientBootstrap(group: group).connectTimeout(.seconds(5))
        let wrap: @Sendable (any Channel) -> EventLoopFuture<NIOAsyncChannel<ByteBuffer, ByteBuffer>> = { channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel(wrappingChannelSynchronously: channel) }
        }
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        switch endpoint.address {
        case .socket(let path):
            channel = try await bootstrap.connect(unixDomainSocketPath: path, channelInitializer: wrap)
        case .tcp(let host, let port):
            channel = try await bootstrap.connect(host: host, port: port, channelInitializer: wrap)
        }
        let password = endpoint.password
        return try await channel.executeThenClose { inbound, outbound in
            var link = MPDLink(inbound: inbound, outbound: outbound)
            _ = try await link.reply()
            if !password.isEmpty { _ = try await link.run("password " + MPDReplyReader.quoted(password)) }
            return try await body(&link)
        }
    }

    /// Runs one command on a connection of its own.
    func run(_ line: String) async throws -> MPDReply {
        try await withLink { try await $0.run(line) }
    }

    /// What the now-playing page shows (a connection of its own).
    func nowPlaying() async throws -> NowPlaying {
        try await withLink { try await Self.nowPlaying(&$0) }
    }

    static func nowPlaying(_ link: inout MPDLink) async throws -> NowPlaying {
        let reply = try await link.runList(["status", "currentsong"])
        guard reply.sections.count >= 2 else { throw MPDReplyError.malformed("a short command list reply") }
        var now = NowPlaying(status: reply.sections[0], song: reply.sections[1])
        let shown = NowPlaying.queueRange(position: now.position, length: now.queueLength)
        if !shown.isEmpty {
            do {
                now.queue = NowPlaying.queue(
                    try await link.run("playlistinfo \(shown.lowerBound):\(shown.upperBound)").fields)
                now.queueFrom = shown.lowerBound
            } catch MPDReplyError.ack {
                // The queue shrank since `status`: the change's own event brings it.
            }
        }
        try await lyrics(&link, into: &now)
        return now
    }

    /// The lyric line, when the song has lyrics (the daemon refuses `lyrics` otherwise).
    static func lyrics(_ link: inout MPDLink, into now: inout NowPlaying) async throws {
        guard !now.file.isEmpty else { return }
        do {
            now.setLyrics(try await link.run("lyrics").fields)
        } catch MPDReplyError.ack {
            now.setLyrics([])
        }
    }

    /// The daemon's facts (`system`, which it answers to a client on the box only, as this is).
    func systemFacts() async throws -> SystemFacts {
        SystemFacts(try await run("system").fields)
    }

    /// The cards page's facts.
    func cardList() async throws -> CardList {
        try await withLink { link in
            let reply = try await link.runList(["card info", "card unknown", "listall"])
            guard reply.sections.count >= 3 else { throw MPDReplyError.malformed("a short command list reply") }
            return CardList(info: reply.sections[0], unknown: reply.sections[1], listing: reply.sections[2])
        }
    }

    /// The picture of `file`: its embedded one (`readpicture`), else the folder's cover file
    /// (`albumart`); nil when it has none. At most `limit` bytes.
    func cover(_ file: String, limit: Int = 4 << 20) async throws -> (type: String?, bytes: [UInt8])? {
        try await withLink { link in
            for command in ["readpicture", "albumart"] {
                var bytes: [UInt8] = []
                var type: String?
                do {
                    while true {
                        let reply = try await link.run("\(command) \(MPDReplyReader.quoted(file)) \(bytes.count)")
                        guard let size = reply.value("size").flatMap(Int.init), size > 0, size <= limit,
                            !reply.binary.isEmpty
                        else { break }
                        type = type ?? reply.value("type")
                        bytes += reply.binary
                        if bytes.count >= size { return (type, Array(bytes.prefix(size))) }
                    }
                } catch MPDReplyError.ack {
                    continue  // none of this kind: try the next
                }
            }
            return nil
        }
    }
}
