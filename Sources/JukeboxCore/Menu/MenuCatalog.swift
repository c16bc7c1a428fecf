/// What the menu lists, built once from the library (at start and after each scan) so that a
/// knob step only indexes arrays: the folder tree of `music_dir`, artists (album artist, else
/// artist) with their albums, every album A–Z, and the stored playlists, favourites and
/// recently played sources the daemon feeds in. Every list is sorted by `SortKey`.
public struct MenuCatalog: Sendable {
    /// One album: tracks in disc and track order (then by path).
    public struct Album: Sendable, Equatable {
        /// "" when the tracks have no album tag.
        public var name: String
        /// The album artist, else the artist ("" when neither is tagged).
        public var artist: String
        public var key: SortKey
        /// Indices into `tracks`.
        public var tracks: [Int]
    }

    /// One artist and its albums A–Z.
    public struct Artist: Sendable, Equatable {
        public var name: String
        public var key: SortKey
        /// Indices into `albums`.
        public var albums: [Int]
    }

    /// One folder of `music_dir`: subfolders, then its own tracks, each by name.
    public struct Folder: Sendable, Equatable {
        /// Relative to `music_dir` ("" is the top).
        public var path: String
        public var name: String
        public var key: SortKey
        /// Indices into `folders`.
        public var folders: [Int]
        /// Indices into `tracks`.
        public var tracks: [Int]
    }

    /// The library, in path order.
    public let tracks: [TrackInfo]
    /// The sort key of each track's file name (folder order).
    let fileKeys: [SortKey]
    /// Artists A–Z.
    public let artists: [Artist]
    /// Albums A–Z (then by artist).
    public let albums: [Album]
    /// The folder tree; 0 is `music_dir` itself.
    public let folders: [Folder]
    private let trackByPath: [String: Int]
    private let albumBySource: [PlaySource: Int]
    private let folderByPath: [String: Int]

    /// Stored playlist names, A–Z (Favourites not among them).
    public private(set) var playlists: [String] = []
    /// The favourite tracks in the library, in the favourites' order (indices into `tracks`).
    public private(set) var favourites: [Int] = []
    /// The sources played last, newest first.
    public var recent = RecentlyPlayed()
    /// The podcasts followed, each with its episodes new first (the daemon keeps it up to date).
    public var podcasts: [Podcast] = []

    /// A podcast as the menu lists it.
    public struct Podcast: Sendable, Equatable {
        public var title: String
        /// New first: the episode's row and its title.
        public var episodes: [(id: Int64, title: String)]

        /// A podcast.
        public init(title: String, episodes: [(id: Int64, title: String)]) {
            self.title = title
            self.episodes = episodes
        }

        public static func == (a: Podcast, b: Podcast) -> Bool {
            a.title == b.title && a.episodes.elementsEqual(b.episodes) { $0 == $1 }
        }
    }

