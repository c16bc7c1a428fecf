// Section scale: jukeboxd and MPD 0.23 on libraries of 2,000, 20,000 and 100,000 files
// (ScaleLibrary), in one run: scans, memory, the queries clients make on start, and how long
// the daemon's first start on an unscanned library leaves clients without an answer.
import Foundation
import Glibc
import JukeboxTestSupport

extension Bench {
    /// One figure of one size: jukeboxd's and MPD's (nil where not measured or failed).
    typealias ScalePair = (jb: Double?, mpd: Double?)

    /// The figures, in the order of the report; `target` judges a pair (nil: context only).
    struct ScaleMetric: Sendable {
        let key: String
        let unit: String
        let digits: Int
        let targetText: String
        let target: (@Sendable (Double, Double?) -> Bool)?
    }

    static let scaleMetrics: [ScaleMetric] = {
        @Sendable func atMost(_ r: Double) -> @Sendable (Double, Double?) -> Bool {
            { jb, mpd in mpd.map { jb <= r * $0 } ?? false }
        }
        return [
            ScaleMetric(
                key: "first scan, empty db", unit: "s", digits: 2, targetText: "≤ 0.5× MPD", target: atMost(0.5)),
            ScaleMetric(key: "CPU of the first scan", unit: "s", digits: 2, targetText: "context", target: nil),
            ScaleMetric(
                key: "rescan, nothing changed", unit: "s", digits: 3, targetText: "≤ 1.0× MPD", target: atMost(1)),
            ScaleMetric(
                key: "rescan after 1 % of files changed", unit: "s", digits: 3, targetText: "≤ 0.5× MPD",
                target: atMost(0.5)),
            ScaleMetric(
                key: "RSS idle after the scan", unit: "MiB", digits: 1, targetText: "≤ 0.3× MPD", target: atMost(0.3)),
            ScaleMetric(
                key: "RSS while playing", unit: "MiB", digits: 1, targetText: "≤ 24 MiB and ≤ 0.3× MPD",
                target: { jb, mpd in jb <= 24 && atMost(0.3)(jb, mpd) }),
            ScaleMetric(key: "listallinfo", unit: "ms", digits: 0, targetText: "≤ 0.5× MPD", target: atMost(0.5)),
            ScaleMetric(key: "listallinfo reply", unit: "MB", digits: 2, targetText: "context", target: nil),
            ScaleMetric(
                key: "RSS growth during listallinfo", unit: "MiB", digits: 1, targetText: "≤ 4 MiB",
                target: { jb, _ in jb <= 4 }),
            ScaleMetric(key: "search any \"x\"", unit: "ms", digits: 1, targetText: "≤ 0.5× MPD", target: atMost(0.5)),
            ScaleMetric(key: "find artist", unit: "ms", digits: 1, targetText: "≤ 0.5× MPD", target: atMost(0.5)),
            ScaleMetric(
                key: "list album group albumartist", unit: "ms", digits: 1, targetText: "≤ 0.5× MPD",
                target: atMost(0.5)),
            ScaleMetric(key: "count group genre", unit: "ms", digits: 1, targetText: "≤ 0.5× MPD", target: atMost(0.5)),
            ScaleMetric(
                key: "first start: exec → first status answer", unit: "s", digits: 2, targetText: "context",
                target: nil),
            ScaleMetric(
                key: "first start: longest gap between status answers", unit: "s", digits: 2,
                targetText: "≤ 1 s", target: { jb, _ in jb <= 1 }),
            ScaleMetric(
                key: "first start: exec → scanned library in use", unit: "s", digits: 2, targetText: "context",
                target: nil),
        ]
    }()

    /// The queries clients make, by the key of their figure.
    /// The daemon's line once a scan's library is read and swapped in (after the scanner's
    /// `library scan of` line; at 100,000 tracks seconds later).
    static let libraryInUse = "tracks in use"

    static func scaleQueries(findArtist artist: String) -> [(key: String, command: String)] {
        let quoted = artist.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return [
            ("search any \"x\"", "search any \"x\""), ("find artist", "find artist \"\(quoted)\""),
            ("list album group albumartist", "list album group albumartist"),
            ("count group genre", "count group genre"),
        ]
    }

