import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The real daemon driven over the MPD protocol: mpc, python-mpd2 and raw sockets on TCP,
/// and a pseudo-terminal acting as the serial console.
@Suite(.serialized) struct MPDDaemonTests {
    static let mpc = "/usr/bin/mpc"
    static let python = "/usr/bin/python3"
    static var hasMPC: Bool { FileManager.default.isExecutableFile(atPath: mpc) }
    static var hasPythonMPD: Bool {
        FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/mpd/__init__.py")
    }

    /// A daemon with the demo tracks and the MPD listener on a free port.
    static func start(
        extra: String = "", console: String = "stdin", startVolume: Int = 100, maxVolume: Int = 100,
        audioExtra: String = "", prepare: (DaemonHarness) throws -> Void = { _ in }
    ) throws -> (DaemonHarness, Int) {
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(
            tracks: DaemonTests.demoTracks,
            configExtra: """
                [network]
                port = \(port)
                \(extra)
                """, startVolume: startVolume, maxVolume: maxVolume, audioExtra: audioExtra)
        try prepare(harness)
        // The harness asks for `--console stdin`; a later `--console` wins.
        let process = try harness.start(extraArguments: console == "stdin" ? [] : ["--console", console])
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        return (harness, port)
    }

    static func stop(_ harness: DaemonHarness) {
        harness.process?.closeStdin()
        harness.process?.kill(SIGTERM)
        #expect(harness.process?.waitForExit(timeout: .seconds(5)) == 0, "\(harness.log)")
    }

    static func mpc(_ port: Int, _ arguments: String...) throws -> String {
        let result = try runTool(mpc, ["-p", "\(port)"] + arguments)
        return result.output
    }

    // MARK: real clients

    @Test(.enabled(if: hasMPC)) func mpcDrivesTheDaemon() throws {
        let (harness, port) = try Self.start()
        defer { Self.stop(harness) }
        #expect(try Self.mpc(port, "status").contains("[playing] #1/3"))
        #expect(try Self.mpc(port, "pause").contains("[paused]"))
        #expect(try Self.mpc(port, "play").contains("[playing]"))
        #expect(try Self.mpc(port, "next").contains("Café au Lait"))
        #expect(try Self.mpc(port, "volume", "42").contains("volume: 42%"))
        #expect(try Self.mpc(port, "volume", "-2").contains("volume: 40%"))
        #expect(try Self.mpc(port, "search", "title", "night") == "03 Night Drive.mp3\n")
        #expect(try Self.mpc(port, "add", "03 Night Drive.mp3").isEmpty)
        let playlist = try Self.mpc(port, "playlist")
        #expect(playlist.split(separator: "\n").count == 4, "\(playlist)")
        #expect(try Self.mpc(port, "add", "../outside").contains("Access denied"))
        #expect(try Self.mpc(port, "ls").contains("01 Morning Light.mp3"))
        #expect(try Self.mpc(port, "random", "on").contains("random: on"))
        #expect(try Self.mpc(port, "repeat", "off").contains("repeat: off"))

        // idle wakes on the mixer change made by another client.
        // A session collects changes from its connection on, so once mpc is connected its idle
        // reports the change, whether it is read before or after it.
        let connected = { harness.log.split(separator: "\n").filter { $0.hasSuffix(" connected") }.count }
        let before = connected()
        let idle = Thread.detachNewThreadWithResult { try? Self.mpc(port, "idle", "mixer") }
        #expect(waitUntil { connected() > before }, "\(harness.log)")
        _ = try Self.mpc(port, "volume", "30")
        #expect(idle.wait(timeout: 5) == "mixer\n")
        #expect(harness.status()?.state == "play")
    }

    @Test(.enabled(if: hasPythonMPD)) func pythonMPD2DrivesTheDaemon() throws {
        let (harness, port) = try Self.start()
        defer { Self.stop(harness) }
        try Self.expectPythonPasses(Self.pythonScript, harness, port: port)
    }

