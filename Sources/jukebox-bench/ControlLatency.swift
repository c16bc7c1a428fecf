// Section "control": MPD-protocol control latency, jukeboxd against MPD 0.23 on the same file,
// in one run. (1) the round trip of `status` on a TCP connection (TCP_NODELAY, loopback);
// (2) `pause 1` -> the moment audio stops arriving at a real-time paced sink, and `pause 0`
// -> the moment it arrives again. The sink (PacedFifoSink) is a FIFO read at 176,400 bytes/s in 1 ms steps
// (a virtual DAC): both write into it through ALSA's file:'FIFO',raw PCM (MPD's alsa output,
// so both drop with snd_pcm_drop on pause; MPD's own `fifo` output would instead empty the
// pipe by reading it). The pipe is shrunk to 4 KiB, so at most ~23 ms of audio hides there.
import Foundation
import Glibc
import JukeboxTestSupport

extension Bench {
    func sectionControl() {
        let roundTrips = quick ? 300 : 2000
        let pauses = quick ? 5 : 12
        let dir = "\(work)/control"
        note(
            "\n== 7. control latency over the MPD protocol: status round trip (\(roundTrips)×), pause/resume at a paced sink (\(pauses)×) =="
        )
        do { try mkdirs(dir) } catch { report.error("control", "\(error)"); return }
        let musicDir = dirOf(material.cbr320)

        var jbStatus: Stat?
        var jbPause: Stat?
        var jbResume: Stat?
        if let jb = jukeboxd {
            do {
                (jbStatus, jbPause, jbResume) = try measureJukeboxd(
                    jb, musicDir: musicDir, dir: dir, roundTrips: roundTrips, pauses: pauses)
            } catch { report.error("control", "jukeboxd: \(error)") }
        } else {
            report.error("control", "no jukeboxd binary (pass --jukeboxd PATH); jukeboxd side skipped")
        }
        var mpdStatus: Stat?
        var mpdPause: Stat?
        var mpdResume: Stat?
        do {
            (mpdStatus, mpdPause, mpdResume) = try measureMPD(
                musicDir: musicDir, dir: dir, roundTrips: roundTrips, pauses: pauses)
        } catch { report.error("control", "MPD: \(error)") }

        func row(_ metric: String, _ j: Stat?, _ p: Stat?, unit: String, digits: Int, target: String) {
            report.add(
                Row(
                    section: "control", metric: metric,
                    jukeboxd: j.map { $0.fmt(digits, unit) } ?? "error",
                    peer: p.map { "\($0.fmt(digits, unit)) (MPD)" } ?? "error",
                    ratio: Report.ratio(j?.median, p?.median), target: target,
                    verdict: j == nil ? "ERROR" : p == nil ? "info" : (j!.median <= p!.median * 1.05 ? "ok" : "slower"))
            )
        }
        row("status round trip (TCP, loopback)", jbStatus, mpdStatus, unit: " µs", digits: 0, target: "≤ 1.05×")
        row("pause → audio stops at the paced sink", jbPause, mpdPause, unit: " ms", digits: 1, target: "≤ 1.05×")
        row("resume → audio arrives again at the sink", jbResume, mpdResume, unit: " ms", digits: 1, target: "≤ 1.05×")
    }

    private func measureJukeboxd(_ jb: String, musicDir: String, dir: String, roundTrips: Int, pauses: Int) throws
        -> (Stat, Stat, Stat)
    {
        let sink = try PacedFifoSink(bytesPerSecond: 176_400)
        defer { sink.stop() }
        let port = freeLoopbackPort()
        let db = "\(dir)/state/jukebox.sqlite"
        removeDatabase(db)
        try mkdirs("\(dir)/state")
        try DaemonConfig(
            musicDir: musicDir, database: db, device: sink.alsaDevice, pacing: "device", startVolume: 50,
            mode: "repeat-all", console: "none", extra: "\n[network]\nport = \(port)",
            comment: "written by jukebox-bench (section control)"
        ).write(to: "\(dir)/jukebox-control.toml")
        let daemon = try DaemonProc(
            jukeboxd: jb, config: "\(dir)/jukebox-control.toml", extraArgs: ["--console", "none"],
            logPath: "\(dir)/jukeboxd-control.log")
        defer { _ = daemon.stop() }
        let client = try connect(port: port, alive: { daemon.isRunning })
        try waitPlaying(client, sink: sink)
        let pause = try pauseLatencies(client, sink: sink, count: pauses)
        return (try statusRoundTrips(client, count: roundTrips), pause.0, pause.1)
    }