    func sectionScale(sizes: [Int]) {
        note(
            "\n== scale: libraries of \(sizes.map(String.init).joined(separator: ", ")) files, jukeboxd and MPD 0.23 =="
        )
        guard which("mpd") != nil else {
            report.error("scale", "mpd is not installed (apt-get install -y mpd)")
            return
        }
        var figures: [Int: [String: ScalePair]] = [:], failures: [Int: [String: String]] = [:]
        for size in sizes {
            let library = ScaleLibrary(work: work, files: size)
            let summary: [String: String]
            do {
                summary = try library.ensure { note($0) }
            } catch {
                report.error("scale", "library of \(size) files: \(error)")
                continue
            }
            note(
                "library \(size): "
                    + keyValueText(summary))
            figures[size] = scaleRun(
                library, findArtist: summary["find_artist"] ?? "", failures: &failures[size, default: [:]])
            try? writeText("\(work)/results.md", report.markdown())
        }
        scaleRows(figures, failures: failures)
    }

    /// Every figure of one size.
    /// `failures`: why a jukeboxd figure is missing, by its key.
    private func scaleRun(_ library: ScaleLibrary, findArtist: String, failures: inout [String: String])
        -> [String: ScalePair]
    {
        let n = library.files
        let dir = "\(work)/scale/\(n)"
        let reps = quick ? 3 : 5
        var jb: [String: Double] = [:], mpd: [String: Double] = [:]
        var srv: MPDServer?
        defer { srv?.stop() }

        // scans: jukeboxd's `scan` command and MPD's update, first, unchanged, 1 % changed
        let cfg = DaemonConfig.bench(musicDir: library.music, database: "\(dir)/state/jukebox.sqlite", onStart: "off")
        var cfgPath = ""
        let scanTimeout = Double(max(300, n / 50))
        func jbScan(_ key: String) {
            _ = jbSide("scale") { _ in
                let (ms, cpu, counts) = try jukeboxdScan(
                    config: cfgPath, stderrLog: "\(dir)/scan-stderr.log", timeout: scanTimeout)
                guard counts["files"] == n else {
                    throw BenchError("jukeboxd scan counted \(counts["files"] ?? -1) files, not \(n)")
                }
                jb[key] = ms / 1000
                if key.hasPrefix("first") { jb["CPU of the first scan"] = cpu }
                note(
                    "jukeboxd \(key) of \(n): \(f(ms / 1000, 3)) s, CPU \(f(cpu, 2)) s; \(keyValueText(counts))"
                )
            }
        }
        func mpdScan(_ key: String) {
            _ = peerSide("scale", "MPD \(key)") {
                if srv == nil {
                    let s = try MPDServer(
                        dir: "\(dir)/mpd", musicDir: library.music, keepDb: false,
                        extraConfig: "max_output_buffer_size \"131072\"")
                    srv = s
                    let done = try s.waitUpdate(try s.connect(), songs: n, timeout: scanTimeout)
                    mpd[key] = done - s.startTime
                    mpd["CPU of the first scan"] = ProcessStats.read(s.child.pid)?.cpuSeconds
                } else if let s = srv {
                    let c = try s.connect()
                    let t0 = Clock.seconds()
                    try c.cmd("update")
                    mpd[key] = try s.waitUpdate(c, songs: n, timeout: scanTimeout) - t0
                }
                note("MPD \(key) of \(n): \(f(mpd[key] ?? .nan, 3)) s")
            }
        }
        _ = jbSide("scale") { _ in
            try mkdirs(dir)
            removeDatabase(cfg.database)
            cfgPath = try cfg.write(to: "\(dir)/jukebox-scan.toml")
        }
        jbScan("first scan, empty db")
        mpdScan("first scan, empty db")
        jbScan("rescan, nothing changed")
        mpdScan("rescan, nothing changed")
        do {
            try library.changeOnePercent(suffix: " (edit \(Int(Date().timeIntervalSince1970)))")
            jbScan("rescan after 1 % of files changed")
            mpdScan("rescan after 1 % of files changed")
        } catch { report.error("scale", "changing 1 % of \(n): \(error)") }

        // the daemon on the scanned library: idle, queries, playing
        var daemon: DaemonProc?
        defer { _ = daemon?.stop() }
        var jbTarget: QueryTarget?
        _ = jbSide("scale") { jbPath in
            let port = freeLoopbackPort()
            var live = DaemonConfig.bench(
                musicDir: library.music, database: cfg.database, pacing: "clock", onStart: "off")
            live.extra = "\n[network]\nport = \(port)"
            let d = try startDaemon(jbPath, live, dir: dir, label: "live")
            daemon = d
            guard d.waitLog(timeout: scanTimeout, { $0.contains(Self.libraryInUse) }) != nil else {
                throw failure(d, "no '\(Self.libraryInUse)' line within \(Int(scanTimeout)) s")
            }
            jbTarget = QueryTarget(pid: d.pid, port: port, client: try connect(port: port, seconds: 30) { d.isRunning })
        }
        let mpdTarget = srv.map { QueryTarget(pid: $0.child.pid, port: $0.port, client: try? $0.connect()) }
        Clock.sleep(2)
        jb["RSS idle after the scan"] = jbTarget?.rssMiB
        mpd["RSS idle after the scan"] = mpdTarget?.rssMiB

        var growth: (jb: [Double], mpd: [Double]) = ([], [])
        for _ in 0..<(n >= 100_000 ? 3 : reps) {
            if let r = jbTarget?.timed("listallinfo", key: "listallinfo") {
                jb["listallinfo reply"] = Double(r.bytes) / 1e6
                if let g = r.growth { growth.jb.append(g) }
            }
            if let r = mpdTarget?.timed("listallinfo", key: "listallinfo") {
                mpd["listallinfo reply"] = Double(r.bytes) / 1e6
                if let g = r.growth { growth.mpd.append(g) }
            }
        }
        jb["RSS growth during listallinfo"] = growth.jb.max()
        mpd["RSS growth during listallinfo"] = growth.mpd.max()
        var queries = [("listallinfo", "listallinfo")]
        for (key, command) in Self.scaleQueries(findArtist: findArtist) {
            queries.append((key, command))
            for _ in 0..<reps {
                _ = jbTarget?.timed(command, key: key)
                _ = mpdTarget?.timed(command, key: key)
            }
        }
        for (key, command) in queries {
            let j = Stat(jbTarget?.times[key] ?? []), m = Stat(mpdTarget?.times[key] ?? [])
            jb[key] = j.isEmpty ? nil : j.median
            mpd[key] = m.isEmpty ? nil : m.median
            note("\(n): \(command): jukeboxd \(j.fmt(1, " ms")), MPD \(m.fmt(1, " ms"))")
        }
        for (key, why) in (jbTarget?.failures ?? [:]).sorted(by: { $0.key < $1.key }) {
            report.error("scale", "\(n): jukeboxd \(key): \(why) (log \(dir)/jukeboxd-live.log)")
        }
        for (key, why) in (mpdTarget?.failures ?? [:]).sorted(by: { $0.key < $1.key }) {
            report.error("scale", "\(n): MPD \(key): \(why)")
        }

        // playing: jukeboxd plays its first-start queue, MPD the library (as much as its queue takes)
        if let t = jbTarget, let c = t.connected {
            _ = jbSide("scale") { _ in try c.cmd("play") }
            Clock.sleep(3)
            jb["RSS while playing"] = t.rssMiB
            note("\(n): jukeboxd while playing: \(c.cmdText("status"))")
        }
        if let t = mpdTarget, let c = t.connected {
            _ = try? c.cmd("add \"\"")  // past MPD's 16,384 entries this ACKs after filling the queue
            _ = peerSide("scale", "MPD play") { try c.cmd("play 0") }
            Clock.sleep(3)
            mpd["RSS while playing"] = t.rssMiB
            note("\(n): MPD while playing: \(c.cmdText("status"))")
        }
        _ = daemon?.stop()
        daemon = nil

        // the daemon's first start on the unscanned library
        if let first = firstStartAnswers(library, dir: dir, scanTimeout: scanTimeout) {
            jb.merge(first) { $1 }
        }
        var out: [String: ScalePair] = [:]
        for m in Self.scaleMetrics { out[m.key] = (jb[m.key], mpd[m.key]) }
        for (key, why) in jbTarget?.failures ?? [:] where out[key]?.jb == nil {
            failures[key] = why
        }
        return out
    }

