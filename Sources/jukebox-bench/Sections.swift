// Sections 2-6: each measures the peer and jukeboxd on the same files. A jukeboxd failure is
// reported and the section continues with the peer (and the program with the next section).
import Foundation
import Glibc
import JukeboxTestSupport

final class Bench: @unchecked Sendable {
    let work: String
    let jukeboxd: String?
    let quick: Bool
    let report: Report
    let material: Material

    init(work: String, jukeboxd: String?, quick: Bool, report: Report) {
        self.work = work
        self.jukeboxd = jukeboxd
        self.quick = quick
        self.report = report
        material = Material(work: work)
    }

    func note(_ s: String) { report.note(s) }

    /// Runs `body` for the jukeboxd side; on error prints it and returns nil.
    func jbSide<T>(_ section: String, _ body: (String) throws -> T) -> T? {
        guard let jb = jukeboxd else {
            report.error(section, "no jukeboxd binary (pass --jukeboxd PATH); jukeboxd side skipped")
            return nil
        }
        do { return try body(jb) } catch {
            report.error(section, "jukeboxd: \(error)")
            return nil
        }
    }

    func peerSide<T>(_ section: String, _ what: String, _ body: () throws -> T) -> T? {
        do { return try body() } catch {
            report.error(section, "\(what): \(error)")
            return nil
        }
    }

    func dirOf(_ p: String) -> String { (p as NSString).deletingLastPathComponent }

    /// Starts jukeboxd for `config`, logging to <dir>/jukeboxd-<label>.log.
    func startDaemon(
        _ jb: String, _ cfg: DaemonConfig, dir: String, label: String,
        extraArgs: [String] = []
    ) throws -> DaemonProc {
        try mkdirs(dir)
        let path = try cfg.write(to: "\(dir)/jukebox-\(label).toml")
        return try DaemonProc(jukeboxd: jb, config: path, extraArgs: extraArgs, logPath: "\(dir)/jukeboxd-\(label).log")
    }

    func failure(_ d: DaemonProc, _ what: String) -> BenchError {
        let alive = d.isRunning
        if alive { d.terminate(grace: 1) }
        return BenchError(
            "\(what) (process \(alive ? "still running, stopped" : "exited: \(d.exitInfo?.text ?? "?")"); log \(d.logPath)):\n\(d.tail())"
        )
    }

    // MARK: 2. CPU per minute of audio, unpaced

    /// One side of an interleaved comparison: collects values until its first error.
    final class Side {
        let section: String, name: String, report: Report
        var values: [Double] = []
        var extra: [String: [Double]] = [:]
        var failed = false
        init(_ section: String, _ name: String, _ report: Report, enabled: Bool = true) {
            self.section = section; self.name = name; self.report = report; failed = !enabled
        }
        func attempt(_ body: () throws -> Void) {
            guard !failed else { return }
            do { try body() } catch { failed = true; report.error(section, "\(name): \(error)") }
        }
        var stat: Stat? { failed || values.isEmpty ? nil : Stat(values) }
        func stat(_ k: String) -> Stat { Stat(extra[k] ?? []) }
    }

    func jbEnabled(_ section: String) -> Bool {
        if jukeboxd == nil { report.error(section, "no jukeboxd binary (pass --jukeboxd PATH); jukeboxd side skipped") }
        return jukeboxd != nil
    }

    /// Interleaved runs of `mpg123 -o alsa -a null FILE` and jukeboxd playing FILE's folder
    /// unpaced to the end of the queue. Values are CPU seconds per run.
    func cpuRuns(_ label: String, _ file: String, runs: Int, dirName: String) -> (peer: Side, jb: Side, exits: [String])
    {
        cpuRuns(label, files: [file], musicDir: dirOf(file), runs: runs, dirName: dirName)
    }

    /// The same for a queue: mpg123 gets every file on one command line (one process, as
    /// the daemon is one process for the whole queue).
    /// `peer` is the reference decoder's command, the files appended (mpg123 by default).
    func cpuRuns(
        _ label: String, files: [String], musicDir: String, runs: Int, dirName: String, section: String = "cpu",
        peer command: [String] = ["mpg123", "-q", "-o", "alsa", "-a", "null"]
    ) -> (peer: Side, jb: Side, exits: [String]) {
        let peer = Side(section, command[0], report, enabled: which(command[0]) != nil)
        let jb = Side(section, "jukeboxd", report, enabled: jukeboxd != nil)
        var exits: [String] = []
        let dir = "\(work)/\(dirName)"
        for r in 0..<runs {
            peer.attempt {
                let (e, _) = try runTimed(command + files)
                guard e.exited && e.exitCode == 0 else { throw BenchError("\(command[0]) failed: \(e.text)") }
                peer.values.append(e.cpuS)
            }
            jb.attempt { exits.append(try playQueue(musicDir: musicDir, dir: dir, label: "run\(r + 1)", into: jb)) }
        }
        return (peer, jb, exits)
    }

    /// One unpaced jukeboxd run over `musicDir` from a fresh database to the end of the
    /// queue, at `speed` (a console `speed` command as the first track starts) when given:
    /// its CPU seconds (wait4) go to `side`, with /proc's just before SIGTERM and the wall
    /// time from the first track to the end. Returns how it exited.
    func playQueue(musicDir: String, dir: String, label: String, speed: String? = nil, into side: Side) throws
        -> String
    {
        let cfg = DaemonConfig.bench(
            musicDir: musicDir, database: "\(dir)/state/jukebox.sqlite", pacing: "device", onStart: "play")
        removeDatabase(cfg.database)
        let d = try startDaemon(jukeboxd!, cfg, dir: dir, label: label)
        guard let p = d.waitPlaying(timeout: 30) else {
            throw failure(d, "no track started playing within 30 s")
        }
        if let speed { d.send("speed \(speed)") }
        guard let end = d.waitEndOfQueue(timeout: 90) else {
            throw failure(d, "playback did not reach the end of the queue within 90 s")
        }
        let procCPU = ProcessStats.read(d.pid)?.cpuSeconds
        let (e, _) = d.stop()
        guard let e else { throw failure(d, "did not exit after SIGTERM") }
        side.values.append(e.cpuS)
        if let procCPU { side.extra["proc", default: []].append(procCPU) }
        side.extra["wall", default: []].append(end - p.t)
        return e.text
    }

