import Glibc
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Board/checkpoint-partition.sh on loop devices standing in for partitions: it clears and
/// hands over an empty one, and leaves anything holding data alone.
@Suite(.enabled(if: LoopDevice.isUsable, "needs root, losetup and mkfs.ext4"))
struct CheckpointPartitionScriptTests {
    let script = Fixtures.repoRoot + "/Board/checkpoint-partition.sh"

    func prepare(_ device: String, rulesDir: String) throws -> RunResult {
        try run(
            [script, device],
            environment: [
                "JUKEBOX_USER": "root", "JUKEBOX_UDEV_RULES_DIR": rulesDir, "JUKEBOX_ALLOW_WHOLE_DEVICE": "1",
            ])
    }

    @Test func anEmptyPartitionIsClearedAndHandedOver() throws {
        let dir = try TemporaryDirectory()
        // leftovers of earlier use, but no signature blkid knows (a fixed pattern: random
        // bytes could, once in many runs, carry a two-byte magic such as minix's)
        var bytes = (0..<4096).map { UInt8(($0 * 7 + 13) % 251 + 1) }
        bytes += [UInt8](repeating: 0, count: (1 << 20) - 4096)
        writeFile(dir.file("part.img"), bytes)
        let loop = try LoopDevice(image: dir.file("part.img"))
        defer { loop.detach() }

        let result = try prepare(loop.device, rulesDir: dir.file("rules"))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "checkpoint_device = \"\(loop.device)\"\n")
        let name = loop.device.split(separator: "/").last.map(String.init) ?? ""
        let rule = String(decoding: try readWholeFile(dir.file("rules/90-jukebox-checkpoint.rules")), as: UTF8.self)
        #expect(rule == "KERNEL==\"\(name)\", OWNER=\"root\", MODE=\"0600\"\n")
        // the daemon takes it now
        let journal = try PositionJournal.openDevice(path: loop.device, logger: quietLogger)
        #expect(journal.read() == nil)
        journal.write(trackID: 2, positionMs: 5000)
        journal.sync()
        #expect(try PositionJournal.openDevice(path: loop.device, logger: quietLogger).read()?.positionMs == 5000)
    }

    @Test func aFileSystemIsLeftAloneMountedOrNot() throws {
        let dir = try TemporaryDirectory()
        writeFile(dir.file("fs.img"), [UInt8](repeating: 0, count: 8 << 20))
        #expect(try run(["mkfs.ext4", "-q", "-F", dir.file("fs.img")]).status == 0)
        let before = try readWholeFile(dir.file("fs.img"))
        let loop = try LoopDevice(image: dir.file("fs.img"))
        defer { loop.detach() }

        let refused = try prepare(loop.device, rulesDir: dir.file("rules"))
        #expect(refused.status == 1)
        #expect(refused.stderrText.contains("holds data (ext4)"), "\(refused.stderrText)")

        #expect(mkdir(dir.file("mnt"), 0o755) == 0)
        #expect(try run(["mount", "-o", "ro", loop.device, dir.file("mnt")]).status == 0)
        let mounted = try prepare(loop.device, rulesDir: dir.file("rules"))
        _ = try run(["umount", dir.file("mnt")])
        #expect(mounted.status == 1)
        #expect(mounted.stderrText.contains("is mounted"), "\(mounted.stderrText)")

        #expect(try readWholeFile(dir.file("fs.img")) == before)
        #expect(access(dir.file("rules/90-jukebox-checkpoint.rules"), F_OK) != 0)
    }

    @Test func aBigPartitionIsRefused() throws {
        let dir = try TemporaryDirectory()
        writeFile(dir.file("big.img"), [])
        #expect(truncate(dir.file("big.img"), 100 << 20) == 0)
        let loop = try LoopDevice(image: dir.file("big.img"))
        defer { loop.detach() }
        let refused = try prepare(loop.device, rulesDir: dir.file("rules"))
        #expect(refused.status == 1)
        #expect(refused.stderrText.contains("is 100 MiB"), "\(refused.stderrText)")
    }
}