    /// Starts jukeboxd on `library` with no database (its first start: a scan, then the queue
    /// filled from the library, playing) and sends `status` every 50 ms from the moment its
    /// MPD port accepts until 3 s after the scan's log line: the time to the first answer,
    /// the longest gap between answers and the time of the scan line. A status unanswered for
    /// 60 s is a hang: the threads' backtraces are saved (gdb) and the gap is reported.
    private func firstStartAnswers(_ library: ScaleLibrary, dir: String, scanTimeout: Double) -> [String: Double]? {
        jbSide("scale") { jbPath in
            let port = freeLoopbackPort()
            var cfg = DaemonConfig.bench(
                musicDir: library.music, database: "\(dir)/first/jukebox.sqlite", pacing: "clock", onStart: "play")
            cfg.extra = "\n[network]\nport = \(port)"
            removeDatabase(cfg.database)
            let d = try startDaemon(jbPath, cfg, dir: dir, label: "first-start")
            defer { _ = d.stop() }
            let client = try connect(port: port, seconds: scanTimeout) { d.isRunning }
            var answers: [Double] = [Clock.seconds()]
            var scanDone: Double?
            let hangLimit = 60
            client.setReadTimeout(seconds: hangLimit)
            let stall = StallTrace(pid: d.pid, path: "\(dir)/first-start-stall.gdb.txt")
            defer { stall.stop() }
            while d.isRunning && Clock.seconds() < d.startTime + scanTimeout {
                let due = answers.last! + 0.05
                Clock.sleep(due - Clock.seconds())
                let asked = Clock.seconds()
                stall.asked(at: asked)
                defer { stall.answered() }
                if (try? client.exchange("status")) == nil {
                    guard d.isRunning else { throw failure(d, "exited during its first start") }
                    let trace = "\(dir)/first-start-hang.gdb.txt"
                    _ = try? runTimed(
                        ["gdb", "-p", "\(d.pid)", "-batch", "-ex", "thread apply all bt 30"], stdout: .file(trace),
                        stderr: .file(trace + ".err"), timeout: 120)
                    note(
                        "jukeboxd gave no answer to status for \(Int(hangLimit)) s (first start, \(library.files) files); backtraces in \(trace)"
                    )
                    answers.append(asked + Double(hangLimit))
                    break
                }
                answers.append(Clock.seconds())
                if scanDone == nil, let line = d.waitLog(timeout: 0, { $0.contains(Self.libraryInUse) }) {
                    scanDone = line.t
                }
                if let s = scanDone, Clock.seconds() > s + 3 { break }
            }
            // gdb stops the daemon while it reads its stacks: that time is not the daemon's
            let traced = stall.traced
            let gaps = zip(answers.dropFirst(), answers).map { end, start in
                end - start - (traced.map { $0.start > start && $0.start < end ? $0.seconds : 0 } ?? 0)
            }
            let figures: [String: Double] = [
                "first start: exec → first status answer": answers[0] - d.startTime,
                "first start: longest gap between status answers": gaps.max() ?? .nan,
                "first start: exec → scanned library in use": (scanDone ?? .nan) - d.startTime,
            ]
            if traced != nil {
                note("jukeboxd's backtraces 2 s into its longest wait for a status answer: \(stall.path)")
            }
            note(
                "\(library.files): first start: \(answers.count) answers, "
                    + figures.sorted { $0.key < $1.key }.map {
                        "\($0.key) \(f($0.value, 3)) s"
                    }.joined(separator: ", "))
            return figures
        }
    }

