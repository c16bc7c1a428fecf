import Foundation
import Glibc
import LinuxSupport

/// I/O counters of a process from `/proc/PID/io` (the process and its reaped children).
/// `wchar`/`syscw` count every write call; `writeBytes` is what reached the block layer
/// (SD-card wear); `cancelledWriteBytes` is dirty data that was truncated before writeback.
public struct ProcessIO: Sendable, Equatable {
    public var rchar: UInt64 = 0
    public var wchar: UInt64 = 0
    public var syscr: UInt64 = 0
    public var syscw: UInt64 = 0
    public var readBytes: UInt64 = 0
    public var writeBytes: UInt64 = 0
    public var cancelledWriteBytes: UInt64 = 0

    public init() {}

    /// Reads `/proc/<pid>/io`; nil when the process is gone or the file is not readable.
    public static func readIO(_ pid: pid_t) -> ProcessIO? { read("/proc/\(pid)/io") }

    /// The calling thread's own counters (`/proc/thread-self/io`): what it alone read and
    /// wrote, whatever other threads of the test process do meanwhile.
    public static func readThisThread() -> ProcessIO? { read("/proc/thread-self/io") }

    private static func read(_ path: String) -> ProcessIO? {
        guard let text = readText(path) else { return nil }
        var io = ProcessIO()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let value = UInt64(parts[1].trimmingCharacters(in: .whitespaces)) else { continue }
            switch parts[0] {
            case "rchar": io.rchar = value
            case "wchar": io.wchar = value
            case "syscr": io.syscr = value
            case "syscw": io.syscw = value
            case "read_bytes": io.readBytes = value
            case "write_bytes": io.writeBytes = value
            case "cancelled_write_bytes": io.cancelledWriteBytes = value
            default: break
            }
        }
        return io
    }

    /// The counters accumulated since `earlier` (field by field).
    public func since(_ earlier: ProcessIO) -> ProcessIO {
        var d = ProcessIO()
        d.rchar = rchar &- earlier.rchar
        d.wchar = wchar &- earlier.wchar
        d.syscr = syscr &- earlier.syscr
        d.syscw = syscw &- earlier.syscw
        d.readBytes = readBytes &- earlier.readBytes
        d.writeBytes = writeBytes &- earlier.writeBytes
        d.cancelledWriteBytes = cancelledWriteBytes &- earlier.cancelledWriteBytes
        return d
    }
}

/// Memory and CPU of a process: `VmRSS`, `RssAnon`, `RssFile` and `VmHWM` (peak RSS) from
/// `/proc/PID/status`, user and system time (clock ticks) and thread count from `/proc/PID/stat`.
public struct ProcessStats: Sendable, Equatable {
    public var vmRSSKiB: Int = 0
    public var rssAnonKiB: Int = 0
    public var rssFileKiB: Int = 0
    public var vmHWMKiB: Int = 0
    public var userTicks: UInt64 = 0
    public var systemTicks: UInt64 = 0
    public var threads: Int = 0

    public init() {}

    /// Clock ticks per second (`sysconf(_SC_CLK_TCK)`, 100 on Linux).
    public static var ticksPerSecond: Int { Int(sysconf(Int32(_SC_CLK_TCK))) }

    /// User plus system CPU time in seconds.
    public var cpuSeconds: Double { Double(userTicks + systemTicks) / Double(Self.ticksPerSecond) }

    /// Reads `/proc/<pid>/status` and `/proc/<pid>/stat`; nil when the process is gone.
    public static func read(_ pid: pid_t) -> ProcessStats? {
        guard let status = readText("/proc/\(pid)/status"), let stat = readText("/proc/\(pid)/stat"),
            let times = parseStat(stat)
        else { return nil }
        var stats = ProcessStats()
        for line in status.split(separator: "\n") {
            if line.hasPrefix("VmRSS:") { stats.vmRSSKiB = kibValue(line) }
            if line.hasPrefix("RssAnon:") { stats.rssAnonKiB = kibValue(line) }
            if line.hasPrefix("RssFile:") { stats.rssFileKiB = kibValue(line) }
            if line.hasPrefix("VmHWM:") { stats.vmHWMKiB = kibValue(line) }
        }
        (stats.userTicks, stats.systemTicks, stats.threads) = (times.user, times.system, times.threads)
        return stats
    }

    /// Per-thread CPU time from `/proc/<pid>/task/*/stat`, with the thread names
    /// (`jb-output`, `jb-decode`, …), sorted by thread id.
    public static func threads(of pid: pid_t) -> [ThreadStats] {
        let dir = "/proc/\(pid)/task"
        guard let tids = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        return tids.compactMap { tid -> ThreadStats? in
            guard let id = pid_t(tid), let stat = readText("\(dir)/\(tid)/stat"), let t = parseStat(stat) else {
                return nil
            }
            // Each voluntary switch is a sleep the thread woke from.
            let switches = readText("\(dir)/\(tid)/status")?.split(separator: "\n")
                .first { $0.hasPrefix("voluntary_ctxt_switches:") }
                .flatMap { UInt64($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") }
            return ThreadStats(
                tid: id, name: t.name, userTicks: t.user, systemTicks: t.system, voluntarySwitches: switches ?? 0)
        }.sorted { $0.tid < $1.tid }
    }

    /// Parses a `stat` line; the name is between the first "(" and the last ")".
    static func parseStat(_ text: String) -> (name: String, user: UInt64, system: UInt64, threads: Int)? {
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        let name = String(text[text.index(after: open)..<close])
        // fields after ")": state(3) ppid(4) … utime(14) stime(15) … num_threads(20)
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 17, let user = UInt64(fields[11]), let system = UInt64(fields[12]),
            let threads = Int(fields[17])
        else { return nil }
        return (name, user, system, threads)
    }

    private static func kibValue(_ line: Substring) -> Int {
        // "VmRSS:\t    1656 kB"
        Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
    }
}

/// CPU time of one thread of a process (see `ProcessStats.threads(of:)`).
public struct ThreadStats: Sendable, Equatable {
    public var tid: pid_t
    public var name: String
    public var userTicks: UInt64
    public var systemTicks: UInt64
    /// `voluntary_ctxt_switches` of `/proc/<pid>/task/<tid>/status`: how often it slept.
    public var voluntarySwitches: UInt64 = 0

    /// User plus system CPU time in seconds.
    public var cpuSeconds: Double { Double(userTicks + systemTicks) / Double(ProcessStats.ticksPerSecond) }
}

/// A whole text file (a /proc file, whose size reads as 0, too), up to `limit` bytes; nil when
/// it cannot be read.
public func readText(_ path: String, limit: Int = 64 << 20) -> String? {
    guard let bytes = try? readWholeFile(path, limit: limit) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
}
