import JukeboxCore

/// The music library as the MPD protocol sees it: tracks by path, folders derived from the
/// paths, and tag lookups for find/search/list. Built once per scan by the daemon; a value.
public struct MPDLibrary: Sendable, Equatable {
    /// Every playable track in MPD's database order: a folder's songs (see `mpdOrder`), then
    /// each subfolder by name, walked the same way. `add`, `listall` and `find` answer in it.
    public private(set) var tracks: [TrackInfo]
    private var byPath: [String: Int]
    private var byID: [TrackID: Int]
    /// Every folder (relative, no trailing slash; "" is the root) with its direct subfolders.
    private var folders: [String: [String]]
    /// Per folder: its tracks and everything below, a range of `tracks`, and how many of them
    /// are its own (they come first).
    private var spans: [String: Span]

    struct Span: Sendable, Equatable {
        var range: Range<Int>
        var own: Int
    }

    /// An index over `tracks` (any order).
    public init(tracks: [TrackInfo] = []) {
        var folders: [String: Set<String>] = ["": []]
        var songs: [String: [TrackInfo]] = [:]
        for track in tracks {
            var child = MPDLibrary.parent(of: track.path)
            songs[child, default: []].append(track)
            while !child.isEmpty {
                let parent = MPDLibrary.parent(of: child)
                let (inserted, _) = folders[parent, default: []].insert(child)
                if folders[child] == nil { folders[child] = [] }
                if !inserted { break }
                child = parent
            }
        }
        let sortedFolders = folders.mapValues { $0.sorted() }
        var ordered: [TrackInfo] = []
        var spans: [String: Span] = [:]
        func walk(_ folder: String) {
            let start = ordered.count
            let own = (songs[folder] ?? []).sorted(by: MPDLibrary.mpdOrder)
            ordered += own
            for sub in sortedFolders[folder] ?? [] { walk(sub) }
            spans[folder] = Span(range: start..<ordered.count, own: own.count)
        }
        walk("")
        self.folders = sortedFolders
        self.tracks = ordered
        self.spans = spans
        byPath = [:]
        byID = [:]
        for (index, track) in ordered.enumerated() {
            byPath[track.path] = index
            byID[track.id] = index
        }
    }

    /// MPD's order of the songs in one folder (`song_cmp`, SongSort.cxx): by album (none
    /// first), disc, track number (missing or 0 first), then file name.
    static func mpdOrder(_ a: TrackInfo, _ b: TrackInfo) -> Bool {
        if a.album != b.album {
            guard let left = a.album else { return true }
            guard let right = b.album else { return false }
            if left != right { return left < right }
        }
        func number(_ text: String?) -> Int { text.map { Int($0.prefix { $0.isASCII && $0.isNumber }) ?? 0 } ?? 0 }
        let discs = (number(a.values(.disc).first), number(b.values(.disc).first))
        if discs.0 != discs.1 { return discs.0 < discs.1 }
        let numbers = (max(0, a.trackNumber ?? 0), max(0, b.trackNumber ?? 0))
        if numbers.0 != numbers.1 { return numbers.0 < numbers.1 }
        return a.path < b.path
    }

    /// The track at `path` (relative to music_dir).
    public func track(path: String) -> TrackInfo? { byPath[path].map { tracks[$0] } }

    /// The track with this id.
    public func track(id: TrackID) -> TrackInfo? { byID[id].map { tracks[$0] } }

    /// Whether `path` is a folder that holds music ("" is the root).
    public func isFolder(_ path: String) -> Bool { folders[path] != nil }

    /// The direct subfolders of `folder`.
    public func subfolders(of folder: String) -> [String] { folders[folder] ?? [] }

    /// The tracks directly in `folder`, in MPD's order.
    public func files(in folder: String) -> [TrackInfo] {
        guard let span = spans[folder] else { return [] }
        return Array(tracks[span.range.prefix(span.own)])
    }

    /// Every track in `folder` and below, in MPD's database order.
    public func tracks(under folder: String) -> [TrackInfo] {
        guard let span = spans[folder] else { return [] }
        return Array(tracks[span.range])
    }

    /// MPD's walk of a folder (`listall`, `listallinfo`): its songs, then each subfolder as a
    /// `directory` row followed by what it holds, made row by row.
    public struct Walk: IteratorProtocol {
        public enum Row {
            case directory(String)
            case song(TrackInfo)
        }

