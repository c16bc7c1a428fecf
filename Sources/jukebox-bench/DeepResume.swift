import Foundation
import Glibc
import JukeboxTestSupport

// Part of section "startup": a resume 55 minutes into a 1-hour MP3 (an audiobook). An exact
// seek in an MP3 reads every frame header from the start; jukeboxd's journal carries a seek
// hint (where an MPEG frame near the position starts in the file), so it reads from there.
// The peer is mpg123 starting at the same frame (`-k`), which reads its way there.

extension Bench {
    /// A 1-hour CBR 128 kbps MP3 without a Xing header (as many audiobooks are), made once.
    private func hourLongMP3() throws -> String {
        let dir = "\(material.music)/hour"
        let path = "\(dir)/hour.mp3"
        if fileExists(path) { return path }
        try mkdirs(dir)
        let partial = path + ".partial"
        let (e, _) = try runTimed(
            [
                "sh", "-c",
                "sox -n -r 44100 -c 2 -t wav - synth 3600 sine 200-2000 sine 330 | lame --quiet -t -b 128 - '\(partial)'",
            ],
            timeout: 600)
        guard e.exited && e.exitCode == 0, rename(partial, path) == 0 else {
            removeItem(partial)
            throw BenchError("sox | lame failed: \(e.text)")
        }
        return path
    }

    /// exec -> first byte at the FIFO sink, and rchar (/proc/PID/io) at that moment.
    private func firstByteAndRead(
        _ fifo: String, then: (Int32) -> Void = { _ in },
        _ start: () throws -> (pid: pid_t, alive: () -> Bool, stop: () -> Void)
    ) throws -> (ms: Double, read: Int) {
        let fd = try openFifoReader(fifo)
        defer { close(fd) }
        let t0 = Clock.seconds()
        let child = try start()
        defer { child.stop() }
        guard let t1 = waitFirstByte(fd, timeout: 20, while: child.alive) else {
            throw BenchError("no data arrived in the fifo within 20 s")
        }
        let read = ProcessIO.readIO(child.pid).map { Int($0.rchar) } ?? -1
        drain(fd)
        then(fd)
        return ((t1 - t0) * 1000, read)
    }

