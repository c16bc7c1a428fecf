// Process plumbing for the benchmark, on JukeboxTestSupport's (one spawner for tests and
// benchmark, wait4 with rusage, the /proc readers): what stays here is the benchmark's own,
// a registry of every child (so Ctrl-C leaves none behind) and timed runs.
import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Seconds on the monotonic clock, for the benchmark's arithmetic in Double.
enum Clock {
    static func seconds() -> Double { Double(MonotonicClock.nanoseconds()) / 1e9 }
    static func sleep(_ s: Double) {
        guard s > 0 else { return }
        MonotonicClock.sleep(nanoseconds: UInt64(s * 1e9))
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

typealias ExitInfo = ChildExit

extension ChildExit {
    var cpuS: Double { cpuSeconds }
    var exited: Bool { if case .exited = termination { true } else { false } }
    /// The exit code, or 128 + the signal.
    var status: Int32 { termination.status }
    var exitCode: Int32 { if case .exited(let code) = termination { code } else { -1 } }
    var text: String { termination.description }
}

final class Child: @unchecked Sendable {
    let pid: pid_t
    let argv: [String]
    /// The parent's ends of the streams spawned as `.pipe`.
    let pipes: SpawnedChild
    private(set) var exitInfo: ExitInfo?

    private init(_ spawned: SpawnedChild, argv: [String]) {
        pid = spawned.pid
        self.argv = argv
        pipes = spawned
    }

    /// Spawns `argv` (PATH is searched when argv[0] has no slash).
    static func spawn(
        _ argv: [String], stdin: ChildStream = .null, stdout: ChildStream = .null, stderr: ChildStream = .null
    ) throws -> Child {
        let spawned: SpawnedChild
        do {
            spawned = try spawnChild(argv, stdin: stdin, stdout: stdout, stderr: stderr)
        } catch {
            throw BenchError("cannot start \(argv[0]): \(String(cString: strerror(error.code)))")
        }
        ChildRegistry.shared.add(spawned.pid)
        return Child(spawned, argv: argv)
    }

    var isRunning: Bool { exitInfo == nil && tryWait() == nil }

    /// Non-blocking reap.
    @discardableResult
    func tryWait() -> ExitInfo? {
        if let e = exitInfo { return e }
        return reap(pid, block: false).map(record)
    }

    /// Blocks until the child exits.
    @discardableResult
    func wait() -> ExitInfo? { exitInfo ?? reap(pid).map(record) }

    /// Waits up to `timeout` s for the exit; nil if it did not come.
    @discardableResult
    func wait(timeout: Double) -> ExitInfo? {
        waitUntil(timeout: .seconds(timeout)) { tryWait() != nil }
        return exitInfo
    }

    private func record(_ e: ExitInfo) -> ExitInfo {
        exitInfo = e
        ChildRegistry.shared.remove(pid)
        return e
    }

    func signal(_ s: Int32) { if exitInfo == nil { kill(pid, s) } }
}

/// A child the benchmark stops: a Child, or a jukeboxd (`DaemonProc`).
protocol Terminable: AnyObject {
    func signal(_ s: Int32)
    func wait(timeout: Double) -> ExitInfo?
}

extension Terminable {
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

extension Child: Terminable {}

/// Runs a command to completion; returns exit info and wall seconds.
func runTimed(_ argv: [String], stdout: ChildStream = .null, stderr: ChildStream = .null, timeout: Double = 600) throws
    -> (ExitInfo, Double)
{
    let t0 = Clock.seconds()
    let c = try Child.spawn(argv, stdout: stdout, stderr: stderr)
    guard let e = c.wait(timeout: timeout) else {
        c.terminate(grace: 1)
        throw BenchError("\(argv[0]) did not finish within \(Int(timeout)) s")
    }
    return (e, Clock.seconds() - t0)
}

/// Runs a command and returns its stdout (stderr to /dev/null unless given).
func capture(_ argv: [String], stderr: ChildStream = .null, timeout: Double = 600) throws -> (ExitInfo, String) {
    let c = try Child.spawn(argv, stdout: .pipe, stderr: stderr)
    var out = [UInt8]()
    var buf = [UInt8](repeating: 0, count: 65536)
    let fd = c.pipes.stdout!.rawValue
    while true {
        let n = read(fd, &buf, buf.count)
        if n > 0 { out.append(contentsOf: buf[0..<n]) } else if n == -1 && errno == EINTR { continue } else { break }
    }
    let e =
        c.wait(timeout: timeout)
        ?? {
            c.terminate(grace: 1)
            return ExitInfo(termination: .signaled(SIGKILL), userSeconds: 0, systemSeconds: 0, maxRSSKiB: 0)
        }()
    return (e, String(decoding: out, as: UTF8.self))
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
    // A path (the scale section's /usr/bin/python3) is not looked up in PATH.
    if tool.contains("/") { return access(tool, X_OK) == 0 ? tool : nil }
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let p = "\(dir)/\(tool)"
        if access(p, X_OK) == 0 { return p }
    }
    return nil
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
