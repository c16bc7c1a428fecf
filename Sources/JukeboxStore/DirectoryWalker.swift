import Glibc
import LinuxSupport

/// Walks a directory tree with opendir/readdir/fstatat and collects the audio files and
/// lyric sidecars in it. Symlinks are followed, to files and to directories; a visited set
/// of (st_dev, st_ino) makes symlink loops and repeated mounts harmless. Hidden entries
/// (names starting with ".") are skipped. Each directory is read completely and closed
/// before its subdirectories are entered, so at most one directory fd is open at a time.
struct DirectoryWalker {
    /// A regular file found by the walk.
    struct File {
        /// Path relative to the walked root, `/`-separated.
        var path: String
        var size: Int64
        var mtimeNs: Int64
    }

    /// What one walk found.
    struct Result {
        /// Audio files (by extension), in no particular order.
        var audioFiles: [File] = []
        /// Lyric sidecars: key "relative/base.ext" with the extension lowercased -> actual relative path.
        var lyricFiles: [String: String] = [:]
        /// CUE sheets (`.cue`), collected with the audio files.
        var cueSheets: [File] = []
        /// Directories (relative paths) that could not be read: their old rows must be kept.
        var unreadableDirectories: [String] = []
        var skipped: [ScanReport.Skipped] = []
    }

    static let lyricExtensions: [String] = ["lrc", "ksc"]
    static let maximumDepth = 64

    /// Lowercased extensions of the audio files to collect (none: lyric files only).
    var audioExtensions: Set<String>

    /// Walks `root`; throws only if `root` itself cannot be read.
    func walk(root: String, isCancelled: () -> Bool = { false }) throws(Errno) -> Result {
        var result = Result()
        var visited = Set<DeviceInode>()
        visited.insert(DeviceInode(try FileSystem.status(root)))
        var pending: [(absolute: String, relative: String, depth: Int)] = [(root, "", 0)]
        var isRoot = true
        while let directory = pending.popLast() {
            if isCancelled() { break }
            let dir: OpaquePointer
            do {
                dir = try SystemCall.nonNil("opendir", directory.absolute) { opendir(directory.absolute) }
            } catch {
                if isRoot { throw error }
                result.unreadableDirectories.append(directory.relative)
                result.skipped.append(.init(path: directory.relative + "/", reason: error.message))
                continue
            }
            isRoot = false
            let fd = dirfd(dir)
            while let entry = readdir(dir) {
                let type = entry.pointee.d_type
                let (name, validName) = Self.name(of: entry)
                if name.hasPrefix(".") { continue }
                let relative = directory.relative.isEmpty ? name : directory.relative + "/" + name
                let ext = Self.lowercasedExtension(of: name)
                let isAudio = ext.map(audioExtensions.contains) == true
                let isLyric = ext.map { Self.lyricExtensions.contains($0) } == true
                let isCue = !audioExtensions.isEmpty && ext == "cue"
                guard validName else {
                    // The lossy name cannot be passed back to the kernel; report what matters.
                    if isAudio {
                        result.skipped.append(.init(path: relative, reason: "file name is not valid UTF-8"))
                    } else if type == UInt8(DT_DIR) {
                        result.skipped.append(.init(path: relative + "/", reason: "directory name is not valid UTF-8"))
                    }
                    continue
                }
                // Regular files that are neither audio nor lyrics need no stat at all.
                if type == UInt8(DT_REG) && !isAudio && !isLyric && !isCue { continue }
                if type == UInt8(DT_REG) && isLyric {
                    result.lyricFiles[Self.lyricKey(relative, ext!)] = relative
                    continue
                }
                var info = stat()
                if fstatat(fd, name, &info, 0) != 0 { continue }  // dangling symlink or vanished
                let mode = info.st_mode & S_IFMT
                if mode == S_IFDIR {
                    guard directory.depth < Self.maximumDepth else { continue }
                    if visited.insert(DeviceInode(info)).inserted {
                        pending.append((directory.absolute + "/" + name, relative, directory.depth + 1))
                    }
                } else if mode == S_IFREG {
                    if isLyric {
                        result.lyricFiles[Self.lyricKey(relative, ext!)] = relative
                    } else if isAudio || isCue {
                        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
                        let file = File(path: relative, size: Int64(info.st_size), mtimeNs: mtime)
                        if isCue { result.cueSheets.append(file) } else { result.audioFiles.append(file) }
                    }
                }
            }
            closedir(dir)
        }
        return result
    }

    /// The entry's name, and whether it is valid UTF-8 (invalid names are decoded with
    /// replacement characters, for messages only).
    private static func name(of entry: UnsafeMutablePointer<dirent>) -> (String, Bool) {
        withUnsafePointer(to: &entry.pointee.d_name) { tuple in
            tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) { chars in
                if let valid = String(validatingCString: chars) { return (valid, true) }
                let bytes = UnsafeRawBufferPointer(start: chars, count: strlen(chars))
                return (String(decoding: bytes, as: UTF8.self), false)
            }
        }
    }

    /// "mp3" for "Song.MP3"; nil when there is no extension.
    static func lowercasedExtension(of name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty || ext.count > 4 ? nil : ext.lowercased()
    }

    /// The path without its extension.
    static func stem(of path: String) -> Substring {
        guard let dot = path.lastIndex(of: "."), dot != path.startIndex else { return path[...] }
        if let slash = path.lastIndex(of: "/"), slash > dot { return path[...] }
        return path[..<dot]
    }

    static func lyricKey(_ relative: String, _ lowercasedExtension: String) -> String {
        stem(of: relative) + "." + lowercasedExtension
    }
}

/// A file's identity, for the visited set.
struct DeviceInode: Hashable {
    var device: UInt64
    var inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