    func sectionCPU() {
        // 11 interleaved runs: one run's CPU time on a shared machine varies by ±10 %, more
        // than the margin the target leaves; the median of 11 moves by a few percent at most
        let runs = quick ? 3 : 11
        note(
            "\n== 2. CPU s per minute of audio, unpaced: mpg123 -o alsa -a null vs jukeboxd (null PCM, pacing device), \(runs) runs, interleaved =="
        )
        if which("mpg123") == nil { report.error("cpu", "mpg123 not installed") }
        _ = jbEnabled("cpu")
        // fixed costs (start, ALSA open, 1-file scan, exit) from a 1-second file, to split them from decoding
        let oneDir = "\(material.music)/single-1s", one = "\(oneDir)/one-second.mp3"
        if !fileExists(one) {
            try? mkdirs(oneDir)
            try? fm.linkItem(atPath: "\(material.library)/Artist 001/Album 01/01 - Song 0000.mp3", toPath: one)
        }
        let fixed = cpuRuns("1 s file", one, runs: runs, dirName: "cpu-1s")
        if let st = fixed.peer.stat { note("fixed cost, 1 s file: mpg123 \(st.fmt(3, " s CPU"))") }
        if let st = fixed.jb.stat {
            note("fixed cost, 1 s file: jukeboxd \(st.fmt(3, " s CPU")) (fresh db, scan, play, end of queue, SIGTERM)")
        }
        for (name, file) in [("CBR 320", material.cbr320), ("V2", material.v2)] {
            let tag = name == "V2" ? "v2" : "cbr320"
            // The verdict: a queue of 5 tracks (15 min) in one process each, as a jukebox
            // plays; a single 3-minute file charges the daemon's once-per-boot start (fresh
            // database, threads, ALSA) to 3 minutes of audio, which the rows below show.
            let queueDir = "\(material.music)/queue-\(tag)"
            let queue = (1...5).map { "\(queueDir)/\(String(format: "%02d", $0)) - \(name).mp3" }
            try? mkdirs(queueDir)
            for path in queue where !fileExists(path) { try? fm.linkItem(atPath: file, toPath: path) }
            cpuComparison(
                name: name, label: "a queue of 5 × 3 min", minutes: 15, verdict: true,
                runs: cpuRuns(name, files: queue, musicDir: queueDir, runs: runs, dirName: "cpu-queue-\(tag)"))
            let single = cpuRuns(name, file, runs: runs, dirName: "cpu-\(tag)")
            cpuComparison(name: name, label: "one 3 min file", minutes: 3, verdict: false, runs: single)
            // the same with the fixed costs taken out: (CPU(180 s) - CPU(1 s)) / 179 s
            let span = (180.0 - 1.0) / 60
            let (peer, jb) = (single.peer, single.jb)
            let jDec = (jb.stat != nil && fixed.jb.stat != nil) ? (jb.stat!.median - fixed.jb.stat!.median) / span : nil
            let pDec =
                (peer.stat != nil && fixed.peer.stat != nil)
                ? (peer.stat!.median - fixed.peer.stat!.median) / span : nil
            report.add(
                Row(
                    section: "cpu", metric: "  one 3 min file, fixed start/exit cost subtracted, \(name)",
                    jukeboxd: jDec.map { f($0, 3) } ?? "—", peer: pDec.map { "\(f($0, 3)) (mpg123)" } ?? "—",
                    ratio: Report.ratio(jDec, pDec), target: "context", verdict: "info"))
        }
        // FLAC, Ogg Vorbis and Opus against their reference decoders (raw output to
        // /dev/null; one process per file in a shell loop, as the tools take one file each).
        let references: [XiphFormat: String] = [
            .flac: "flac -d -s -f --force-raw-format --endian=little --sign=signed -c \"$f\"",
            .vorbis: "oggdec -Q -R -o - \"$f\"", .opus: "opusdec --quiet --no-dither --rate 48000 \"$f\" -",
        ]
        for format in XiphFormat.allCases {
            let queueDir = "\(material.music)/queue-\(format.ext)"
            let queue = (1...5).map { "\(queueDir)/\(String(format: "%02d", $0)) - music.\(format.ext)" }
            try? mkdirs(queueDir)
            for path in queue where !fileExists(path) {
                try? fm.linkItem(atPath: material.single(format), toPath: path)
            }
            let reference = references[format]!
            cpuComparison(
                name: format.ext, label: "a queue of 5 × 3 min", minutes: 15, verdict: true,
                peerName: String(reference.prefix { $0 != " " }),
                target: 1.1,
                runs: cpuRuns(
                    format.ext, files: queue, musicDir: queueDir, runs: runs, dirName: "cpu-queue-\(format.ext)",
                    peer: ["sh", "-c", "for f; do \(reference) > /dev/null || exit 1; done", "sh"]))
        }
        if let j = fixed.jb.stat, let p = fixed.peer.stat {
            report.add(
                Row(
                    section: "cpu", metric: "CPU of a whole run of a 1 s file (fixed cost)",
                    jukeboxd: "\(f(j.median * 1000, 1)) ms", peer: "\(f(p.median * 1000, 1)) ms (mpg123)",
                    ratio: Report.ratio(j.median, p.median), target: "context", verdict: "info"))
        }
    }

    /// Notes and a report row for one interleaved CPU comparison.
    func cpuComparison(
        name: String, label: String, minutes: Double, verdict: Bool, peerName: String = "mpg123",
        target: Double = 1.05, runs: (peer: Side, jb: Side, exits: [String])
    ) {
        let (peer, jb, exits) = runs
        let pm = peer.stat.map { Stat($0.values.map { $0 / minutes }) }
        let jm = jb.stat.map { Stat($0.values.map { $0 / minutes }) }
        if let pm { note("\(peerName) \(name), \(label): \(pm.fmt(3, " s/min"))") }
        if let jm {
            note(
                "jukeboxd \(name), \(label): \(jm.fmt(3, " s/min")) [wait4 rusage of the whole process: fresh db, scan, play to end of queue, SIGTERM]"
            )
            note(
                "   /proc stat just before SIGTERM: \(Stat(jb.stat("proc").values.map { $0 / minutes }).fmt(3, " s/min")); wall from 'playing' to end of queue: \(jb.stat("wall").fmt(2, " s")); exits: \(exits.joined(separator: ", "))"
            )
        }
        if jb.values.count == peer.values.count, !jb.values.isEmpty {
            // run i of each side ran back to back, so their ratio cancels slow drifts in load
            let paired = Stat(zip(jb.values, peer.values).map { $0 / $1 })
            note("   paired ratios jukeboxd/\(peerName) (run i against run i): \(paired.fmt(3, "×"))")
        }
        let ratio = (jm != nil && pm != nil) ? jm!.median / pm!.median : nil
        report.add(
            Row(
                section: "cpu", metric: "\(verdict ? "" : "  ")CPU s per min of audio, unpaced, \(name), \(label)",
                jukeboxd: jm.map { f($0.median, 3) } ?? "error",
                peer: pm.map { "\(f($0.median, 3)) (\(peerName))" } ?? "error",
                ratio: Report.ratio(jm?.median, pm?.median),
                target: verdict ? "≤ \(f(target, 2))×" : "context",
                verdict: verdict ? (ratio.map { $0 <= target ? "PASS" : "FAIL" } ?? "ERROR") : "info"))
    }

