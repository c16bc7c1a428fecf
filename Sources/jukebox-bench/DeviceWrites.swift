import Foundation
import Glibc
import JukeboxTestSupport

/// A journaled ext4 with 4 KiB blocks, as on a Pi's SD card, on a loop device: what the
/// card would see is what the loop device is asked to write. /proc/PID/io misses ext4's
/// journal commits (charged to jbd2), which for a file rewritten every few seconds are
/// most of the device's writes. Needs root (losetup, mount); callers skip it otherwise.
struct LoopExt4 {
    let image: String, mountPoint: String, device: String

    static var isUsable: Bool {
        geteuid() == 0 && which("losetup") != nil && which("mkfs.ext4") != nil && which("mount") != nil
    }

    /// Makes a fresh image and mounts it at `mountPoint`. `lazy_itable_init=0`: otherwise
    /// ext4lazyinit zeroes inode tables in the background and its writes land in the window.
    static func make(image: String, mountPoint: String) throws -> LoopExt4 {
        removeItem(image)
        guard FileManager.default.createFile(atPath: image, contents: nil), truncate(image, 256 << 20) == 0 else {
            throw BenchError("cannot create \(image)")
        }
        let err = image + ".stderr"
        func failed(_ what: String) -> BenchError { BenchError("\(what) failed: \(readText(err) ?? "")") }
        let (mk, _) = try capture(
            ["mkfs.ext4", "-q", "-F", "-b", "4096", "-E", "lazy_itable_init=0,lazy_journal_init=0", image],
            stderr: .file(err))
        guard mk.exited && mk.exitCode == 0 else { throw failed("mkfs.ext4") }
        let device = try attach(image)
        try mkdirs(mountPoint)
        let (mt, _) = try capture(["mount", "-o", "noatime", device, mountPoint], stderr: .file(err))
        guard mt.exited && mt.exitCode == 0 else {
            _ = try? capture(["losetup", "-d", device])
            throw failed("mount")
        }
        return LoopExt4(image: image, mountPoint: mountPoint, device: device)
    }

    /// Attaches `image` to the first free loop device; returns its path.
    static func attach(_ image: String) throws -> String {
        let (lo, out) = try capture(["losetup", "--find", "--show", image])
        let device = out.trimmingCharacters(in: .whitespacesAndNewlines)
        guard lo.exited && lo.exitCode == 0, device.hasPrefix("/dev/loop") else {
            throw BenchError("losetup \(image) failed")
        }
        return device
    }

    /// Flushes what is dirty (sync(2): Glibc's module does not export syncfs), so that a
    /// window starts clean and ends with everything written in it on the device.
    func sync() { Glibc.sync() }

    /// Bytes the device was asked to write since it was attached (sectors, field 7 of
    /// /sys/block/loopN/stat, are 512 B whatever the block size).
    func bytesWritten() -> Int? { Self.bytesWritten(device: device) }

    static func bytesWritten(device: String) -> Int? {
        let name = (device as NSString).lastPathComponent
        guard let text = readText("/sys/block/\(name)/stat") else { return nil }
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count > 6, let sectors = Int(fields[6]) else { return nil }
        return sectors * 512
    }

    func remove() {
        _ = try? capture(["umount", mountPoint])
        _ = try? capture(["losetup", "-d", device])
        removeItem(image)
    }
}

/// A zeroed 1 MiB image on a loop device: a raw partition for `checkpoint_device`.
struct RawLoop {
    let image: String, device: String

    static func make(image: String) throws -> RawLoop {
        removeItem(image)
        guard FileManager.default.createFile(atPath: image, contents: Data(count: 1 << 20)) else {
            throw BenchError("cannot create \(image)")
        }
        return RawLoop(image: image, device: try LoopExt4.attach(image))
    }

    func bytesWritten() -> Int? { LoopExt4.bytesWritten(device: device) }

    func remove() {
        _ = try? capture(["losetup", "-d", device])
        removeItem(image)
    }
}
