// Section "vboard", the daemon beside MPD 0.23 on one virtual board: Debian's mpd from a
// second disk (Tests/Tools/vboard/make-mpd-disk.sh), both with their defaults, playing the
// same file in a loop into snd-aloop (hw:Loopback,0,0 and 0,1), in the same boot.
// Over windows in steady playback, from the guest's /proc: CPU (utime + stime, 10 ms ticks)
// per minute, wake-ups (voluntary + involuntary context switches of all threads) per second,
// and the sectors the state disk (ext4 on virtio-blk, /dev/vda) was asked to write, scaled
// to an hour. The guest's uptime times the window. Under TCG the emulated CPU is several
// times slower than the host and shares it with whatever else runs: compare the ratios,
// not the absolute figures.
import Foundation
import Glibc
import JukeboxTestSupport

extension Bench {
    /// What one player did over a window on the board.
    struct BoardWindow {
        var seconds: Double
        var cpuPerMinute: Double
        var wakeupsPerSecond: Double
        var diskBytesPerHour: Double

        var usage: String { "CPU \(f(cpuPerMinute, 2)) s/min, \(f(wakeupsPerSecond, 0)) wake-ups/s" }
    }

    /// CPU and wake-ups: jukeboxd and MPD playing at once, on two subdevices of the cable, in
    /// one window (the host's load swings the emulated CPU's speed between windows). Writes:
    /// each alone after a sync, the other not running: jukeboxd with the state file system
    /// mounted as `/init` does (noatime,lazytime), then remounted relatime without lazytime;
    /// MPD with its default state_file_interval (120 s), over a window spanning several saves.
    func measureBesideMPD(music: String, folder: TemporaryDirectory) throws {
        let script = Fixtures.path("Tests/Tools/vboard/make-mpd-disk.sh")
        let made = try run([script])
        guard made.status == 0, let mpdDisk = made.stdoutText.split(separator: "\n").last.map(String.init) else {
            throw BenchError("make-mpd-disk.sh: \(made.stderrText)")
        }
        let cpuWindow = quick ? 60.0 : 120.0
        let jukeboxdWindow = quick ? 60.0 : 180.0
        let mpdWindow = quick ? 250.0 : 490.0
        let state = folder.file("side.img")
        try VirtualBoard.makeStateDisk(at: state)
        let uart = try PseudoTerminal()
        var options = VirtualBoard.Options(disk: state, hostFolder: folder.path, uart: uart.slavePath)
        options.qemuArguments = ["-drive", "file=\(mpdDisk),format=raw,if=virtio,readonly=on"]
        let board = try VirtualBoard(options)
        try board.check("mkdir -p /opt/mpd && mount -t ext4 -o ro /dev/vdb /opt/mpd")
        let mountOptions = try board.check("awk '$2 == \"/state\" {print $4}' /proc/mounts")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Linux 6.6 and later journal the inode at each checkpoint whatever lazytime says
        // (docs/VIRTUAL-BOARD.md): the rows name the kernel (VBOARD_SUITE picks another).
        let kernel = try board.check("uname -r").trimmingCharacters(in: .whitespacesAndNewlines)

        try writeText(
            folder.file("mpd.conf"),
            """
            # written by jukebox-bench (section vboard): MPD's defaults but for the paths and the output
            music_directory    "/host/music"
            playlist_directory "/state/mpd/playlists"
            db_file            "/state/mpd/db"
            state_file         "/state/mpd/state"
            log_file           "/run/mpd.log"
            bind_to_address    "127.0.0.1"
            port               "6600"
            auto_update        "no"
            zeroconf_enabled   "no"
            audio_output {
              type       "alsa"
              name       "loopback"
              device     "hw:Loopback,0,1"
              mixer_type "none"
            }

            """)
        try board.check("mkdir -p /state/mpd/playlists")
        let mpd = try board.start(
            "LD_LIBRARY_PATH=/opt/mpd/lib exec /opt/mpd/mpd --no-daemon /host/mpd.conf", log: "/host/mpd.out")
        func mpc(_ commands: String) -> [String: String] {
            let out = (try? board.run("printf '\(commands)\\nstatus\\nclose\\n' | nc 127.0.0.1 6600").output) ?? ""
            var fields: [String: String] = [:]
            for line in out.split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            return fields
        }
        guard waitUntil(timeout: .seconds(60), pollingEvery: .milliseconds(200), { mpc("ping")["state"] != nil }) else {
            throw BenchError("MPD did not answer on the board: \(readText(folder.file("mpd.out")) ?? "")")
        }
        _ = mpc("update")
        guard waitUntil(timeout: .seconds(60), pollingEvery: .milliseconds(200), { mpc("ping")["updating_db"] == nil })
        else { throw BenchError("MPD's update did not end") }

        let config = DaemonConfig(
            musicDir: "/host/music", database: "/state/jukebox/jukebox.sqlite", device: "hw:Loopback,0,0",
            pacing: "device", mode: "repeat-all", onStart: "play",
            comment: "written by jukebox-bench (section vboard, beside MPD)")
        let daemon = try BoardJukebox(board: board, uart: uart, name: "side", config: config)
        daemon.play([music])
        _ = mpc("clear\\nadd \"\(music)\"\\nrepeat 1\\nplay")
        let bothPlay = waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(100)) {
            Self.elapsed(daemon.status()) >= 3 && Self.elapsed(mpc("ping")) >= 3
        }
        guard bothPlay else {
            throw BenchError(
                "jukeboxd and MPD did not both play: \(daemon.log) / \(readText(folder.file("mpd.out")) ?? "")")
        }
        let usage = try measureWindow(board: board, pids: [daemon.pid, mpd], seconds: cpuWindow)
        let (jukeboxd, peer) = (usage[0], usage[1])
        note("vboard: both playing, \(f(jukeboxd.seconds, 0)) s: jukeboxd \(jukeboxd.usage); MPD 0.23 \(peer.usage)")

