extension PlaySource {
    /// The tracks the source plays, in order: a folder's by path, an album's by disc, track
    /// number and path, a playlist's (Favourites too) as listed, `entries` being its stored
    /// playlist's paths (nil: it does not exist). `missing`: playlist entries not in the
    /// library (gone, or never music), which are skipped.
    public func tracks(in library: some Collection<TrackInfo>, entries: [String]?) -> (
        tracks: [TrackInfo], missing: Int
    ) {
        switch self {
        case .folder(let path):
            let prefix = path.isEmpty ? "" : path + "/"
            return (library.filter { $0.path.hasPrefix(prefix) }.sorted { $0.path < $1.path }, 0)
        case .album(let artist, let album):
            let tracks = library.filter { $0.album == album && $0.albumArtist == artist }
            return (
                tracks.sorted { ($0.disc, $0.trackNumber ?? 0, $0.path) < ($1.disc, $1.trackNumber ?? 0, $1.path) }, 0
            )
        case .playlist, .favourites:
            let byPath = Dictionary(library.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
            let found = (entries ?? []).compactMap { byPath[$0] }
            return (found, (entries?.count ?? 0) - found.count)
        }
    }

    /// How people read it: `Favourites`, `folder Jazz`, `album Blue by Joni Mitchell`,
    /// `playlist mix`; the whole library's folder is `all music`.
    public var title: String {
        switch self {
        case .folder(let path): path.isEmpty ? "all music" : "folder \(path)"
        case .album(let artist, let album): artist.isEmpty ? "album \(album)" : "album \(album) by \(artist)"
        case .playlist(let name): "playlist \(name)"
        case .favourites: Favourites.playlistName
        }
    }

    /// The stored playlist a playlist source plays (nil for folders and albums).
    public var playlistName: String? {
        switch self {
        case .playlist(let name): name
        case .favourites: Favourites.playlistName
        case .folder, .album: nil
        }
    }
}

extension TrackInfo {
    /// The album's artist as albums are grouped: the AlbumArtist tag, else the artist.
    public var albumArtist: String {
        tags.first { $0.name == .albumArtist }?.value ?? artist ?? ""
    }

    /// The disc number (the Disc tag's leading digits; 0 without one).
    var disc: Int {
        Int(tags.first { $0.name == .disc }?.value.prefix { $0.isASCII && $0.isNumber } ?? "") ?? 0
    }
}
