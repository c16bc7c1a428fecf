import Foundation
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The state on ext4 on a virtio-blk disk: the power is cut (qemu killed) while playing, so
/// the guest's page cache is lost with everything not yet written to the disk; the board
/// boots again from the same disk image.
extension BoardDeviceTests {
    @Test func aPowerCutWhilePlayingResumesWithin2Seconds() throws {
        try Self.cutAndResume(name: "cut")
    }

    /// docs/BOARD.md's read-only root mode: the root file system (a copy of the board's image on
    /// /dev/vdb) mounted read-only, the state on its own partition (/dev/vda at /state). A
    /// power cut while playing, a boot again, resumed within 2 s; the root device has not
    /// had one write in either boot (its counters in /sys/block/vdb/stat), the state disk has.
    @Test func aReadOnlyRootKeepsTheStateOnItsPartitionThroughAPowerCut() throws {
        let folder = try BoardRig.makeFolder()
        let rootDisk = folder.file("root.img")
        try BoardRig.makeRootDisk(at: rootDisk)
        try Self.cutAndResume(name: "roroot", folder: folder, rootDisk: rootDisk) { board in
            let mounts = try board.check("cat /proc/mounts")
            #expect(mounts.contains("/dev/vdb / ext4 ro,"), "\(mounts)")
            // Fields 5 and 7: writes completed, sectors written.
            let root = try board.check("cat /sys/block/vdb/stat").split(separator: " ")
            let state = try board.check("cat /sys/block/vda/stat").split(separator: " ")
            #expect(root.count >= 7 && root[4] == "0" && root[6] == "0", "root device: \(root)")
            #expect(state.count >= 7 && state[4] != "0", "state device: \(state)")
        }
    }

    /// Plays a 2-minute MP3 (repeat-all, `on_start = "play"`) for 4-9 s, cuts the power,
    /// boots again from the same disks: `integrity_check` ok, the position restored within 2 s
    /// of where it was cut, and playing on from there. `check` looks at each board once its
    /// daemon plays.
    static func cutAndResume(
        name: String, folder existing: TemporaryDirectory? = nil, rootDisk: String? = nil,
        check: (VirtualBoard) throws -> Void = { _ in }
    ) throws {
        let long = try #require(Fixtures.longMP3, "sox and lame make the 2-minute MP3")
        let folder = try existing ?? BoardRig.makeFolder()
        try FileManager.default.copyItem(atPath: long, toPath: folder.file("music/long.mp3"))
        var config = BoardRig.config(name: name, onStart: "play")
        config.mode = "repeat-all"
        var random = SystemRandomNumberGenerator()
        let playFor = Double.random(in: 4...9, using: &random)

        var first: BoardRig? = try BoardRig(folder: folder, rootDisk: rootDisk)
        let disk = first!.disk
        var daemon: BoardJukebox? = try BoardJukebox(
            board: first!.board, uart: first!.uart, name: name, config: config)
        let failed = daemon!.play(["long.mp3"])
        #expect(failed.isEmpty, "\(failed)")
        // The board is looked at once it plays, before the cut: between the last position read
        // and the cut nothing else may run (a slow look on a loaded host counted as error).
        let started = waitUntil(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            Double(daemon!.status()["elapsed"] ?? "") ?? 0 >= 1
        }
        #expect(started, "\(daemon!.log)")
        try check(first!.board)
        var elapsed = 0.0
        var readAt: UInt64 = 0
        let played = waitUntil(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            let before = MonotonicClock.nanoseconds()
            elapsed = Double(daemon!.status()["elapsed"] ?? "") ?? 0
            readAt = (before + MonotonicClock.nanoseconds()) / 2
            return elapsed >= playFor
        }
        #expect(played, "\(daemon!.log)")
        first!.board.kill()
        let cutAt = elapsed + Double(MonotonicClock.nanoseconds() - readAt) / 1e9
        daemon = nil
        first = nil

        let second = try BoardRig(disk: disk, folder: folder, rootDisk: rootDisk)
        let integrity = try second.board.check("sqlite3 /state/\(name)/jukebox.sqlite 'PRAGMA integrity_check'")
        #expect(integrity == "ok\n")
        // Started paused at the restored position, which `status` then gives exactly (started
        // playing, it would have moved on by however long the boot's first status took).
        config.onStart = "paused"
        let again = try BoardJukebox(board: second.board, uart: second.uart, name: name, config: config)
        var resumed: Double?
        let restored = waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(50)) {
            let status = again.status()
            guard status["state"] == "pause" else { return false }
            resumed = Double(status["elapsed"] ?? "")
            return true
        }
        #expect(restored, "\(again.log)")
        #expect(again.command("play").hasSuffix("OK\r\n"))
        let playing = waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(50)) {
            again.status()["state"] == "play"
        }
        #expect(playing, "\(again.log)")
        try check(second.board)
        let error = (resumed ?? -100) - cutAt
        print("\(name): power cut at \(String(format: "%.2f", cutAt)) s, resumed at \(resumed ?? -1) s")
        #expect(abs(error) <= 2, "cut at \(cutAt) s, resumed at \(String(describing: resumed)) s")
    }
}