    /// The rows: each size's pair with its ratio and verdict, then each figure's growth per
    /// 10× more tracks from the smallest to the largest size measured.
    private func scaleRows(_ figures: [Int: [String: ScalePair]], failures: [Int: [String: String]]) {
        let sizes = figures.keys.sorted()
        for size in sizes {
            for m in Self.scaleMetrics {
                let failed = failures[size]?[m.key].map { "failed: " + $0.prefix(70) }
                guard let pair = figures[size]?[m.key], pair.jb != nil || pair.mpd != nil || failed != nil else {
                    continue
                }
                let verdict: String
                if let target = m.target {
                    verdict = pair.jb.map { target($0, pair.mpd) ? "PASS" : "FAIL" } ?? "ERROR"
                } else {
                    verdict = "info"
                }
                report.add(
                    Row(
                        section: "scale", metric: "scale \(size): \(m.key)",
                        jukeboxd: pair.jb.map { "\(f($0, m.digits)) \(m.unit)" } ?? failed ?? "—",
                        peer: pair.mpd.map { "\(f($0, m.digits)) \(m.unit) (MPD)" } ?? "—",
                        ratio: Report.ratio(pair.jb, pair.mpd), target: m.targetText, verdict: verdict))
            }
        }
        guard let small = sizes.first, let large = sizes.last, large > small else { return }
        let decades = log10(Double(large) / Double(small))
        func growth(_ a: Double?, _ b: Double?) -> Double? {
            guard let a, let b, a > 0, b > 0 else { return nil }
            return pow(b / a, 1 / decades)
        }
        for m in Self.scaleMetrics {
            let jb = growth(figures[small]?[m.key]?.jb, figures[large]?[m.key]?.jb)
            let mpd = growth(figures[small]?[m.key]?.mpd, figures[large]?[m.key]?.mpd)
            guard jb != nil || mpd != nil else { continue }
            report.add(
                Row(
                    section: "scale", metric: "scale: growth per 10× tracks (\(small) → \(large)): \(m.key)",
                    jukeboxd: jb.map { "×\(f($0, 2))" } ?? "—", peer: mpd.map { "×\(f($0, 2)) (MPD)" } ?? "—",
                    ratio: "—", target: "time ≤ ×10, memory flat", verdict: "info"))
        }
    }
}