    // MARK: 3. memory while playing in real time

    struct MemSample { var rss = 0, anon = 0, file = 0, hwm = 0 }

    /// The peak memory of `jukeboxd` playing `musicDir` in real time from a fresh database,
    /// sampled over `window` seconds from 1 s after the first track started.
    func playingPeak(_ jb: String, musicDir: String, dir: String, label: String, window: Int) throws -> MemSample {
        let cfg = DaemonConfig.bench(
            musicDir: musicDir, database: "\(dir)/state/jukebox.sqlite", pacing: "clock", onStart: "play")
        removeDatabase(cfg.database)
        let d = try startDaemon(jb, cfg, dir: dir, label: label)
        guard d.waitPlaying(timeout: 30) != nil else { throw failure(d, "no track started playing within 30 s") }
        Clock.sleep(1)
        let (peak, _, _) = sampleMemory(pid: d.pid, seconds: window)
        guard d.isRunning else { throw failure(d, "exited during the window") }
        _ = d.stop()
        return peak
    }

    func sampleMemory(pid: pid_t, seconds: Int) -> (peak: MemSample, last: MemSample, cpu: Double?) {
        let (peak, last, cpu, _) = sampleMemory(pid: pid, seconds: seconds, thread: { _ in false })
        return (peak, last, cpu)
    }

    /// The same, and the wake-ups per second (voluntary context switches) of the threads
    /// whose names `thread` accepts, over the window.
    func sampleMemory(pid: pid_t, seconds: Int, thread: (String) -> Bool) -> (
        peak: MemSample, last: MemSample, cpu: Double?, wakeups: Double?
    ) {
        func switches() -> UInt64? {
            let matching = ProcessStats.threads(of: pid).filter { thread($0.name) }
            return matching.isEmpty ? nil : matching.reduce(0) { $0 + $1.voluntarySwitches }
        }
        var peak = MemSample(), last = MemSample()
        let w0 = switches()
        let c0 = ProcessStats.read(pid)?.cpuSeconds
        let t0 = Clock.seconds()
        for i in 1...seconds {
            Clock.sleep(t0 + Double(i) - Clock.seconds())
            let s = ProcessStats.read(pid) ?? ProcessStats()
            last = MemSample(rss: s.vmRSSKiB, anon: s.rssAnonKiB, file: s.rssFileKiB, hwm: s.vmHWMKiB)
            if last.rss > peak.rss { peak = last }
            peak.hwm = max(peak.hwm, last.hwm)
        }
        let c1 = ProcessStats.read(pid)?.cpuSeconds
        let w1 = switches()
        let elapsed = Clock.seconds() - t0
        let cpu = (c0 != nil && c1 != nil) ? (c1! - c0!) / elapsed * 60 : nil
        let wakeups = w0.flatMap { a in w1.map { Double($0 - a) / elapsed } }
        return (peak, last, cpu, wakeups)
    }

    func describe(_ m: MemSample) -> String { "\(mib(m.rss)) (anon \(mib(m.anon)), file \(mib(m.file)))" }

