// Process plumbing for the benchmark: posix_spawn, wait4 with rusage, /proc readers,
// monotonic time. Self-contained (Glibc + Foundation) on purpose: the benchmark must not
// depend on the exact API of JukeboxTestSupport.
import Foundation
import Glibc

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

enum Clock {
    static func ns() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
    static func seconds() -> Double { Double(ns()) / 1e9 }
    static func sleep(_ s: Double) {
        guard s > 0 else { return }
        var req = timespec(tv_sec: Int(s), tv_nsec: Int((s - Double(Int(s))) * 1e9))
        var rem = timespec()
        while nanosleep(&req, &rem) == -1 && errno == EINTR { req = rem }
    }
}

/// Every child we start is registered here so that Ctrl-C / errors never leave one behind.
/// Children are only ever stopped by their own pid.
final class ChildRegistry: @unchecked Sendable {
    static let shared = ChildRegistry()
    private let lock = NSLock()
    private var pids = Set<pid_t>()
    func add(_ p: pid_t) { lock.lock(); pids.insert(p); lock.unlock() }
    func remove(_ p: pid_t) { lock.lock(); pids.remove(p); lock.unlock() }
    func killAll() {
        lock.lock(); let all = pids; lock.unlock()
        for p in all { kill(p, SIGKILL) }
    }
}

struct ExitInfo {
    var status: Int32
    var userS: Double
    var sysS: Double
    var maxRSSKiB: Int
    var cpuS: Double { userS + sysS }
    var exited: Bool { (status & 0x7f) == 0 }
    var exitCode: Int32 { (status >> 8) & 0xff }
    var signal: Int32 { status & 0x7f }
    var text: String { exited ? "exit \(exitCode)" : "signal \(signal)" }
}

/// How a child's standard stream is connected.
enum Stdio {
    case inherit
    case null
    case file(String)          // truncate + write (or read for stdin)
    case fd(Int32)             // dup2 of an fd we own
}

final class Child: @unchecked Sendable {
    let pid: pid_t
    let argv: [String]
    private(set) var exitInfo: ExitInfo?

    init(pid: pid_t, argv: [String]) { self.pid = pid; self.argv = argv }