        // Each writer alone from here, starting from a clean page cache: MPD's state save at
        // exit and whatever came before go out first.
        try board.check("kill -TERM \(mpd); while kill -0 \(mpd) 2>/dev/null; do sleep 0.05; done; sync")
        let writes = try measureWindow(board: board, pids: [daemon.pid], seconds: jukeboxdWindow)[0]
        note(
            "vboard: jukeboxd alone, /state mounted \(mountOptions), \(f(writes.seconds, 0)) s: \(human(bytes: writes.diskBytesPerHour))/h"
        )
        try board.check("mount -o remount,relatime,nolazytime /state")
        let withoutLazytime = try measureWindow(board: board, pids: [daemon.pid], seconds: jukeboxdWindow)[0]
        note(
            "vboard: jukeboxd alone, /state remounted relatime without lazytime, \(f(withoutLazytime.seconds, 0)) s: \(human(bytes: withoutLazytime.diskBytesPerHour))/h"
        )
        try board.check("mount -o remount,\(mountOptions) /state")
        daemon.stop()
        // MPD again, resuming its queue from the state file; its start's writes go out first.
        let mpdAgain = try board.start(
            "LD_LIBRARY_PATH=/opt/mpd/lib exec /opt/mpd/mpd --no-daemon /host/mpd.conf", log: "/host/mpd-again.out")
        guard waitUntil(timeout: .seconds(60), pollingEvery: .milliseconds(200), { Self.elapsed(mpc("ping")) >= 3 })
        else { throw BenchError("MPD did not resume on the board: \(readText(folder.file("mpd-again.out")) ?? "")") }
        try board.check("sync")
        let peerWrites = try measureWindow(board: board, pids: [mpdAgain], seconds: mpdWindow)[0]
        note(
            "vboard: MPD alone (state_file_interval 120 s), \(f(peerWrites.seconds, 0)) s: \(human(bytes: peerWrites.diskBytesPerHour))/h"
        )
        try board.check("kill -TERM \(mpdAgain); while kill -0 \(mpdAgain) 2>/dev/null; do sleep 0.05; done")

