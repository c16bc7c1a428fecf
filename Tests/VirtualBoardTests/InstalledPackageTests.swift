import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The .deb as a box runs it: Debian 12 with systemd on the board's virtio-blk ext4 root
/// (`Tests/Tools/vboard/make-systemd-disk.sh`), the unit started by systemd. One boot and one
/// boot after a power cut (each ~35-55 s under TCG), so one test; in the board suite, so that
/// no other board runs beside it.
extension BoardDeviceTests {
    /// The root disk image, made once per process (root: debootstrap and chroot).
    static let systemdDisk: Result<String, VirtualBoard.Failure> = VirtualBoard.image.flatMap { image in
        guard getuid() == 0 else { return .failure(VirtualBoard.Failure("making the root disk needs root")) }
        let script = Fixtures.path("Tests/Tools/vboard/make-systemd-disk.sh")
        let folder = (image.initramfs as NSString).deletingLastPathComponent
        guard let made = try? run([script, folder], timeout: .seconds(1800)), made.status == 0,
            let path = made.stdoutText.split(separator: "\n").last.map(String.init)
        else { return .failure(VirtualBoard.Failure("\(script) \(folder) failed; run it by hand to see why")) }
        return .success(path)
    }

    /// The installed unit and config: systemd starts the unit (Type=notify: active only once
    /// the daemon said READY=1; the watchdog armed), its ExecStartPre maps the checkpoint on a
    /// loop device, the daemon plays the library. The power goes (qemu killed) while it plays;
    /// the next boot finds a sound database and resumes within 2 s of the cut, from the
    /// checkpoint on the loop device.
    @Test(.enabled(if: getuid() == 0, "the root disk is made with debootstrap and chroot (root)"))
    func theUnitStartsPlaysAndResumesAfterAPowerCut() throws {
        let folder = try BoardRig.makeFolder()
        defer { folder.remove() }
        // The daemon runs as the jukebox user: the music must be readable by others (mkdtemp: 0700).
        chmod(folder.path, 0o755)
        let long = try #require(Fixtures.longMP3, "sox and lame make the 2-minute MP3")
        try FileManager.default.copyItem(atPath: long, toPath: folder.file("music/long.mp3"))
        let root = folder.file("root.img")
        let copied = try run(["cp", "--sparse=always", try Self.systemdDisk.get(), root])
        try #require(copied.status == 0, "\(copied.stderrText)")

        var cutAt = 0.0
        // A random instant for the cut (the checkpoints are 4 s apart), as in PowerCutTests.swift.
        var random = SystemRandomNumberGenerator()
        let playFor = Double.random(in: 5...9, using: &random)
        do {
            let (board, console) = try Self.bootSystemd(root: root, folder: folder)
            let unit = try board.check("systemctl show jukeboxd -p Type -p WatchdogUSec -p NRestarts")
            #expect(unit.contains("Type=notify") && unit.contains("WatchdogUSec=10s"), "\(unit)")
            #expect(unit.contains("NRestarts=0"), "\(unit)")
            #expect(try board.check("readlink /run/jukebox-checkpoint").hasPrefix("/dev/loop"))
            let log = try board.check("journalctl -b -u jukeboxd --no-pager")
            #expect(log.contains("power-cut checkpoints go to /run/jukebox-checkpoint (one sector each)"), "\(log)")
            #expect(log.contains("systemd watchdog: pinging"), "\(log)")
            for line in ["clear", "add \"long.mp3\"", "play"] { #expect(console.command(line).hasSuffix("OK\r\n")) }
            // Started paused next time, the restored position is `status`'s exactly.
            try board.check("sed -i 's/^on_start = .*/on_start = \"paused\"/' /etc/jukebox/jukebox.toml && sync")
            var readAt: UInt64 = 0
            let played = waitUntil(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
                let before = MonotonicClock.nanoseconds()
                let status = console.status()
                readAt = (before + MonotonicClock.nanoseconds()) / 2
                cutAt = Double(status["elapsed"] ?? "") ?? 0
                return status["state"] == "play" && cutAt >= playFor
            }
            let journal = (try? board.check("journalctl -b -u jukeboxd --no-pager")) ?? ""
            #expect(played, "\(journal)")
            board.kill()
            cutAt += Double(MonotonicClock.nanoseconds() - readAt) / 1e9
        }

        let (board, console) = try Self.bootSystemd(root: root, folder: folder)
        #expect(try board.check("sqlite3 /var/lib/jukebox/jukebox.sqlite 'PRAGMA integrity_check'") == "ok\n")
        let log = try board.check("journalctl -b -u jukeboxd --no-pager")
        #expect(log.contains("continuing half a sync interval after it"), "\(log)")
        let status = console.status()
        let resumed = Double(status["elapsed"] ?? "") ?? -100
        print(
            "installed package under systemd: power cut at \(String(format: "%.2f", cutAt)) s, resumed at \(resumed) s")
        #expect(status["state"] == "pause", "\(status)")
        // Half a sync interval either side, and a cut that lands as the next checkpoint is
        // being written (as in JukeboxDaemonTests.PowerCutTests).
        #expect(abs(resumed - cutAt) <= 2.1, "cut at \(cutAt) s, resumed at \(resumed) s\n\(log)")
        board.kill()
    }

    /// Boots the root disk (the initramfs switches to it) and waits until the unit is active.
    static func bootSystemd(root: String, folder: TemporaryDirectory) throws -> (VirtualBoard, BoardConsole) {
        let uart = try PseudoTerminal()
        var options = VirtualBoard.Options(disk: root, hostFolder: folder.path, uart: uart.slavePath)
        options.kernelArguments.append("vboard.root=/dev/vda")
        let started = MonotonicClock.nanoseconds()
        let board = try VirtualBoard(options, timeout: .seconds(300))
        let active = try waitUntil(timeout: .seconds(300), pollingEvery: .milliseconds(500)) {
            try board.run("systemctl is-active --quiet jukeboxd").status == 0
        }
        guard active else {
            throw VirtualBoard.Failure(
                "jukeboxd.service did not start:\n\(try board.run("journalctl -b -u jukeboxd --no-pager | tail -40").output)"
            )
        }
        let seconds = Double(MonotonicClock.nanoseconds() - started) / 1e9
        print(
            "systemd board: agent up \(String(format: "%.1f", board.bootSeconds)) s, jukeboxd.service active \(String(format: "%.1f", seconds)) s after qemu's start"
        )
        return (board, BoardConsole(uart: uart))
    }
}
