// A running jukeboxd: stdin for console commands, stdout/stderr captured line by line
// (also appended to a log file) by a reader thread, waits on log patterns.
import Foundation
import Glibc

/// Config for one jukeboxd run (written as TOML next to its state).
struct DaemonConfig {
    var musicDir: String
    var database: String
    var device: String = "null"
    var pacing: String = "device"
    var onStart: String = "play"
    var periodMs = 10
    var bufferMs = 40
    var checkpointDevice = ""

    var toml: String {
        """
        # written by jukebox-bench
        music_dir = "\(musicDir)"
        database = "\(database)"

        [audio]
        device = "\(device)"
        period_ms = \(periodMs)
        buffer_ms = \(bufferMs)
        start_volume = 100
        max_volume = 100
        pacing = "\(pacing)"

        [queue]
        mode = "in-order"

        [resume]
        on_start = "\(onStart)"
        checkpoint_device = "\(checkpointDevice)"

        [console]
        device = "stdin"

        """
    }

    /// Writes the config and makes sure the database folder exists; returns the config path.
    func write(to path: String) throws -> String {
        try mkdirs((database as NSString).deletingLastPathComponent)
        try writeText(path, toml)
        return path
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

final class DaemonProc: @unchecked Sendable {
    let child: Child
    let logPath: String
    private let stdinFd: Int32
    private let cond = NSCondition()
    private var errLines: [(t: Double, line: String)] = []
    private var outLines: [(t: Double, line: String)] = []
    private var errBytes = 0
    private var outBytes = 0
    private var openStreams = 2
    private let logFile: FileHandle?

    var pid: pid_t { child.pid }

    /// Starts `jukeboxd --config CFG [extra...]`. The exec time is `startTime` (taken just before spawn).
    let startTime: Double

    init(jukeboxd: String, config: String, extraArgs: [String] = [], logPath: String) throws {
        var inP: [Int32] = [0, 0], outP: [Int32] = [0, 0], errP: [Int32] = [0, 0]
        guard makePipe(&inP), makePipe(&outP), makePipe(&errP) else {
            throw BenchError("pipe failed")
        }
        self.logPath = logPath
        _ = fm.createFile(atPath: logPath, contents: nil)
        logFile = FileHandle(forWritingAtPath: logPath)
        let argv = [jukeboxd, "--config", config, "--console", "stdin", "--log-level", "info"] + extraArgs
        logFile?.write(Data("$ \(argv.joined(separator: " "))\n".utf8))
        startTime = Clock.seconds()
        do {
            child = try Child.spawn(argv, stdin: .fd(inP[0]), stdout: .fd(outP[1]), stderr: .fd(errP[1]))
        } catch {
            for f in inP + outP + errP { close(f) }
            throw error
        }
        close(inP[0]); close(outP[1]); close(errP[1])
        stdinFd = inP[1]
        startReader(fd: errP[0], isErr: true)
        startReader(fd: outP[0], isErr: false)
    }

    deinit { close(stdinFd) }

    private func startReader(fd: Int32, isErr: Bool) {
        let t = Thread { [self] in
            var pending = [UInt8]()
            var buf = [UInt8](repeating: 0, count: 8192)
            while true {
                let n = read(fd, &buf, buf.count)
                if n == -1 && errno == EINTR { continue }
                if n <= 0 { break }
                let now = Clock.seconds()
                pending.append(contentsOf: buf[0..<n])
                var lines = [String]()
                while let nl = pending.firstIndex(of: 10) {
                    lines.append(String(decoding: pending[..<nl], as: UTF8.self))
                    pending.removeSubrange(...nl)
                }
                cond.lock()
                if isErr { errBytes += n } else { outBytes += n }
                for l in lines {
                    if isErr { errLines.append((now, l)) } else { outLines.append((now, l)) }
                    logFile?.write(Data(((isErr ? "" : "[stdout] ") + l + "\n").utf8))
                }
                cond.broadcast()
                cond.unlock()
            }
            close(fd)
            cond.lock()
            openStreams -= 1
            cond.broadcast()
            cond.unlock()
        }
        t.start()
    }

    /// Sends one console command.
    func send(_ command: String) {
        let d = Array((command + "\n").utf8)
        _ = d.withUnsafeBytes { write(stdinFd, $0.baseAddress, $0.count) }
        cond.lock()
        logFile?.write(Data("[stdin] \(command)\n".utf8))
        cond.unlock()
    }

    var stderrBytes: Int { cond.lock(); defer { cond.unlock() }; return errBytes }
    var stdoutBytes: Int { cond.lock(); defer { cond.unlock() }; return outBytes }
    var stderrLineCount: Int { cond.lock(); defer { cond.unlock() }; return errLines.count }
    func stderrLines() -> [String] { cond.lock(); defer { cond.unlock() }; return errLines.map(\.line) }

    /// Waits for a stderr line (from index `from`) matching `match`; returns (time, line) or nil on
    /// timeout / process exit.
    func waitLog(from: Int = 0, timeout: Double, _ match: (String) -> Bool) -> (t: Double, line: String)? {
        let end = Date(timeIntervalSinceNow: timeout)
        cond.lock()
        defer { cond.unlock() }
        var i = from
        while true {
            while i < errLines.count {
                if match(errLines[i].line) { return errLines[i] }
                i += 1
            }
            if openStreams < 2 { return nil }         // stderr closed: process gone
            if !cond.wait(until: end) { return nil }
        }
    }

    /// Sends `status` and returns the key/value pairs of the reply (waits for a `state:` line).
    func status(timeout: Double = 2) -> [String: String]? {
        cond.lock()
        let from = outLines.count
        cond.unlock()
        send("status")
        let end = Date(timeIntervalSinceNow: timeout)
        cond.lock()
        defer { cond.unlock() }
        while true {
            if let si = outLines[from...].firstIndex(where: { $0.line.hasPrefix("state:") }) {
                // give the remaining lines of the reply a moment to arrive
                _ = cond.wait(until: Date(timeIntervalSinceNow: 0.03))
                var kv = [String: String]()
                var j = from
                while j < outLines.count {
                    let parts = outLines[j].line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2 { kv[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
                    j += 1
                }
                _ = si
                return kv
            }
            if openStreams < 2 { return nil }
            if !cond.wait(until: end) { return nil }
        }
    }

    /// The last stderr lines, for error messages.
    func tail(_ n: Int = 8) -> String {
        let l = stderrLines()
        return l.suffix(n).map { "    | " + $0 }.joined(separator: "\n")
    }

    func stop(grace: Double = 3) -> (ExitInfo?, Double) { child.terminate(grace: grace) }
}

// MARK: - log patterns (the daemon's exact wording may still change: match loosely)

enum LogMatch {
    static func library(_ l: String) -> Bool { l.lowercased().contains("library:") }
    static func playing(_ l: String) -> Bool { l.lowercased().contains("playing \"") || l.lowercased().contains("playing '") }
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
        if !child.isRunning { return nil }
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
            from = max(0, stderrLineCount - 1)
            if !child.isRunning { return nil }
            if let st = status(timeout: 1), st["state"] == "stop" { return Clock.seconds() }
        }
        return nil
    }
}
