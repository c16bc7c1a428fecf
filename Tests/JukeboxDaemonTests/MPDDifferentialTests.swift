import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The same command sequences against `jukeboxd` and against the real MPD 0.23, started here
/// on a private config and port over the same generated library, over raw sockets: the
/// play flags, the state and the current song from `status`, and the queue, compared after
/// every step. A small differential run that the larger one (every command family) grows from.
@Suite(.serialized) struct MPDDifferentialTests {
    static var hasMPD: Bool { ReferenceMPD.isInstalled }
    /// The compared `status` fields (timing fields and ids differ by design).
    static let statusFields = ["repeat", "random", "single", "consume", "state", "song", "nextsong", "playlistlength"]

    /// Both servers over one library of four 1-second WAVs (`01 a.wav` ... `04 d.wav`), with
    /// queues of at most `queueLimit` entries when given (`[queue] max_length` and MPD's
    /// `max_playlist_length`).
    final class Servers {
        let harness: DaemonHarness
        let mpd: ReferenceMPD
        let jukebox: MPDTestClient
        let reference: MPDTestClient
        /// jukeboxd's MPD port.
        let port: Int
        /// Per step: the line, and whether both answered the same.
        private(set) var steps: [(label: String, same: Bool)] = []

        init(queueLimit: Int? = nil) throws {
            let source = try TemporaryDirectory(prefix: "jukebox-differential")
            defer { source.remove() }
            let names = ["01 a.wav", "02 b.wav", "03 c.wav", "04 d.wav"]
            for name in names { try InputLatencyProbe.writeFlatWAV(path: source.file(name), seconds: 1) }
            port = freeLoopbackPort()
            harness = try DaemonHarness(
                tracks: names.map { source.file($0) }, configExtra: "[network]\nport = \(port)", onStart: "off",
                queueExtra: queueLimit.map { "max_length = \($0)" } ?? "")
            let process = try harness.start()
            guard process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil else {
                throw TestFailure("jukeboxd did not listen: \(harness.log)")
            }
            mpd = try ReferenceMPD(
                musicDir: harness.musicDir, directory: harness.directory.file("mpd"), output: "sync \"yes\"",
                extra: queueLimit.map { "max_playlist_length \"\($0)\"" } ?? "")
            jukebox = try MPDTestClient(port: port)
            reference = try MPDTestClient(port: mpd.port)
            guard reference.greeting.hasPrefix("OK MPD 0.23") else {
                throw TestFailure("not MPD 0.23: \(reference.greeting)")
            }
            // MPD's database starts empty; jukeboxd scans on start (and, afresh, queues it all).
            _ = reference.command("update")
            try waitUntil("both libraries hold 4 songs") {
                [jukebox, reference].allSatisfy {
                    $0.fields("stats")["songs"] == "4" && $0.fields("status")["updating_db"] == nil
                }
            }
            for line in ["stop", "clear", "add \"\"", "repeat 0", "random 0", "single 0", "consume 0"] { both(line) }
        }

        deinit {
            mpd.stop()
            harness.process?.kill(SIGTERM)
            _ = harness.process?.waitForExit(timeout: .seconds(5))
        }

        /// Sends `line` to both; the answers (OK or the ACK) must agree.
        @discardableResult
        func both(_ line: String) -> [String] {
            let answers = (jukebox.command(line), reference.command(line))
            record(line, answers.0 == answers.1, "\(answers.0) / MPD \(answers.1)")
            return answers.1
        }

        /// The compared `status` fields of each side.
        func status() -> (jukebox: [String: String], mpd: [String: String]) {
            func pick(_ all: [String: String]) -> [String: String] {
                all.filter { MPDDifferentialTests.statusFields.contains($0.key) }
            }
            return (pick(jukebox.fields("status")), pick(reference.fields("status")))
        }

