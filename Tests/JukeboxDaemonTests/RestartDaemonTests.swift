import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// `restart`: the place saved as on a stop, then the daemon again with its config read anew.
/// Without a service manager it runs itself again in its process (the same pid); under
/// systemd ($NOTIFY_SOCKET) it exits 75 for the unit to start it. Only a client on the box
/// may ask it.
@Suite(.serialized) struct RestartDaemonTests {
    /// The `key: value` lines a console command answers on stdout, up to `last`.
    static func consoleFields(_ harness: DaemonHarness, _ command: String, last: String) -> [String: String] {
        guard let process = harness.process else { return [:] }
        process.skipOutput()
        harness.send(command)
        var fields: [String: String] = [:]
        while let line = process.waitForLine(matching: ": ", on: .stdout, timeout: .seconds(5)) {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, fields[parts[0]] == nil { fields[parts[0]] = parts[1] }
            if parts.first == last { break }
        }
        return fields
    }

    /// Paused, once two reads in a row give the same position (the first read after `pause`
    /// may still move while the output stops).
    static func settledPause(_ harness: DaemonHarness) -> DaemonHarness.Status? {
        var last: Double?
        return harness.waitForStatus { status in
            defer { last = status.elapsed }
            return status.state == "pause" && status.elapsed == last
        }
    }

    /// Paused at a place, `restart` on the console: the same process runs again (exec), a
    /// new start, the config's new maximum volume in force, paused at the very same place.
    @Test func restartOnTheConsoleKeepsThePlace() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks, onStart: "paused")
        let process = try harness.start()
        // A first start fills the queue once the scan found the music; paused, it waits for play.
        #expect(harness.waitForStatus(timeout: .seconds(20)) { $0.playlistLength > 0 } != nil, "\(harness.log)")
        harness.send("play")
        #expect(harness.waitForStatus { $0.state == "play" && $0.elapsed >= 2 } != nil, "\(harness.log)")
        harness.send("pause")
        let paused = try #require(Self.settledPause(harness), "\(harness.log)")
        let before = Self.consoleFields(harness, "system", last: "restart_by")
        #expect(before["pid"] == String(process.pid), "\(before)")
        #expect(before["restart_by"] == "exec", "\(before)")
        let config = try String(contentsOfFile: harness.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "max_volume = 100", with: "max_volume = 45")
            .replacingOccurrences(of: "start_volume = 100", with: "start_volume = 40").write(
                toFile: harness.configPath, atomically: true, encoding: .utf8)

        process.skipOutput()
        harness.send("restart")
        #expect(process.waitForLine(matching: "restart requested", on: .stderr) != nil, "\(harness.log)")
        #expect(process.waitForLine(matching: "stopped", on: .stderr) != nil, "\(harness.log)")
        #expect(
            process.waitForLine(matching: "restart: running jukeboxd again in this process", on: .stderr) != nil,
            "\(harness.log)")
        #expect(process.waitForLine(matching: "resuming", on: .stderr) != nil, "\(harness.log)")
        #expect(process.isRunning)

        let after = try #require(harness.waitForStatus { $0.state == "pause" }, "\(harness.log)")
        #expect(after.songID == paused.songID)
        #expect(abs(after.elapsed - paused.elapsed) < 0.02, "paused at \(paused.elapsed), back at \(after.elapsed)")
        let again = Self.consoleFields(harness, "system", last: "restart_by")
        #expect(again["pid"] == before["pid"], "\(again)")
        #expect(again["started_ms"] != nil && again["started_ms"] != before["started_ms"], "\(before) \(again)")
        harness.send("setvol 100")
        #expect(harness.waitForStatus { $0.volume == 45 } != nil, "\(harness.log)")
        MPDDaemonTests.stop(harness)
    }

    /// Under systemd: `restart` saves the place, exits 75 (the unit's RestartForceExitStatus),
    /// and the next start resumes there.
    @Test func restartUnderSystemdExitsForTheUnitToStartItAgain() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks, onStart: "paused")
        let socket = try NotifySocket(path: harness.directory.file("notify"))
        let process = try harness.start(environment: ["NOTIFY_SOCKET": socket.path])
        // A first start fills the queue once the scan found the music; paused, it waits for play.
        #expect(harness.waitForStatus(timeout: .seconds(20)) { $0.playlistLength > 0 } != nil, "\(harness.log)")
        harness.send("play")
        #expect(harness.waitForStatus { $0.state == "play" && $0.elapsed >= 2 } != nil, "\(harness.log)")
        harness.send("pause")
        let paused = try #require(Self.settledPause(harness), "\(harness.log)")
        harness.send("restart")
        #expect(process.waitForExit(timeout: .seconds(10)) == 75, "\(harness.log)")
        #expect(harness.log.contains("restart: exiting with status 75 for systemd"), "\(harness.log)")
        #expect(socket.received().contains("STOPPING=1"), "\(socket.messages)")

        let next = try harness.start(environment: ["NOTIFY_SOCKET": socket.path])
        #expect(next.pid != process.pid)
        #expect(next.waitForLine(matching: "resuming", on: .stderr) != nil, "\(harness.log)")
        let after = try #require(harness.waitForStatus { $0.state == "pause" }, "\(harness.log)")
        #expect(after.songID == paused.songID)
        #expect(abs(after.elapsed - paused.elapsed) < 0.02, "paused at \(paused.elapsed), back at \(after.elapsed)")
        MPDDaemonTests.stop(harness)
    }

    /// This host's first IPv4 address besides loopback (`hostname -I`), or nil.
    static let networkAddress: String? = {
        guard let listed = try? runTool("/usr/bin/hostname", ["-I"]) else { return nil }
        return listed.output.split(separator: " ").map(String.init).first { $0.contains(".") && !$0.hasPrefix("127.") }
    }()

    /// Over TCP: a client from another address (this host's own network address stands in for
    /// a phone on the network) may not restart the box or read `system`; a loopback client may.
    /// A machine with loopback only cannot play the phone: skipped there, and said
    /// (`SystemCommandTests` checks the rule itself on any machine).
    @Test(
        .enabled(
            if: RestartDaemonTests.networkAddress != nil,
            "NOT RUN: this machine has no network address besides loopback"))
    func onlyAClientOnTheBoxMayRestartOverTCP() throws {
        let address = try #require(Self.networkAddress)
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(
            tracks: DaemonTests.demoTracks, configExtra: "[network]\naddress = \"any\"\nport = \(port)\n")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        let remote = try MPDTestClient(port: port, host: address)
        #expect(remote.command("restart") == [#"ACK [4@0] {restart} you don't have permission for "restart""#])
        #expect(remote.command("system") == [#"ACK [4@0] {system} you don't have permission for "system""#])
        #expect(remote.fields("status")["state"] != nil)
        let local = try MPDTestClient(port: port)
        #expect(local.fields("system")["pid"] == String(process.pid))
        #expect(!harness.log.contains("restart requested"))
        #expect(process.isRunning)
        MPDDaemonTests.stop(harness)
    }
}
