/// A followed feed, as the store keeps it.
public struct Subscription: Sendable, Equatable {
    /// Its row.
    public var id: Int64
    public var url: String
    /// The feed's title (the URL until the first read).
    public var title: String
    /// Listed in the config's `[podcasts] feeds` (a console `remove` cannot drop it for good).
    public var fromConfig: Bool
    /// Why the last read failed; nil after a good one.
    public var problem: String?

    /// A subscription.
    public init(id: Int64, url: String, title: String, fromConfig: Bool, problem: String? = nil) {
        self.id = id
        self.url = url
        self.title = title
        self.fromConfig = fromConfig
        self.problem = problem
    }
}

/// An episode with what the box did with it.
public struct EpisodeRecord: Sendable, Equatable {
    /// Where its download stands.
    public enum State: String, Sendable, CaseIterable {
        /// In the feed, nothing downloaded.
        case listed
        /// Waiting for its turn, or part downloaded (`durableBytes` of `expectedBytes`).
        case downloading
        /// Whole, in the cache under `file`.
        case complete
        /// The last attempt gave up (`problem`); the partial file stays for a later try.
        case failed
    }

    /// Its row.
    public var id: Int64
    public var podcastID: Int64
    public var episode: Episode
    public var state: State
    /// The partial file's checkpoint: bytes fdatasync'd.
    public var durableBytes: Int64
    /// The whole file's length, once a response said it.
    public var expectedBytes: Int64?
    /// Its file's name in the cache folder (complete or partial); nil before the first byte.
    public var file: String?
    public var played: Bool
    /// Where it was left, like a long track's.
    public var positionMs: Int64
    public var problem: String?

    /// A record.
    public init(
        id: Int64, podcastID: Int64, episode: Episode, state: State = .listed, durableBytes: Int64 = 0,
        expectedBytes: Int64? = nil, file: String? = nil, played: Bool = false, positionMs: Int64 = 0,
        problem: String? = nil
    ) {
        self.id = id
        self.podcastID = podcastID
        self.episode = episode
        self.state = state
        self.durableBytes = durableBytes
        self.expectedBytes = expectedBytes
        self.file = file
        self.played = played
        self.positionMs = positionMs
        self.problem = problem
    }

    /// The cache file's name: the row id (unique, stable) and the enclosure's extension, so
    /// the decoders' extension fallback works; `.part` while incomplete.
    public var fileName: String {
        let name = FeedParser.lastComponent(of: episode.enclosureURL)
        let dot = name.lastIndex(of: ".")
        let ext = dot.map { String(name[name.index(after: $0)...]).lowercased() } ?? ""
        let safe = !ext.isEmpty && ext.count <= 5 && ext.allSatisfy { $0.isLetter || $0.isNumber }
        return "\(id).\(safe ? ext : "mp3")"
    }
}