    /// Reads `fd` until no byte came for `quiet` seconds (at most `limit`).
    private func drainUntilQuiet(_ fd: Int32, quiet: Double = 0.15, limit: Double = 3) {
        var buf = [UInt8](repeating: 0, count: 65536)
        let end = Clock.seconds() + limit
        var last = Clock.seconds()
        while Clock.seconds() < end, Clock.seconds() - last < quiet {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 10) > 0, read(fd, &buf, buf.count) > 0 { last = Clock.seconds() }
        }
    }

    func deepResume(fifo: String, runs: Int) {
        note("\n-- resume at 55 min of a 1-hour MP3 (CBR 128, no Xing header), \(runs) runs, interleaved --")
        let device = "file:'\(fifo)',raw"
        let dir = "\(work)/deep-resume"
        let db = "\(dir)/state/jukebox.sqlite"
        let snap = "\(dir)/snapshot"
        let seekTo = 3300.0
        var hour = ""
        var cfgPath = ""
        let peer = Side("startup", "mpg123 -k", report, enabled: which("mpg123") != nil)
        let jb = Side("startup", "jukeboxd deep resume", report, enabled: jbEnabled("startup"))
        do { hour = try hourLongMP3() } catch {
            report.error("startup", "deep resume: \(error)")
            return
        }
        var resumedFrom = 0.0
        jb.attempt {
            // the state: play, seek to 55:00, play 9 s (the hint trails decoding by 5-10 s), SIGTERM
            removeDatabase(db)
            var cfg = DaemonConfig.bench(musicDir: dirOf(hour), database: db, pacing: "clock", onStart: "play")
            let d = try startDaemon(jukeboxd!, cfg, dir: dir, label: "prepare")
            guard d.waitPlaying(timeout: 30) != nil else { throw failure(d, "no playback within 30 s") }
            d.send("seek \(Int(seekTo))")
            Clock.sleep(9)
            resumedFrom = Double(d.status()?["elapsed"] ?? "") ?? 0
            _ = d.stop()
            try copyDatabase(db, toDir: snap)
            cfg.pacing = "device"
            cfgPath = try cfg.write(to: "\(dir)/jukebox-resume.toml")
        }
        // mpg123 counts MPEG frames of 1,152 samples
        let frame = Int(resumedFrom > 0 ? resumedFrom : seekTo + 9) * 44100 / 1152
        var logs: [String] = []
        for r in 0..<runs {
            peer.attempt {
                let (ms, read) = try firstByteAndRead(fifo) {
                    let c = try Child.spawn(["mpg123", "-q", "-k", "\(frame)", "-o", "alsa", "-a", device, hour])
                    return (
                        c.pid, { c.isRunning },
                        {
                            c.signal(SIGKILL); c.wait(timeout: 5)
                        }
                    )
                }
                peer.values.append(ms)
                peer.extra["read", default: []].append(Double(read))
            }
            jb.attempt {
                try restoreDatabase(db, fromDir: snap)
                let log = "\(dir)/jukeboxd-resume\(r + 1).log"
                var proc: DaemonProc?
                // then pause, let the FIFO run dry, and play: play command -> next sample
                let pauseThenPlay: (Int32) -> Void = { fd in
                    guard let p = proc else { return }
                    p.send("pause")
                    self.drainUntilQuiet(fd)
                    let t0 = Clock.seconds()
                    p.send("play")
                    if let t1 = waitFirstByte(fd, timeout: 5, while: { p.isRunning }) {
                        jb.extra["play", default: []].append((t1 - t0) * 1000)
                    }
                    drain(fd)
                }
                let (ms, read) = try firstByteAndRead(fifo, then: pauseThenPlay) {
                    let p = try DaemonProc(
                        jukeboxd: jukeboxd!, config: cfgPath, extraArgs: ["--audio-device", device],
                        logPath: log)
                    proc = p
                    return (p.pid, { p.isRunning }, { _ = p.stop() })
                }
                jb.values.append(ms)
                jb.extra["read", default: []].append(Double(read))
                if r == 0, let p = proc {
                    logs = p.stderrLines().filter { $0.contains("resuming") || $0.contains("seek hint") }
                }
            }
        }
        for line in logs { note("jukeboxd: \(line)") }
        if let st = peer.stat {
            note("mpg123 -k \(frame): \(st.fmt(1, " ms")) to the first sample, read \(peer.stat("read").fmt(0, " B"))")
        }
        if let st = jb.stat {
            note(
                "jukeboxd (state saved at \(f(resumedFrom, 1)) s): \(st.fmt(1, " ms")) to the first sample, read \(jb.stat("read").fmt(0, " B"))"
            )
        }
        if !jb.stat("play").values.isEmpty {
            note("jukeboxd, paused there and played again: play -> next sample \(jb.stat("play").fmt(1, " ms"))")
        }
        let jr = jb.stat != nil ? jb.stat("read").median : nil
        let pr = peer.stat != nil ? peer.stat("read").median : nil
        report.add(
            Row(
                section: "startup", metric: "resume at 55 min of a 1-hour MP3: exec -> first sample",
                jukeboxd: jb.stat.map { "\(f($0.median, 1)) ms" } ?? "error",
                peer: peer.stat.map { "\(f($0.median, 1)) ms (mpg123 -k)" } ?? "error",
                ratio: Report.ratio(jb.stat?.median, peer.stat?.median), target: "context", verdict: "info"))
        report.add(
            Row(
                section: "startup", metric: "  same, bytes read before the first sample (rchar)",
                jukeboxd: jr.map { "\(f($0 / 1e6, 2)) MB" } ?? "error",
                peer: pr.map { "\(f($0 / 1e6, 2)) MB (mpg123 -k)" } ?? "error",
                ratio: Report.ratio(jr, pr), target: "context (the file is 57.6 MB)", verdict: "info"))
        let play = jb.stat("play")
        report.add(
            Row(
                section: "startup", metric: "  then pause there and play: play -> next sample at the sink",
                jukeboxd: play.values.isEmpty ? "error" : "\(f(play.median, 1)) ms",
                peer: "—", ratio: "—", target: "context (within one period is the aim)", verdict: "info"))
    }
}
