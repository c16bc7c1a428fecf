// A running jukeboxd for the benchmark, its config, and its database's files.
import Foundation
import Glibc
import JukeboxTestSupport

extension DaemonConfig {
    /// Config for one jukeboxd run of the benchmark: ALSA's null device paced by the device,
    /// 10 ms periods in a 40 ms buffer, full volume, the queue in order, the console on stdin.
    static func bench(musicDir: String, database: String, pacing: String = "device", onStart: String = "play")
        -> DaemonConfig
    {
        DaemonConfig(
            musicDir: musicDir, database: database, pacing: pacing, periodMs: 10, bufferMs: 40, mode: "in-order",
            onStart: onStart, checkpointDevice: "", comment: "written by jukebox-bench")
    }
}

/// Deletes the database and its side files (-wal, -shm, -journal, -position, ...).
func removeDatabase(_ db: String) {
    let dir = (db as NSString).deletingLastPathComponent
    let base = (db as NSString).lastPathComponent
    for f in (try? fm.contentsOfDirectory(atPath: dir)) ?? [] where f.hasPrefix(base) {
        removeItem("\(dir)/\(f)")
    }
}

/// Copies the database and its side files from one folder to another (snapshot/restore).
func copyDatabase(_ db: String, toDir: String) throws {
    let dir = (db as NSString).deletingLastPathComponent
    let base = (db as NSString).lastPathComponent
    removeItem(toDir)
    try mkdirs(toDir)
    for f in try fm.contentsOfDirectory(atPath: dir) where f.hasPrefix(base) {
        try fm.copyItem(atPath: "\(dir)/\(f)", toPath: "\(toDir)/\(f)")
    }
}

func restoreDatabase(_ db: String, fromDir: String) throws {
    removeDatabase(db)
    let dir = (db as NSString).deletingLastPathComponent
    for f in try fm.contentsOfDirectory(atPath: fromDir) {
        try fm.copyItem(atPath: "\(fromDir)/\(f)", toPath: "\(dir)/\(f)")
    }
    // The daemon names its RAM journal by the database's device and inode; one left by an
    // earlier copy whose inode number this one reused would pass for this state's (a reboot
    // clears /dev/shm; a bench run does not reboot).
    var info = stat()
    if stat(db, &info) == 0 { removeItem("/dev/shm/jukebox-\(info.st_dev)-\(info.st_ino)-position") }
}

/// A running jukeboxd: JukeboxTestSupport's `DaemonProcess` (stdin for console commands,
/// stdout and stderr collected line by line, also into a log file), with the benchmark's
/// waits on log patterns and `status`, and in the registry that Ctrl-C empties.
final class DaemonProc: Terminable, @unchecked Sendable {
    let process: DaemonProcess
    let logPath: String
    /// When it was started (Clock.seconds, taken just before the spawn).
    let startTime: Double

    var pid: pid_t { process.pid }

    /// Starts `jukeboxd --config CFG [extra...]`.
    init(jukeboxd: String, config: String, extraArgs: [String] = [], logPath: String) throws {
        self.logPath = logPath
        startTime = Clock.seconds()
        process = try DaemonProcess(
            executable: jukeboxd,
            arguments: ["--config", config, "--console", "stdin", "--log-level", "info"] + extraArgs,
            logPath: logPath)
        ChildRegistry.shared.add(process.pid)
    }

    /// Sends one console command.
    func send(_ command: String) { try? process.send(command) }

    private func lines(of stream: OutputLine.Stream) -> [OutputLine] { process.lines.filter { $0.stream == stream } }
    private func bytes(of stream: OutputLine.Stream) -> Int {
        lines(of: stream).reduce(0) { $0 + $1.text.utf8.count + 1 }
    }

    var stderrBytes: Int { bytes(of: .stderr) }
    var stdoutBytes: Int { bytes(of: .stdout) }
    var stderrLineCount: Int { lines(of: .stderr).count }
    func stderrLines() -> [String] { lines(of: .stderr).map(\.text) }

