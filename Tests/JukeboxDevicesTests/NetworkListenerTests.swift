import Foundation
import Glibc
import JukeboxCore
import JukeboxDevices
import JukeboxTestSupport
import LinuxSupport
import Logging
import MPDProtocol
import Testing

/// The MPD listener's connection timeout, on a clock the test sets: 60 s of silence outside
/// `idle` drops a client, a wait in `idle` never does, and the 60 s start again when idle ends.
@Suite struct NetworkListenerTests {
    /// Runs requests on a small world of its own.
    final class WorldHost: MPDPlayerHost {
        var world = MPDWorld(
            machine: PlayerMachine(configuration: .init(maxVolume: 100, startVolume: 50), queue: PlayQueue(seed: 1)),
            library: MPDLibrary(), observer: MPDObserver(), now: .zero, host: MPDHostInfo())
        func runMPD<T>(_ body: (inout MPDWorld) -> T) -> T { body(&world) }
    }

    /// Serves ready fds until `client` has received a line ending in `suffix`.
    static func serve(
        _ listener: NetworkListener, _ host: WorldHost, until client: Int32, received suffix: String
    ) -> String {
        var received = ""
        _ = waitUntil(timeout: .seconds(5), pollingEvery: .milliseconds(1)) {
            for readiness in (try? Poller.wait(listener.interests(), timeoutMilliseconds: 10)) ?? [] {
                listener.handle(readiness, host: host)
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(client, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 { received += String(decoding: buffer[0..<n], as: UTF8.self) }
            return received.hasSuffix(suffix)
        }
        return received
    }

    /// Serves until nothing is left to read (the lines already sent are handled).
    static func drain(_ listener: NetworkListener, _ host: WorldHost) {
        while let ready = try? Poller.wait(listener.interests(), timeoutMilliseconds: 50), !ready.isEmpty {
            for readiness in ready { listener.handle(readiness, host: host) }
        }
    }

    /// A listener on a free loopback port and a client connected to it.
    static func connectedClient() throws -> (NetworkListener, Int32) {
        var config = JukeboxConfig.Network()
        config.port = 0
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let listener = try #require(NetworkListener(config: config, password: nil, logger: logger))
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(try #require(listener.tcpPort)).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(connected == 0)
        return (listener, client)
    }

    @Test func aClientWokenFromALongIdleHasItsSixtySecondsAgain() throws {
        let (listener, client) = try Self.connectedClient()
        defer { close(client) }
        let host = WorldHost()
        #expect(Self.serve(listener, host, until: client, received: "\n").hasPrefix("OK MPD"))
        let start = MonotonicClock.nanoseconds()
        _ = send(client, "idle\n", 5, Int32(MSG_NOSIGNAL))
        Self.drain(listener, host)
        let minute: UInt64 = 60_000_000_000

        listener.dropTimedOut(now: start + 10 * minute)  // waiting in idle: kept
        listener.notify([.player], now: start + 10 * minute)
        #expect(Self.serve(listener, host, until: client, received: "OK\n") == "changed: player\nOK\n")
        listener.dropTimedOut(now: start + 10 * minute + minute / 2)  // woken 30 s ago: kept
        _ = send(client, "ping\n", 5, Int32(MSG_NOSIGNAL))
        #expect(Self.serve(listener, host, until: client, received: "OK\n") == "OK\n")
    }

    /// A reply larger than MPD's 8 MiB output buffer (`listallinfo` of 40,000 songs, 11 MB)
    /// streams to the end, made as the socket takes it, and a request sent behind it is
    /// answered after it.
    @Test func aReplyPastEightMiBStreamsToTheEndAndTheNextRequestFollows() throws {
        let (listener, client) = try Self.connectedClient()
        defer { close(client) }
        let host = WorldHost()
        let songs = 40_000
        let padding = String(repeating: "x", count: 200)
        host.world.library = MPDLibrary(
            tracks: (0..<songs).map {
                TrackInfo(
                    id: Int64($0), path: "Artist \($0 / 400)/Album \($0 / 10)/\(padding) \($0).mp3", title: "Song \($0)"
                )
            })
        #expect(Self.serve(listener, host, until: client, received: "\n").hasPrefix("OK MPD"))
        _ = send(client, "listallinfo\nping\n", 17, Int32(MSG_NOSIGNAL))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        _ = waitUntil(timeout: .seconds(120), pollingEvery: .milliseconds(1)) {
            for readiness in (try? Poller.wait(listener.interests(), timeoutMilliseconds: 10)) ?? [] {
                listener.handle(readiness, host: host)
            }
            while case let n = recv(client, &buffer, buffer.count, Int32(MSG_DONTWAIT)), n > 0 {
                received += buffer[0..<n]
            }
            return received.count >= 3 && received.suffix(6).elementsEqual("OK\nOK\n".utf8)
        }
        let text = String(decoding: received, as: UTF8.self)
        #expect(received.count > 8 << 20)
        #expect(text.components(separatedBy: "\nfile: ").count - 1 == songs)
        #expect(text.hasSuffix("Title: Song \(songs - 1)\nOK\nOK\n"))
    }
}
