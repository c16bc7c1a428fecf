import Glibc
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The tools Board/checkpoint-file.sh uses besides losetup.
private let checkpointFileTools = ["filefrag", "chattr", "lsattr", "findmnt", "blockdev"].allSatisfy { tool in
    ["/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"].contains { access($0 + tool, X_OK) == 0 }
}

/// Board/checkpoint-file.sh on a loop-mounted ext4 image standing in for the card's root file
/// system: the checkpoint device it makes is the file's own block, written without the file
/// system seeing it (no inode change, so no journal commit on Linux 6.6 and later).
@Suite(.enabled(if: LoopDevice.isUsable && checkpointFileTools, "needs root, losetup, filefrag, chattr"))
struct CheckpointFileScriptTests {
    let script = Fixtures.repoRoot + "/Board/checkpoint-file.sh"

    func prepare(_ file: String, link: String) throws -> RunResult {
        try run([script, file, link], environment: ["JUKEBOX_USER": "root"])
    }

    func changeTime(_ path: String) -> timespec {
        var info = stat()
        _ = stat(path, &info)
        return info.st_ctim
    }

    @Test func theCheckpointGoesToTheFilesBlockAndTheInodeStaysAsItWas() throws {
        let dir = try TemporaryDirectory()
        writeFile(dir.file("fs.img"), [UInt8](repeating: 0, count: 16 << 20))
        #expect(try run(["mkfs.ext4", "-q", "-F", "-b", "4096", dir.file("fs.img")]).status == 0)
        let fs = try LoopDevice(image: dir.file("fs.img"))
        defer { fs.detach() }
        let mnt = dir.file("mnt")
        #expect(mkdir(mnt, 0o755) == 0)
        #expect(try run(["mount", "-o", "noatime,lazytime", fs.device, mnt]).status == 0)
        let (area, link) = ("\(mnt)/checkpoint-area", dir.file("checkpoint"))
        defer {
            _ = try? run(["chattr", "-i", area])
            if let loop = try? run(["readlink", link]).stdoutText.split(separator: "\n").first {
                _ = try? run(["losetup", "-d", String(loop)])
            }
            _ = try? run(["umount", mnt])
        }

        let made = try prepare(area, link: link)
        #expect(made.status == 0, "\(made.stderrText)")
        #expect(made.stdoutText == "checkpoint_device = \"\(link)\"\n")
        let loop = try run(["readlink", link]).stdoutText
        let ctime = changeTime(area)
        #expect(unlink(area) != 0, "the file is immutable")

        do {
            let journal = try PositionJournal.openDevice(path: link, logger: quietLogger)
            #expect(journal.read() == nil)
            journal.write(trackID: 2, positionMs: 5000)
            journal.sync()
        }
        // At the next boot: the same block, the same loop device when it is still there.
        let again = try prepare(area, link: link)
        #expect(again.status == 0, "\(again.stderrText)")
        #expect(try run(["readlink", link]).stdoutText == loop)
        #expect(try PositionJournal.openDevice(path: link, logger: quietLogger).read()?.positionMs == 5000)
        let written = try readWholeFile(link)
        let after = changeTime(area)
        #expect(after.tv_sec == ctime.tv_sec && after.tv_nsec == ctime.tv_nsec, "the inode changed")

        // The file, read through the file system after a remount, holds the record.
        #expect(try run(["umount", mnt]).status == 0)
        #expect(try run(["mount", fs.device, mnt]).status == 0)
        #expect(written.count == 4096 && written.contains { $0 != 0 })
        #expect(try readWholeFile(area) == written)
    }

    @Test func aFileOutsideExt4IsRefused() throws {
        let dir = try TemporaryDirectory()
        let mnt = dir.file("tmpfs")
        #expect(mkdir(mnt, 0o755) == 0)
        #expect(try run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt]).status == 0)
        defer { _ = try? run(["umount", mnt]) }
        let refused = try prepare("\(mnt)/checkpoint-area", link: dir.file("checkpoint"))
        #expect(refused.status == 1)
        #expect(refused.stderrText.contains("is not on ext4"), "\(refused.stderrText)")
        #expect(access("\(mnt)/checkpoint-area", F_OK) != 0 && access(dir.file("checkpoint"), F_OK) != 0)
    }
}
