/// One episode of a podcast, as its feed describes it.
public struct Episode: Sendable, Equatable {
    /// The feed's id for it (RSS `guid`, Atom `id`), else its enclosure URL.
    public var guid: String
    public var title: String
    /// When it was published, in seconds since 1970 (UTC); nil when the feed gives no date
    /// or one that does not parse.
    public var published: Int64?
    /// The audio file.
    public var enclosureURL: String
    /// The enclosure's length in bytes as the feed states it (often wrong or 0): a hint only.
    public var length: Int64?
    /// The enclosure's MIME type (`audio/mpeg`).
    public var type: String?

    /// An episode.
    public init(
        guid: String, title: String, published: Int64?, enclosureURL: String, length: Int64? = nil, type: String? = nil
    ) {
        self.guid = guid
        self.title = title
        self.published = published
        self.enclosureURL = enclosureURL
        self.length = length
        self.type = type
    }

    /// Newest first; undated episodes after the dated ones. Sorting with it is stable, so
    /// equal dates keep the feed's order.
    public static func newerFirst(_ a: Episode, _ b: Episode) -> Bool {
        switch (a.published, b.published) {
        case (let x?, let y?): x > y
        case (_?, nil): true
        default: false
        }
    }
}

/// What a feed said: its title and its episodes, newest first.
public struct Feed: Sendable, Equatable {
    public var title: String
    public var episodes: [Episode]
    /// Items that had no enclosure (text-only posts), or episodes beyond `FeedParser.episodeLimit`.
    public var skippedItems: Int

    /// A feed.
    public init(title: String, episodes: [Episode], skippedItems: Int = 0) {
        self.title = title
        self.episodes = episodes
        self.skippedItems = skippedItems
    }
}

/// Why a document is no feed: one line for the log.
public struct FeedProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    /// A problem.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
