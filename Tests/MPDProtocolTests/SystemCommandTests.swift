import JukeboxCore
import Testing

@testable import MPDProtocol

/// `restart` and `system`: for a client on the box only (the Unix socket, loopback, the
/// consoles), and with `[network] password` set only after it; a client elsewhere on the
/// network is refused and asks the daemon for nothing.
@Suite struct SystemCommandTests {
    static func run(_ lines: [String], local: Bool, password: String? = nil, world: inout MPDWorld) -> [String] {
        var session = MPDSession(options: .init(password: password, local: local))
        return lines.map { session.handle(line: $0, world: &world).text }
    }

    static func facts() -> [(String, String)] {
        [("version", "0.1.0"), ("started_ms", "1765112345123"), ("problem", "disk full")]
    }

    @Test func aClientOnTheBoxMayRestartAndReadTheFacts() {
        var world = MPDProtocolTests.world()
        world.box.system = Self.facts
        let replies = Self.run(["restart", "system"], local: true, world: &world)
        #expect(replies == ["OK\n", "version: 0.1.0\nstarted_ms: 1765112345123\nproblem: disk full\nOK\n"])
        #expect(world.box.requests == [.restart])
    }

    @Test func aClientElsewhereOnTheNetworkIsRefused() {
        var world = MPDProtocolTests.world()
        world.box.system = Self.facts
        let replies = Self.run(["restart", "system", "commands"], local: false, world: &world)
        #expect(replies[0] == "ACK [4@0] {restart} you don't have permission for \"restart\"\n")
        #expect(replies[1] == "ACK [4@0] {system} you don't have permission for \"system\"\n")
        #expect(!replies[2].contains("command: restart\n") && replies[2].contains("command: status\n"))
        #expect(world.box.requests.isEmpty)
        // Even with the password: it does not make a remote client local.
        let signedIn = Self.run(["password secret", "restart"], local: false, password: "secret", world: &world)
        #expect(signedIn == ["OK\n", "ACK [4@0] {restart} you don't have permission for \"restart\"\n"])
        #expect(world.box.requests.isEmpty)
    }

    @Test func withAPasswordALocalClientRestartsOnlyAfterIt() {
        var world = MPDProtocolTests.world()
        let replies = Self.run(
            ["restart", "password secret", "restart"], local: true, password: "secret", world: &world)
        #expect(replies[0] == "ACK [4@0] {restart} you don't have permission for \"restart\"\n")
        #expect(replies[1...] == ["OK\n", "OK\n"])
        #expect(world.box.requests == [.restart])
    }

    @Test func systemWithoutFactsIsAnError() {
        var world = MPDProtocolTests.world()
        #expect(Self.run(["system"], local: true, world: &world) == ["ACK [52@0] {system} no system facts here\n"])
    }
}