        /// Compares `status` (without `song` and `nextsong` when `songMatters` is false: random
        /// picks differ) and the queue (then only its length).
        func compare(_ label: String, songMatters: Bool = true) {
            var (ours, theirs) = status()
            if !songMatters {
                for key in ["song", "nextsong"] { (ours[key], theirs[key]) = (nil, nil) }
            }
            record(
                "\(label): status", ours == theirs,
                "\(ours.sorted { $0.key < $1.key }) / MPD \(theirs.sorted { $0.key < $1.key })")
            var queues = (jukebox.command("playlist"), reference.command("playlist"))
            if !songMatters {
                // Random with consume removes whichever song each side picked: the queues may hold
                // different songs, but as many.
                queues = (queues.0.map { _ in "entry" }, queues.1.map { _ in "entry" })
            }
            record("\(label): playlist", queues.0 == queues.1, "\(queues.0) / MPD \(queues.1)")
        }

        /// Waits until both servers' `status` leaves `before` (a song ended), then compares.
        func compareAfterSongEnd(
            _ label: String, before: (jukebox: [String: String], mpd: [String: String]), songMatters: Bool
        ) throws {
            try waitUntil("\(label): a song ends on both") {
                let now = status()
                return now.jukebox != before.jukebox && now.mpd != before.mpd
            }
            compare(label, songMatters: songMatters)
        }

        func record(_ label: String, _ same: Bool, _ detail: String) {
            steps.append((label, same))
            #expect(same, "\(label): \(detail)")
        }

        var summary: String {
            "\(steps.filter(\.same).count) same, \(steps.filter { !$0.same }.count) differ (of \(steps.count) compared)"
        }
    }

    struct TestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Polls `condition` every 20 ms until it holds; throws naming `what` after `seconds`.
    static func waitUntil(_ what: String, seconds: Double = 15, _ condition: () -> Bool) throws {
        guard JukeboxTestSupport.waitUntil(timeout: .seconds(seconds), pollingEvery: .milliseconds(20), condition)
        else { throw TestFailure("timed out: \(what)") }
    }

    /// Toggling repeat, random, single and consume in several orders, as ncmpcpp's r/z/y
    /// and mpc do, leaves the flags where MPD leaves them; and so do `single oneshot` and
    /// the ACKs for bad values.
    @Test(.enabled(if: hasMPD)) func flagToggles() throws {
        let servers = try Servers()
        let orders = [
            ["repeat", "random", "single", "consume"], ["single", "repeat", "consume", "random"],
            ["random", "single", "random", "repeat", "single", "repeat"], ["consume", "single", "single", "consume"],
        ]
        for order in orders {
            for flag in order + order {
                let on = servers.reference.fields("status")[flag] != "0"
                servers.both("\(flag) \(on ? 0 : 1)")
                servers.compare("\(order) \(flag)")
            }
        }
        // `consume` with anything but 0 and 1 answers as MPD 0.24 (0.23 refuses `oneshot` and
        // words it differently): MPD024Tests and MPD024ClientTests.
        for line in ["single oneshot", "single 2", "random x", "repeat 1", "single 0", "repeat 0"] {
            servers.both(line)
            servers.compare(line)
        }
        print("MPD differential, flag toggles: \(servers.summary)")
    }

