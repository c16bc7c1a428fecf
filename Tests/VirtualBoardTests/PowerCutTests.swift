import Foundation
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The state on ext4 on a virtio-blk disk: the power is cut (qemu killed) while playing, so
/// the guest's page cache is lost with everything not yet written to the disk; the board
/// boots again from the same disk image.
extension BoardDeviceTests {
    @Test func aPowerCutWhilePlayingResumesWithin2Seconds() throws {
        let long = try #require(Fixtures.longMP3, "sox and lame make the 2-minute MP3")
        let folder = try BoardRig.makeFolder()
        try FileManager.default.copyItem(atPath: long, toPath: folder.file("music/long.mp3"))
        var config = BoardRig.config(name: "cut", onStart: "play")
        config.mode = "repeat-all"
        var random = SystemRandomNumberGenerator()
        let playFor = Double.random(in: 4...9, using: &random)

        var first: BoardRig? = try BoardRig(folder: folder)
        let disk = first!.disk
        var daemon: BoardJukebox? = try BoardJukebox(
            board: first!.board, uart: first!.uart, name: "cut", config: config)
        let failed = daemon!.play(["long.mp3"])
        #expect(failed.isEmpty, "\(failed)")
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

        let second = try BoardRig(disk: disk, folder: folder)
        let check = try second.board.check("sqlite3 /state/cut/jukebox.sqlite 'PRAGMA integrity_check'")
        #expect(check == "ok\n")
        let again = try BoardJukebox(board: second.board, uart: second.uart, name: "cut", config: config)
        var resumed: Double?
        let playing = waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(50)) {
            let status = again.status()
            guard status["state"] == "play" else { return false }
            resumed = Double(status["elapsed"] ?? "")
            return true
        }
        #expect(playing, "\(again.log)")
        let error = (resumed ?? -100) - cutAt
        print("power cut at \(String(format: "%.2f", cutAt)) s, resumed at \(resumed ?? -1) s")
        #expect(abs(error) <= 2, "cut at \(cutAt) s, resumed at \(String(describing: resumed)) s")
    }
}
