import TOML
import Testing

@testable import JukeboxCore

/// The `[network]` keys of the MPD listener.
@Suite struct NetworkConfigTests {
    typealias Entry = ConfigDocument.Entry

    static func validate(_ entries: [Entry]) -> (JukeboxConfig?, [String]) {
        let all = [Entry(table: "", key: "music_dir", value: .string("/music"), line: 1)] + entries
        let document = ConfigDocument(fileName: "jukebox.toml", tables: [(name: "network", line: 2)], entries: all)
        let result = ConfigValidator.validate(document) { _ in nil }
        return (result.config, result.diagnostics.map(\.description))
    }

    @Test func defaults() throws {
        let config = try #require(Self.validate([]).0)
        #expect(config.network.address == "127.0.0.1")
        #expect(config.network.port == 6600)
        #expect(config.network.socket == "")
        #expect(config.network.password == "")
        #expect(config.network.maxConnections == 10)
    }

    @Test func everyKey() throws {
        let (config, problems) = Self.validate([
            Entry(table: "network", key: "address", value: .string("none"), line: 3),
            Entry(table: "network", key: "socket", value: .string("/run/jukebox/socket"), line: 4),
            Entry(table: "network", key: "password", value: .string("secret"), line: 5),
            Entry(table: "network", key: "max_connections", value: .integer(3), line: 6),
        ])
        #expect(problems == [])
        #expect(config?.network.address == "none")
        #expect(config?.network.socket == "/run/jukebox/socket")
        #expect(config?.network.password == "secret")
        #expect(config?.network.maxConnections == 3)
    }

    @Test func problemsNameTheLine() {
        let (config, problems) = Self.validate([
            Entry(table: "network", key: "max_connections", value: .integer(0), line: 7),
            Entry(table: "network", key: "pasword", value: .string("x"), line: 8),
        ])
        #expect(config == nil)
        #expect(problems.contains("jukebox.toml:7: network.max_connections: must be between 1 and 1000, found 0"))
        #expect(
            problems.contains {
                $0.hasPrefix("jukebox.toml:8: network.pasword: unknown key") && $0.contains("password")
            })
    }
}