    /// What happens when a song ends, per flag set (single pauses at the next song, oneshot
    /// turns itself off, consume removes the song, the end of the queue), seeking while
    /// paused, and `update` after `clear` and after files changed.
    @Test(.enabled(if: hasMPD)) func songEndsSeeksAndUpdates() throws {
        let servers = try Servers()
        let flagSets = [
            ["repeat 0", "single 0", "consume 0"], ["repeat 0", "single 1", "consume 0"],
            ["repeat 0", "single oneshot", "consume 0"], ["repeat 0", "single 0", "consume 1"],
            ["repeat 0", "single 1", "consume 1"], ["repeat 1", "single 0", "consume 1"],
            ["repeat 1", "single 1", "consume 1"], ["random 1", "repeat 0", "single 1", "consume 0"],
            ["random 1", "repeat 0", "single 0", "consume 1"],
        ]
        for flags in flagSets {
            for start in [1, 3] {
                for line in ["stop", "clear", "add \"\""] + flags { servers.both(line) }
                servers.both("play \(start)")
                let before = servers.status()
                try servers.compareAfterSongEnd(
                    "\(flags) from \(start)", before: before, songMatters: !flags.contains("random 1"))
            }
        }
        for line in ["stop", "clear", "add \"\"", "random 0", "repeat 0", "single 0", "consume 0"] {
            servers.both(line)
        }

        // Seeking while paused stays paused, on the same song and on another; stopped, it plays.
        for line in ["play 0", "pause 1", "seek 2 0.5", "seekcur 0.2", "seek 1 0.3", "stop", "seek 3 0.2", "stop"] {
            servers.both(line)
            servers.compare(line)
        }
        let id = servers.reference.fields("playlistinfo 2")["Id"] ?? "?"
        let ourID = servers.jukebox.fields("playlistinfo 2")["Id"] ?? "?"
        _ = (servers.jukebox.command("play 0"), servers.reference.command("play 0"))
        servers.both("pause 1")
        _ = (servers.jukebox.command("seekid \(ourID) 0.4"), servers.reference.command("seekid \(id) 0.4"))
        servers.compare("seekid while paused")
        servers.both("stop")

        // update changes the library only: after clear the queue stays empty.
        servers.both("clear")
        try Self.update(servers, songs: 4)
        servers.compare("update after clear")
        // A new file is not queued; a file that went is dropped from the queue.
        servers.both("add \"\"")
        try InputLatencyProbe.writeFlatWAV(path: servers.harness.musicDir + "/05 e.wav", seconds: 1)
        try FileManager.default.removeItem(atPath: servers.harness.musicDir + "/02 b.wav")
        try Self.update(servers, songs: 4)
        servers.compare("update after adding 05 and removing 02")
        print("MPD differential, song ends, seeks and updates: \(servers.summary)")
    }

    /// The output commands: `outputs` after each (without the name and plugin lines: MPD's is
    /// the test's null output, ours the ALSA device), the ACKs for other ids and bad numbers,
    /// and idle `output`, which fires only when the switch changed.
    @Test(.enabled(if: hasMPD)) func outputs() throws {
        let servers = try Servers()
        func compareOutputs(_ label: String) {
            let answers = [servers.jukebox, servers.reference].map {
                $0.command("outputs").filter { !$0.hasPrefix("outputname: ") && !$0.hasPrefix("plugin: ") }
            }
            servers.record("\(label): outputs", answers[0] == answers[1], "\(answers[0]) / MPD \(answers[1])")
        }
        let lines = [
            "disableoutput 0", "disableoutput 0", "toggleoutput 0", "toggleoutput 0", "enableoutput 0",
            "enableoutput 0", "enableoutput 1", "disableoutput 2", "toggleoutput 7", "disableoutput x",
            "enableoutput -1", "toggleoutput", "outputset 0 dop 1", "outputset 1 dop 1", "outputset 0",
        ]
        for line in lines {
            servers.both(line)
            compareOutputs(line)
        }
        let idlers = try [servers.port, servers.mpd.port].map { try MPDTestClient(port: $0) }
        for (line, wakes) in [("disableoutput 0", true), ("disableoutput 0", false), ("toggleoutput 0", true)] {
            for idler in idlers { idler.send("idle output") }
            servers.both(line)
            let answers = idlers.map { idler in
                wakes ? idler.response() : idler.command("noidle")
            }
            servers.record(
                "idle output, then \(line)",
                answers[0] == answers[1] && answers[1] == (wakes ? ["changed: output", "OK"] : ["OK"]),
                "\(answers[0]) / MPD \(answers[1])")
        }
        print("MPD differential, outputs: \(servers.summary)")
    }

    /// `update` on both, then waits until both finished and hold `songs` songs.
    static func update(_ servers: Servers, songs: Int) throws {
        _ = (servers.jukebox.command("update"), servers.reference.command("update"))
        try waitUntil("update finished on both") {
            [servers.jukebox, servers.reference].allSatisfy {
                $0.fields("status")["updating_db"] == nil && $0.fields("stats")["songs"] == "\(songs)"
            }
        }
    }
}
