import Foundation
import Glibc
import LinuxSupport

/// A fresh directory made with `mkdtemp` under `$TMPDIR` (or /tmp). It and everything in it
/// are removed by `remove()` or, at the latest, when the object is released.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The absolute path of the directory.
    public let path: String
    private let lock = ConditionLock()
    private var removed = false  // protected by `lock`

    /// Creates `<tmp>/<prefix>.XXXXXX`.
    public init(prefix: String = "jukebox-test") throws(Errno) {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        path = try FileSystem.makeTemporaryDirectory(prefix: "\(base)/\(prefix).")
    }

    /// A path inside the directory (nothing is created): `dir.file("jukebox.sqlite")`.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Removes the directory and its contents (once; later calls do nothing).
    public func remove() {
        let first: Bool = lock.withLock {
            defer { removed = true }
            return !removed
        }
        if first { try? FileManager.default.removeItem(atPath: path) }
    }

    deinit { remove() }
}