    /// Spawns `argv` (PATH is searched when argv[0] has no slash).
    static func spawn(_ argv: [String], stdin: Stdio = .null, stdout: Stdio = .null, stderr: Stdio = .null,
                      cwd: String? = nil) throws -> Child {
        var fa = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fa)
        defer { posix_spawn_file_actions_destroy(&fa) }
        func wire(_ s: Stdio, _ target: Int32, write: Bool) {
            switch s {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(&fa, target, "/dev/null", write ? O_WRONLY : O_RDONLY, 0)
            case .file(let p):
                posix_spawn_file_actions_addopen(&fa, target, p, write ? (O_WRONLY | O_CREAT | O_TRUNC) : O_RDONLY, 0o644)
            case .fd(let f): posix_spawn_file_actions_adddup2(&fa, f, target)
            }
        }
        wire(stdin, 0, write: false)
        wire(stdout, 1, write: true)
        wire(stderr, 2, write: true)

        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var defSigs = sigset_t()
        sigemptyset(&defSigs)
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGHUP] { sigaddset(&defSigs, s) }
        posix_spawnattr_setsigdefault(&attr, &defSigs)
        var noMask = sigset_t()
        sigemptyset(&noMask)
        posix_spawnattr_setsigmask(&attr, &noMask)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cargs.append(nil)
        defer { for p in cargs { free(p) } }
        var pid: pid_t = 0
        let rc = argv[0].contains("/")
            ? posix_spawn(&pid, argv[0], &fa, &attr, cargs, environ)
            : posix_spawnp(&pid, argv[0], &fa, &attr, cargs, environ)
        if rc != 0 {
            throw BenchError("cannot start \(argv[0]): \(String(cString: strerror(rc)))")
        }
        ChildRegistry.shared.add(pid)
        return Child(pid: pid, argv: argv)
    }

    var isRunning: Bool { exitInfo == nil && tryWait() == nil }

    /// Non-blocking reap.
    @discardableResult
    func tryWait() -> ExitInfo? {
        if let e = exitInfo { return e }
        var st: Int32 = 0
        var ru = rusage()
        let r = wait4(pid, &st, WNOHANG, &ru)
        if r == pid { return record(st, ru) }
        return nil
    }

    /// Blocks until the child exits; with a timeout, returns nil if it did not.
    @discardableResult
    func wait(timeout: Double? = nil) -> ExitInfo? {
        if let e = exitInfo { return e }
        if let timeout {
            let end = Clock.seconds() + timeout
            while Clock.seconds() < end {
                if let e = tryWait() { return e }
                Clock.sleep(0.002)
            }
            return tryWait()
        }
        var st: Int32 = 0
        var ru = rusage()
        while true {
            let r = wait4(pid, &st, 0, &ru)
            if r == pid { return record(st, ru) }
            if r == -1 && errno != EINTR { return nil }
        }
    }

    private func record(_ st: Int32, _ ru: rusage) -> ExitInfo {
        let e = ExitInfo(status: st,
                         userS: Double(ru.ru_utime.tv_sec) + Double(ru.ru_utime.tv_usec) / 1e6,
                         sysS: Double(ru.ru_stime.tv_sec) + Double(ru.ru_stime.tv_usec) / 1e6,
                         maxRSSKiB: ru.ru_maxrss)
        exitInfo = e
        ChildRegistry.shared.remove(pid)
        return e
    }

    func signal(_ s: Int32) { if exitInfo == nil { kill(pid, s) } }

    /// SIGTERM, wait up to `grace` s, then SIGKILL. Returns the exit info and the seconds to exit.
    @discardableResult
    func terminate(grace: Double = 3) -> (ExitInfo?, Double) {
        let t0 = Clock.seconds()
        signal(SIGTERM)
        if let e = wait(timeout: grace) { return (e, Clock.seconds() - t0) }
        signal(SIGKILL)
        return (wait(timeout: 5), Clock.seconds() - t0)
    }
}

/// Runs a command to completion; returns exit info and wall seconds.
func runTimed(_ argv: [String], stdout: Stdio = .null, stderr: Stdio = .null, timeout: Double = 600) throws -> (ExitInfo, Double) {
    let t0 = Clock.seconds()
    let c = try Child.spawn(argv, stdout: stdout, stderr: stderr)
    guard let e = c.wait(timeout: timeout) else {
        c.terminate(grace: 1)
        throw BenchError("\(argv[0]) did not finish within \(Int(timeout)) s")
    }
    return (e, Clock.seconds() - t0)
}

/// Runs a command and returns its stdout (stderr to /dev/null unless given).
func capture(_ argv: [String], stderr: Stdio = .null, timeout: Double = 600) throws -> (ExitInfo, String) {
    var fds: [Int32] = [0, 0]
    guard makePipe(&fds) else { throw BenchError("pipe failed") }
    let c: Child
    do { c = try Child.spawn(argv, stdout: .fd(fds[1]), stderr: stderr) } catch {
        close(fds[0]); close(fds[1]); throw error
    }
    close(fds[1])
    var out = [UInt8]()
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fds[0], &buf, buf.count)
        if n > 0 { out.append(contentsOf: buf[0..<n]) } else if n == -1 && errno == EINTR { continue } else { break }
    }
    close(fds[0])
    let e = c.wait(timeout: timeout) ?? { c.terminate(grace: 1); return ExitInfo(status: 9, userS: 0, sysS: 0, maxRSSKiB: 0) }()
    return (e, String(decoding: out, as: UTF8.self))
}

// MARK: - /proc

/// Reads a whole file (works for /proc files, whose size is reported as 0).
func readWholeFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out = [UInt8]()
    var buf = [UInt8](repeating: 0, count: 16384)
    while true {
        let n = read(fd, &buf, buf.count)
        if n > 0 { out.append(contentsOf: buf[0..<n]) } else if n == -1 && errno == EINTR { continue } else { break }
    }
    return String(decoding: out, as: UTF8.self)
}

