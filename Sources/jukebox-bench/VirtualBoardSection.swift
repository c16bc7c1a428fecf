// Section "vboard": boot to music on the virtual board (docs/VIRTUAL-BOARD.md): qemu boots
// Debian's kernel; the board's state disk (ext4 on virtio-blk) holds a daemon that was playing,
// so jukeboxd (`on_start = "play"`, the default 10/40 ms period and buffer) resumes at once,
// into snd-aloop, and arecord on the cable's other end sees the first sample. Times are the
// guest's CLOCK_MONOTONIC, which starts with the kernel: the capture's trigger time
// (/proc/asound) plus the first sounding frame's index over the rate gives the first sample;
// the daemon's exec is its process start time (/proc/PID/stat, 10 ms ticks). The daemon is
// started as soon as the board answers, as a service would be. Under TCG (no KVM) the guest
// runs several times slower than the host: the figures are an emulated board's, for
// comparing runs, not a Pi's.
import Foundation
import Glibc
import JukeboxTestSupport

extension Bench {
    func sectionVirtualBoard() {
        let rounds = quick ? 1 : 3
        note("\n== vboard: boot to music on the virtual board (\(rounds)×) ==")
        if let reason = VirtualBoard.unavailableReason {
            report.error("vboard", "SKIPPED, qemu cannot run here: \(reason)")
            return
        }
        guard let jb = jukeboxd else {
            report.error("vboard", "no jukeboxd binary (pass --jukeboxd PATH)")
            return
        }
        setenv("JUKEBOXD", jb, 1)  // make-image.sh puts this daemon in the image
        do {
            let (kernel, exec, boot) = try measureBootToMusic(rounds: rounds)
            note("vboard: qemu start -> agent answering: \(boot.fmt(1, " s")) (\(VirtualBoard.accelerator))")
            note(
                "vboard: kernel start -> first sample: \(kernel.fmt(0, " ms")); daemon exec -> first sample: \(exec.fmt(0, " ms"))"
            )
            let accelerator = VirtualBoard.accelerator.uppercased()
            report.add(
                Row(
                    section: "vboard",
                    metric: "kernel start → first sample at the loopback capture, virtual board (\(accelerator)) ms",
                    jukeboxd: f(kernel.median, 0), peer: "—", ratio: "—", target: "", verdict: ""))
            report.add(
                Row(
                    section: "vboard",
                    metric: "daemon exec → first sample at the loopback capture, virtual board (\(accelerator)) ms",
                    jukeboxd: f(exec.median, 0), peer: "—", ratio: "—", target: "", verdict: ""))
        } catch {
            report.error("vboard", "\(error)")
        }
        do {
            try measureBesideMPD(music: "tone.wav", folder: try makeToneFolder())
        } catch {
            report.error("vboard", "beside MPD: \(error)")
        }
    }

    private func measureBootToMusic(rounds: Int) throws -> (kernel: Stat, exec: Stat, boot: Stat) {
        let folder = try makeToneFolder()
        let state = folder.file("state.img")
        try VirtualBoard.makeStateDisk(at: state)
        let config = DaemonConfig(
            musicDir: "/host/music", database: "/state/boot/jukebox.sqlite", device: "hw:Loopback,0,0",
            pacing: "device", mode: "repeat-all", onStart: "play", comment: "written by jukebox-bench (section vboard)")

        // First boot: play, then stop the daemon as a shutdown would (SIGTERM) and power off.
        do {
            let uart = try PseudoTerminal()
            let board = try VirtualBoard(.init(disk: state, hostFolder: folder.path, uart: uart.slavePath))
            let daemon = try BoardJukebox(board: board, uart: uart, name: "boot", config: config)
            daemon.play(["tone.wav"])
            let playing = waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(100)) {
                (Double(daemon.status()["elapsed"] ?? "") ?? 0) >= 2
            }
            guard playing else { throw BenchError("the first boot did not play: \(daemon.log)") }
            try board.check(
                "kill -TERM \(daemon.pid); while kill -0 \(daemon.pid) 2>/dev/null; do sleep 0.01; done; sync")
        }

        var kernel: [Double] = []
        var exec: [Double] = []
        var boot: [Double] = []
        for round in 0..<rounds {
            let disk = folder.file("round\(round).img")
            unlink(disk)
            try FileManager.default.copyItem(atPath: state, toPath: disk)
            let uart = try PseudoTerminal()
            let board = try VirtualBoard(.init(disk: disk, hostFolder: folder.path, uart: uart.slavePath))
            let capture = try BoardCapture(board: board, name: "boot\(round)", rate: 44100)
            let daemon = try BoardJukebox(board: board, uart: uart, name: "boot", config: config)
            capture.waitFor(seconds: 2)
            let trigger = try board.check("grep trigger_time /proc/asound/card0/pcm1c/sub0/status")
            let started = try board.check("cut -d' ' -f22 /proc/\(daemon.pid)/stat")
            let samples = try capture.finish()
            guard
                let triggerTime = Double(
                    trigger.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""),
                let startTicks = Double(started.trimmingCharacters(in: .whitespacesAndNewlines)),
                let first = samples.firstIndex(where: { $0 != 0 })
            else {
                throw BenchError("no first sample: \(trigger) / \(started) / \(samples.count) samples; \(daemon.log)")
            }
            let firstSample = triggerTime + Double(first / 2) / 44100
            kernel.append(firstSample * 1000)
            exec.append((firstSample - startTicks / 100) * 1000)
            boot.append(board.bootSeconds)
        }
        return (Stat(kernel), Stat(exec), Stat(boot))
    }

    /// A host folder for the board with `music/tone.wav`: a minute of 440 Hz at 44.1 kHz.
    func makeToneFolder() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory(prefix: "jukebox-bench-vboard")
        try mkdirs(folder.file("music"))
        let tone = try run([
            "sox", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", folder.file("music/tone.wav"), "synth", "60",
            "sine", "440", "vol", "0.5",
        ])
        guard tone.status == 0 else { throw BenchError("sox: \(tone.stderrText)") }
        return folder
    }
}