        private let library: MPDLibrary
        /// The folders being walked, innermost last: songs left, subfolders and the next one.
        private var frames: [(songs: Range<Int>, subfolders: [String], next: Int)] = []

        init(_ library: MPDLibrary, folder: String) {
            self.library = library
            enter(folder)
        }

        private mutating func enter(_ folder: String) {
            let span = library.spans[folder] ?? Span(range: 0..<0, own: 0)
            frames.append((span.range.prefix(span.own), library.folders[folder] ?? [], 0))
        }

        public mutating func next() -> Row? {
            while var top = frames.popLast() {
                if let song = top.songs.first {
                    top.songs = top.songs.dropFirst()
                    frames.append(top)
                    return .song(library.tracks[song])
                }
                if top.next < top.subfolders.count {
                    let subfolder = top.subfolders[top.next]
                    top.next += 1
                    frames.append(top)
                    enter(subfolder)
                    return .directory(subfolder)
                }
            }
            return nil
        }
    }

    /// The walk of `folder` (a folder of this library).
    public func walk(_ folder: String) -> Walk { Walk(self, folder: folder) }

    /// The number of distinct non-empty values of `tag`.
    public func distinctCount(_ tag: MPDTag) -> Int {
        Set(tracks.flatMap { tag.matchValues(of: $0) }.filter { !$0.isEmpty }).count
    }

    /// The total duration of the library, in whole seconds.
    public var totalSeconds: Int64 { tracks.reduce(0) { $0 + ($1.durationMs ?? 0) } / 1000 }

    /// The folder part of a relative path ("" at the top).
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    /// Why a client-given path is refused, or nil: absolute paths, `..` and `.` components,
    /// empty components, control characters and URLs are refused (the path must stay in music_dir).
    public static func pathProblem(_ uri: String) -> String? {
        if uri.hasPrefix("/") { return "Access denied: absolute paths are not allowed" }
        if uri.contains("://") { return "Access denied: URLs are not supported" }
        if uri.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "Malformed URI"
        }
        for component in uri.split(separator: "/", omittingEmptySubsequences: false) {
            if component == ".." || component == "." { return "Access denied: '\(component)' is not allowed" }
        }
        return nil
    }

    /// `uri` without a trailing slash; "/" and "" mean the root.
    public static func normalized(_ uri: String) -> String {
        var path = Substring(uri)
        while path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

}

/// The tags the jukebox knows, with MPD's names: the four the library keeps as fields, and
/// the others (`TagName`).
public enum MPDTag: Sendable, Hashable, CustomStringConvertible {
    case artist
    case album
    case title
    case track
    case other(TagName)

    /// Every tag, in the order of MPD's `tagtypes`.
    public static let allCases: [MPDTag] =
        [.artist, .album, .other(.albumArtist), .title, .track]
        + TagName.allCases.filter { $0 != .albumArtist }.map(MPDTag.other)

    /// MPD's name.
    public var rawValue: String {
        switch self {
        case .artist: "Artist"
        case .album: "Album"
        case .title: "Title"
        case .track: "Track"
        case .other(let name): name.rawValue
        }
    }

    public var description: String { rawValue }

    /// Whether `tagtypes` and song blocks show it: MPD 0.23 hides Comment by default
    /// (`metadata_to_use`); filters still see it.
    public var isShown: Bool { self != .other(.comment) }

    /// The tag named `name` (case-insensitive, as MPD accepts).
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let tag = MPDTag.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
        self = tag
    }

    /// The values of this tag for `track`, as the song's lines show them (none when missing).
    public func values(of track: TrackInfo) -> [String] {
        switch self {
        case .artist: track.artist.map { [$0] } ?? []
        case .album: track.album.map { [$0] } ?? []
        case .title: track.title.map { [$0] } ?? []
        case .track: track.trackNumber.map { ["\($0)"] } ?? []
        case .other(let name): track.values(name)
        }
    }

    /// The values filters, `list` and `sort` see: a missing AlbumArtist falls back to Artist,
    /// as in MPD.
    public func matchValues(of track: TrackInfo) -> [String] {
        let own = values(of: track)
        return own.isEmpty && self == .other(.albumArtist) ? MPDTag.artist.values(of: track) : own
    }

    /// The first value filters see, for sorting and grouping ("" when missing).
    public func value(of track: TrackInfo) -> String { matchValues(of: track).first ?? "" }
}