    private func measureMPD(musicDir: String, dir: String, roundTrips: Int, pauses: Int) throws -> (Stat, Stat, Stat) {
        guard let mpd = which("mpd") else { throw BenchError("mpd is not installed (apt-get install -y mpd mpc)") }
        let sink = try PacedFifoSink(bytesPerSecond: 176_400)
        defer { sink.stop() }
        let port = freeLoopbackPort()
        let mpdDir = "\(dir)/mpd"
        try mkdirs("\(mpdDir)/playlists")
        removeItem("\(mpdDir)/db")
        removeItem("\(mpdDir)/pid")
        let text = """
            # written by jukebox-bench (section control)
            music_directory    "\(musicDir)"
            playlist_directory "\(mpdDir)/playlists"
            db_file            "\(mpdDir)/db"
            pid_file           "\(mpdDir)/pid"
            log_file           "\(mpdDir)/log"
            bind_to_address    "127.0.0.1"
            port               "\(port)"
            auto_update        "no"
            zeroconf_enabled   "no"
            audio_output {
              type       "alsa"
              name       "paced-fifo"
              device     "\(sink.alsaDevice)"
              format     "44100:16:2"
              mixer_type "software"
            }

            """
        try writeText("\(mpdDir)/mpd.conf", text)
        let child = try Child.spawn(
            [mpd, "--no-daemon", "\(mpdDir)/mpd.conf"], stdout: .file("\(mpdDir)/stdout.log"),
            stderr: .file("\(mpdDir)/stderr.log"))
        defer { _ = child.terminate(grace: 5) }
        let client = try connect(port: port, alive: { child.isRunning })
        try client.cmd("update")
        let end = Clock.seconds() + 30
        while Int(try client.cmd("stats")["songs"] ?? "0") ?? 0 < 1 {
            guard Clock.seconds() < end else { throw BenchError("MPD found no song in \(musicDir)") }
            Clock.sleep(0.01)
        }
        try client.cmd("clear")
        try client.cmd("add \"\"")
        try client.cmd("repeat 1")
        try client.cmd("setvol 50")
        try client.cmd("play 0")
        try waitPlaying(client, sink: sink)
        let pause = try pauseLatencies(client, sink: sink, count: pauses)
        return (try statusRoundTrips(client, count: roundTrips), pause.0, pause.1)
    }

    /// Connects to an MPD protocol port as soon as it accepts and answers `ping`.
    func connect(port: Int, seconds: Double = 20, alive: () -> Bool) throws -> MPDClient {
        let end = Clock.seconds() + seconds
        while true {
            if let c = try? MPDClient(port: port), (try? c.cmd("ping")) != nil { return c }
            guard alive() else { throw BenchError("the server exited before it answered on port \(port)") }
            guard Clock.seconds() < end else { throw BenchError("no answer on port \(port) within \(Int(seconds)) s") }
            Clock.sleep(0.005)
        }
    }

    private func waitPlaying(_ client: MPDClient, sink: PacedFifoSink) throws {
        let end = Clock.seconds() + 30
        while sink.byteCount < 176_400 {  // one second of audio has reached the sink
            guard Clock.seconds() < end else {
                throw BenchError("no audio at the sink within 30 s (state \(try client.cmd("status")["state"] ?? "?"))")
            }
            Clock.sleep(0.01)
        }
    }

    private func statusRoundTrips(_ client: MPDClient, count: Int) throws -> Stat {
        for _ in 0..<50 { try client.cmd("status") }  // warm-up
        var values: [Double] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            let t0 = Clock.seconds()
            let status = try client.cmd("status")
            values.append((Clock.seconds() - t0) * 1e6)
            guard status["state"] != nil else { throw BenchError("status without state") }
        }
        return Stat(values)
    }

    /// `pause 1`: from the command to the last arrival at the sink; `pause 0`: from the
    /// command to the first arrival after it. Each pause lasts 400 ms, each play phase 600 ms.
    private func pauseLatencies(_ client: MPDClient, sink: PacedFifoSink, count: Int) throws -> (Stat, Stat) {
        var stops: [Double] = []
        var starts: [Double] = []
        for _ in 0..<count {
            Clock.sleep(0.6)
            let t0 = Clock.seconds()
            try client.cmd("pause 1")
            Clock.sleep(0.4)
            guard let last = sink.lastArrival().map({ Double($0) / 1e9 }), last >= t0 - 0.005 else {
                throw BenchError("no audio arrived around the pause")
            }
            stops.append(max(0, last - t0) * 1000)
            let t1 = Clock.seconds()
            try client.cmd("pause 0")
            let end = t1 + 5
            var first: Double?
            while first == nil && Clock.seconds() < end {
                first = sink.firstArrival(after: UInt64(t1 * 1e9)).map { Double($0) / 1e9 }
                if first == nil { Clock.sleep(0.0005) }
            }
            guard let first else { throw BenchError("audio did not come back within 5 s of pause 0") }
            starts.append((first - t1) * 1000)
        }
        return (Stat(stops), Stat(starts))
    }
}