        let accelerator = VirtualBoard.accelerator.uppercased()
        func row(_ metric: String, _ jb: Double, _ mpd: Double, _ digits: Int, target: String, pass: Bool) {
            report.add(
                Row(
                    section: "vboard", metric: metric, jukeboxd: f(jb, digits), peer: "\(f(mpd, digits)) (MPD 0.23)",
                    ratio: Report.ratio(jb, mpd), target: target, verdict: pass ? "PASS" : "FAIL"))
        }
        row(
            "CPU s per minute of real-time playback into snd-aloop, both at once with defaults, virtual board (\(accelerator); compare the ratio)",
            jukeboxd.cpuPerMinute, peer.cpuPerMinute, 2, target: "≤ MPD",
            pass: jukeboxd.cpuPerMinute <= peer.cpuPerMinute)
        row(
            "wake-ups per s (context switches, all threads), same", jukeboxd.wakeupsPerSecond,
            peer.wakeupsPerSecond, 0, target: "context", pass: true)
        func disk(_ metric: String, _ jb: Double, isDefault: Bool) {
            report.add(
                Row(
                    section: "vboard", metric: metric, jukeboxd: human(bytes: jb),
                    peer: "\(human(bytes: peerWrites.diskBytesPerHour)) (MPD 0.23)",
                    ratio: Report.ratio(jb, peerWrites.diskBytesPerHour), target: isDefault ? "< MPD" : "context",
                    verdict: !isDefault ? "info" : jb < peerWrites.diskBytesPerHour ? "PASS" : "FAIL"))
        }
        disk(
            "state disk writes per hour of playback, default config, ext4 on virtio-blk mounted \(mountOptions), Linux \(kernel)",
            writes.diskBytesPerHour, isDefault: true)
        disk(
            "  same, the state disk mounted relatime without lazytime", withoutLazytime.diskBytesPerHour,
            isDefault: false)
        try measureControlLatency(board: board, uart: uart, music: music)
    }

    /// A button (KEY_PLAYPAUSE on a uinput device, as gpio-keys delivers it) toggles pause
    /// and play on jukeboxd with its defaults, while arecord captures the loopback's other
    /// end: from the key event (its time on the guest's CLOCK_MONOTONIC, as vboard-uinput
    /// wrote it to the device) to the first silent frame (10 ms of zeros) or the first sounding
    /// one at the capture, whose frames are on the same clock (trigger time + index / rate;
    /// snd-aloop moves them on jiffies, so a change lands up to 4 ms late or early at HZ=250,
    /// and a quick one may read as slightly before its release).
    /// 20 presses each way (30 without `--quick`): p95 of all, medians of each.
    private func measureControlLatency(board: VirtualBoard, uart: PseudoTerminal, music: String) throws {
        let toggles = quick ? 40 : 60
        let keys = try BoardInputDevice(board: board, name: "gpio-keys", keys: [164])
        var config = DaemonConfig(
            musicDir: "/host/music", database: "/state/control/jukebox.sqlite", device: "hw:Loopback,0,0",
            pacing: "device", mode: "repeat-all", onStart: "play",
            comment: "written by jukebox-bench (section vboard, control latency)")
        config.extra = "\n[buttons]\ninput_device = \"\(keys.eventPath)\"\n"
        let rate = 44100
        // 4 s: under TCG a busy host stalls the guest for longer than arecord's default 500 ms.
        let capture = try BoardCapture(board: board, name: "control", rate: rate, bufferMs: 4000)
        let daemon = try BoardJukebox(board: board, uart: uart, name: "control", config: config)
        daemon.play([music])
        guard waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(100), { Self.elapsed(daemon.status()) >= 2 })
        else { throw BenchError("jukeboxd did not play for the control latency: \(daemon.log)") }
        // The play/pause button acts on its release (a long press has a meaning of its own):
        // both edges are timed, and a change is counted from the last edge before it.
        for _ in 0..<toggles {
            try keys.send([.key(164, pressed: true)])
            Clock.sleep(0.06)
            try keys.send([.key(164, pressed: false)])
            Clock.sleep(1.0)
        }
        let edges = try keys.emitted().filter { $0.type == 1 && $0.code == 164 }
        let trigger = try board.check("grep trigger_time /proc/asound/card0/pcm1c/sub0/status")
        let samples = try capture.finish()
        daemon.stop()
        guard edges.count == 2 * toggles, edges.indices.allSatisfy({ edges[$0].value == ($0 % 2 == 0 ? 1 : 0) }) else {
            throw BenchError("vboard-uinput sent \(edges.count) of \(2 * toggles) key events")
        }
        guard
            let triggerTime = Double(
                trigger.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        else { throw BenchError("no capture trigger time: \(trigger)") }
        let frames = samples.count / 2
        func silent(_ frame: Int) -> Bool { samples[2 * frame] == 0 && samples[2 * frame + 1] == 0 }
        var pausesMs: [Double] = []
        var resumesMs: [Double] = []
        var fromPress = 0
        for index in 0..<toggles {
            let (press, release) = (
                Double(edges[2 * index].nanoseconds) / 1e9, Double(edges[2 * index + 1].nanoseconds) / 1e9
            )
            let pausing = index % 2 == 0
            var frame = max(0, Int(((press - triggerTime) * Double(rate)).rounded(.up)))
            let quiet = rate / 100
            if pausing {
                while frame + quiet < frames, !(frame..<frame + quiet).allSatisfy(silent) { frame += 1 }
            } else {
                while frame < frames, silent(frame) { frame += 1 }
            }
            guard frame + (pausing ? quiet : 0) < frames else {
                throw BenchError("no change at the capture after the press at \(press) s: \(daemon.log)")
            }
            let changed = triggerTime + Double(frame) / Double(rate)
            // The capture's clock is a jiffy coarse: a change up to 4 ms before the release
            // is the release's (counted from the press it read as 60-70 ms).
            let from = changed >= release - 0.004 ? release : press
            if from == press { fromPress += 1 }
            if pausing { pausesMs.append((changed - from) * 1000) } else { resumesMs.append((changed - from) * 1000) }
        }
        let overruns = try board.run("grep -c overrun /host/control.arecord.log").output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard overruns == "0" else {
            throw BenchError("the capture overran (\(overruns)): its frames no longer follow its trigger time")
        }
        let all = Stat(pausesMs + resumesMs)
        let p95 = all.values[min(all.values.count - 1, all.values.count * 95 / 100)]
        note(
            "vboard: button -> change at the capture, pause \(Stat(pausesMs).fmt(1, " ms")), play \(Stat(resumesMs).fmt(1, " ms")), p95 \(f(p95, 1)) ms; \(fromPress) of \(toggles) changed before the release"
        )
        report.add(
            Row(
                section: "vboard",
                metric:
                    "button (uinput KEY_PLAYPAUSE) release → pause/play heard at the loopback capture, defaults, virtual board (\(VirtualBoard.accelerator.uppercased())), p95 of \(toggles) presses, ms (medians: pause / play)",
                jukeboxd: "\(f(p95, 1)) (\(f(Stat(pausesMs).median, 1)) / \(f(Stat(resumesMs).median, 1)))", peer: "—",
                ratio: "—", target: "≤ 15 ms", verdict: p95 <= 15 ? "PASS" : "FAIL"))
    }

    private static func elapsed(_ status: [String: String]) -> Double { Double(status["elapsed"] ?? "") ?? 0 }

    /// CPU and context switches of each process in `pids`, and /dev/vda's written sectors,
    /// over `seconds` of the guest's time.
    private func measureWindow(board: VirtualBoard, pids: [Int], seconds: Double) throws -> [BoardWindow] {
        func sample() throws -> (at: Double, sectors: Double, ticks: [Double], switches: [Double]) {
            let perProcess = pids.map {
                "echo cpu-\($0) $(cut -d' ' -f14,15 /proc/\($0)/stat) $(cat /proc/\($0)/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}')"
            }
            let out = try board.check(
                (["echo up $(cut -d' ' -f1 /proc/uptime)", "echo vda $(awk '{print $7}' /sys/block/vda/stat)"]
                    + perProcess).joined(separator: "; "))
            var values: [String: [Double]] = [:]
            for line in out.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let key = words.first else { continue }
                values[String(key)] = words.dropFirst().compactMap { Double($0) }
            }
            guard let at = values["up"]?.first, let sectors = values["vda"]?.first else {
                throw BenchError("unexpected sample from the board: \(out)")
            }
            var ticks: [Double] = []
            var switches: [Double] = []
            for pid in pids {
                guard let numbers = values["cpu-\(pid)"], numbers.count == 3 else {
                    throw BenchError("process \(pid) is gone from the board: \(out)")
                }
                ticks.append(numbers[0] + numbers[1])
                switches.append(numbers[2])
            }
            return (at, sectors, ticks, switches)
        }
        let a = try sample()
        Clock.sleep(seconds)
        let b = try sample()
        let span = b.at - a.at
        return pids.indices.map { index in
            BoardWindow(
                seconds: span, cpuPerMinute: (b.ticks[index] - a.ticks[index]) / 100 * 60 / span,
                wakeupsPerSecond: (b.switches[index] - a.switches[index]) / span,
                diskBytesPerHour: (b.sectors - a.sectors) * 512 * 3600 / span)
        }
    }
}
