import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Gestures and knob turns typed on every console (stdin, the MPD listener, the serial
/// console) reach the player through the configured mapping: the default `[encoder]` turns
/// the volume 2 % per click, the knob's switch and play_pause's short press toggle, a long
/// play_pause stops.
@Suite(.serialized) struct InjectedInputTests {
    /// Polls `status` over TCP until `field` reads `value` (or 5 s pass); the last value read.
    static func waitFor(_ field: String, _ value: String, port: Int) throws -> String? {
        let client = try MPDTestClient(port: port)
        let end = MonotonicClock.nanoseconds() + 5_000_000_000
        var last: String?
        repeat {
            last = client.fields("status")[field]
            if last == value { break }
            sleepMilliseconds(20)
        } while MonotonicClock.nanoseconds() < end
        return last
    }

    @Test func onStdinAndTCP() throws {
        let (harness, port) = try MPDDaemonTests.start()
        defer { MPDDaemonTests.stop(harness) }
        harness.send("knob -5")
        #expect(try Self.waitFor("volume", "90", port: port) == "90", "\(harness.log)")
        harness.send("knob press")
        #expect(try Self.waitFor("state", "pause", port: port) == "pause", "\(harness.log)")

        let client = try MPDTestClient(port: port)
        #expect(client.command("button play_pause short") == ["OK"])
        #expect(try Self.waitFor("state", "play", port: port) == "play")
        #expect(client.command("knob +2") == ["OK"])
        #expect(try Self.waitFor("volume", "94", port: port) == "94")
        #expect(client.command("button play_pause long") == ["OK"])
        #expect(try Self.waitFor("state", "stop", port: port) == "stop")
        // Unknown buttons and gestures are ACKs; a gesture nothing is mapped to does nothing.
        #expect(
            client.command("button nope short")
                == ["ACK [2@0] {button} button: unknown button 'nope' (play_pause, next, previous, switch)"])
        #expect(
            client.command("button next triple").first?.hasPrefix("ACK [2@0] {button} button: unknown gesture") == true)
        #expect(client.command("knob sideways").first?.hasPrefix("ACK [2@0] {knob} knob: expected +N or -N") == true)
        #expect(client.command("button previous double") == ["OK"])
        #expect(client.fields("status")["state"] == "stop")

        // The stdin console's help lists the words; a bad one is answered there too.
        harness.process?.skipOutput()
        harness.send("help")
        #expect(harness.process?.waitForOutputLine(matching: "button B G", on: .stdout, timeout: .seconds(5)) != nil)
        harness.send("knob +0")
        #expect(
            harness.process?.waitForOutputLine(matching: "ACK [2@0] {knob}", on: .stdout, timeout: .seconds(5)) != nil)
    }

    @Test func onTheSerialConsole() throws {
        let pty = try PseudoTerminal()
        let link = "/tmp/jukebox-serial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(symlink(pty.slavePath, link) == 0)
        defer { unlink(link) }
        let (harness, port) = try MPDDaemonTests.start(console: link)
        defer { MPDDaemonTests.stop(harness) }
        #expect(pty.waitFor("Type 'help'") != nil, "\(harness.log)")
        pty.discard()
        pty.write("knob -3\r")
        #expect(pty.waitFor("OK\r\n") != nil)
        #expect(try Self.waitFor("volume", "94", port: port) == "94", "\(harness.log)")
        pty.discard()
        pty.write("button switch short\r")
        #expect(pty.waitFor("OK\r\n") != nil)
        #expect(try Self.waitFor("state", "pause", port: port) == "pause")
        pty.discard()
        pty.write("help\r")
        #expect(pty.waitFor("knob press") != nil)
    }
}
