/// What the music page asks for, from its address: a folder to browse (`path`), or a search
/// (`q`, by `by`), and which page of the results (`page`, from 0).
public struct MusicQuery: Sendable, Equatable {
    /// What a search looks in: MPD's tag names, `any` for every tag.
    public enum Field: String, Sendable, CaseIterable {
        case any, title, artist, album

        var label: String {
            switch self {
            case .any: "Everything"
            case .title: "Title"
            case .artist: "Artist"
            case .album: "Album"
            }
        }
    }

    /// Results on one page: a phone scrolls through these, "More" fetches the next.
    public static let pageSize = 50
    /// A search returns at most this many songs (the library may hold 100 000; past this the
    /// page says to narrow the search).
    public static let searchLimit = 1000

    public var path = ""
    public var text = ""
    public var field = Field.any
    public var page = 0

    public init(path: String = "", text: String = "", field: Field = .any, page: Int = 0) {
        self.path = path
        self.text = text
        self.field = field
        self.page = page
    }

    /// From the address's query (`/music?path=Kids&page=2`, `/music?q=owl&by=title`).
    public init(query: FormData) {
        path = Self.folder(query["path"] ?? "")
        text = String((query["q"] ?? "").prefix(200)).trimmingSpaces
        field = query["by"].flatMap(Field.init(rawValue:)) ?? .any
        page = query["page"].flatMap { Int($0) }.map { min(max($0, 0), 100_000) } ?? 0
    }

    public var isSearch: Bool { !text.isEmpty }

    /// The daemon's command for this query: `search TAG VALUE window 0:N` (MPD's search:
    /// case-folded, a part of the tag), or `lsinfo FOLDER`.
    public var command: String {
        let quoted = MPDReplyReader.quoted
        if isSearch { return "search \(field.rawValue) \(quoted(text)) window 0:\(Self.searchLimit + 1)" }
        return "lsinfo \(quoted(path))"
    }

    /// This query's address at `page` (`done`: what the page just did, for its message).
    public func href(page: Int? = nil, done: String? = nil) -> String {
        var parts: [String] = []
        if isSearch {
            parts += ["q=" + HTMLText.queryValue(text), "by=" + field.rawValue]
        } else if !path.isEmpty {
            parts.append("path=" + HTMLText.queryValue(path))
        }
        let page = page ?? self.page
        if page > 0 { parts.append("page=\(page)") }
        if let done { parts.append("done=" + done) }
        return "/music" + (parts.isEmpty ? "" : "?" + parts.joined(separator: "&"))
    }

    /// A folder path as the library names it: no leading, trailing or doubled slashes.
    static func folder(_ text: String) -> String {
        text.split(separator: "/").joined(separator: "/")
    }

    /// Where a form may send the browser back to: a music page address, nothing else (no
    /// other site, no header break).
    public static func safeBack(_ text: String?) -> String {
        guard let text, text == "/music" || text.hasPrefix("/music?"), text.count <= 2000,
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\\" })
        else { return "/music" }
        return text
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " }),
            let last = scalars.lastIndex(where: { $0 != " " })
        else { return "" }
        return String(scalars[first...last])
    }
}

/// Folders and songs from an `lsinfo`, `search` or `listplaylistinfo` reply.
public struct MusicListing: Sendable, Equatable {
    public struct Song: Sendable, Equatable {
        public var file: String
        public var title: String
        public var artist = ""
        public var album = ""
        public var duration: Double?
    }

    /// Full paths (`Alpha/First`).
    public var folders: [String] = []
    public var songs: [Song] = []

    public init(folders: [String] = [], songs: [Song] = []) {
        self.folders = folders
        self.songs = songs
    }

    /// From the reply's lines: a song starts at its `file:` line; stored playlists are left out.
    public init(_ fields: [MPDField]) {
        var inSong = false
        for field in fields {
            switch field.key {
            case "directory":
                folders.append(field.value)
                inSong = false
            case "playlist":
                inSong = false
            case "file":
                songs.append(Song(file: field.value, title: NowPlaying.title(nil, file: field.value, name: nil)))
                inSong = true
            case "Title" where inSong && !field.value.isEmpty: songs[songs.count - 1].title = field.value
            case "Artist" where inSong: songs[songs.count - 1].artist = field.value
            case "Album" where inSong: songs[songs.count - 1].album = field.value
            case "duration" where inSong: songs[songs.count - 1].duration = Double(field.value)
            default: break
            }
        }
    }

    /// Folders first, then songs.
    public var count: Int { folders.count + songs.count }
}

/// One entry of `recent`: its number (what `recent N` continues) and what it says.
public struct RecentEntry: Sendable, Equatable {
    public var number: Int
    public var text: String

    /// From `recent`'s `recent: N SOURCE: TRACK at m:ss` lines (`nothing played yet` has no number).
    public static func list(_ fields: [MPDField]) -> [RecentEntry] {
        fields.compactMap { field in
            guard field.key == "recent", let space = field.value.firstIndex(of: " "),
                let number = Int(field.value[..<space]), number > 0
            else { return nil }
            return RecentEntry(number: number, text: String(field.value[field.value.index(after: space)...]))
        }
    }
}

/// Everything the music page shows.
public struct MusicPage: Sendable, Equatable {
    public var query = MusicQuery()
    public var listing = MusicListing()
    /// The start page (the library's top, no search) shows these.
    public var favourites: [MusicListing.Song] = []
    public var recent: [RecentEntry] = []
    /// What plays now (a line at the top, linking to the now-playing page and its queue).
    public var now = NowPlaying()
    public var queueLength = 0
    /// `play` or `add` after a form (the message), nil otherwise.
    public var done: String?
    /// The daemon refused the folder or search: what it said.
    public var problem: String?
    /// The search found more than `MusicQuery.searchLimit` songs (the listing holds that many).
    public var truncated = false

    public init() {}

    /// The page for `query` from the daemon's reply to `query.command`.
    public init(query: MusicQuery, reply: [MPDField]) {
        self.query = query
        listing = MusicListing(reply)
        if query.isSearch, listing.songs.count > MusicQuery.searchLimit {
            listing.songs.removeLast(listing.songs.count - MusicQuery.searchLimit)
            truncated = true
        }
    }

    /// The places in the listing (folders first, then songs) this page shows.
    public var pageRange: Range<Int> {
        let start = min(query.page * MusicQuery.pageSize, listing.count)
        return start..<min(start + MusicQuery.pageSize, listing.count)
    }

    /// The entry at `index` of the listing, folders first.
    public func entry(at index: Int) -> MusicEntry {
        index < listing.folders.count
            ? .folder(listing.folders[index]) : .song(listing.songs[index - listing.folders.count])
    }

    public var isStart: Bool { !query.isSearch && query.path.isEmpty }
}

public enum MusicEntry: Sendable, Equatable {
    case folder(String)
    case song(MusicListing.Song)
}

/// What the music page's forms ask: a folder or song played now (the queue replaced by it,
/// as a card does) or added to the queue; the favourites played; a recent entry continued.
extension WebAction {
    public static func music(_ form: FormData) -> WebAction? {
        if let uri = form["now"], !uri.isEmpty { return .playNow(uri) }
        if let uri = form["add"], !uri.isEmpty { return .add(uri) }
        if form["favourites"] != nil { return .playFavourites }
        if let number = form["recent"].flatMap({ Int($0) }), number > 0 { return .continueRecent(number) }
        return nil
    }
}
