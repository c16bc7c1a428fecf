import Foundation
import Glibc
import JukeboxTestSupport

// Section "mp4": AAC in MP4, decoded through FFmpeg (loaded by the first MP4 file), against
// `ffmpeg` decoding the same file to raw PCM; and what playing it and ALAC costs in memory,
// beside MP3 in the same run (FFmpeg's 130 libraries are loaded only then).

extension Bench {
    /// The 180 s material signal as AAC (ffmpeg's native encoder, 128 kbit/s) and as ALAC,
    /// and the first second of each, each alone in a folder.
    private func mp4Material() throws -> (long: String, short: String, alac: String, alacShort: String) {
        let long = "\(material.music)/mp4-aac/music_aac.m4a"
        let short = "\(material.music)/mp4-1s/one-second.m4a"
        let alac = "\(material.music)/mp4-alac/music_alac.m4a"
        let alacShort = "\(material.music)/mp4-alac-1s/one-second.m4a"
        let aac = ["-c:a", "aac", "-b:a", "128k"]
        for (path, duration, codec) in [
            (long, "180", aac), (short, "1", aac), (alac, "180", ["-c:a", "alac"]), (alacShort, "1", ["-c:a", "alac"]),
        ] where !fileExists(path) {
            try mkdirs(dirOf(path))
            let (e, _) = try runTimed(
                ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "\(material.src)/music.wav", "-t", duration]
                    + codec + [path], stderr: .inherit)
            guard e.exited && e.exitCode == 0 else { throw BenchError("ffmpeg could not encode \(path): \(e.text)") }
        }
        return (long, short, alac, alacShort)
    }

    func sectionMP4() {
        let runs = quick ? 3 : 9
        note("\n== 10. AAC in MP4: CPU per minute, unpaced, jukeboxd vs ffmpeg -f s16le, \(runs) runs, interleaved ==")
        guard which("ffmpeg") != nil else {
            report.error("mp4", "ffmpeg not installed")
            return
        }
        let files: (long: String, short: String, alac: String, alacShort: String)
        do { files = try mp4Material() } catch {
            report.error("mp4", "\(error)")
            return
        }
        // Options apply to the next file named, and ffmpeg opens every input before any output,
        // so the output can come first and the input last.
        let ffmpeg = ["ffmpeg", "-nostdin", "-v", "error", "-f", "s16le", "-y", "/dev/null", "-i"]
        // 15 minutes (the signal five times), so that the fixed cost, which moves by tens of
        // milliseconds between runs (ffmpeg's loading of its libraries), is small beside it.
        let fifteen = "\(material.music)/mp4-aac-15min/music_aac_15min.m4a"
        if !fileExists(fifteen) {
            do {
                try mkdirs(dirOf(fifteen))
                let (e, _) = try runTimed(
                    ["ffmpeg", "-nostdin", "-v", "error", "-y", "-stream_loop", "4", "-i", "\(material.src)/music.wav"]
                        + ["-c:a", "aac", "-b:a", "128k", fifteen], stderr: .inherit)
                guard e.exited && e.exitCode == 0 else {
                    throw BenchError("ffmpeg could not encode \(fifteen): \(e.text)")
                }
            } catch {
                report.error("mp4", "\(error)")
                return
            }
        }
        let whole = cpuRuns(
            "AAC", files: [fifteen], musicDir: dirOf(fifteen), runs: runs, dirName: "mp4-cpu", section: "mp4",
            peer: ffmpeg)
        let fixed = cpuRuns(
            "AAC 1 s", files: [files.short], musicDir: dirOf(files.short), runs: runs, dirName: "mp4-cpu-1s",
            section: "mp4", peer: ffmpeg)
        for (name, side) in [("whole 15 min run", whole), ("1 s run (fixed cost)", fixed)] {
            if let p = side.peer.stat { note("ffmpeg, \(name): \(p.fmt(3, " s CPU"))") }
            if let j = side.jb.stat { note("jukeboxd, \(name): \(j.fmt(3, " s CPU")) (fresh db, scan, play, SIGTERM)") }
        }
        let span = (900.0 - 1.0) / 60
        func perMinute(_ long: Stat?, _ short: Stat?) -> Double? {
            guard let long, let short else { return nil }
            return (long.median - short.median) / span
        }
        let jb = perMinute(whole.jb.stat, fixed.jb.stat)
        let peer = perMinute(whole.peer.stat, fixed.peer.stat)
        let ratio = (jb != nil && peer != nil) ? jb! / peer! : nil
        report.add(
            Row(
                section: "mp4", metric: "CPU s per min of AAC, unpaced, fixed start/exit cost subtracted",
                jukeboxd: jb.map { f($0, 3) } ?? "error", peer: peer.map { "\(f($0, 3)) (ffmpeg -f s16le)" } ?? "error",
                ratio: Report.ratio(jb, peer), target: "≤ 1.1×",
                verdict: ratio.map { $0 <= 1.1 ? "PASS" : "FAIL" } ?? "ERROR"))
        if let j = fixed.jb.stat, let p = fixed.peer.stat {
            report.add(
                Row(
                    section: "mp4", metric: "CPU of a whole run of a 1 s AAC file (fixed cost)",
                    jukeboxd: "\(f(j.median * 1000, 1)) ms", peer: "\(f(p.median * 1000, 1)) ms (ffmpeg)",
                    ratio: Report.ratio(j.median, p.median), target: "context", verdict: "info"))
        }

        mp4Instructions(files)

        let window = quick ? 10 : 20
        note("\n   peak RSS while playing in real time (\(window) s window): MP3 (music_v2), then AAC, then ALAC")
        var peaks: [String: MemSample] = [:]
        for (kind, file) in [("MP3", material.v2), ("AAC", files.long), ("ALAC", files.alac)] {
            peaks[kind] = jbSide("mp4") { jb in
                let peak = try playingPeak(
                    jb, musicDir: dirOf(file), dir: "\(work)/mp4-rss-\(kind)", label: "paced", window: window)
                note("   jukeboxd playing \(kind): peak \(describe(peak)), VmHWM \(mib(peak.hwm))")
                return peak
            }
        }
        for kind in ["AAC", "ALAC"] {
            report.add(
                Row(
                    section: "mp4", metric: "peak RSS (VmHWM) while playing \(kind), beside MP3 in the same run",
                    jukeboxd: peaks[kind].map { mib($0.hwm) } ?? "error",
                    peer: peaks["MP3"].map { "\(mib($0.hwm)) (jukeboxd playing MP3)" } ?? "error",
                    ratio: Report.ratio(peaks[kind].map { Double($0.hwm) }, peaks["MP3"].map { Double($0.hwm) }),
                    target: "≤ 16 MiB", verdict: peaks[kind].map { $0.hwm <= 16 * 1024 ? "PASS" : "FAIL" } ?? "ERROR"))
        }
        longAudiobookPeak(window: window)
    }

    /// A 10-hour M4B audiobook (a quiet tone, 64 kbit/s AAC, a chapter an hour): ten minutes
    /// encoded once, then copied 60 times into one file, so making it takes seconds.
    private func longAudiobook() throws -> String {
        let book = "\(material.music)/m4b-long/ten-hours.m4b"
        if fileExists(book) { return book }
        try mkdirs(dirOf(book))
        let part = "\(work)/m4b-part.m4a", list = "\(work)/m4b-parts.txt", chapters = "\(work)/m4b-chapters.txt"
        try writeText(list, String(repeating: "file '\(part)'\n", count: 60))
        try writeText(
            chapters,
            ";FFMETADATA1\ntitle=Ten hours\n"
                + (0..<10).map {
                    "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\($0 * 3_600_000)\nEND=\(($0 + 1) * 3_600_000)\ntitle=Hour \($0 + 1)\n"
                }.joined())
        let ffmpeg = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
        for argv in [
            ffmpeg + ["-f", "lavfi", "-i", "sine=frequency=220:sample_rate=44100:duration=600,volume=0.05", "-ac", "2"]
                + ["-c:a", "aac", "-b:a", "64k", part],
            ffmpeg + ["-f", "concat", "-safe", "0", "-i", list, "-i", chapters, "-map", "0:a", "-map_metadata", "1"]
                + ["-map_chapters", "1", "-c", "copy", "-f", "ipod", book],
        ] {
            let (e, _) = try runTimed(argv, stderr: .inherit)
            guard e.exited && e.exitCode == 0 else { throw BenchError("ffmpeg could not make \(book): \(e.text)") }
        }
        return book
    }

    /// Peak RSS while playing a 10-hour M4B, jukeboxd against MPD 0.23 (which also demuxes
    /// MP4 with FFmpeg). FFmpeg's mov demuxer keeps a 24-byte index entry per AAC packet
    /// (1.55 million here) for as long as the file is open.
    private func longAudiobookPeak(window: Int) {
        let book: String
        do { book = try longAudiobook() } catch {
            report.error("mp4", "\(error)")
            return
        }
        let jb = jbSide("mp4") { jb in
            let peak = try playingPeak(
                jb, musicDir: dirOf(book), dir: "\(work)/m4b-rss", label: "paced", window: window)
            note("   jukeboxd playing a 10-hour M4B: peak \(describe(peak)), VmHWM \(mib(peak.hwm))")
            return peak
        }
        let mpd = peerSide("mp4", "MPD M4B") { () throws -> MemSample in
            let (srv, _) = try MPDServer.playing(book, dir: "\(work)/mpd-m4b-rss")
            defer { srv.stop() }
            let (peak, _, _) = sampleMemory(pid: srv.child.pid, seconds: window)
            note("   MPD 0.23 playing the same M4B: peak \(describe(peak)), VmHWM \(mib(peak.hwm))")
            return peak
        }
        report.add(
            Row(
                section: "mp4", metric: "peak RSS (VmHWM) while playing a 10-hour M4B (AAC 64 kbit/s, 10 chapters)",
                jukeboxd: jb.map { mib($0.hwm) } ?? "error", peer: mpd.map { "\(mib($0.hwm)) (MPD 0.23)" } ?? "error",
                ratio: Report.ratio(jb.map { Double($0.hwm) }, mpd.map { Double($0.hwm) }), target: "context",
                verdict: jb == nil ? "ERROR" : "info"))
    }

    /// The same decode counted by callgrind, whose instruction counts a loaded machine does not
    /// move (CPU seconds on this shared 2-core box move by 10-30 % between runs): AAC and ALAC,
    /// 180 s minus 1 s runs, jukeboxd against `ffmpeg -f s16le`.
    private func mp4Instructions(_ files: (long: String, short: String, alac: String, alacShort: String)) {
        guard which("valgrind") != nil else {
            report.error("mp4", "valgrind not installed")
            return
        }
        for (kind, long, short) in [("AAC", files.long, files.short), ("ALAC", files.alac, files.alacShort)] {
            func ffmpeg(_ file: String) -> [String] {
                ["ffmpeg", "-nostdin", "-v", "error", "-i", file, "-f", "s16le", "-y", "/dev/null"]
            }
            let whole = countInstructions(long, label: "mp4-\(kind)", section: "mp4", peer: ffmpeg(long))
            let fixed = countInstructions(short, label: "mp4-\(kind)-1s", section: "mp4", peer: ffmpeg(short))
            guard let j = whole.jb, let jf = fixed.jb, let p = whole.peer, let pf = fixed.peer else { continue }
            note(
                "\(kind): jukeboxd \(f(j / 1e6, 1)) M instructions for 180 s, \(f(jf / 1e6, 1)) M for 1 s; "
                    + "ffmpeg \(f(p / 1e6, 1)) M, \(f(pf / 1e6, 1)) M")
            addInstructionRows(
                whole: whole, fixed: fixed, section: "mp4",
                metric: "instructions per s of \(kind), unpaced, fixed cost subtracted (callgrind)",
                fixedMetric: "instructions of a whole 1 s \(kind) run (fixed cost)", peer: "ffmpeg -f s16le", limit: 1.1
            )
        }
    }
}
