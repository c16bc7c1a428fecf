import Glibc
import JukeboxCore
import LinuxSupport

/// The stored playlists: one `NAME.m3u` file each in a folder (MPD's `playlist_directory`),
/// read with `M3U` so that files written on a computer work too. Every write replaces the
/// file atomically (a temporary file, fsync, rename, fsync of the folder), because the box
/// loses power without warning: after a cut the old or the new list is there, never half.
/// Names are checked by the caller (no slash, not empty).
public struct PlaylistFolder: Sendable {
    /// The folder's path.
    public let path: String
    /// music_dir, to make absolute entries inside it relative.
    public let musicDir: String

    static let suffix = ".m3u"

    public init(path: String, musicDir: String) {
        self.path = path
        self.musicDir = musicDir
    }

    /// Creates the folder when it does not exist yet (its parent must).
    public func create() throws(Errno) {
        if mkdir(path, 0o755) != 0, errno != EEXIST { throw Errno.current("mkdir", path: path) }
    }

    /// Every playlist (a regular `NAME.m3u` file) with its modification time in Unix seconds,
    /// by name.
    public func list() throws(Errno) -> [(name: String, modified: Int64)] {
        guard let dir = opendir(path) else { throw Errno.current("opendir", path: path) }
        defer { closedir(dir) }
        var result: [(name: String, modified: Int64)] = []
        while let entry = readdir(dir) {
            let fileName = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(validatingCString: $0)
                }
            }
            // As MPD: no empty name (a file called ".m3u"), no line breaks.
            guard let fileName, fileName.hasSuffix(Self.suffix), fileName != Self.suffix,
                !fileName.contains("\n"), !fileName.contains("\r")
            else { continue }
            var info = stat()
            guard fstatat(dirfd(dir), fileName, &info, 0) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            result.append((String(fileName.dropLast(Self.suffix.count)), Int64(info.st_mtim.tv_sec)))
        }
        return result.sorted { $0.name < $1.name }
    }

    /// The entries of playlist `name`, or nil when it does not exist.
    public func entries(of name: String) throws(Errno) -> [String]? {
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(file(name), limit: 16 << 20)
        } catch  where error.code == ENOENT {
            return nil
        }
        return M3U.entries(of: bytes, musicDir: musicDir)
    }

    /// Creates or replaces playlist `name`, atomically and durably.
    public func write(_ name: String, entries: [String]) throws(Errno) {
        let temporary = try writeTemporary(name, entries: entries)
        try commit(temporary, as: name)
    }

    /// Removes playlist `name`; false when there was none.
    public func remove(_ name: String) throws(Errno) -> Bool {
        if unlink(file(name)) != 0 {
            if errno == ENOENT { return false }
            throw Errno.current("unlink", path: file(name))
        }
        try FileDescriptor.syncFolder(containing: file(name))
        return true
    }

    /// Renames playlist `from` to `to`; false when `from` does not exist. The caller checks
    /// that `to` does not exist (as MPD does): rename(2) would replace it. Not link + unlink,
    /// which a FAT card partition refuses.
    public func rename(_ from: String, to: String) throws(Errno) -> Bool {
        if Glibc.rename(file(from), file(to)) != 0 {
            if errno == ENOENT { return false }
            throw Errno.current("rename", path: file(from))
        }
        try FileDescriptor.syncFolder(containing: file(to))
        return true
    }

    /// The file of playlist `name`.
    public func file(_ name: String) -> String { "\(path)/\(name)\(Self.suffix)" }

    /// Step one of `write`: the new list in a temporary file beside the playlist, synced.
    /// A hidden name that does not end in `.m3u`, so that `list` never shows it.
    func writeTemporary(_ name: String, entries: [String]) throws(Errno) -> String {
        let temporary = "\(path)/.\(name)\(Self.suffix).tmp"
        let fd = try FileDescriptor(path: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC)
        try fd.writeAll(M3U.bytes(of: entries))
        try fd.syncData()
        return temporary
    }

    /// Step two of `write`: the rename that makes the new list the playlist, and the folder
    /// fsync that makes the rename survive a power cut.
    func commit(_ temporary: String, as name: String) throws(Errno) {
        if Glibc.rename(temporary, file(name)) != 0 { throw Errno.current("rename", path: file(name)) }
        try FileDescriptor.syncFolder(containing: file(name))
    }
}
