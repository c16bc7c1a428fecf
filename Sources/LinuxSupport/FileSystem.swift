import Glibc

/// Path operations, through `SystemCall`: errors name the call and the path.
public enum FileSystem {
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Throws unless this process may use `path` as `mode` says (R_OK, W_OK, X_OK, or a union).
    public static func checkAccess(_ path: String, _ mode: Int32) throws(Errno) {
        _ = try SystemCall.value("access", path) { access(path, mode) }
    }

    /// stat(2) of `path` (following symbolic links).
    public static func status(_ path: String) throws(Errno) -> stat {
        var info = stat()
        _ = try SystemCall.value("stat", path) { stat(path, &info) }
        return info
    }

    public static func rename(_ path: String, to target: String) throws(Errno) {
        _ = try SystemCall.value("rename", path) { Glibc.rename(path, target) }
    }

    /// Replaces `path` with `bytes` so that a power cut leaves either the old file or the new
    /// one: a temporary file beside it (`.NAME.new`), synced, renamed over it, the folder synced.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o644) throws(Errno) {
        let slash = path.lastIndex(of: "/")
        let temporary =
            slash.map { String(path[...$0]) + "." + String(path[path.index(after: $0)...]) } ?? ".\(path)"
        let fd = try FileDescriptor(
            path: temporary + ".new", flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: mode)
        do {
            try fd.writeAll(bytes)
            try fd.syncData()
            try rename(temporary + ".new", to: path)
        } catch {
            _ = try? removeFile(temporary + ".new")
            throw error
        }
        try FileDescriptor.syncFolder(containing: path)
    }

    /// Bytes an unprivileged process may still write on the file system holding `path`.
    public static func freeBytes(_ path: String) throws(Errno) -> Int64 {
        var info = statvfs()
        _ = try SystemCall.value("statvfs", path) { statvfs(path, &info) }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Makes `folder` and the folders above it up to `base` (which must exist), as mkdir -p.
    public static func makeDirectories(_ folder: String, inside base: String) throws(Errno) {
        guard folder.hasPrefix(base + "/") else { return }
        var path = base
        for name in folder.dropFirst(base.count + 1).split(separator: "/") {
            path += "/" + name
            _ = try makeDirectory(path)
        }
    }

    /// Removes a file (unlink(2)); false when there was none.
    @discardableResult
    public static func removeFile(_ path: String) throws(Errno) -> Bool {
        do {
            _ = try SystemCall.value("unlink", path) { unlink(path) }
            return true
        } catch {
            if error.code == ENOENT { return false }
            throw error
        }
    }

    /// Creates a folder; false when something already exists at `path`.
    @discardableResult
    public static func makeDirectory(_ path: String, mode: mode_t = 0o755) throws(Errno) -> Bool {
        do {
            _ = try SystemCall.value("mkdir", path) { mkdir(path, mode) }
            return true
        } catch {
            if error.code == EEXIST { return false }
            throw error
        }
    }

    public static func makeFIFO(_ path: String, mode: mode_t = 0o600) throws(Errno) {
        _ = try SystemCall.value("mkfifo", path) { mkfifo(path, mode) }
    }

    /// A new private folder named `prefix` plus six random characters (mkdtemp).
    public static func makeTemporaryDirectory(prefix: String) throws(Errno) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        _ = try SystemCall.nonNil("mkdtemp", prefix) {
            template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The entries of a folder (opendir/readdir), "." and ".." left out, each with its
    /// d_type (DT_DIR, DT_REG, DT_LNK, DT_UNKNOWN…).
    public static func entries(of folder: String) throws(Errno) -> [(name: String, type: UInt8)] {
        let dir = try SystemCall.nonNil("opendir", folder) { opendir(folder) }
        defer { closedir(dir) }
        var result: [(name: String, type: UInt8)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { result.append((name, entry.pointee.d_type)) }
        }
        return result
    }
}
