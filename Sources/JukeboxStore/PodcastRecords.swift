import JukeboxCore
import SQLite

// Podcasts in the database: the followed feeds (`podcasts`) and their episodes with each one's
// download checkpoint, played flag and position (`episodes`, schema 9).

extension LibraryStore {
    /// Every subscription, in the order they were added.
    public func subscriptions() throws -> [Subscription] {
        let rows = try cached("SELECT id, url, title, from_config, problem FROM podcasts ORDER BY id")
        defer { rows.reset() }
        var found: [Subscription] = []
        while try rows.step() {
            found.append(
                Subscription(
                    id: rows.int64(at: 0), url: rows.string(at: 1) ?? "", title: rows.string(at: 2) ?? "",
                    fromConfig: rows.int(at: 3) != 0, problem: rows.string(at: 4)))
        }
        return found
    }

    /// Follows `url` (a durable commit); an existing subscription is kept, and marked as the
    /// config's when `fromConfig`. Whether it is new.
    @discardableResult
    public func subscribe(url: String, fromConfig: Bool) throws -> Bool {
        let insert = try cached("INSERT OR IGNORE INTO podcasts(url, title, from_config) VALUES (?, ?, ?)")
        let mark = try cached("UPDATE podcasts SET from_config = 1 WHERE url = ? AND from_config = 0")
        return try connection.transaction(durable: true) {
            try insert.bind(url, at: 1)
            try insert.bind(url, at: 2)
            try insert.bind(fromConfig ? 1 : 0, at: 3)
            try insert.run()
            let added = connection.changes > 0
            if fromConfig, !added {
                try mark.bind(url, at: 1)
                try mark.run()
            }
            return added
        }
    }

    /// Drops a subscription and its episodes' rows (a durable commit).
    public func unsubscribe(id: Int64) throws {
        let episodes = try cached("DELETE FROM episodes WHERE podcast_id = ?")
        let podcast = try cached("DELETE FROM podcasts WHERE id = ?")
        try connection.transaction(durable: true) {
            try episodes.bind(id, at: 1)
            try episodes.run()
            try podcast.bind(id, at: 1)
            try podcast.run()
        }
    }

    /// A good read of a feed: its title, and its episodes added (new guids) or updated (the
    /// feed's facts only: what the box did with them stays). Episodes no longer in the feed
    /// are kept, so a downloaded one stays playable. Unsynced: nothing is lost that the next
    /// read would not bring back.
    public func saveFeed(_ feed: Feed, podcastID: Int64) throws {
        // A feed without a title keeps the one it had (its URL at first).
        let title = try cached(
            "UPDATE podcasts SET title = coalesce(nullif(?, ''), title), problem = NULL WHERE id = ?")
        let upsert = try cached(
            """
            INSERT INTO episodes(podcast_id, guid, title, published, url, length, type) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(podcast_id, guid) DO UPDATE SET title = excluded.title, published = excluded.published,
                url = excluded.url, length = excluded.length, type = excluded.type
            """)
        try connection.transaction {
            try title.bind(feed.title, at: 1)
            try title.bind(podcastID, at: 2)
            try title.run()
            for episode in feed.episodes {
                try upsert.bind(podcastID, at: 1)
                try upsert.bind(episode.guid, at: 2)
                try upsert.bind(episode.title, at: 3)
                try upsert.bind(episode.published, at: 4)
                try upsert.bind(episode.enclosureURL, at: 5)
                try upsert.bind(episode.length, at: 6)
                try upsert.bind(episode.type, at: 7)
                try upsert.run()
            }
        }
    }

    /// A failed read of a feed: why (the episodes stay as they were).
    public func saveFeedProblem(_ problem: String, podcastID: Int64) throws {
        let update = try cached("UPDATE podcasts SET problem = ? WHERE id = ?")
        try update.bind(problem, at: 1)
        try update.bind(podcastID, at: 2)
        try update.run()
    }

    /// A podcast's episodes, newest first (undated last), or every episode with a file in the
    /// cache when `podcastID` is nil.
    public func episodes(of podcastID: Int64?) throws -> [EpisodeRecord] {
        let columns = """
            SELECT id, podcast_id, guid, title, published, url, length, type, state, durable_bytes, expected_bytes,
                file, played, position_ms, problem FROM episodes
            """
        let rows =
            try podcastID == nil
            ? cached(columns + " WHERE file IS NOT NULL ORDER BY id")
            : cached(columns + " WHERE podcast_id = ? ORDER BY published IS NULL, published DESC, id")
        defer { rows.reset() }
        if let podcastID { try rows.bind(podcastID, at: 1) }
        var found: [EpisodeRecord] = []
        while try rows.step() {
            let episode = Episode(
                guid: rows.string(at: 2) ?? "", title: rows.string(at: 3) ?? "", published: rows.optionalInt64(at: 4),
                enclosureURL: rows.string(at: 5) ?? "", length: rows.optionalInt64(at: 6), type: rows.string(at: 7))
            found.append(
                EpisodeRecord(
                    id: rows.int64(at: 0), podcastID: rows.int64(at: 1), episode: episode,
                    state: EpisodeRecord.State(rawValue: rows.string(at: 8) ?? "") ?? .listed,
                    durableBytes: rows.int64(at: 9), expectedBytes: rows.optionalInt64(at: 10),
                    file: rows.string(at: 11), played: rows.int(at: 12) != 0, positionMs: rows.int64(at: 13),
                    problem: rows.string(at: 14)))
        }
        return found
    }

    /// Stores what the box did with an episode: its download (state, checkpoint, file), played
    /// flag and position. `durable`: a download checkpoint, which must outlive a power cut
    /// (the partial file was fdatasync'd first).
    public func saveEpisode(_ record: EpisodeRecord, durable: Bool) throws {
        let update = try cached(
            """
            UPDATE episodes SET state = ?, durable_bytes = ?, expected_bytes = ?, file = ?, played = ?,
                position_ms = ?, problem = ? WHERE id = ?
            """)
        try connection.transaction(durable: durable) {
            try update.bind(record.state.rawValue, at: 1)
            try update.bind(record.durableBytes, at: 2)
            try update.bind(record.expectedBytes, at: 3)
            try update.bind(record.file, at: 4)
            try update.bind(record.played ? 1 : 0, at: 5)
            try update.bind(record.positionMs, at: 6)
            try update.bind(record.problem, at: 7)
            try update.bind(record.id, at: 8)
            try update.run()
        }
    }

    /// `clear cache`: no episode but `keeping` (the one playing) has a file or a checkpoint
    /// any more (a durable commit, made before the files are deleted, so a power cut between
    /// leaves files no row names, never rows naming no file).
    public func forgetDownloads(keeping: Int64?) throws {
        let update = try cached(
            """
            UPDATE episodes SET state = 'listed', durable_bytes = 0, expected_bytes = NULL, file = NULL, problem = NULL
            WHERE id IS NOT ?
            """)
        try connection.transaction(durable: true) {
            try update.bind(keeping, at: 1)
            try update.run()
        }
    }
}
