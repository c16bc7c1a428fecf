import Foundation
import Glibc
import JukeboxTestSupport

// Section "instructions": the same unpaced playback as section cpu, counted by callgrind
// (user-space instructions, deterministic: the same figure on a busy or an idle machine).
// CPU seconds on this shared 2-core box move by 10-30 % from run to run and include what
// two threads cost in cache traffic and wakeups; instructions show what the code does.

extension Bench {
    /// Total instructions (`summary:` line) of a callgrind output file.
    private func callgrindTotal(_ path: String) -> Double? {
        guard let text = readText(path) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("summary:") || line.hasPrefix("totals:") {
            if let value = Double(line.split(separator: " ").last ?? "") { return value }
        }
        return nil
    }

    /// callgrind totals of the reference decoder (`peer`, the whole command: mpg123 by default)
    /// and jukeboxd playing `file` (its folder) unpaced to the end.
    func countInstructions(
        _ file: String, label: String, section: String = "instructions", peer peerCommand: [String]? = nil
    ) -> (peer: Double?, jb: Double?) {
        let dir = "\(work)/instructions/\(label)"
        try? mkdirs(dir)
        let command = peerCommand ?? ["mpg123", "-q", "-o", "alsa", "-a", "null", file]
        let peerOut = "\(dir)/\(command[0]).callgrind"
        var peer: Double?
        if which(command[0]) != nil,
            let (e, _) = try? runTimed(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=\(peerOut)"] + command, timeout: 300),
            e.exited
        {
            peer = callgrindTotal(peerOut)
        }
        if peer == nil { report.error(section, "\(command[0]) under callgrind failed (\(label))") }

        // valgrind cannot read Swift's DWARF 5, so jukeboxd runs as a copy without debug info.
        var jb: Double?
        if let jukeboxd, jbEnabled(section) {
            let stripped = "\(work)/instructions/jukeboxd-nodebug"
            let jbOut = "\(dir)/jukeboxd.callgrind"
            let log = "\(dir)/jukeboxd.log"
            do {
                let (e, _) = try runTimed(["objcopy", "--strip-debug", jukeboxd, stripped])
                guard e.exited && e.exitCode == 0 else { throw BenchError("objcopy failed: \(e.text)") }
                let cfg = DaemonConfig.bench(
                    musicDir: dirOf(file), database: "\(dir)/state/jukebox.sqlite", pacing: "device", onStart: "play")
                removeDatabase(cfg.database)
                let path = try cfg.write(to: "\(dir)/jukebox.toml")
                try? fm.removeItem(atPath: jbOut)
                let child = try Child.spawn(
                    [
                        "valgrind", "--tool=callgrind", "--callgrind-out-file=\(jbOut)", stripped, "--config", path,
                        "--console", "none", "--log-level", "info",
                    ], stderr: .file(log))
                let start = Clock.seconds()
                var ended = false
                while Clock.seconds() - start < 240, child.isRunning {
                    if (readText(log) ?? "").contains("end of the queue") {
                        ended = true
                        break
                    }
                    Clock.sleep(0.25)
                }
                _ = child.terminate(grace: 20)
                guard ended else {
                    throw BenchError("jukeboxd under callgrind did not reach the end of the queue; log \(log)")
                }
                jb = callgrindTotal(jbOut)
                if jb == nil { throw BenchError("no callgrind totals in \(jbOut)") }
            } catch {
                report.error(section, "\(error)")
            }
        }
        return (peer, jb)
    }

    func sectionInstructions() {
        note(
            "\n== 7. instructions per second of audio (callgrind), unpaced, music_v2: mpg123 -o alsa -a null vs jukeboxd =="
        )
        guard which("valgrind") != nil else {
            report.error("instructions", "valgrind not installed")
            return
        }
        let oneDir = "\(material.music)/single-1s", one = "\(oneDir)/one-second.mp3"
        if !fileExists(one) {
            try? mkdirs(oneDir)
            try? fm.linkItem(atPath: "\(material.library)/Artist 001/Album 01/01 - Song 0000.mp3", toPath: one)
        }
        let whole = countInstructions(material.v2, label: "v2")
        let fixed = countInstructions(one, label: "1s")
        let seconds = 180.0
        if let p = whole.peer, let q = fixed.peer {
            note("mpg123: \(f(p / 1e6, 1)) M instructions for 180 s, \(f(q / 1e6, 1)) M for a 1 s file")
        }
        if let p = whole.jb, let q = fixed.jb {
            note(
                "jukeboxd: \(f(p / 1e6, 1)) M instructions for 180 s, \(f(q / 1e6, 1)) M for a 1 s file (start, 1-file scan, play, SIGTERM)"
            )
        }
        let ratio = (whole.jb != nil && whole.peer != nil) ? whole.jb! / whole.peer! : nil
        report.add(
            Row(
                section: "instructions", metric: "instructions per s of audio, unpaced, V2 (callgrind)",
                jukeboxd: whole.jb.map { "\(f($0 / seconds / 1e6, 2)) M" } ?? "error",
                peer: whole.peer.map { "\(f($0 / seconds / 1e6, 2)) M (mpg123)" } ?? "error",
                ratio: Report.ratio(whole.jb, whole.peer), target: "≤ 1.05×",
                verdict: ratio.map { $0 <= 1.05 ? "PASS" : "FAIL" } ?? "ERROR"))
        addInstructionRows(
            whole: whole, fixed: fixed, section: "instructions", metric: "  same, fixed start/exit cost subtracted",
            fixedMetric: "instructions of a whole 1 s run (fixed cost)", peer: "mpg123", limit: 1.05)
    }

    /// The rows of a 180 s and a 1 s callgrind run of jukeboxd and its peer: instructions per
    /// second of audio with the fixed start/exit cost subtracted, and that fixed cost.
    func addInstructionRows(
        whole: (peer: Double?, jb: Double?), fixed: (peer: Double?, jb: Double?), section: String, metric: String,
        fixedMetric: String, peer: String, limit: Double
    ) {
        guard let j = whole.jb, let jf = fixed.jb, let p = whole.peer, let pf = fixed.peer else { return }
        let jm = (j - jf) / 179, pm = (p - pf) / 179
        report.add(
            Row(
                section: section, metric: metric, jukeboxd: "\(f(jm / 1e6, 2)) M",
                peer: "\(f(pm / 1e6, 2)) M (\(peer))",
                ratio: Report.ratio(jm, pm), target: "≤ \(limit)×", verdict: jm / pm <= limit ? "PASS" : "FAIL"))
        report.add(
            Row(
                section: section, metric: fixedMetric, jukeboxd: "\(f(jf / 1e6, 1)) M",
                peer: "\(f(pf / 1e6, 1)) M (\(peer))",
                ratio: Report.ratio(jf, pf), target: "context", verdict: "info"))
    }
}