enum ProcFS {
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// utime+stime (all threads, including exited ones) in seconds.
    static func cpuSeconds(_ pid: pid_t) -> Double? {
        guard let s = readWholeFile("/proc/\(pid)/stat"), let close = s.lastIndex(of: ")") else { return nil }
        let fields = s[s.index(after: close)...].split(separator: " ")
        // fields[0] is state (field 3); utime is field 14, stime field 15
        guard fields.count > 13, let u = Double(fields[11]), let st = Double(fields[12]) else { return nil }
        return (u + st) / ticksPerSecond
    }

    /// Key: value lines of /proc/PID/status with kB values (VmRSS, RssAnon, ...), in KiB.
    static func statusKiB(_ pid: pid_t) -> [String: Int] {
        guard let s = readWholeFile("/proc/\(pid)/status") else { return [:] }
        var r = [String: Int]()
        for line in s.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let v = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" })
            if v.count == 2, v[1] == "kB", let n = Int(v[0]) { r[String(parts[0])] = n }
        }
        return r
    }

    /// /proc/PID/io counters (wchar, write_bytes, syscw, ...).
    static func io(_ pid: pid_t) -> [String: Int] {
        guard let s = readWholeFile("/proc/\(pid)/io") else { return [:] }
        var r = [String: Int]()
        for line in s.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, let n = Int(parts[1].trimmingCharacters(in: .whitespaces)) { r[String(parts[0])] = n }
        }
        return r
    }
}

// MARK: - files

let fm = FileManager.default

func fileExists(_ p: String) -> Bool { fm.fileExists(atPath: p) }

func mkdirs(_ p: String) throws { try fm.createDirectory(atPath: p, withIntermediateDirectories: true) }

func removeItem(_ p: String) { try? fm.removeItem(atPath: p) }

func writeText(_ p: String, _ s: String) throws {
    try s.write(toFile: p, atomically: true, encoding: .utf8)
}

func which(_ tool: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let p = "\(dir)/\(tool)"
        if access(p, X_OK) == 0 { return p }
    }
    return nil
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
func freeLoopbackPort() -> Int {
    let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(s) }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_port = 0
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &a) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sp -> Bool in
            bind(s, sp, len) == 0 && getsockname(s, sp, &len) == 0
        }
    }
    return ok ? Int(UInt16(bigEndian: a.sin_port)) : 6612
}

/// Opens a FIFO for reading without blocking (a writer may come later).
func openFifoReader(_ path: String) throws -> Int32 {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    if fd < 0 { throw BenchError("cannot open fifo \(path): \(String(cString: strerror(errno)))") }
    return fd
}

/// Waits until `fd` yields at least one byte; returns the monotonic time of that read, or nil.
func waitFirstByte(_ fd: Int32, timeout: Double, while alive: () -> Bool) -> Double? {
    let end = Clock.seconds() + timeout
    var buf = [UInt8](repeating: 0, count: 65536)
    while Clock.seconds() < end {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let r = poll(&p, 1, 20)
        if r > 0 && (p.revents & Int16(POLLIN)) != 0 {
            let n = read(fd, &buf, buf.count)
            if n > 0 { return Clock.seconds() }
        } else if r > 0 {
            // POLLHUP without data: no writer (yet, or any more); avoid spinning
            Clock.sleep(0.0002)
        }
        if !alive() { return nil }
    }
    return nil
}

/// Reads and discards whatever is in `fd` right now.
func drain(_ fd: Int32) {
    var buf = [UInt8](repeating: 0, count: 65536)
    while read(fd, &buf, buf.count) > 0 {}
}

/// pipe(2) with FD_CLOEXEC on both ends (pipe2 is not visible from Swift's Glibc module).
func makePipe(_ fds: inout [Int32]) -> Bool {
    fds = [0, 0]
    guard pipe(&fds) == 0 else { return false }
    for f in fds { _ = fcntl(f, F_SETFD, FD_CLOEXEC) }
    return true
}