/// A server the queries go to: its process, its port and a connection, opened again after a
/// failed reply (a server may close the connection, as on an output buffer full).
private final class QueryTarget {
    let pid: pid_t
    let port: Int
    private var client: MPDClient?
    /// Milliseconds of each reply, by key.
    private(set) var times: [String: [Double]] = [:]
    /// The first failure of each key.
    private(set) var failures: [String: String] = [:]

    init(pid: pid_t, port: Int, client: MPDClient?) {
        self.pid = pid
        self.port = port
        self.client = client
    }

    var rssMiB: Double? { ProcessStats.read(pid).map { Double($0.vmRSSKiB) / 1024 } }

    /// The connection, opened again if the last reply failed.
    var connected: MPDClient? {
        if client == nil { client = try? MPDClient(port: port) }
        return client
    }

    /// Sends `command`, adds its time to `times[key]`, and returns the reply's bytes and the
    /// growth of the server's peak RSS during it (MiB); nil (and the failure kept) on an error.
    func timed(_ command: String, key: String) -> (bytes: Int, growth: Double?)? {
        guard let c = connected else {
            failures[key] = failures[key] ?? "cannot connect to port \(port)"
            return nil
        }
        let reset = resetPeakRSS(pid)
        let before = ProcessStats.read(pid)?.vmRSSKiB
        let t0 = Clock.seconds()
        do {
            let (bytes, _) = try c.exchange(command)
            times[key, default: []].append((Clock.seconds() - t0) * 1000)
            guard reset, let before, let peak = ProcessStats.read(pid)?.vmHWMKiB else { return (bytes, nil) }
            return (bytes, Double(max(0, peak - before)) / 1024)
        } catch {
            // what the server held before it gave up on the reply
            let peak = reset ? ProcessStats.read(pid)?.vmHWMKiB : nil
            let held = peak.flatMap { p in before.map { String(format: "; peak RSS +%.1f MiB", Double(p - $0) / 1024) }
            }
            failures[key] = failures[key] ?? "\(error)\(held ?? "")"
            client = nil
            return nil
        }
    }
}

/// Once a `status` has waited 2 s for its answer, saves the daemon's threads' backtraces
/// (gdb, once): where the control loop is while clients wait.
private final class StallTrace: @unchecked Sendable {
    let pid: pid_t
    let path: String
    private let lock = NSLock()
    private var askedAt: Double?
    private var stopped = false
    private var tookTrace = false
    private var trace: (start: Double, seconds: Double)?

    init(pid: pid_t, path: String) {
        self.pid = pid
        self.path = path
        removeItem(path)
        Thread { [self] in watch() }.start()
    }

    /// When the trace was taken and how long gdb held the daemon stopped.
    var traced: (start: Double, seconds: Double)? { lock.withLock { trace } }
    func asked(at t: Double) { lock.withLock { askedAt = t } }
    func answered() { lock.withLock { askedAt = nil } }
    func stop() { lock.withLock { stopped = true } }

    private func watch() {
        while true {
            Clock.sleep(0.1)
            let due: Bool? = lock.withLock {
                if stopped || tookTrace { return nil }
                return askedAt.map { Clock.seconds() - $0 > 2 } ?? false
            }
            guard let due else { return }
            guard due else { continue }
            let start = Clock.seconds()
            let ran = try? runTimed(
                ["gdb", "-p", "\(pid)", "-batch", "-ex", "thread apply all bt 40"], stdout: .file(path),
                stderr: .file(path + ".err"), timeout: 120)
            lock.withLock {
                tookTrace = true
                if let ran { trace = (start, ran.1) }
            }
        }
    }
}

/// Resets the process's peak RSS (VmHWM) to its current RSS (`5` to /proc/PID/clear_refs).
private func resetPeakRSS(_ pid: pid_t) -> Bool {
    let fd = open("/proc/\(pid)/clear_refs", O_WRONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return write(fd, "5", 1) == 1
}

extension MPDClient {
    /// A reply as one line of text, for the log.
    func cmdText(_ c: String) -> String {
        keyValueText((try? cmd(c)) ?? [:])
    }
}
