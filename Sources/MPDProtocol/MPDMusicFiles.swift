import JukeboxCore

/// The files of music_dir as `listfiles`, `albumart`, `readpicture` and `readcomments` see
/// them: the daemon's reads the disk (a chunk at a time, never a whole picture per request);
/// tests use files in memory. Paths are relative to music_dir and already checked.
/// Errors other than `MPDError` are reported as ACK 52 (system).
public protocol MPDMusicFolder {
    /// The regular files and folders directly in folder `uri` ("" is music_dir), in the
    /// order the file system gives them; symbolic links and other kinds are left out, as MPD does.
    func entries(in uri: String) throws -> [MPDFileEntry]
    /// A chunk of the first cover file in folder `folder` (`MPDCommands.coverNames`), or nil
    /// when there is none; `bytes` is empty when `offset` is past its end.
    func coverArt(in folder: String, offset: Int, limit: Int) throws -> MPDBinaryChunk?
    /// A chunk of the first picture embedded in file `uri`, or nil when it has none.
    func embeddedPicture(of uri: String, offset: Int, limit: Int) throws -> MPDBinaryChunk?
    /// The file's tags as name/value comments (readcomments; for MP3: ID3 TXXX frames).
    func comments(of uri: String) throws -> [(name: String, value: String)]
}

/// One entry of `listfiles`.
public struct MPDFileEntry: Sendable, Equatable {
    public var name: String
    /// nil for a folder.
    public var size: Int64?
    /// Unix seconds.
    public var modified: Int64

    public init(name: String, size: Int64?, modified: Int64) {
        self.name = name
        self.size = size
        self.modified = modified
    }
}

/// Part of a binary object (a picture): its whole size, its MIME type when known, and the
/// bytes from the requested offset on, at most the client's `binarylimit`.
public struct MPDBinaryChunk: Sendable, Equatable {
    public var size: Int
    public var mimeType: String?
    public var bytes: [UInt8]

    public init(size: Int, mimeType: String? = nil, bytes: [UInt8]) {
        self.size = size
        self.mimeType = mimeType
        self.bytes = bytes
    }
}

/// `listfiles`, `albumart`, `readpicture`, `readcomments` and `binarylimit`, as MPD 0.23
/// answers them (src/command/FileCommands.cxx, StorageCommands.cxx, ClientCommands.cxx).
extension MPDCommands {
    /// The cover files `albumart` looks for beside a song, in order: MPD 0.23's three, then
    /// `folder.jpg` and `folder.png`, which many rippers and other players write.
    public static let coverNames = ["cover.png", "cover.jpg", "cover.webp", "folder.jpg", "folder.png"]

    static func musicFolder(_ w: MPDWorld) throws -> any MPDMusicFolder {
        guard let folder = w.musicFolder else { throw MPDError(.noExist, "No database") }
        return folder
    }

    static func listFiles(_ w: inout MPDWorld, _ c: inout Call) throws {
        let uri = MPDLibrary.normalized(c.arguments.first ?? "")
        if let problem = pathProblem(uri, in: w) { throw MPDError(.noExist, problem) }
        let folder = try musicFolder(w)
        for entry in try io({ try folder.entries(in: uri) }) where !entry.name.contains("\n") {
            if let size = entry.size {
                c.response.add("file", entry.name)
                c.response.add("size", size)
            } else {
                c.response.add("directory", entry.name)
            }
            c.response.add("Last-Modified", ISO8601.utc(entry.modified))
        }
    }

    /// `albumart URI OFFSET`: the cover file in the song's folder (the song itself need not
    /// exist, as in MPD).
    static func albumArt(_ w: inout MPDWorld, _ c: inout Call) throws {
        let uri = MPDLibrary.normalized(c.arguments[0])
        let offset = try unsigned(c.arguments[1])
        // A path out of music_dir finds no cover (MPD's answer too).
        if pathProblem(uri, in: w) != nil { throw MPDError(.noExist, "No file exists") }
        // The cover of the song's folder; a folder itself (`Album/`, as Cantata asks) is its own.
        let parent =
            c.arguments[0].hasSuffix("/") ? uri : uri.lastIndex(of: "/").map { String(uri[..<$0]) } ?? ""
        let folder = try musicFolder(w)
        guard let chunk = try io({ try folder.coverArt(in: parent, offset: offset, limit: c.binaryLimit) }) else {
            throw MPDError(.noExist, "No file exists")
        }
        guard offset <= chunk.size else { throw MPDError(.argument, "Offset too large") }
        c.response.add("size", chunk.size)
        c.response.addBinary(chunk.bytes)
    }

    /// `readpicture URI OFFSET`: the first embedded picture; nothing when the song has none.
    static func readPicture(_ w: inout MPDWorld, _ c: inout Call) throws {
        let offset = try unsigned(c.arguments[1])
        let track = try librarySong(c.arguments[0], in: w)
        let folder = try musicFolder(w)
        guard let chunk = try io({ try folder.embeddedPicture(of: track.path, offset: offset, limit: c.binaryLimit) })
        else { return }
        guard offset <= chunk.size else { throw MPDError(.argument, "Bad file offset") }
        c.response.add("size", chunk.size)
        if let type = chunk.mimeType { c.response.add("type", type) }
        c.response.addBinary(chunk.bytes)
    }

    static func readComments(_ w: inout MPDWorld, _ c: inout Call) throws {
        let track = try librarySong(c.arguments[0], in: w)
        let folder = try musicFolder(w)
        for comment in try io({ try folder.comments(of: track.path) })
        where isCommentName(comment.name) && !comment.value.utf8.contains(where: { $0 < 0x20 }) {
            c.response.add(comment.name, comment.value)
        }
    }

    /// MPD lists a comment only under a name of ASCII letters, `_` and `-` that starts with a
    /// letter, and only with a value free of control characters (FileCommands.cxx).
    static func isCommentName(_ name: String) -> Bool {
        let isLetter = { (byte: UInt8) in (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        guard let first = name.utf8.first, isLetter(first) else { return false }
        return name.utf8.allSatisfy { isLetter($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// A song of the library named by a client (as MPD's database lookup: `No such song`).
    static func librarySong(_ argument: String, in w: MPDWorld) throws -> TrackInfo {
        let uri = MPDLibrary.normalized(argument)
        if let problem = pathProblem(uri, in: w) { throw MPDError(.noExist, problem) }
        guard let track = w.library.track(path: uri) else { throw MPDError(.noExist, "No such song") }
        return track
    }

    /// `binarylimit N`: at least 64, and small enough to leave room in MPD's 8 MiB output buffer.
    static func binaryLimit(_ c: inout Call) throws {
        let value = try unsigned(c.arguments[0])
        guard value <= (8 << 20) - 4096 else { throw MPDError(.argument, "Number too large: \(c.arguments[0])") }
        guard value >= 64 else { throw MPDError(.argument, "Value too small") }
        c.binaryLimit = value
    }
}