    func sectionMemory() {
        let window = quick ? 10 : 20
        note("\n== 3. memory while playing in real time (music_v2, \(window) s window, 1 s samples) ==")
        let jb: (MemSample, MemSample, Double?, ExitInfo?, Double, Double?)? = jbSide("memory") { jb in
            let dir = "\(work)/rss"
            let cfg = DaemonConfig.bench(
                musicDir: dirOf(material.v2), database: "\(dir)/state/jukebox.sqlite", pacing: "clock", onStart: "play")
            removeDatabase(cfg.database)
            let d = try startDaemon(jb, cfg, dir: dir, label: "paced")
            guard d.waitPlaying(timeout: 30) != nil else { throw failure(d, "no track started playing within 30 s") }
            Clock.sleep(1)
            let (peak, last, cpu, wakeups) = sampleMemory(pid: d.pid, seconds: window) { $0 == "jb-output" }
            if let st = d.status() {
                note("jukeboxd status after the window: state \(st["state"] ?? "?"), elapsed \(st["elapsed"] ?? "?")")
            }
            guard d.isRunning else { throw failure(d, "exited during the window") }
            let (e, dt) = d.stop()
            note(
                "jukeboxd while playing: peak \(describe(peak)), last \(describe(last)), VmHWM \(mib(peak.hwm)); paced CPU \(cpu.map { f($0, 3) } ?? "?") s/min of audio; SIGTERM -> \(e?.text ?? "no exit") after \(f(dt * 1000, 0)) ms"
            )
            return (peak, last, cpu, e, dt, wakeups)
        }
        let mpd: (MemSample, MemSample, Double?, Double?)? = peerSide("memory", "MPD live") {
            let (srv, c) = try MPDServer.playing(material.v2, dir: "\(work)/mpd-rss")
            defer { srv.stop() }
            // MPD names an output's thread "output:NAME".
            let (peak, last, cpu, wakeups) = sampleMemory(pid: srv.child.pid, seconds: window) {
                $0.hasPrefix("output:")
            }
            let st = try c.cmd("status")
            note(
                "MPD 0.23 while playing (null output, sync): peak \(describe(peak)), VmHWM \(mib(peak.hwm)); paced CPU \(cpu.map { f($0, 3) } ?? "?") s/min; state \(st["state"] ?? "?")"
            )
            return (peak, last, cpu, wakeups)
        }
        let base = "55.4 MiB (baseline)"
        report.add(
            Row(
                section: "memory", metric: "peak RSS (VmHWM) while playing, paced",
                jukeboxd: jb.map { mib($0.0.hwm) } ?? "error",
                peer: mpd.map { "\(mib($0.0.hwm)) (MPD live; \(base))" } ?? "MPD \(base)",
                ratio: Report.ratio(jb.map { Double($0.0.hwm) }, Double(mpd?.0.hwm ?? 56730)),
                target: "context", verdict: jb == nil ? "ERROR" : "info"))
        report.add(
            Row(
                section: "memory", metric: "RSS anon / file while playing",
                jukeboxd: jb.map { "\(mib($0.0.anon)) / \(mib($0.0.file))" } ?? "error",
                peer: mpd.map { "\(mib($0.0.anon)) / \(mib($0.0.file)) (MPD live; baseline 13.8 MiB anon)" }
                    ?? "13.8 / 41.6 MiB (MPD baseline)",
                ratio: Report.ratio(jb.map { Double($0.0.anon) }, Double(mpd?.0.anon ?? 14131)),
                target: "context", verdict: jb == nil ? "ERROR" : "info"))
        report.add(
            Row(
                section: "memory", metric: "CPU s per min of audio, paced (real time)",
                jukeboxd: jb.flatMap { $0.2 }.map { f($0, 3) } ?? "error",
                peer: mpd.flatMap { $0.2 }.map { "\(f($0, 3)) (MPD live; baseline 0.27)" } ?? "0.27 (MPD baseline)",
                ratio: Report.ratio(jb?.2, mpd?.2 ?? 0.27),
                target: "≤ MPD",
                verdict: jb.flatMap { $0.2 }.map { $0 <= (mpd?.2 ?? 0.27) ? "PASS" : "FAIL" } ?? "ERROR"))
        let jbWakeups = jb.flatMap { $0.5 }, mpdWakeups = mpd.flatMap { $0.3 }
        note(
            "output thread wake-ups per second (voluntary context switches): jukeboxd jb-output \(jbWakeups.map { f($0, 1) } ?? "?"), MPD output:* \(mpdWakeups.map { f($0, 1) } ?? "?")"
        )
        report.add(
            Row(
                section: "memory", metric: "output thread wake-ups per second, paced (jb-output; MPD's output:*)",
                jukeboxd: jbWakeups.map { f($0, 1) } ?? "error",
                peer: mpdWakeups.map { "\(f($0, 1)) (MPD live)" } ?? "—",
                ratio: Report.ratio(jbWakeups, mpdWakeups), target: "≤ MPD",
                verdict: jbWakeups.map { $0 <= (mpdWakeups ?? 0) ? "PASS" : "FAIL" } ?? "ERROR"))
        // The other formats, each alone in its folder (so the scan opens only its library).
        for format in XiphFormat.allCases {
            let peak: MemSample? = jbSide("memory") { jb in
                let peak = try playingPeak(
                    jb, musicDir: dirOf(material.single(format)), dir: "\(work)/rss-\(format.ext)",
                    label: "paced-\(format.ext)", window: window)
                note("jukeboxd while playing \(format.ext): peak \(describe(peak)), VmHWM \(mib(peak.hwm))")
                return peak
            }
            report.add(
                Row(
                    section: "memory", metric: "peak RSS (VmHWM) while playing \(format.ext), paced",
                    jukeboxd: peak.map { mib($0.hwm) } ?? "error",
                    peer: jb.map { "\(mib($0.0.hwm)) (jukeboxd, MP3)" } ?? "—",
                    ratio: Report.ratio(peak.map { Double($0.hwm) }, jb.map { Double($0.0.hwm) }),
                    target: "≤ 16 MB", verdict: peak.map { $0.hwm * 1024 <= 16_000_000 ? "PASS" : "FAIL" } ?? "ERROR"))
        }
        if let jb {
            let ok = (jb.3?.exited ?? false) && jb.3?.exitCode == 0 && jb.4 <= 1.0
            report.add(
                Row(
                    section: "memory", metric: "SIGTERM while playing -> exit",
                    jukeboxd: "\(jb.3?.text ?? "no exit") in \(f(jb.4 * 1000, 0)) ms", peer: "—", ratio: "—",
                    target: "exit 0 ≤ 1 s", verdict: ok ? "PASS" : "FAIL"))
        }
    }

    // MARK: 4. disk writes per hour

    struct WriteTrace {
        var fsyncs = 0
        var fileBytes: [String: Int] = [:]  // regular files: bytes written by write-family syscalls
        var fileCalls: [String: Int] = [:]
        var otherBytes = 0  // pipes, sockets, eventfds, /dev
    }

    /// Parses `strace -f -y -s 0 -o FILE` output (handles <unfinished ...> / resumed pairs).
    func parseWriteTrace(_ text: String) -> WriteTrace {
        var r = WriteTrace()
        var pendingPath: [Substring: String] = [:]
        for raw in text.split(separator: "\n") {
            var line = raw[...]
            var pid: Substring = ""
            if let sp = line.firstIndex(of: " "), line[..<sp].allSatisfy(\.isNumber) {
                pid = line[..<sp]; line = line[line.index(after: sp)...].drop { $0 == " " }
            }
            if line.hasPrefix("<... ") {
                // "<... pwrite64 resumed>) = 1048"
                guard let path = pendingPath.removeValue(forKey: pid) else { continue }
                if let eq = line.range(of: ") = ", options: .backwards),
                    let n = Int(line[eq.upperBound...].prefix { $0.isNumber })
                {
                    add(&r, path, n)
                }
                continue
            }
            guard let paren = line.firstIndex(of: "(") else { continue }
            let name = line[..<paren]
            if name == "fsync" || name == "fdatasync" || name == "sync_file_range" { r.fsyncs += 1; continue }
            guard name.hasPrefix("write") || name.hasPrefix("pwrite") else { continue }
            var path = "?"
            if let lt = line[paren...].firstIndex(of: "<"), let gt = line[lt...].firstIndex(of: ">") {
                path = String(line[line.index(after: lt)..<gt])
            }
            if line.hasSuffix("<unfinished ...>") { pendingPath[pid] = path; continue }
            if let eq = line.range(of: ") = ", options: .backwards),
                let n = Int(line[eq.upperBound...].prefix { $0.isNumber })
            {
                add(&r, path, n)
            }
        }
        return r
    }

    private func add(_ r: inout WriteTrace, _ path: String, _ n: Int) {
        if path.hasPrefix("/") && !path.hasPrefix("/dev/") {
            r.fileBytes[path, default: 0] += n
            r.fileCalls[path, default: 0] += 1
        } else {
            r.otherBytes += n
        }
    }

    func sectionDisk() {
        let window = quick ? 20 : 60
        note(
            "\n== 4. disk writes while playing paced, \(Material.shortTracks) x \(Material.shortSeconds) s tracks, \(window) s window, 2 volume changes =="
        )
        let jb: DiskResult? = jbSide("disk") { jb in try diskPass(jb, window: window, rawCheckpoint: false) }
        // the same with the checkpoint sector on a raw partition of its own (a second loop device)
        let raw: DiskResult? =
            LoopExt4.isUsable ? jbSide("disk") { jb in try diskPass(jb, window: window, rawCheckpoint: true) } : nil
        diskReport(jb, raw: raw)
    }

