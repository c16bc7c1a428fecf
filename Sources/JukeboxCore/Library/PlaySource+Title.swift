extension PlaySource {
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
}