    /// Waits for a stderr line (from the line `from` of both streams on) matching `match`;
    /// returns (time, line) or nil on timeout / process exit.
    func waitLog(from: Int = 0, timeout: Double, _ match: (String) -> Bool) -> (t: Double, line: String)? {
        process.waitForOutputLine(from: from, on: .stderr, timeout: .seconds(timeout), where: match).map {
            (Double($0.nanoseconds) / 1e9, $0.text)
        }
    }

    /// Sends `status` and returns the key/value pairs of the reply (waits for a `state:` line).
    func status(timeout: Double = 2) -> [String: String]? {
        let from = process.lines.count
        send("status")
        guard
            process.waitForOutputLine(
                from: from, on: .stdout, timeout: .seconds(timeout), where: { $0.hasPrefix("state:") })
                != nil
        else { return nil }
        Clock.sleep(0.03)  // give the remaining lines of the reply a moment to arrive
        var kv = [String: String]()
        for line in process.lines.dropFirst(from) where line.stream == .stdout {
            let parts = line.text.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { kv[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return kv
    }

    /// The last stderr lines, for error messages.
    func tail(_ n: Int = 8) -> String {
        stderrLines().suffix(n).map { "    | " + $0 }.joined(separator: "\n")
    }

    // MARK: exit

    var isRunning: Bool { process.isRunning }
    var exitInfo: ExitInfo? { process.exit }

    func signal(_ s: Int32) { process.kill(s) }

    /// Non-blocking reap.
    @discardableResult
    func tryWait() -> ExitInfo? { isRunning ? nil : unregistered(process.exit) }

    /// Waits up to `timeout` s for the exit.
    @discardableResult
    func wait(timeout: Double) -> ExitInfo? { unregistered(process.waitForChildExit(timeout: .seconds(timeout))) }

    private func unregistered(_ exit: ExitInfo?) -> ExitInfo? {
        if exit != nil { ChildRegistry.shared.remove(pid) }
        return exit
    }

    func stop(grace: Double = 3) -> (ExitInfo?, Double) { terminate(grace: grace) }
}

// MARK: - log patterns (the daemon's exact wording may still change: match loosely)

enum LogMatch {
    static func library(_ l: String) -> Bool { l.lowercased().contains("library:") }
    static func playing(_ l: String) -> Bool {
        l.lowercased().contains("playing \"") || l.lowercased().contains("playing '")
    }
    static func endOfQueue(_ l: String) -> Bool {
        let s = l.lowercased()
        return s.contains("end of queue") || s.contains("end of the queue") || s.contains("end-of-queue")
            || s.contains("queue ended") || s.contains("queue finished") || s.contains("end of playlist")
            || s.contains("queue end")
    }
}

extension DaemonProc {
    /// Waits until a track is playing. If nothing plays within `kick` s after the library line
    /// (e.g. the daemon does not auto-play a fresh library), sends `play` once.
    func waitPlaying(timeout: Double, kick: Double = 3) -> (t: Double, line: String)? {
        if let p = waitLog(timeout: min(kick, timeout), LogMatch.playing) { return p }
        if !isRunning { return nil }
        send("play")
        return waitLog(timeout: max(0.5, timeout - kick), LogMatch.playing)
    }

    /// Waits for the end of the queue: the end-of-queue log line, or (fallback) `state: stop` in
    /// `status` after playback started. Returns the time it was noticed.
    func waitEndOfQueue(timeout: Double, pollStatusEvery: Double = 0.25) -> Double? {
        let end = Clock.seconds() + timeout
        var from = 0
        while Clock.seconds() < end {
            if let e = waitLog(from: from, timeout: pollStatusEvery, LogMatch.endOfQueue) { return e.t }
            from = max(0, process.lines.count - 1)
            if !isRunning { return nil }
            if let st = status(timeout: 1), st["state"] == "stop" { return Clock.seconds() }
        }
        return nil
    }
}