    struct DiskResult {
        var trace: WriteTrace; var wchar: Int; var writeBytes: Int; var logBytes: Int; var outBytes: Int
        var changes: Int; var seconds: Double; var syscw: Int
        var deviceBytes: Int?
    }

    /// One paced run of the short tracks with `window` seconds traced and measured.
    func diskPass(_ jb: String, window: Int, rawCheckpoint: Bool) throws -> DiskResult {
        guard let strace = which("strace") else { throw BenchError("strace not installed") }
        let dir = "\(work)/disk"
        var cfg = DaemonConfig.bench(
            musicDir: material.short, database: "\(dir)/state/jukebox.sqlite", pacing: "clock", onStart: "play")
        removeDatabase(cfg.database)
        var partition: RawLoop?
        if rawCheckpoint {
            partition = try RawLoop.make(image: "\(dir)/checkpoint.img")
            cfg.checkpointDevice = partition!.device
        }
        defer { partition?.remove() }
        // as root, the state directory is a journaled ext4 on a loop device, to count
        // what the card would be asked to write
        var loop: LoopExt4?
        if LoopExt4.isUsable {
            do { loop = try LoopExt4.make(image: "\(dir)/state.img", mountPoint: "\(dir)/state") } catch {
                note("device writes not measured: \(error)")
            }
        } else {
            note("device writes not measured: needs root, losetup, mkfs.ext4 and mount")
        }
        defer { loop?.remove() }
        let d = try startDaemon(jb, cfg, dir: dir, label: rawCheckpoint ? "paced-raw-checkpoint" : "paced")
        guard d.waitPlaying(timeout: 30) != nil else { throw failure(d, "no track started playing within 30 s") }
        Clock.sleep(1)
        let out = "\(dir)/strace.txt", err = "\(dir)/strace-stderr.txt"
        removeItem(out)
        // one tracer for all threads: the fsync family plus the write family with fd paths (-y),
        // so that file data can be told apart from pipe/eventfd/socket writes
        let st = try Child.spawn(
            [
                strace, "-f", "-y", "-s", "0", "-e",
                "trace=fsync,fdatasync,sync_file_range,write,pwrite64,writev,pwritev,pwritev2",
                "-o", out, "-p", "\(d.pid)",
            ], stderr: .file(err))
        defer { if st.isRunning { st.signal(SIGKILL); st.wait(timeout: 2) } }
        let attachEnd = Clock.seconds() + 3
        while Clock.seconds() < attachEnd, !(readText(err) ?? "").contains("attached") { Clock.sleep(0.01) }
        Clock.sleep(0.1)
        guard st.isRunning else { throw BenchError("strace could not attach: \(readText(err) ?? "")") }
        loop?.sync()  // start-up's writes go out before the window
        let device0 = loop?.bytesWritten(), partition0 = partition?.bytesWritten()
        let io0 = ProcessIO.readIO(d.pid) ?? ProcessIO(), log0 = d.stderrBytes, out0 = d.stdoutBytes,
            lines0 = d.stderrLineCount
        let t0 = Clock.seconds()
        Clock.sleep(Double(window) / 3); d.send("volume 40")
        Clock.sleep(t0 + 2 * Double(window) / 3 - Clock.seconds()); d.send("volume 80")
        Clock.sleep(t0 + Double(window) - Clock.seconds())
        let io1 = ProcessIO.readIO(d.pid) ?? ProcessIO(), log1 = d.stderrBytes, out1 = d.stdoutBytes
        let t1 = Clock.seconds()
        loop?.sync()  // what the window dirtied, written now
        let device1 = loop?.bytesWritten(), partition1 = partition?.bytesWritten()
        let running = d.isRunning
        let changes = d.stderrLines().dropFirst(lines0).filter(LogMatch.playing).count
        st.signal(SIGINT)  // strace detaches and flushes its output
        _ = st.wait(timeout: 5)
        let (e, _) = d.stop()
        guard running else { throw failure(d, "exited during the window") }
        note(
            "jukeboxd\(rawCheckpoint ? " (checkpoint_device on a raw loop device)" : "") exit after the window: \(e?.text ?? "none")"
        )
        var deviceBytes = device0.flatMap { a in device1.map { $0 - a } }
        if rawCheckpoint {
            guard let p0 = partition0, let p1 = partition1, let fs = deviceBytes else {
                throw BenchError("no device counts")
            }
            note("   state file system \(fs) B + checkpoint partition \(p1 - p0) B over the window")
            deviceBytes = fs + p1 - p0
        }
        let trace = parseWriteTrace(readText(out) ?? "")
        return DiskResult(
            trace: trace, wchar: Int(io1.wchar) - Int(io0.wchar),
            writeBytes: Int(io1.writeBytes) - Int(io0.writeBytes),
            logBytes: log1 - log0, outBytes: out1 - out0, changes: changes, seconds: t1 - t0,
            syscw: Int(io1.syscw) - Int(io0.syscw),
            deviceBytes: deviceBytes)
    }

