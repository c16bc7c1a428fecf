import Glibc
import HomeAssistant
import JukeboxCore
import JukeboxWeb
import LinuxSupport

/// One connection to jukeboxd's MPD listener: its Unix socket if the config sets one, else its
/// TCP port (on loopback when it listens on every address). Commands wait for their reply (the
/// daemon answers from its control loop, within milliseconds; a 5 s timeout bounds a hung
/// one); `idle` is sent and its reply read when the socket is readable.
final class DaemonLink {
    let fd: FileDescriptor
    private var reader = MPDReplyReader()

    /// Connects, reads the greeting, logs in when `[network] password` is set.
    init(_ network: JukeboxConfig.Network) throws {
        if !network.socket.isEmpty {
            fd = try FileDescriptor.connectUnix(path: network.socket)
        } else {
            let everywhere = ["any", "0.0.0.0", "::", "none"].contains(network.address)
            fd = try FileDescriptor.connectTCP(host: everywhere ? "127.0.0.1" : network.address, port: network.port)
        }
        try fd.setTimeouts(seconds: 5)
        _ = try reply()
        if !network.password.isEmpty { _ = try run("password " + MPDReplyReader.quoted(network.password)) }
    }

    /// The daemon closed the connection.
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the daemon closed the connection" }
    }

    func send(_ line: String) throws {
        try fd.writeAll(Array((line + "\n").utf8))
    }

    /// Reads until a whole reply arrived (an ACK throws `MPDReplyError.ack`).
    func reply() throws -> MPDReply {
        while true {
            if let reply = try reader.nextReply() { return reply }
            try readSome()
        }
    }

    /// Reads what the socket holds (call when it is readable); the reply once it is whole.
    func replyIfComplete() throws -> MPDReply? {
        try readSome()
        return try reader.nextReply()
    }

    private func readSome() throws {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        let count = try buffer.withUnsafeMutableBytes { bytes in
            try fd.read(into: bytes.baseAddress!, count: bytes.count)
        }
        guard count > 0 else { throw Closed() }
        reader.append(buffer[..<count])
    }

    func run(_ line: String) throws -> MPDReply {
        try send(line)
        return try reply()
    }

    /// What Home Assistant shows of the box.
    func boxState() throws -> BoxState {
        let reply = try run("command_list_ok_begin\nstatus\ncurrentsong\nsleep\ncommand_list_end")
        guard reply.sections.count >= 3 else { throw MPDReplyError.malformed("a short command list reply") }
        return BoxState(status: reply.sections[0], song: reply.sections[1], sleep: reply.sections[2])
    }

    /// The last card read and how many were read since the daemon started (`card last`).
    func lastCard() throws -> (id: String, reads: Int)? {
        let reply = try run("card last")
        guard let id = reply.value("last"), let reads = reply.value("reads").flatMap(Int.init) else { return nil }
        return (id, reads)
    }
}
