import JukeboxCore
import SQLite

// Recently played in the database: one row per source, what `PlayHistory` asks to save.

extension LibraryStore {
    /// Stores `entry` as the newest (replacing its source's row) and keeps the newest
    /// `RecentlyPlayed.limit`, in one transaction; `holdsQueue`: the queue is this source's
    /// (no other row holds it then). Unsynced unless `durable`: the resume commit that
    /// follows makes it durable (WAL order), so it costs no fsync of its own.
    public func saveRecentlyPlayed(_ entry: RecentlyPlayed.Entry, holdsQueue: Bool, durable: Bool = false) throws {
        let key = Self.columns(of: entry.source)
        let remove = try cached("DELETE FROM recently_played WHERE kind = ? AND artist = ? AND name = ?")
        let release = try cached("UPDATE recently_played SET holds_queue = 0 WHERE holds_queue = 1")
        let insert = try cached(
            """
            INSERT INTO recently_played(seq, kind, artist, name, track_path, position_ms, holds_queue)
            VALUES ((SELECT coalesce(max(seq), 0) + 1 FROM recently_played), ?, ?, ?, ?, ?, ?)
            """)
        let trim = try cached(
            "DELETE FROM recently_played WHERE seq NOT IN (SELECT seq FROM recently_played ORDER BY seq DESC LIMIT ?)")
        try connection.transaction(durable: durable) {
            try remove.bind(key.kind, at: 1)
            try remove.bind(key.artist, at: 2)
            try remove.bind(key.name, at: 3)
            try remove.run()
            try release.run()
            try insert.bind(key.kind, at: 1)
            try insert.bind(key.artist, at: 2)
            try insert.bind(key.name, at: 3)
            try insert.bind(entry.trackPath, at: 4)
            try insert.bind(entry.positionMs, at: 5)
            try insert.bind(holdsQueue ? 1 : 0, at: 6)
            try insert.run()
            try trim.bind(RecentlyPlayed.limit, at: 1)
            try trim.run()
        }
    }

    /// The stored entries, newest first, and whether the newest still holds the queue. Rows
    /// of a kind this version does not know are skipped.
    public func recentlyPlayed() throws -> (entries: [RecentlyPlayed.Entry], newestHoldsQueue: Bool) {
        let rows = try cached(
            "SELECT kind, artist, name, track_path, position_ms, holds_queue FROM recently_played ORDER BY seq DESC")
        defer { rows.reset() }
        var entries: [RecentlyPlayed.Entry] = []
        var newestHoldsQueue = false
        while try rows.step() {
            guard
                let source = Self.source(
                    kind: rows.string(at: 0) ?? "", artist: rows.string(at: 1) ?? "", name: rows.string(at: 2) ?? "")
            else { continue }
            if entries.isEmpty { newestHoldsQueue = rows.int(at: 5) != 0 }
            entries.append(
                RecentlyPlayed.Entry(source: source, trackPath: rows.string(at: 3) ?? "", positionMs: rows.int64(at: 4))
            )
        }
        return (entries, newestHoldsQueue)
    }

    static func columns(of source: PlaySource) -> (kind: String, artist: String, name: String) {
        switch source {
        case .folder(let path): ("folder", "", path)
        case .album(let artist, let album): ("album", artist, album)
        case .playlist(let name): ("playlist", "", name)
        case .favourites: ("favourites", "", "")
        }
    }

    static func source(kind: String, artist: String, name: String) -> PlaySource? {
        switch kind {
        case "folder": .folder(path: name)
        case "album": .album(artist: artist, album: name)
        case "playlist": .playlist(name: name)
        case "favourites": .favourites
        default: nil
        }
    }
}