    func diskReport(_ jb: DiskResult?, raw: DiskResult?) {
        var fileH: Double?, fsyncH: Double?, wcharH: Double?, wbH: Double?, logH: Double?, deviceH: Double?
        if let r = jb {
            let h = 3600 / r.seconds
            let fileTotal = r.trace.fileBytes.values.reduce(0, +)
            fileH = Double(fileTotal) * h
            fsyncH = Double(r.trace.fsyncs) * h
            wcharH = Double(r.wchar - r.logBytes - r.outBytes) * h
            wbH = Double(r.writeBytes) * h
            logH = Double(r.logBytes) * h
            deviceH = r.deviceBytes.map { Double($0) * h }
            if let deviceH {
                note(
                    String(
                        format: "   device (loop-mounted journaled ext4, 4 KiB blocks): %d B over the window -> %@/h",
                        r.deviceBytes!, human(bytes: deviceH)))
            }
            note(
                String(
                    format:
                        "jukeboxd over %.1f s (%d track starts): %d fsync/fdatasync; file data %d B; /proc io: wchar %d B (log on stderr %d B, stdout %d B), write_bytes %d B, %d write syscalls; non-file writes (pipes, eventfds) %d B",
                    r.seconds, r.changes, r.trace.fsyncs, fileTotal, r.wchar, r.logBytes, r.outBytes, r.writeBytes,
                    r.syscw, r.trace.otherBytes))
            for (p, n) in r.trace.fileBytes.sorted(by: { $0.value > $1.value }) {
                note("   \(p): \(r.trace.fileCalls[p] ?? 0) writes, \(n) B -> \(human(bytes: Double(n) * h))/h")
            }
            note(
                String(
                    format:
                        "   per hour: %.0f fsyncs, file data %@, wchar excl. log+stdout %@, log %@, write_bytes %@, %.0f track changes",
                    fsyncH!, human(bytes: fileH!), human(bytes: wcharH!), human(bytes: logH!), human(bytes: wbH!),
                    Double(r.changes) * h))
        }
        // MPD 0.23 (perf-baselines.md, traced 135 s): no fsync; a state save of ~399 B + 51 B per
        // queue entry beyond 5, at most one per 120 s (so 30/h with short tracks), plus a 50 B log
        // line per song change. Same queue and change rate as the jukeboxd run:
        let changesPerHour = jb.map { Double($0.changes) * 3600 / $0.seconds } ?? 3600 / Double(Material.shortSeconds)
        let mpdState = 30 * Double(399 + 51 * (Material.shortTracks - 5)), mpdLog = changesPerHour * 50
        note(
            String(
                format:
                    "MPD 0.23 estimate for the same queue (%d entries) and %.0f song changes/h, from perf-baselines.md: state file %@/h + log %@/h, 0 fsync",
                Material.shortTracks, changesPerHour, human(bytes: mpdState), human(bytes: mpdLog)))
        report.add(
            Row(
                section: "disk", metric: "fsync+fdatasync per hour of playback",
                jukeboxd: fsyncH.map { f($0, 0) } ?? "error", peer: "0 (MPD baseline)", ratio: "—",
                target: "≤ 1800/h", verdict: fsyncH.map { $0 <= 1800 ? "PASS" : "FAIL" } ?? "ERROR"))
        report.add(
            Row(
                section: "disk", metric: "file data written per hour (write syscalls to files)",
                jukeboxd: fileH.map { human(bytes: $0) } ?? "error",
                peer: "\(human(bytes: mpdState)) (MPD est., state file)", ratio: Report.ratio(fileH, mpdState),
                target: "< 1 MB/h", verdict: fileH.map { $0 < 1e6 ? "PASS" : "FAIL" } ?? "ERROR"))
        report.add(
            Row(
                section: "disk", metric: "bytes to storage per hour (/proc io write_bytes)",
                jukeboxd: wbH.map { human(bytes: $0) } ?? "error", peer: "—", ratio: "—",
                target: "< 1 MB/h", verdict: wbH.map { $0 < 1e6 ? "PASS" : "FAIL" } ?? "ERROR"))
        report.add(
            Row(
                section: "disk",
                metric: "bytes the card is asked to write per hour (journaled ext4, 4 KiB blocks, loop device)",
                jukeboxd: deviceH.map { human(bytes: $0) } ?? "not measured", peer: "—", ratio: "—",
                target: "< 1 MB/h", verdict: deviceH.map { $0 < 1e6 ? "PASS" : "FAIL" } ?? "info"))
        if let r = raw, let bytes = r.deviceBytes {
            let h = 3600 / r.seconds
            note(
                String(
                    format:
                        "with checkpoint_device on a raw partition: %d fsyncs, device %d B over %.1f s (%d track starts) -> %@/h",
                    r.trace.fsyncs, bytes, r.seconds, r.changes, human(bytes: Double(bytes) * h)))
            report.add(
                Row(
                    section: "disk",
                    metric: "  same, with [resume] checkpoint_device on a raw partition (second loop device)",
                    jukeboxd: human(bytes: Double(bytes) * h), peer: "—", ratio: "—",
                    target: "< 1 MB/h", verdict: Double(bytes) * h < 1e6 ? "PASS" : "FAIL"))
        }
        report.add(
            Row(
                section: "disk", metric: "wchar per hour (all writes excl. stdout/stderr)",
                jukeboxd: wcharH.map { human(bytes: $0) } ?? "error", peer: "—", ratio: "—",
                target: "context (incl. pipes, eventfds)", verdict: jb == nil ? "ERROR" : "info"))
        report.add(
            Row(
                section: "disk", metric: "log lines per hour (stderr, journald under systemd)",
                jukeboxd: logH.map { human(bytes: $0) } ?? "error", peer: "\(human(bytes: mpdLog)) (MPD est.)",
                ratio: Report.ratio(logH, mpdLog), target: "context", verdict: jb == nil ? "ERROR" : "info"))
    }

    // MARK: 5. exec -> first sample at the sink, auto-resume

