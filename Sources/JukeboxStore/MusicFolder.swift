import Glibc
import JukeboxCore
import LinuxSupport

/// The files of music_dir that MPD clients read besides the songs' tags: folder listings,
/// cover files beside the songs and pictures embedded in them, and the songs' user text tags.
/// Pictures are read a chunk at a time with pread: a phone fetching a 5 MB cover in 8 KiB
/// chunks makes the box read 8 KiB per request, plus the frame headers once per file (the
/// located picture is remembered while the file is unchanged; a picture that had to be
/// decoded, from an unsynchronised frame, until its last chunk was read). Control thread only (it keeps
/// that one-entry cache); never used on the audio threads. Paths are relative to music_dir and
/// checked by the caller.
public final class MusicFolder {
    /// music_dir.
    public let root: String
    /// The picture located last: the file's path, size and mtime, and what was found.
    private var located: (path: String, size: Int64, mtimeNs: Int64, picture: EmbeddedPicture?)?

    public init(root: String) {
        self.root = root
    }

    /// One entry of a folder listing: a regular file (with its size) or a folder (nil size).
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var size: Int64?
        /// Unix seconds.
        public var modified: Int64
    }

    /// The regular files and folders in folder `relative` ("" is music_dir), in the order
    /// readdir gives them; symbolic links and other kinds are left out (MPD's `listfiles`
    /// does not follow links), and so are names that are not UTF-8.
    public func entries(in relative: String) throws(Errno) -> [Entry] {
        let folder = absolute(relative)
        guard let dir = opendir(folder) else { throw Errno.current("opendir", path: folder) }
        defer { closedir(dir) }
        var result: [Entry] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(validatingCString: $0)
                }
            }
            guard let name, name != ".", name != ".." else { continue }
            var info = stat()
            guard fstatat(dirfd(dir), name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                result.append(Entry(name: name, size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec)))
            case S_IFDIR: result.append(Entry(name: name, size: nil, modified: Int64(info.st_mtim.tv_sec)))
            default: continue
            }
        }
        return result
    }

    /// A chunk of a picture: its whole size and the bytes from the offset asked for.
    public struct PictureChunk: Sendable, Equatable {
        public var size: Int
        public var mimeType: String?
        public var bytes: [UInt8]
    }

    /// Up to `limit` bytes from `offset` of the first of `names` that exists in folder
    /// `relative`, or nil when none does. No bytes when `offset` is at or past the end.
    public func coverFile(in relative: String, names: [String], offset: Int, limit: Int) throws(Errno)
        -> PictureChunk?
    {
        for name in names {
            let path = absolute(relative.isEmpty ? name : relative + "/" + name)
            let file: FileDescriptor
            do {
                file = try FileDescriptor(path: path, flags: O_RDONLY)
            } catch {
                if error.code == ENOENT || error.code == ENOTDIR || error.code == EISDIR { continue }
                throw error
            }
            var info = stat()
            _ = try file.call("fstat") { fstat($0, &info) }
            guard info.st_mode & S_IFMT == S_IFREG else { continue }
            let size = Int(info.st_size)
            return PictureChunk(
                size: size, mimeType: nil,
                bytes: try Self.read(file, at: Int64(offset), count: min(limit, size - offset)))
        }
        return nil
    }

    /// Up to `limit` bytes from `offset` of the first picture embedded in file `relative`,
    /// or nil when it has none.
    public func embeddedPicture(of relative: String, offset: Int, limit: Int) throws(Errno) -> PictureChunk? {
        let path = absolute(relative)
        let file = try FileDescriptor(path: path, flags: O_RDONLY)
        var info = stat()
        _ = try file.call("fstat") { fstat($0, &info) }
        let mtimeNs = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        let picture: EmbeddedPicture?
        if let located, located.path == path, located.size == Int64(info.st_size), located.mtimeNs == mtimeNs {
            picture = located.picture
        } else {
            picture = try Self.locatePicture(file, size: Int64(info.st_size))
            located = (path, Int64(info.st_size), mtimeNs, picture)
        }
        guard let picture else { return nil }
        let count = min(limit, picture.size - offset)
        switch picture.location {
        case .inFile(let start, _):
            return PictureChunk(
                size: picture.size, mimeType: picture.mimeType,
                bytes: try Self.read(file, at: start + Int64(offset), count: count))
        case .decoded(let bytes):
            let chunk = count > 0 ? Array(bytes[offset..<offset + count]) : []
            // A decoded picture is held only while a client fetches it: not after its last chunk.
            if offset + count >= picture.size { located = nil }
            return PictureChunk(size: picture.size, mimeType: picture.mimeType, bytes: chunk)
        }
    }

    /// The user text tags of file `relative` as MPD's readcomments lists them: a FLAC's, an
    /// Ogg Vorbis or Opus file's Vorbis comments, an MP3's ID3 TXXX frames.
    public func userTexts(of relative: String) throws(Errno) -> [(name: String, value: String)] {
        let file = try FileDescriptor(path: absolute(relative), flags: O_RDONLY)
        if let (blocks, read) = try Self.flacBlocks(file) { return blocks.comments(read) }
        if try Self.read(file, at: 0, count: 4) == Array("OggS".utf8) {
            return try Self.walk(file, { OggComments.comments($0) })?.0 ?? []
        }
        guard let (tag, read) = try Self.id3Tag(file) else { return [] }
        return tag.userTexts(read)
    }

    /// The chapters of the ID3v2 tag at the start of the file at absolute `path` (CHAP
    /// frames); none when it has no tag or cannot be read (the probe reports unreadable files).
    /// A tag up to 256 KiB is read in one go; one with a big picture is walked in place.
    public static func id3Chapters(path: String) -> [Chapter] {
        guard let file = try? FileDescriptor(path: path, flags: O_RDONLY | O_CLOEXEC),
            let (tag, read) = try? id3Tag(file, inMemoryUpTo: 256 << 10)
        else { return [] }
        return tag.chapters(read)
    }

    /// The `©lyr` atom of the MP4 file at absolute `path` (`MP4LyricsAtom`); nil when it
    /// cannot be read or the atoms leave the answer to FFmpeg.
    public static func mp4Lyrics(path: String) -> MP4LyricsAtom.Found? {
        guard let file = try? FileDescriptor(path: path, flags: O_RDONLY | O_CLOEXEC), let size = try? size(of: file),
            let (found, _) = try? walk(file, { MP4LyricsAtom.read($0, fileSize: size) })
        else { return nil }
        return found
    }

    /// Where a file of `size` bytes keeps its first picture: a FLAC's first PICTURE block, an
    /// Ogg Vorbis or Opus file's METADATA_BLOCK_PICTURE comment (decoded), an MP4 file's first
    /// cover atom, else the first APIC frame of an ID3v2 tag at the start (MP3).
    static func locatePicture(_ file: FileDescriptor, size: Int64) throws(Errno) -> EmbeddedPicture? {
        if let (blocks, read) = try flacBlocks(file) { return blocks.firstPicture(read) }
        if try read(file, at: 0, count: 4) == Array("OggS".utf8) {
            return try walk(file, OggComments.firstPicture)?.0
        }
        if let (picture, _) = try walk(file, { MP4CoverAtoms.firstPicture($0, fileSize: size) }) { return picture }
        guard let (tag, read) = try id3Tag(file) else { return nil }
        return tag.firstPicture(read)
    }

    /// The size of `file` in bytes.
    static func size(of file: FileDescriptor) throws(Errno) -> Int64 {
        var info = stat()
        _ = try file.call("fstat") { fstat($0, &info) }
        return Int64(info.st_size)
    }

    /// The file's FLAC metadata blocks and a reader of its bytes; nil when it is no FLAC.
    static func flacBlocks(_ file: FileDescriptor) throws(Errno) -> (FLACMetadataBlocks, (Int64, Int) -> [UInt8])? {
        try walk(file, FLACMetadataBlocks.read)
    }

    /// Runs a pure walker (which takes a non-throwing reader) over `file`; throws the first
    /// read error it met. Returns what it found and the reader.
    static func walk<T>(_ file: FileDescriptor, _ walker: ((Int64, Int) -> [UInt8]) -> T?) throws(Errno) -> (
        T, (Int64, Int) -> [UInt8]
    )? {
        var failure: Errno?
        let reader: (Int64, Int) -> [UInt8] = { offset, count in
            do throws(Errno) {
                return try read(file, at: offset, count: count)
            } catch {
                failure = error
                return []
            }
        }
        let found = walker(reader)
        if let failure { throw failure }
        return found.map { ($0, reader) }
    }

    /// The file's ID3v2 tag and a reader of its bytes: the file itself, or, for a tag that is
    /// unsynchronised as a whole, the decoded tag (read once, at most 16 MiB). A tag of at
    /// most `inMemoryUpTo` bytes is read whole at once and walked in memory: one read instead
    /// of one per frame header, for callers that visit every file (the scan).
    static func id3Tag(_ file: FileDescriptor, inMemoryUpTo limit: Int = 0) throws(Errno) -> (
        ID3Tag, (Int64, Int) -> [UInt8]
    )? {
        let header = try read(file, at: 0, count: 10)
        if let size = ID3Tag.wholeTagUnsynchronisedSize(header) {
            guard size <= 16 << 20 else { return nil }
            let raw = try read(file, at: 0, count: size)
            let reader = memoryReader(Array(raw.prefix(10)) + ID3Tag.resynchronised(Array(raw.dropFirst(10))))
            return ID3Tag.read(reader).map { ($0, reader) }
        }
        if let size = ID3Lyrics.tagSize(header), size <= limit {
            let reader = memoryReader(try read(file, at: 0, count: size))
            return ID3Tag.read(reader).map { ($0, reader) }
        }
        return try walk(file, ID3Tag.read)
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    static func read(_ file: FileDescriptor, at offset: Int64, count: Int) throws(Errno) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let start = filled
            var failure: Errno?
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                do throws(Errno) {
                    return try file.read(
                        into: buffer.baseAddress! + start, count: count - start, at: offset + Int64(start))
                } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
            if n == 0 { break }
            filled += n
        }
        return Array(bytes.prefix(filled))
    }

    private func absolute(_ relative: String) -> String { relative.isEmpty ? root : root + "/" + relative }
}
