import Foundation
import Glibc
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import Logging
import SQLite

@testable import JukeboxDaemon

/// A real `jukeboxd` process on a temporary music folder and database, driven through its
/// stdin console. Audio goes to ALSA's null PCM paced by the clock (real time, no card).
final class DaemonHarness {
    let directory: TemporaryDirectory
    let musicDir: String
    let configPath: String
    var database: String { directory.file("state/jukebox.sqlite") }
    private(set) var process: DaemonProcess?
    /// When the current process was started (MonotonicClock).
    private(set) var startedAt: UInt64 = 0
    /// The lazy file system mounted at `state/` (`lazyState: true`), for real power cuts.
    private(set) var lazyFS: LazyFS?

    /// Copies `tracks` (paths) into a fresh music folder and writes a config. With
    /// `lazyState` the state folder (database, disk journal) is a `LazyFS` mount, over
    /// `state-durable/`, that loses unsynced writes in `cutPower()`.
    init(
        tracks: [String], configExtra: String = "", onStart: String = "play", mode: String = "repeat-all",
        queueExtra: String = "", resumeExtra: String = "", lazyState: Bool = false, device: String = "null",
        pacing: String = "clock",
        startVolume: Int = 100, maxVolume: Int = 100, audioExtra: String = ""
    ) throws {
        directory = try TemporaryDirectory(prefix: "jukeboxd-test")
        if lazyState {
            lazyFS = try LazyFS(backing: directory.file("state-durable"), mountpoint: directory.file("state"))
        }
        musicDir = directory.file("music")
        try FileManager.default.createDirectory(atPath: musicDir, withIntermediateDirectories: true)
        for track in tracks {
            let name = (track as NSString).lastPathComponent
            try FileManager.default.copyItem(atPath: track, toPath: "\(musicDir)/\(name)")
        }
        configPath = directory.file("jukebox.toml")
        try DaemonConfig(
            musicDir: "music", device: device, pacing: pacing, startVolume: startVolume, maxVolume: maxVolume,
            audioExtra: audioExtra, mode: mode, queueExtra: queueExtra, onStart: onStart, resumeExtra: resumeExtra,
            extra: configExtra
        ).write(to: configPath)
    }

    deinit {
        if let process, process.isRunning {
            process.kill(SIGKILL)
            _ = process.waitForExit(timeout: .seconds(5))
        }
        try? forgetRAMJournal()  // /dev/shm is not cleaned until a reboot (and needs the mount)
        lazyFS = nil  // unmounted before its mountpoint is removed
        directory.remove()
    }

    @discardableResult
    func start(
        extraArguments: [String] = [], stdinPath: String? = nil, environment: [String: String] = [:]
    ) throws -> DaemonProcess {
        startedAt = MonotonicClock.nanoseconds()
        let process = try DaemonProcess(
            executable: Jukeboxd.binary,
            arguments: ["--config", configPath, "--log-level", "debug", "--console", "stdin"] + extraArguments,
            environment: environment, stdinPath: stdinPath)
        self.process = process
        return process
    }

    /// Sends a command; ignores a daemon that already went away (the test then fails on output).
    func send(_ line: String) {
        try? process?.send(line)
    }

    struct Status {
        var state: String
        var songID: Int64?
        var elapsed: Double
        var duration: Double?
        var volume: Int
        var mode: String
        var playlistLength: Int
        /// The playback speed (`1` when the reply has no `speed:` line).
        var speed = "1"
        /// When the reply's first line arrived (MonotonicClock).
        var at: UInt64
    }

    /// Asks `status` and parses the reply.
    func status(timeout: Duration = .seconds(5)) -> Status? {
        guard let process else { return nil }
        process.skipOutput()
        send("status")
        guard let first = process.waitForOutputLine(matching: "state: ", on: .stdout, timeout: timeout) else {
            return nil
        }
        var fields: [String: String] = [:]
        fields["state"] = String(first.text.dropFirst("state: ".count))
        // The reply ends with the mode line (then title/artist when known).
        while let line = process.waitForLine(matching: ": ", on: .stdout, timeout: timeout) {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
            if parts.first == "mode" { break }
        }
        return Status(
            state: fields["state"] ?? "?", songID: fields["songid"].flatMap { Int64($0) },
            elapsed: fields["elapsed"].flatMap { Double($0) } ?? 0, duration: fields["duration"].flatMap { Double($0) },
            volume: fields["volume"].flatMap { Int($0) } ?? -1, mode: fields["mode"] ?? "?",
            playlistLength: fields["playlistlength"].flatMap { Int($0) } ?? 0, speed: fields["speed"] ?? "1",
            at: first.nanoseconds)
    }

    /// Asks `status` (every 20 ms) until `condition` holds; returns that status, or nil when
    /// `timeout` passed first.
    func waitForStatus(timeout: Duration = .seconds(5), _ condition: (Status) -> Bool) -> Status? {
        var matched: Status?
        waitUntil(timeout: timeout, pollingEvery: .milliseconds(20)) {
            matched = status().flatMap { condition($0) ? $0 : nil }
            return matched != nil
        }
        return matched
    }

    /// `PRAGMA integrity_check` on the database, with the daemon not running. Closes without
    /// a checkpoint, as the daemon does, so the check leaves the WAL as the daemon left it.
    func integrityCheck() throws -> [String] {
        var options = Connection.Options()
        options.checkpointOnClose = false
        let connection = try Connection(path: database, options: options)
        return try connection.strings("PRAGMA integrity_check")
    }

    /// The newest record of the card checkpoint beside the database: what the daemon made
    /// durable without a transaction (read-only, while the daemon runs too).
    func checkpoint() -> PositionJournal.Entry? {
        (try? PositionJournal(path: database + PositionJournal.suffix, logger: quietLogger, create: false))?.read()
    }

    /// A logger that drops everything, for journals the tests open.
    let quietLogger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Deletes the daemon's RAM journal (`/dev/shm/jukebox-DEV-INODE-position`, named after
    /// the database file), as a reboot after a power cut does.
    func forgetRAMJournal() throws {
        guard let path = ResumeJournal.ramPath(databasePath: database) else {
            throw Errno.current("stat", path: database)
        }
        if unlink(path) != 0 && errno != ENOENT { throw Errno.current("unlink", path: path) }
    }

    /// The power goes, with the daemon already killed: the RAM journal is gone (a reboot),
    /// the state file system loses every write that was not fsync'd, and it is mounted again
    /// afresh (no page cache survives). Returns what the cut lost.
    func cutPower() throws -> LazyFS.Cut {
        guard let lazyFS else { preconditionFailure("cutPower needs DaemonHarness(lazyState: true)") }
        try forgetRAMJournal()  // through the mount, while it still answers
        let cut = try lazyFS.cut()
        try lazyFS.remount()
        return cut
    }

    /// Stderr so far, for failure messages.
    var log: String { process?.text(of: .stderr) ?? "" }
}

func sleepMilliseconds(_ ms: Int) { MonotonicClock.sleep(nanoseconds: UInt64(ms) * 1_000_000) }

func seconds(from start: UInt64, to end: UInt64) -> Double { Double(Int64(end) - Int64(start)) / 1e9 }