    /// Runs a python-mpd2 script against the daemon on `port`; the script prints PASS when
    /// every assert in it held.
    static func expectPythonPasses(
        _ script: String, _ harness: DaemonHarness, port: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let path = harness.directory.file("client.py")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try runTool(python, [path, "\(port)"], timeout: .seconds(30))
        #expect(
            result.status == 0 && result.output.contains("PASS"), "\(result.output)\n\(harness.log)",
            sourceLocation: sourceLocation)
    }

    static let pythonScript = """
        import sys, threading, time
        import mpd

        port = int(sys.argv[1])
        c = mpd.MPDClient()
        c.timeout = 10
        c.connect("127.0.0.1", port)
        assert c.mpd_version == "0.24.0", c.mpd_version
        c.ping()
        s = c.status()
        assert s["state"] == "play", s
        assert float(s["elapsed"]) >= 0 and float(s["duration"]) > 20, s
        song = c.currentsong()
        assert song["file"] == "01 Morning Light.mp3" and song["title"] == "Morning Light", song
        assert len(c.playlistinfo()) == 3
        assert c.playlistid(song["id"])[0]["pos"] == "0"
        c.pause(1); assert c.status()["state"] == "pause"
        c.pause(0); assert c.status()["state"] == "play"
        c.setvol(55); assert c.status()["volume"] == "55"
        c.seekcur(5); assert float(c.status()["elapsed"]) >= 5
        c.seekcur("+2")
        c.next(); assert c.currentsong()["pos"] == "1"
        c.previous()
        assert [x["file"] for x in c.find("title", "Night Drive")] == ["03 Night Drive.mp3"]
        assert len(c.search("any", "jukebox")) == 3
        assert c.list("artist") == [{"artist": "Jukebox Demo"}], c.list("artist")
        assert len(c.lsinfo("")) == 3
        assert len(c.listall()) == 3
        c.addid("02 Cafe au Lait.mp3", 0)
        assert c.playlistinfo()[0]["file"] == "02 Cafe au Lait.mp3"
        c.delete(0)
        c.move(0, 2)
        assert int(c.status()["playlistlength"]) == 3
        c.random(1); assert c.status()["random"] == "1"
        c.random(0); c.repeat(1); c.single(1); assert c.status()["single"] == "1"; c.single(0)
        c.single("oneshot"); c.consume(1)
        s = c.status(); assert (s["repeat"], s["random"], s["single"], s["consume"]) == ("1", "0", "oneshot", "1"), s
        c.single(0); c.consume(0)
        assert "outputname" in c.outputs()[0]
        assert c.replay_gain_status() == "off"
        assert "Artist" in c.tagtypes()
        assert "play" in c.commands()
        assert int(c.stats()["songs"]) == 3
        c.command_list_ok_begin(); c.status(); c.currentsong(); r = c.command_list_end()
        assert len(r) == 2 and r[0]["state"] == "play", r
        try:
            c.play(99)
            raise SystemExit("no error")
        except mpd.CommandError as e:
            assert "[2@0] {play} Bad song index" in str(e), str(e)
        try:
            c.add("../../etc/passwd")
            raise SystemExit("no error")
        except mpd.CommandError as e:
            assert "[50@0]" in str(e), str(e)
        c.plchanges(0)

        # idle in a second client wakes on player, mixer, options and playlist changes.
        w = mpd.MPDClient(); w.timeout = 10; w.connect("127.0.0.1", port)
        for subsystem, change in [("mixer", lambda: c.setvol(40)), ("player", lambda: c.next()),
                                  ("options", lambda: c.random(1)), ("playlist", lambda: c.add("01 Morning Light.mp3"))]:
            # Joined before `c` is used again: the idle can wake before the change's own reply
            # is read, and two threads reading one connection lose a reply. How soon idle
            # wakes is the benchmark's to measure, not a test's.
            t = threading.Timer(0.1, change); t.start()
            got = w.idle(subsystem)
            assert got == [subsystem], (subsystem, got)
            t.join()
        t = threading.Timer(0.1, c.update); t.start()
        assert w.idle("database") == ["database"]
        t.join()
        w.disconnect(); c.close(); c.disconnect()
        print("PASS")
        """

    // MARK: protocol details on a raw socket

    /// `lyrics` over MPD on a box without a display: the line at the played position, and a
    /// nudge that is saved for the track.
    @Test func lyricsLineAndNudgeOverTCPWithoutADisplay() throws {
        let (harness, port) = try Self.start { harness in
            try FileManager.default.copyItem(
                atPath: Fixtures.demoMusic + "/01 Morning Light.lrc", toPath: harness.musicDir + "/01 Morning Light.lrc"
            )
        }
        defer { Self.stop(harness) }
        let client = try MPDTestClient(port: port)
        // [00:02.50]Open the window, let the morning in / [00:07.50]Golden light ...
        #expect(client.command("seekcur 3") == ["OK"])
        let reply = client.command("lyrics")
        #expect(reply.first == "line: Open the window, let the morning in", "\(reply)")
        #expect(reply.contains("lyrics_offset: 0") && reply.last == "OK", "\(reply)")
        let offset = Double(client.fields("lyrics")["offset"] ?? "") ?? -1
        #expect(offset >= 0.4 && offset < 3, "\(offset) s into the line")

        let nudged = client.command("lyrics offset +5000")
        #expect(nudged.first?.hasPrefix("line: Golden light") == true, "\(nudged)")
        #expect(nudged.contains("lyrics_offset: 5000"), "\(nudged)")
        #expect(client.command("lyrics offset later").first?.hasPrefix("ACK [2@0] {lyrics}") == true)
        let saved = try String(contentsOfFile: harness.database + "-lyric-offsets", encoding: .utf8)
        #expect(saved == "5000\t01 Morning Light.mp3\n")
        #expect(harness.status()?.state == "play")
    }

    @Test func severalClientsIdleAndLimits() throws {
        let (harness, port) = try Self.start(extra: "max_connections = 4")
        defer { Self.stop(harness) }
        let a = try MPDTestClient(port: port)
        let b = try MPDTestClient(port: port)
        #expect(a.greeting == "OK MPD 0.24.0")
        a.send("idle player mixer")  // a's session collects changes from its connection on
        let sent = MonotonicClock.nanoseconds()
        #expect(b.command("setvol 33") == ["OK"])
        #expect(a.response() == ["changed: mixer", "OK"])
        let waited = Double(MonotonicClock.nanoseconds() - sent) / 1e6
        #expect(waited < 100, "idle woke after \(waited) ms")
        #expect(a.fields("status")["volume"] == "33")

        // Errors and command lists.
        #expect(b.command("frobnicate") == ["ACK [5@0] {} unknown command \"frobnicate\""])
        b.send("command_list_ok_begin")
        b.send("getvol")
        b.send("play 77")
        #expect(b.command("command_list_end") == ["volume: 33", "list_OK", "ACK [2@1] {play} Bad song index"])
        #expect(b.command("ping") == ["OK"])

        // A line over 4 KiB closes that connection only.
        let c = try MPDTestClient(port: port)
        c.send("status " + String(repeating: "x", count: 5000))
        #expect(c.isClosed())
        // A client that does not speak the protocol is closed.
        let d = try MPDTestClient(port: port)
        d.send("\u{1}\u{2}garbage")
        #expect(d.response().first?.hasPrefix("ACK [5@0] {}") == true)
        #expect(d.isClosed())

        // max_connections = 4: a, b and two more; the fifth is refused.
        let e = try MPDTestClient(port: port)
        let f = try MPDTestClient(port: port)
        #expect(e.command("ping") == ["OK"] && f.command("ping") == ["OK"])
        let g = try MPDTestClient(port: port)
        #expect(g.greeting.isEmpty && g.isClosed())
        #expect(b.command("close").isEmpty && b.isClosed())
        #expect(harness.status()?.state == "play")
    }

    @Test(.enabled(if: hasMPC)) func unixSocketAndSymlinksThatLeaveTheMusicFolder() throws {
        let scratch = try TemporaryDirectory(prefix: "jukebox-mpd")
        let socketPath = scratch.file("mpd.sock")
        let outside = scratch.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: DaemonTests.demoTracks[0], toPath: "\(outside)/escaped.mp3")
        let (harness, port) = try Self.start(extra: "socket = \"\(socketPath)\"") { harness in
            #expect(symlink(outside, "\(harness.musicDir)/elsewhere") == 0)
        }
        defer { Self.stop(harness) }
        let viaSocket = try runTool(Self.mpc, ["-h", socketPath, "status"])
        #expect(viaSocket.output.contains("[playing]"), "\(viaSocket.output)")
        let client = try MPDTestClient(port: port)
        let before = client.fields("status")["playlistlength"]
        for command in ["lsinfo elsewhere", "add elsewhere", "add elsewhere/escaped.mp3", "lsinfo \"../\"", "add /etc"]
        {
            let reply = client.command(command)
            #expect(reply.last?.hasPrefix("ACK [50@0]") == true, "\(command): \(reply)")
        }
        #expect(client.fields("status")["playlistlength"] == before)
    }

    @Test func aPasswordGatesCommands() throws {
        let (harness, port) = try Self.start(extra: "password = \"open sesame\"")
        defer { Self.stop(harness) }
        let client = try MPDTestClient(port: port)
        #expect(client.command("status") == ["ACK [4@0] {status} you don't have permission for \"status\""])
        #expect(client.command("password nope") == ["ACK [3@0] {password} incorrect password"])
        #expect(client.command("password \"open sesame\"") == ["OK"])
        #expect(client.fields("status")["state"] == "play")
    }

    // MARK: the serial console

    @Test func serialConsoleOnAPseudoTerminal() throws {
        let pty = try PseudoTerminal()
        let scratch = try TemporaryDirectory(prefix: "jukebox-serial")
        let link = scratch.file("serial")
        #expect(symlink(pty.slavePath, link) == 0)
        let (harness, port) = try Self.start(extra: "", console: link)
        defer { Self.stop(harness) }
        #expect(pty.waitFor("Type 'help' for the commands.\r\n") != nil, "\(harness.log)")

        pty.write("status\r")
        let status = pty.waitFor("OK\r\n") ?? ""
        #expect(status.hasPrefix("status\r\n"), "echo: \(status)")
        #expect(status.contains("state: play\r\n"))

        // Backspace editing: "setvoxx" minus two characters plus "l".
        pty.write("setvoxx\u{7F}\u{7F}l 25\r")
        let edited = pty.waitFor("OK\r\n")
        #expect(edited != nil, "\(status)")
        pty.write("getvol\r")
        #expect(pty.waitFor("volume: 25\r\nOK\r\n") != nil)

        // Noise, invalid UTF-8 and a long line get an ACK; the console keeps going.
        pty.writeBytes([0xFF, 0xFE, 0x01, 0x1B] + Array("play \u{00}\"x".utf8) + [0x0D])
        #expect(pty.waitFor("ACK [") != nil)
        pty.write(String(repeating: "y", count: 5000) + "\r")
        #expect(pty.waitFor("line too long") != nil)
        pty.write("help\r")
        #expect(pty.waitFor("play [POS]") != nil)
        pty.discard()
        pty.write("ping\r")
        #expect(pty.waitFor("OK\r\n") != nil)
        #expect(try MPDTestClient(port: port).fields("status")["state"] == "play")
    }

    /// The commands the mpc test uses, typed on the serial line.
    @Test func theMPCCommandsOnTheSerialLine() throws {
        let pty = try PseudoTerminal()
        let scratch = try TemporaryDirectory(prefix: "jukebox-serial")
        let link = scratch.file("serial")
        #expect(symlink(pty.slavePath, link) == 0)
        let (harness, port) = try Self.start(console: link)
        defer { Self.stop(harness) }
        #expect(pty.waitFor("Type 'help'") != nil, "\(harness.log)")
        func run(_ line: String) -> String {
            pty.discard()
            pty.write(line + "\r")
            return pty.waitFor("OK\r\n") ?? pty.waitFor("ACK [", timeout: .milliseconds(10)) ?? ""
        }
        #expect(run("status").contains("state: play\r\n"))
        #expect(run("pause 1").hasSuffix("OK\r\n"))
        #expect(run("status").contains("state: pause\r\n"))
        #expect(run("play").hasSuffix("OK\r\n"))
        #expect(run("next").hasSuffix("OK\r\n"))
        #expect(run("currentsong").contains("file: 02 Cafe au Lait.mp3\r\n"))
        #expect(run("setvol 44").hasSuffix("OK\r\n"))
        #expect(run("search title \"night drive\"").contains("file: 03 Night Drive.mp3\r\n"))
        #expect(run("add \"03 Night Drive.mp3\"").hasSuffix("OK\r\n"))
        let playlist = run("playlistinfo")
        #expect(playlist.components(separatedBy: "file: ").count == 5, "\(playlist)")
        // idle on the serial line wakes on a change made over TCP.
        pty.discard()
        pty.write("idle mixer\r")  // the session collects changes whether idle is read before or after
        #expect(try MPDTestClient(port: port).command("setvol 45") == ["OK"])
        #expect(pty.waitFor("changed: mixer\r\nOK\r\n") != nil)
    }

    @Test func serialConsoleComesBackAfterTheCableIsPulled() throws {
        var pty: PseudoTerminal? = try PseudoTerminal()
        let scratch = try TemporaryDirectory(prefix: "jukebox-serial")
        let link = scratch.file("serial")
        #expect(symlink(pty!.slavePath, link) == 0)
        let (harness, port) = try Self.start(console: link)
        defer { Self.stop(harness) }
        #expect(pty!.waitFor("Type 'help'") != nil, "\(harness.log)")

        // Unplug: the master goes away, the daemon sees EIO/HUP on its end.
        pty = nil
        #expect(harness.process?.waitForLine(matching: "reopening when it comes back", on: .stderr) != nil)
        // Plug a new line in at the same path.
        let again = try PseudoTerminal()
        unlink(link)
        #expect(symlink(again.slavePath, link) == 0)
        #expect(again.waitFor("Type 'help'", timeout: .seconds(5)) != nil, "\(harness.log)")
        again.write("pause 1\r")
        #expect(again.waitFor("OK\r\n") != nil)
        #expect(try MPDTestClient(port: port).fields("status")["state"] == "pause")
    }

    @Test func theStdinConsoleAlsoAcceptsMPDCommands() throws {
        let (harness, _) = try Self.start()
        defer { Self.stop(harness) }
        let process = try #require(harness.process)
        process.skipOutput()
        harness.send("currentsong")
        #expect(process.waitForLine(matching: "file: 01 Morning Light.mp3", on: .stdout) != nil)
        harness.send("frobnicate")
        #expect(process.waitForLine(matching: "unknown command 'frobnicate'", on: .stdout) != nil)
        harness.send("play 99")
        #expect(process.waitForLine(matching: "play: no entry 99", on: .stdout) != nil)
        harness.send("help")
        #expect(process.waitForLine(matching: "play [N]", on: .stdout) != nil)
    }
}

extension Thread {
    /// Runs `body` on a new thread; `wait` returns its result.
    static func detachNewThreadWithResult<T: Sendable>(_ body: @escaping @Sendable () -> T) -> ThreadResult<T> {
        let result = ThreadResult<T>()
        Thread.detachNewThread { result.set(body()) }
        return result
    }
}

/// A value produced by another thread.
final class ThreadResult<T: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: T?

    func set(_ newValue: T) {
        condition.lock()
        value = newValue
        condition.broadcast()
        condition.unlock()
    }

    func wait(timeout: TimeInterval) -> T? {
        let end = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while value == nil, condition.wait(until: end) {}
        return value
    }
}
