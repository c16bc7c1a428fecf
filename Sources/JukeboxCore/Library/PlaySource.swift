/// What the queue was filled from when the box itself chose the music (the menu, favourites,
/// a card): what "Recently played" lists and continues.
public enum PlaySource: Sendable, Hashable {
    /// A folder of `music_dir`, relative to it ("" is the whole library), with its subfolders.
    case folder(path: String)
    /// An album by its album artist (or artist), in disc and track order.
    case album(artist: String, album: String)
    /// Every album of an artist (album artist, else artist), A–Z.
    case artist(name: String)
    /// A stored playlist, by its name (the `.m3u` file without the extension).
    case playlist(name: String)
    /// The `Favourites` stored playlist.
    case favourites
}

/// The last sources played, newest first, each with the track and position where it was left.
public struct RecentlyPlayed: Sendable, Equatable {
    /// How many sources are kept.
    public static let limit = 15

    /// One source and where it was left.
    public struct Entry: Sendable, Equatable {
        public var source: PlaySource
        /// The track that was playing, relative to `music_dir`.
        public var trackPath: String
        /// How far into that track, in milliseconds.
        public var positionMs: Int64

        /// An entry.
        public init(source: PlaySource, trackPath: String, positionMs: Int64) {
            self.source = source
            self.trackPath = trackPath
            self.positionMs = positionMs
        }
    }

    /// Newest first, at most `limit`, each source once.
    public private(set) var entries: [Entry]

    /// A list from stored entries (newest first); duplicates and the overflow are dropped.
    public init(entries: [Entry] = []) {
        self.entries = []
        for entry in entries.reversed() { record(entry) }
    }

    /// Puts `entry` first, replacing the older entry of the same source.
    public mutating func record(_ entry: Entry) {
        entries.removeAll { $0.source == entry.source }
        entries.insert(entry, at: 0)
        if entries.count > Self.limit { entries.removeLast(entries.count - Self.limit) }
    }
}