    /// Builds the lists from the library's tracks (any order).
    public init(tracks library: [TrackInfo]) {
        let tracks = library.sorted { $0.path < $1.path }
        self.tracks = tracks
        var trackByPath: [String: Int] = [:]
        trackByPath.reserveCapacity(tracks.count)
        for (index, track) in tracks.enumerated() { trackByPath[track.path] = index }
        self.trackByPath = trackByPath
        fileKeys = tracks.map { SortKey(Self.fileName($0.path)) }

        // Albums by (album artist or artist, album); their tracks by disc, number, path.
        var albumIndex: [PlaySource: Int] = [:]
        var albums: [Album] = []
        for (index, track) in tracks.enumerated() {
            let source = Self.albumSource(of: track)
            guard case .album(let artist, let album) = source else { continue }
            if let existing = albumIndex[source] {
                albums[existing].tracks.append(index)
            } else {
                albumIndex[source] = albums.count
                albums.append(Album(name: album, artist: artist, key: SortKey(album), tracks: [index]))
            }
        }
        for i in albums.indices {
            albums[i].tracks.sort { a, b in
                let (x, y) = (tracks[a], tracks[b])
                let discX = x.values(.disc).first.flatMap { Int($0) } ?? 0
                let discY = y.values(.disc).first.flatMap { Int($0) } ?? 0
                if discX != discY { return discX < discY }
                if x.trackNumber != y.trackNumber { return (x.trackNumber ?? Int.max) < (y.trackNumber ?? Int.max) }
                return a < b
            }
        }
        let artistKeys = Dictionary(albums.map { ($0.artist, SortKey($0.artist)) }) { first, _ in first }
        let order = albums.indices.sorted { a, b in
            let (x, y) = (albums[a], albums[b])
            if x.key != y.key { return x.key < y.key }
            if x.name != y.name { return x.name < y.name }
            let (kx, ky) = (artistKeys[x.artist]!, artistKeys[y.artist]!)
            return kx != ky ? kx < ky : x.artist < y.artist
        }
        albums = order.map { albums[$0] }
        self.albums = albums
        var albumBySource: [PlaySource: Int] = [:]
        var artistAlbums: [String: [Int]] = [:]
        for (index, album) in albums.enumerated() {
            albumBySource[.album(artist: album.artist, album: album.name)] = index
            artistAlbums[album.artist, default: []].append(index)
        }
        self.albumBySource = albumBySource
        artists = artistAlbums.map { Artist(name: $0.key, key: artistKeys[$0.key]!, albums: $0.value) }
            .sorted { $0.key != $1.key ? $0.key < $1.key : $0.name < $1.name }

        // The folder tree from the paths.
        var folders = [Folder(path: "", name: "", key: SortKey(""), folders: [], tracks: [])]
        var folderByPath = ["": 0]
        for (index, track) in tracks.enumerated() {
            var parent = 0
            var path = ""
            let parts = track.path.split(separator: "/", omittingEmptySubsequences: true)
            for part in parts.dropLast() {
                path = path.isEmpty ? String(part) : path + "/" + part
                if let existing = folderByPath[path] {
                    parent = existing
                } else {
                    let folder = Folder(
                        path: path, name: String(part), key: SortKey(String(part)), folders: [], tracks: [])
                    folderByPath[path] = folders.count
                    folders[parent].folders.append(folders.count)
                    parent = folders.count
                    folders.append(folder)
                }
            }
            folders[parent].tracks.append(index)
        }
        let fileKeys = self.fileKeys
        let unsorted = folders
        for i in folders.indices {
            folders[i].folders.sort { a, b in
                let (x, y) = (unsorted[a], unsorted[b])
                return x.key != y.key ? x.key < y.key : x.name < y.name
            }
            folders[i].tracks.sort { fileKeys[$0] != fileKeys[$1] ? fileKeys[$0] < fileKeys[$1] : $0 < $1 }
        }
        self.folders = folders
        self.folderByPath = folderByPath
    }

    /// The stored playlists' names (any order; `Favourites` is left out: it has its own entry).
    public mutating func setPlaylists(_ names: [String]) {
        playlists = names.filter { $0 != "Favourites" }.sorted {
            let (a, b) = (SortKey($0), SortKey($1))
            return a != b ? a < b : $0 < $1
        }
    }

    /// The favourite tracks by path (relative to `music_dir`), in their order; paths not in the
    /// library are left out.
    public mutating func setFavourites(_ paths: [String]) {
        favourites = paths.compactMap { trackByPath[$0] }
    }

    /// The index of the track at `path`.
    public func track(at path: String) -> Int? { trackByPath[path] }

    /// The tracks a source plays, in order; nil for a playlist (the daemon reads its file) or
    /// a folder or album that is not in the library.
    public func tracks(of source: PlaySource) -> [Int]? {
        switch source {
        case .folder(let path):
            guard let folder = folderByPath[path] else { return nil }
            var out: [Int] = []
            collect(folder, into: &out)
            return out
        case .album(let artist, let name):
            // A card may name an album without its artist: the first album of that name.
            let index = albumBySource[source] ?? (artist.isEmpty ? albums.firstIndex { $0.name == name } : nil)
            return index.map { albums[$0].tracks }
        case .artist(let name):
            guard let artist = artists.first(where: { $0.name == name }) else { return nil }
            return artist.albums.flatMap { albums[$0].tracks }
        case .favourites:
            return favourites
        case .playlist:
            return nil
        }
    }

    /// A folder's tracks in menu order: its subfolders' first, depth first, then its own.
    private func collect(_ folder: Int, into out: inout [Int]) {
        for sub in folders[folder].folders { collect(sub, into: &out) }
        out += folders[folder].tracks
    }

    /// The index of the folder at `path`.
    public func folder(at path: String) -> Int? { folderByPath[path] }

    /// What a track is called in lists: its title, else its file name without the extension.
    public func title(_ track: Int) -> String {
        tracks[track].shownTitle
    }

    /// The album a track belongs to: album artist (else artist) and album.
    public static func albumSource(of track: TrackInfo) -> PlaySource {
        let artist = track.values(.albumArtist).first ?? track.artist ?? ""
        return .album(artist: artist, album: track.album ?? "")
    }

    static func fileName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