    func sectionStartup() {
        let runs = quick ? 5 : 10
        let dir = "\(work)/resume"
        let fifo = "\(dir)/fifo"
        note(
            "\n== 5. exec -> first byte at the sink (ALSA file:'FIFO',raw), music_cbr320, \(runs) runs, interleaved ==")
        do {
            try mkdirs(dir)
            removeItem(fifo)
            guard mkfifo(fifo, 0o600) == 0 else { throw BenchError("mkfifo failed") }
        } catch { report.error("startup", "\(error)"); return }
        let device = "file:'\(fifo)',raw"
        let peer = Side("startup", "mpg123", report, enabled: which("mpg123") != nil)
        let jb = Side("startup", "jukeboxd", report, enabled: jbEnabled("startup"))
        let db = "\(dir)/state/jukebox.sqlite"
        let snap = "\(dir)/snapshot"
        var resumeCfg = DaemonConfig.bench(
            musicDir: dirOf(material.cbr320), database: db, pacing: "clock", onStart: "play")
        var cfgPath = ""
        jb.attempt {
            // a state with a track playing: play 2 s in real time, then SIGTERM; keep a copy
            removeDatabase(db)
            let d = try startDaemon(jukeboxd!, resumeCfg, dir: dir, label: "prepare")
            guard d.waitPlaying(timeout: 30) != nil else { throw failure(d, "no track started playing within 30 s") }
            Clock.sleep(2)
            let st = d.status()
            let (e, dt) = d.stop()
            note(
                "prepared state: status before SIGTERM: state \(st?["state"] ?? "?"), elapsed \(st?["elapsed"] ?? "?"); exit \(e?.text ?? "none") after \(f(dt * 1000, 0)) ms"
            )
            try copyDatabase(db, toDir: snap)
            resumeCfg.pacing = "device"
            cfgPath = try resumeCfg.write(to: "\(dir)/jukebox-resume.toml")
        }
        var exits: [String] = []
        for r in 0..<runs {
            peer.attempt {
                let fd = try openFifoReader(fifo)
                defer { close(fd) }
                let t0 = Clock.seconds()
                let c = try Child.spawn(["mpg123", "-q", "-o", "alsa", "-a", device, material.cbr320])
                let t1 = waitFirstByte(fd, timeout: 10) { c.isRunning }
                c.signal(SIGKILL); c.wait(timeout: 5)
                guard let t1 else { throw BenchError("no data in the fifo from mpg123") }
                peer.values.append((t1 - t0) * 1000)
            }
            jb.attempt {
                try restoreDatabase(db, fromDir: snap)
                let fd = try openFifoReader(fifo)
                defer { close(fd) }
                let p = try DaemonProc(
                    jukeboxd: jukeboxd!, config: cfgPath, extraArgs: ["--audio-device", device],
                    logPath: "\(dir)/jukeboxd-resume\(r + 1).log")
                let t1 = waitFirstByte(fd, timeout: 10) { p.isRunning }
                var resumeLine: String?
                if r == 0, t1 != nil {
                    // where playback resumed, from the daemon's log (e.g. `resuming "…" at 0:02.0`)
                    resumeLine = p.waitLog(timeout: 0.5) { $0.lowercased().contains("resum") }?.line
                }
                // stop while draining the fifo, so that a blocked writer cannot delay the exit
                let ts = Clock.seconds()
                p.signal(SIGTERM)
                var ex: ExitInfo?
                while ex == nil && Clock.seconds() - ts < 3 {
                    drain(fd); ex = p.tryWait(); if ex == nil { Clock.sleep(0.001) }
                }
                if ex == nil { p.signal(SIGKILL); ex = p.wait(timeout: 5) }
                exits.append("\(ex?.text ?? "?")/\(f((Clock.seconds() - ts) * 1000, 0))ms")
                guard let t1 else { throw failure(p, "no data arrived in the fifo within 10 s (run \(r + 1))") }
                jb.values.append((t1 - p.startTime) * 1000)
                if r == 0 {
                    note(
                        "first resumed run, daemon log: \(resumeLine.map { l in l.range(of: "resum", options: .caseInsensitive).map { String(l[$0.lowerBound...]) } ?? l } ?? "(no line mentioning 'resum')") (state prepared at ~2 s)"
                    )
                }
            }
        }
        if let st = peer.stat { note("mpg123 -q -o alsa -a \"\(device)\": \(st.fmt(2, " ms"))") }
        if let st = jb.stat {
            note("jukeboxd auto-resume: \(st.fmt(2, " ms")); SIGTERM -> exit: \(exits.joined(separator: " "))")
        }
        report.add(
            Row(
                section: "startup", metric: "exec -> first sample at sink (auto-resume / mpg123 start)",
                jukeboxd: jb.stat.map { "\(f($0.median, 2)) ms (\(f($0.min, 2))–\(f($0.max, 2)))" } ?? "error",
                peer: peer.stat.map { "\(f($0.median, 2)) ms (\(f($0.min, 2))–\(f($0.max, 2))) mpg123" } ?? "error",
                ratio: Report.ratio(jb.stat?.median, peer.stat?.median),
                target: "context (mpg123 2.4–3.4 ms; MPD play->PCM 5.6 ms)", verdict: jb.stat == nil ? "ERROR" : "info")
        )
        deepResume(fifo: fifo, runs: quick ? 2 : 3)
    }

    // MARK: 6. library scan

    func parseScanLine(_ out: String) -> [String: Int] {
        // "scan: N files, A added, U updated, R removed, S not playable, T ms"
        guard let line = out.split(separator: "\n").last(where: { $0.hasPrefix("scan:") }) else { return [:] }
        var r = [String: Int]()
        for part in line.dropFirst(5).split(separator: ",") {
            let w = part.split(separator: " ")
            if w.count >= 2, let n = Int(w[0]) { r[w[1...].joined(separator: " ")] = n }
        }
        return r
    }

    func sectionScan() {
        scanComparison(library: material.library, name: "MP3", dirName: "scan")
        scanComparison(library: material.mixedLibrary, name: "mixed MP3/FLAC/Ogg/Opus/M4A", dirName: "scan-mixed")
        scanReadBytes()
    }

    /// One `jukeboxd scan --config CONFIG`: milliseconds from exec to exit, CPU seconds, and
    /// the counts of its `scan:` line.
    func jukeboxdScan(config: String, stderrLog: String, timeout: Double = 300) throws -> (
        Double, Double, [String: Int]
    ) {
        let t0 = Clock.seconds()
        let (e, out) = try capture([jukeboxd!, "scan", "--config", config], stderr: .file(stderrLog), timeout: timeout)
        let t = Clock.seconds() - t0
        guard e.exited && e.exitCode == 0 else {
            throw BenchError(
                "jukeboxd scan failed (\(e.text)): \((readText(stderrLog) ?? "").split(separator: "\n").suffix(4).joined(separator: " / "))"
            )
        }
        let kv = parseScanLine(out)
        guard !kv.isEmpty else { throw BenchError("no 'scan: ...' line on stdout: \(out.prefix(200))") }
        return (t * 1000, e.cpuS, kv)
    }

