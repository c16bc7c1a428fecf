// Section "vboard", the daemon beside MPD 0.23 on one virtual board: Debian's mpd from a
// second disk (Tests/Tools/vboard/make-mpd-disk.sh), both with their defaults, playing the
// same file in a loop into snd-aloop (hw:Loopback,0), one after the other in the same boot.
// Over a window in steady playback, from the guest's /proc: CPU (utime + stime, 10 ms ticks)
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

        var text: String {
            "\(f(seconds, 0)) s: CPU \(f(cpuPerMinute, 2)) s/min, \(f(wakeupsPerSecond, 0)) wake-ups/s, state disk \(human(bytes: diskBytesPerHour))/h"
        }
    }

    /// jukeboxd (the state file system mounted as `/init` does: noatime,lazytime; then again
    /// remounted relatime without lazytime) and MPD (its default state_file_interval, 120 s).
    func measureBesideMPD(music: String, folder: TemporaryDirectory) throws {
        let script = Fixtures.path("Tests/Tools/vboard/make-mpd-disk.sh")
        let made = try run([script])
        guard made.status == 0, let mpdDisk = made.stdoutText.split(separator: "\n").last.map(String.init) else {
            throw BenchError("make-mpd-disk.sh: \(made.stderrText)")
        }
        // MPD's window spans several of its 120 s state saves; the daemon's checkpoint is every 4 s.
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

        let config = DaemonConfig(
            musicDir: "/host/music", database: "/state/jukebox/jukebox.sqlite", device: "hw:Loopback,0,0",
            pacing: "device", mode: "repeat-all", onStart: "play",
            comment: "written by jukebox-bench (section vboard, beside MPD)")
        let daemon = try BoardJukebox(board: board, uart: uart, name: "side", config: config)
        daemon.play([music])
        guard waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(100), { Self.elapsed(daemon.status()) >= 3 })
        else { throw BenchError("jukeboxd did not play on the board: \(daemon.log)") }
        let jukeboxd = try measureWindow(board: board, pid: daemon.pid, seconds: jukeboxdWindow)
        note("vboard: jukeboxd (defaults, /state mounted \(mountOptions)), \(jukeboxd.text)")
        try board.check("mount -o remount,relatime,nolazytime /state")
        let withoutLazytime = try measureWindow(board: board, pid: daemon.pid, seconds: jukeboxdWindow)
        note("vboard: jukeboxd, /state remounted relatime without lazytime, \(withoutLazytime.text)")
        try board.check("mount -o remount,\(mountOptions) /state")
        daemon.stop()

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
              device     "hw:Loopback,0"
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
        _ = mpc("clear\\nadd \"\(music)\"\\nrepeat 1\\nplay")
        guard waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(200), { Self.elapsed(mpc("ping")) >= 3 })
        else { throw BenchError("MPD did not play on the board: \(readText(folder.file("mpd.out")) ?? "")") }
        let peer = try measureWindow(board: board, pid: mpd, seconds: mpdWindow)
        note("vboard: MPD 0.23 (ALSA output hw:Loopback,0, state_file_interval 120 s), \(peer.text)")
        _ = try? board.run("kill -TERM \(mpd)")

        let accelerator = VirtualBoard.accelerator.uppercased()
        func row(_ metric: String, _ jb: Double, _ mpd: Double, _ digits: Int, target: String, pass: Bool) {
            report.add(
                Row(
                    section: "vboard", metric: metric, jukeboxd: f(jb, digits), peer: "\(f(mpd, digits)) (MPD 0.23)",
                    ratio: Report.ratio(jb, mpd), target: target, verdict: pass ? "PASS" : "FAIL"))
        }
        row(
            "CPU s per minute of real-time playback into snd-aloop, both with defaults, virtual board (\(accelerator); compare the ratio)",
            jukeboxd.cpuPerMinute, peer.cpuPerMinute, 2, target: "≤ MPD",
            pass: jukeboxd.cpuPerMinute <= peer.cpuPerMinute)
        row(
            "wake-ups per s (context switches, all threads), same", jukeboxd.wakeupsPerSecond,
            peer.wakeupsPerSecond, 0, target: "context", pass: true)
        func disk(_ metric: String, _ jb: Double) {
            report.add(
                Row(
                    section: "vboard", metric: metric, jukeboxd: human(bytes: jb),
                    peer: "\(human(bytes: peer.diskBytesPerHour)) (MPD 0.23)",
                    ratio: Report.ratio(jb, peer.diskBytesPerHour), target: "< MPD",
                    verdict: jb < peer.diskBytesPerHour ? "PASS" : "FAIL"))
        }
        disk(
            "state disk writes per hour of playback, default config, ext4 on virtio-blk mounted \(mountOptions)",
            jukeboxd.diskBytesPerHour)
        disk("  same, the state disk mounted relatime without lazytime", withoutLazytime.diskBytesPerHour)
    }

    private static func elapsed(_ status: [String: String]) -> Double { Double(status["elapsed"] ?? "") ?? 0 }

    /// CPU, context switches and /dev/vda's written sectors of process `pid` over `seconds`
    /// of the guest's time.
    private func measureWindow(board: VirtualBoard, pid: Int, seconds: Double) throws -> BoardWindow {
        func sample() throws -> (at: Double, ticks: Double, switches: Double, sectors: Double) {
            let out = try board.check(
                "echo up $(cut -d' ' -f1 /proc/uptime); echo cpu $(cut -d' ' -f14,15 /proc/\(pid)/stat); "
                    + "grep -h ctxt_switches /proc/\(pid)/task/*/status; echo vda $(awk '{print $7}' /sys/block/vda/stat)"
            )
            var values: [String: Double] = [:]
            var switches = 0.0
            for line in out.split(separator: "\n") {
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard let key = words.first else { continue }
                let numbers = words.dropFirst().compactMap { Double($0) }
                if key.hasSuffix("ctxt_switches:") {
                    switches += numbers.reduce(0, +)
                } else {
                    values[String(key)] = numbers.reduce(0, +)
                }
            }
            guard let at = values["up"], let ticks = values["cpu"], let sectors = values["vda"] else {
                throw BenchError("unexpected sample from the board: \(out)")
            }
            return (at, ticks, switches, sectors)
        }
        let a = try sample()
        Clock.sleep(seconds)
        let b = try sample()
        let span = b.at - a.at
        return BoardWindow(
            seconds: span, cpuPerMinute: (b.ticks - a.ticks) / 100 * 60 / span,
            wakeupsPerSecond: (b.switches - a.switches) / span,
            diskBytesPerHour: (b.sectors - a.sectors) * 512 * 3600 / span)
    }
}
