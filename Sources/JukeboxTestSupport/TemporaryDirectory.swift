import Glibc
import LinuxSupport

/// A fresh directory made with `mkdtemp` under `$TMPDIR` (or /tmp). It and everything in it
/// are removed by `remove()` or, at the latest, when the object is released. The one
/// temporary-directory type of the tests and the benchmark.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The absolute path of the directory.
    public let path: String
    private let lock = ConditionLock()
    private var removed = false  // protected by `lock`

    /// Creates `<tmp>/<prefix>.XXXXXX`.
    public init(prefix: String = "jukebox-test") throws(Errno) {
        let tmpdir = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        path = try FileSystem.makeTemporaryDirectory(prefix: "\(tmpdir.isEmpty ? "/tmp" : tmpdir)/\(prefix).")
    }

    /// A path inside the directory (nothing is created): `dir.file("jukebox.sqlite")`.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Removes the directory and its contents (once; later calls do nothing).
    public func remove() {
        let first: Bool = lock.withLock {
            defer { removed = true }
            return !removed
        }
        if first { Self.removeTree(Array(path.utf8CString)) }
    }

    deinit { remove() }

    /// `rm -rf` on a NUL-terminated path of raw bytes: tests make names that are not UTF-8,
    /// which a `String` path (and so FileManager) cannot name.
    private static func removeTree(_ path: [CChar]) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            unlink(path)
            return
        }
        var children: [[CChar]] = []
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                    Array(raw.prefix { $0 != 0 }).map { CChar(bitPattern: $0) }
                }
                if name == [46] || name == [46, 46] { continue }  // "." and ".."
                children.append(path.dropLast() + [47] + name + [0])  // path + "/" + name + NUL
            }
            closedir(dir)
        }
        for child in children { removeTree(child) }
        rmdir(path)
    }
}