    /// First scans and unchanged rescans of `library` by jukeboxd and MPD 0.23, interleaved.
    func scanComparison(library: String, name: String, dirName: String) {
        let runs = quick ? 3 : 5
        let n = Material.libraryFiles
        note(
            "\n== 6. library scan of \(n) files (\(name)): first (empty db) and unchanged rescan, \(runs) runs each, interleaved =="
        )
        let jbFirst = Side("scan", "jukeboxd scan", report, enabled: jbEnabled("scan"))
        let jbAgain = Side("scan", "jukeboxd rescan", report)
        let mpdFirst = Side("scan", "MPD", report, enabled: which("mpd") != nil && which("mpc") != nil)
        let mpdAgain = Side("scan", "MPD update", report)
        if mpdFirst.failed { report.error("scan", "mpd/mpc not installed") }
        let dir = "\(work)/\(dirName)"
        let cfg = DaemonConfig.bench(musicDir: library, database: "\(dir)/state/jukebox.sqlite")
        var cfgPath = ""
        jbFirst.attempt {
            try mkdirs(dir)
            cfgPath = try cfg.write(to: "\(dir)/jukebox-scan.toml")
        }
        var lastFirst: [String: Int] = [:], lastAgain: [String: Int] = [:]
        func jbOnce(first: Bool) throws -> (Double, Double, [String: Int]) {
            if first { removeDatabase(cfg.database) }
            return try jukeboxdScan(config: cfgPath, stderrLog: "\(dir)/scan-stderr.log")
        }
        var srv: MPDServer?
        defer { srv?.stop() }
        for _ in 0..<runs {
            jbFirst.attempt {
                let (w, c, kv) = try jbOnce(first: true)
                jbFirst.values.append(w); jbFirst.extra["cpu", default: []].append(c); lastFirst = kv
            }
            mpdFirst.attempt {
                srv?.stop()
                srv = nil
                let s = try MPDServer(dir: "\(work)/mpd-\(dirName)", musicDir: library, keepDb: false)
                srv = s
                let c = try s.connect()
                let done = try s.waitUpdate(c, songs: n)
                mpdFirst.values.append((done - s.startTime) * 1000)
                mpdFirst.extra["cpu", default: []].append(ProcessStats.read(s.child.pid)?.cpuSeconds ?? .nan)
            }
        }
        if jbFirst.failed { jbAgain.failed = true }
        if mpdFirst.failed || srv == nil { mpdAgain.failed = true }
        Clock.sleep(0.3)
        for _ in 0..<runs {
            jbAgain.attempt {
                let (w, c, kv) = try jbOnce(first: false)
                jbAgain.values.append(w); jbAgain.extra["cpu", default: []].append(c); lastAgain = kv
            }
            mpdAgain.attempt {
                let (e, w) = try runTimed(["mpc", "-q", "-p", "\(srv!.port)", "update", "--wait"])
                guard e.exited && e.exitCode == 0 else { throw BenchError("mpc update failed: \(e.text)") }
                mpdAgain.values.append(w * 1000)
            }
        }
        func runsText(_ v: [Double]) -> String { v.map { f($0, 0) }.joined(separator: " ") }
        if let st = jbFirst.stat {
            note(
                "jukeboxd scan, empty db: \(st.fmt(0, " ms")) exec->exit, CPU \(jbFirst.stat("cpu").fmt(3, " s")); runs: \(runsText(jbFirst.values)) ms; last line: \(keyValueText(lastFirst))"
            )
            if (lastFirst["files"] ?? n) != n {
                report.error("scan", "jukeboxd reported \(lastFirst["files"] ?? -1) files, expected \(n)")
            }
        }
        if let st = jbAgain.stat {
            note(
                "jukeboxd scan, unchanged: \(st.fmt(1, " ms")) exec->exit, CPU \(jbAgain.stat("cpu").fmt(3, " s")); last line: \(keyValueText(lastAgain))"
            )
        }
        if let st = mpdFirst.stat {
            note(
                "MPD 0.23 initial scan (exec -> no updating_db and \(n) songs): \(st.fmt(0, " ms")), CPU \(mpdFirst.stat("cpu").fmt(2, " s")); runs: \(runsText(mpdFirst.values)) ms"
            )
        }
        if let st = mpdAgain.stat {
            note("MPD 0.23 unchanged (mpc update --wait, incl. the mpc process): \(st.fmt(1, " ms"))")
        }
        for (label, jv, mv, d) in [
            ("first scan, empty db (exec -> done)", jbFirst.stat, mpdFirst.stat, 0),
            ("rescan, nothing changed", jbAgain.stat, mpdAgain.stat, 1),
        ] {
            let r = (jv != nil && mv != nil) ? jv!.median / mv!.median : nil
            report.add(
                Row(
                    section: "scan", metric: "library scan \(n) files, \(name): \(label)",
                    jukeboxd: jv.map { "\(f($0.median, d)) ms" } ?? "error",
                    peer: mv.map { "\(f($0.median, d)) ms (MPD)" } ?? "error",
                    ratio: Report.ratio(jv?.median, mv?.median), target: "< 1.00× (faster than MPD)",
                    verdict: r.map { $0 < 1 ? "PASS" : "FAIL" } ?? "ERROR"))
        }
        if jbFirst.stat != nil, mpdFirst.stat != nil {
            let j = jbFirst.stat("cpu").median, m = mpdFirst.stat("cpu").median
            report.add(
                Row(
                    section: "scan", metric: "CPU of the first scan, \(name)", jukeboxd: "\(f(j, 2)) s",
                    peer: "\(f(m, 2)) s (MPD, whole process)", ratio: Report.ratio(j, m),
                    target: "context", verdict: "info"))
        }
    }

    /// Bytes read per song by a first scan of full-length songs (the queue folder: 5 × 3 min
    /// V2). The 2,000 1-s files above are too short to show whether a scan reads whole files,
    /// which on a card is what makes a first scan of a real library slow.
    func scanReadBytes() {
        let queueDir = "\(material.music)/queue-v2"
        let songs = (try? fm.contentsOfDirectory(atPath: queueDir).filter { $0.hasSuffix(".mp3") }.count) ?? 0
        guard songs > 0 else {
            report.error("scan", "no \(queueDir) (run section cpu first to make it)")
            return
        }
        let size = Double(((try? fm.attributesOfItem(atPath: material.v2))?[.size] as? Int) ?? 0)
        let dir = "\(work)/scan-read"
        let jb: Double? = jbSide("scan") { jb in
            let cfg = DaemonConfig.bench(musicDir: queueDir, database: "\(dir)/state/jukebox.sqlite", onStart: "off")
            removeDatabase(cfg.database)
            let d = try startDaemon(jb, cfg, dir: dir, label: "scan-read")
            defer { _ = d.stop() }
            guard d.waitLog(timeout: 30, { $0.contains("library scan of") }) != nil else {
                throw failure(d, "no scan line")
            }
            guard let rchar = ProcessIO.readIO(d.pid)?.rchar else { throw BenchError("no /proc/\(d.pid)/io") }
            return Double(rchar) / Double(songs)
        }
        let mpd: Double? = peerSide("scan", "MPD read bytes") {
            let srv = try MPDServer(dir: "\(work)/mpd-scan-read", musicDir: queueDir, keepDb: false)
            defer { srv.stop() }
            _ = try srv.waitUpdate(try srv.connect(), songs: songs)
            guard let rchar = ProcessIO.readIO(srv.child.pid)?.rchar else {
                throw BenchError("no /proc/\(srv.child.pid)/io")
            }
            return Double(rchar) / Double(songs)
        }
        note(
            "first scan of \(songs) × 3 min songs (\(f(size / 1e6, 2)) MB each): rchar per song jukeboxd \(jb.map { f($0 / 1e3, 0) } ?? "?") kB (whole process: start, database, scan), MPD \(mpd.map { f($0 / 1e3, 0) } ?? "?") kB"
        )
        report.add(
            Row(
                section: "scan", metric: "bytes read per song, first scan of 3 min songs (rchar)",
                jukeboxd: jb.map { "\(f($0 / 1e3, 0)) kB" } ?? "error",
                peer: mpd.map { "\(f($0 / 1e3, 0)) kB (MPD)" } ?? "error",
                ratio: Report.ratio(jb, mpd), target: "context (a song is \(f(size / 1e6, 1)) MB)", verdict: "info"))
    }
}
