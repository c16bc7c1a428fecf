import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// `Tests/Tools/lazyfs.py` mounted at `mountpoint` over `backing`: a FUSE file system that,
/// on `cut()`, loses every write not made durable by fsync/fdatasync, as a power cut would.
/// `remount()` is the reboot. Unmounts when released.
final class LazyFS {
    static let script = Fixtures.path("Tests/Tools/lazyfs.py")

    /// Why it cannot run here, or nil when it can: root, /dev/fuse, python3-fusepy and a
    /// mount that really comes up (a container may have /dev/fuse and still refuse), probed once.
    static let unavailableReason: String? = {
        guard geteuid() == 0 else { return "not root" }
        guard access("/dev/fuse", W_OK) == 0 else { return "no writable /dev/fuse" }
        guard (try? run(["/usr/bin/python3", "-c", "import fusepy"]))?.status == 0 else {
            return "/usr/bin/python3 cannot import fusepy (apt-get install python3-fusepy)"
        }
        guard let dir = try? TemporaryDirectory(prefix: "lazyfs-probe") else { return "no temporary directory" }
        defer { dir.remove() }
        do {
            try LazyFS(backing: dir.file("backing"), mountpoint: dir.file("mnt")).unmount()
            return nil
        } catch {
            return "lazyfs.py does not mount: \(error)"
        }
    }()

    static var isUsable: Bool { unavailableReason == nil }

    /// What a cut threw away, from lazyfs.py's report line.
    struct Cut {
        var line: String
        /// Unsynced bytes lost, by file (its path under the mount).
        var lost: [String: Int]
        /// Opens with O_DIRECT since the mount.
        var directOpens: Int

        var lostBytes: Int { lost.values.reduce(0, +) }

        /// Parses "lazyfs: cut: lost N unsynced bytes in M files: a 12, b 34 (K O_DIRECT opens)".
        init(line: String) {
            self.line = line
            let body = line.split(separator: " (").first ?? ""
            let list = body.split(separator: ": ").dropFirst(3).first ?? ""
            lost = [:]
            for entry in list.split(separator: ", ") {
                guard let space = entry.lastIndex(of: " "), let bytes = Int(entry[entry.index(after: space)...])
                else { continue }
                lost[String(entry[..<space])] = bytes
            }
            let words = line.split(separator: " ")
            directOpens = words.firstIndex(of: "O_DIRECT").flatMap { Int(words[$0 - 1].dropFirst()) } ?? -1
        }
    }

    /// A failure to mount or unmount, with what lazyfs.py or umount said.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let backing: String
    let mountpoint: String
    private var process: DaemonProcess?

    /// Creates both directories as needed and mounts.
    init(backing: String, mountpoint: String) throws {
        self.backing = backing
        self.mountpoint = mountpoint
        for path in [backing, mountpoint] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        try mount()
    }

    deinit { detach() }

    /// Unmounts lazily (-l), for clean-up: a test that failed half-way may still hold a file
    /// open in it. Does nothing when not mounted.
    func detach() {
        guard let process else { return }
        _ = try? run(["umount", "-l", mountpoint])
        _ = process.waitForExit(timeout: .seconds(5))
        self.process = nil
    }

    private func mount() throws {
        let started = try DaemonProcess(executable: "/usr/bin/python3", arguments: [Self.script, backing, mountpoint])
        guard started.waitForLine(matching: "lazyfs: serving", on: .stdout, timeout: .seconds(10)) != nil else {
            started.kill(SIGKILL)
            _ = started.waitForExit(timeout: .seconds(5))
            throw Failure(description: "lazyfs.py did not mount: \(started.text(of: .stderr))")
        }
        process = started
    }

    /// The power goes: every file falls back to its last synced contents and the mount fails
    /// every call until `remount()`.
    func cut() throws -> Cut {
        guard let process else { throw Failure(description: "not mounted") }
        try process.send("cut")
        guard let line = process.waitForLine(matching: "lazyfs: cut:", on: .stdout, timeout: .seconds(10)) else {
            throw Failure(description: "no answer to cut: \(process.text(of: .stderr))")
        }
        return Cut(line: line)
    }

    /// Unmounts (lazyfs.py exits) and mounts afresh: no page cache survives from before.
    func remount() throws {
        try unmount()
        try mount()
    }

    /// Unmounts; lazyfs.py then exits. Everything must be closed in the mount.
    func unmount() throws {
        guard let process else { return }
        let result = try run(["umount", mountpoint])
        guard result.status == 0 else { throw Failure(description: "umount \(mountpoint): \(result.stderrText)") }
        guard process.waitForExit(timeout: .seconds(10)) == 0 else {
            throw Failure(description: "lazyfs.py did not exit cleanly: \(process.text(of: .stderr))")
        }
        self.process = nil
    }

    /// What lazyfs.py printed on stderr (fusepy logs failed operations there).
    var log: String { process?.text(of: .stderr) ?? "" }
}
