/// Which downloaded episodes make room under the cache's size limit: played ones first
/// (the oldest played first), then unplayed ones, oldest published first. Never the one
/// playing or downloading (`pinned`), so a listener never loses what they hear.
public enum EpisodeCache {
    /// One file in the cache, complete or partial.
    public struct Entry: Sendable, Equatable {
        /// The episode's row in the store.
        public var id: Int64
        /// Its bytes on disk.
        public var bytes: Int64
        public var played: Bool
        /// Published, seconds since 1970; nil sorts as oldest.
        public var published: Int64?
        /// Playing or downloading now: not to be removed.
        public var pinned: Bool

        /// An entry.
        public init(id: Int64, bytes: Int64, played: Bool, published: Int64?, pinned: Bool = false) {
            self.id = id
            self.bytes = bytes
            self.played = played
            self.published = published
            self.pinned = pinned
        }
    }

    /// The entries to delete, in order, so that `incoming` more bytes fit beside the rest in
    /// `limit` bytes; nil when they would not fit even with every unpinned entry gone (the
    /// caller then does not download, and deletes nothing).
    public static func evictions(of entries: [Entry], toFit incoming: Int64, limit: Int64) -> [Int64]? {
        var used = entries.reduce(0) { $0 + $1.bytes }
        if used + incoming <= limit { return [] }
        let candidates = entries.filter { !$0.pinned }.sorted { a, b in
            if a.played != b.played { return a.played }
            return (a.published ?? .min) < (b.published ?? .min)
        }
        var chosen: [Int64] = []
        for entry in candidates where used + incoming > limit {
            chosen.append(entry.id)
            used -= entry.bytes
        }
        return used + incoming <= limit ? chosen : nil
    }
}
