import Glibc
import JukeboxCore
import LinuxSupport
import Logging
import SQLite

/// The daemon's view of the database: tracks, the saved queue, the playback record and
/// per-track positions. It owns one `Connection` and, like it, is used by the control
/// thread (`jb-control`) only; the scanner writes through its own connection.
public final class LibraryStore {
    /// The database file.
    public let path: String
    let connection: Connection
    private let logger: Logger
    private var statements: [String: Statement] = [:]

    private init(connection: Connection, logger: Logger) {
        self.path = connection.path
        self.connection = connection
        self.logger = logger
    }

    /// Opens the database at `path`, creating it and its parent directories as needed, and
    /// migrates it to the current schema (in one transaction: a migration that fails leaves
    /// the database as it was). A file that is not a database or fails `PRAGMA quick_check`
    /// is moved aside (with its `-wal`, `-shm` and `-position` files) to `<path>.damaged-<n>`
    /// and replaced by a fresh, empty database; the returned `recoveryMessage` says so (it is
    /// also logged), and the daemon should rescan. Throws `NewerDatabase` for a database of a
    /// newer jukeboxd (left as it is), and when even a fresh database cannot be created
    /// (unwritable directory, locked file, ...).
    public static func open(path: String, logger: Logger) throws -> (store: LibraryStore, recoveryMessage: String?) {
        try makeParentDirectories(of: path)
        do {
            return (LibraryStore(connection: try openChecked(path), logger: logger), nil)
        } catch let damage as DamagedDatabase {
            let aside = try moveAside(path)
            let message =
                "database \(path) is damaged (\(damage.reason)); moved it to \(aside) and started a new one;"
                + " the library will be rescanned"
            logger.info("\(message)")
            return (LibraryStore(connection: try openChecked(path), logger: logger), message)
        }
    }

    /// A second connection to a database `open` already checked and migrated, for a thread
    /// other than the control thread's (the scan thread reads the scanned library with it).
    public static func openReader(path: String, logger: Logger) throws -> LibraryStore {
        LibraryStore(
            connection: try Connection(path: path, flags: [.readWrite], options: connectionOptions), logger: logger)
    }

    /// A database written by a newer jukeboxd (a downgrade): refused, never moved aside or
    /// changed, so that installing the newer version again finds every card and place.
    public struct NewerDatabase: Error, CustomStringConvertible {
        public var path: String
        public var found: Int64
        public var description: String {
            "\(path) was written by a newer jukeboxd (schema version \(found); this one, "
                + "\(JukeboxVersion.string), understands up to \(Schema.currentVersion)): install the newer version "
                + "again, or move the database aside to start afresh (its cards and places stay in it)"
        }
    }

    /// Why an existing file cannot be used as the database.
    struct DamagedDatabase: Error {
        var reason: String
    }

    /// How the daemon's connections open the database: no checkpoint at close, so a stop
    /// costs one durable commit, not a copy of the WAL into the main file as well.
    static var connectionOptions: Connection.Options {
        var options = Connection.Options()
        options.checkpointOnClose = false
        return options
    }

    /// Opens, checks and migrates; damage of any kind becomes `DamagedDatabase`.
    static func openChecked(_ path: String) throws -> Connection {
        do {
            let connection = try Connection(path: path, options: connectionOptions)
            let check = try connection.strings("PRAGMA quick_check")
            if check != ["ok"] {
                throw DamagedDatabase(reason: "quick_check: " + check.prefix(3).joined(separator: "; "))
            }
            try Schema.migrate(connection)
            return connection
        } catch let error as SQLiteError where error.isDamagedFile {
            throw DamagedDatabase(reason: error.message)
        } catch let error as Schema.NewerVersion {
            throw NewerDatabase(path: path, found: error.found)
        }
    }

    /// Renames `path` and its companion files to the first free `<path>.damaged-<n>`.
    static func moveAside(_ path: String) throws(Errno) -> String {
        var n = 1
        while FileSystem.exists("\(path).damaged-\(n)") { n += 1 }
        let target = "\(path).damaged-\(n)"
        try FileSystem.rename(path, to: target)
        for suffix in ["-wal", "-shm", PositionJournal.suffix] {
            do {
                try FileSystem.rename(path + suffix, to: target + suffix)
            } catch {
                if error.code != ENOENT { throw error }
            }
        }
        try? FileDescriptor.syncFolder(containing: path)  // the new database starts under the old name
        return target
    }

    // MARK: tracks

    static let trackColumns =
        "id, path, size, mtime_ns, title, artist, album, track_no, duration_ms, lyric_path, problem, last_position_ms,"
        + " tags, format, cue_file, cue_start, cue_end, cue_start_ms, cue_end_ms, coalesce(cue_chapters, chapters)"

    static func track(from row: Statement) -> TrackRecord {
        TrackRecord(
            id: row.int64(at: 0), path: row.string(at: 1) ?? "", size: row.int64(at: 2), mtimeNs: row.int64(at: 3),
            title: row.string(at: 4) ?? "", artist: row.string(at: 5), album: row.string(at: 6),
            trackNumber: row.optionalInt(at: 7), durationMs: row.optionalInt64(at: 8), lyricPath: row.string(at: 9),
            problem: row.string(at: 10), lastPositionMs: row.optionalInt64(at: 11),
            tags: TagText.decode(row.string(at: 12)), format: row.string(at: 13),
            cue: row.string(at: 14).map {
                CueSpan(
                    file: $0, startFrame: row.int64(at: 15), endFrame: row.optionalInt64(at: 16),
                    startMs: row.int64(at: 17), endMs: row.optionalInt64(at: 18))
            },
            chapters: row.string(at: 19).flatMap { ChapterList(text: $0, durationMs: nil)?.chapters } ?? [])
    }

    private func fetchTracks(_ sql: String, bind: (Statement) throws -> Void = { _ in }) throws -> [TrackRecord] {
        let statement = try cached(sql)
        defer { statement.reset() }
        try bind(statement)
        var result: [TrackRecord] = []
        while try statement.step() { result.append(Self.track(from: statement)) }
        return result
    }

    /// Every playable track (no `problem`), ordered by path; an audio file that CUE sheets
    /// split into tracks is left out, as MPD hides it (`hide_playlist_targets`).
    public func playableTracks() throws -> [TrackRecord] {
        try fetchTracks(
            """
            SELECT \(Self.trackColumns) FROM tracks WHERE problem IS NULL
                AND path NOT IN (SELECT cue_file FROM tracks WHERE cue_file IS NOT NULL) ORDER BY path
            """)
    }

    /// Every file the scanner could not use, with its reason, ordered by path.
    public func tracksWithProblems() throws -> [TrackRecord] {
        try fetchTracks("SELECT \(Self.trackColumns) FROM tracks WHERE problem IS NOT NULL ORDER BY path")
    }

    /// The track with this id, playable or not.
    public func track(id: Int64) throws -> TrackRecord? {
        try fetchTracks("SELECT \(Self.trackColumns) FROM tracks WHERE id = ?") { try $0.bind(id, at: 1) }.first
    }

    /// The tracks with these ids, in the order given; ids that no longer exist are left out.
    public func tracks(ids: [Int64]) throws -> [TrackRecord] {
        if ids.isEmpty { return [] }
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        let found = try fetchTracks(
            "SELECT \(Self.trackColumns) FROM tracks WHERE id IN (SELECT value FROM json_each(?))"
        ) { try $0.bind(list, at: 1) }
        var byID: [Int64: TrackRecord] = [:]
        for track in found { byID[track.id] = track }
        return ids.compactMap { byID[$0] }
    }

    /// Number of rows in `tracks` (playable or not).
    public func trackCount() throws -> Int {
        Int(try connection.scalarInt("SELECT count(*) FROM tracks") ?? 0)
    }

    // MARK: queue

    /// Replaces the saved queue (one transaction).
    public func saveQueue(_ rows: [QueueRecord], durable: Bool = true) throws {
        let insert = try cached("INSERT INTO queue(pos, track_id, entry_id, priority, version) VALUES (?, ?, ?, ?, ?)")
        try connection.transaction(durable: durable) {
            try connection.execute("DELETE FROM queue")
            for (pos, row) in rows.enumerated() {
                try insert.bind(pos, at: 1)
                try insert.bind(row.trackID, at: 2)
                try insert.bind(row.entryID.map(Int64.init), at: 3)
                try insert.bind(row.priority, at: 4)
                try insert.bind(Int64(row.version), at: 5)
                try insert.run()
            }
        }
    }

    /// The saved queue in order. Track ids may name tracks a later scan removed: look them up
    /// with `tracks(ids:)`.
    public func loadQueue() throws -> [QueueRecord] {
        let statement = try cached("SELECT track_id, entry_id, priority, version FROM queue ORDER BY pos")
        defer { statement.reset() }
        var rows: [QueueRecord] = []
        while try statement.step() {
            rows.append(
                QueueRecord(
                    trackID: statement.int64(at: 0),
                    entryID: statement.optionalInt64(at: 1).map { UInt32(truncatingIfNeeded: $0) },
                    priority: statement.int(at: 2), version: UInt32(truncatingIfNeeded: statement.int64(at: 3))))
        }
        return rows
    }

    // MARK: playback

    /// Writes the playback record. `durable` commits with fsync (events and the periodic
    /// checkpoint); `rememberTrackPosition` also stores `positionMs` as the track's
    /// `last_position_ms`, in the same transaction.
    public func savePlayback(_ record: PlaybackRecord, durable: Bool, rememberTrackPosition: Bool = false) throws {
        let upsert = try cached(
            """
            INSERT OR REPLACE INTO playback(id, queue_index, track_id, position_ms, state, mode, volume,
                shuffle_order, shuffle_history, rng_state, queue_version, journal_seq, next_entry_id)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let position = try cached("UPDATE tracks SET last_position_ms = ? WHERE id = ?")
        try connection.transaction(durable: durable) {
            try upsert.bind(record.queueIndex, at: 1)
            try upsert.bind(record.trackID, at: 2)
            try upsert.bind(record.positionMs, at: 3)
            try upsert.bind(record.state, at: 4)
            try upsert.bind(record.mode, at: 5)
            try upsert.bind(record.volume, at: 6)
            try upsert.bind(IntegerBlob.encode(record.shuffleOrder), at: 7)
            try upsert.bind(IntegerBlob.encode(record.shuffleHistory), at: 8)
            try upsert.bind(IntegerBlob.encode(record.rngState), at: 9)
            try upsert.bind(record.queueVersion, at: 10)
            try upsert.bind(Int64(bitPattern: record.journalSequence), at: 11)
            try upsert.bind(Int64(record.nextEntryID), at: 12)
            try upsert.run()
            if rememberTrackPosition, let trackID = record.trackID {
                try position.bind(record.positionMs, at: 1)
                try position.bind(trackID, at: 2)
                try position.run()
            }
        }
    }

    /// The playback record, or nil if none was ever saved.
    public func loadPlayback() throws -> PlaybackRecord? {
        let row = try cached(
            """
            SELECT queue_index, track_id, position_ms, state, mode, volume, shuffle_order, shuffle_history,
                rng_state, queue_version, journal_seq, next_entry_id FROM playback WHERE id = 1
            """)
        defer { row.reset() }
        guard try row.step() else { return nil }
        return PlaybackRecord(
            queueIndex: row.optionalInt(at: 0), trackID: row.optionalInt64(at: 1), positionMs: row.int64(at: 2),
            state: row.string(at: 3) ?? "", mode: row.string(at: 4) ?? "", volume: row.int(at: 5),
            shuffleOrder: IntegerBlob.decodeSigned(row.blob(at: 6)),
            shuffleHistory: IntegerBlob.decodeSigned(row.blob(at: 7)), rngState: IntegerBlob.decode(row.blob(at: 8)),
            queueVersion: row.int64(at: 9), journalSequence: UInt64(bitPattern: row.int64(at: 10)),
            nextEntryID: UInt32(truncatingIfNeeded: row.int64(at: 11)))
    }

    // MARK: per-track positions

    /// The remembered position inside a track, if any.
    public func position(ofTrack id: Int64) throws -> Int64? {
        let statement = try cached("SELECT last_position_ms FROM tracks WHERE id = ?")
        defer { statement.reset() }
        try statement.bind(id, at: 1)
        return try statement.step() ? statement.optionalInt64(at: 0) : nil
    }

    /// Every remembered position (long tracks the player left in the middle).
    public func savedTrackPositions() throws -> [Int64: Int64] {
        let statement = try cached("SELECT id, last_position_ms FROM tracks WHERE last_position_ms IS NOT NULL")
        defer { statement.reset() }
        var positions: [Int64: Int64] = [:]
        while try statement.step() { positions[statement.int64(at: 0)] = statement.int64(at: 1) }
        return positions
    }

    /// Remembers (or, with nil, forgets) the position inside a track, with where to start
    /// reading the file to reach it (`hint`). Worth it for long tracks only: the caller decides.
    public func setPosition(_ positionMs: Int64?, hint: SeekHint? = nil, ofTrack id: Int64, durable: Bool = false)
        throws
    {
        let statement = try cached("UPDATE tracks SET last_position_ms = ?, last_position_hint = ? WHERE id = ?")
        try connection.transaction(durable: durable) {
            try statement.bind(positionMs, at: 1)
            try statement.bind(
                positionMs == nil ? nil : hint.map { IntegerBlob.encode([$0.mpegFrame, $0.byteOffset, $0.fileSize]) },
                at: 2)
            try statement.bind(id, at: 3)
            try statement.run()
        }
    }

    /// Every long track's own playback speed, in hundredths.
    public func savedTrackSpeeds() throws -> [Int64: Int] {
        let statement = try cached("SELECT id, speed FROM tracks WHERE speed IS NOT NULL")
        defer { statement.reset() }
        var speeds: [Int64: Int] = [:]
        while try statement.step() { speeds[statement.int64(at: 0)] = statement.int(at: 1) }
        return speeds
    }

    /// Remembers the playback speed (hundredths) of a track: one durable transaction, as a
    /// setting (a speed is chosen rarely, by hand).
    public func setSpeed(_ hundredths: Int, ofTrack id: Int64) throws {
        let statement = try cached("UPDATE tracks SET speed = ? WHERE id = ?")
        try connection.transaction(durable: true) {
            defer { statement.reset() }
            try statement.bind(Int64(hundredths), at: 1)
            try statement.bind(id, at: 2)
            try statement.run()
        }
    }

    /// The seek hints stored with remembered positions.
    public func savedSeekHints() throws -> [Int64: SeekHint] {
        let statement = try cached(
            "SELECT id, last_position_hint FROM tracks WHERE last_position_ms IS NOT NULL AND last_position_hint IS NOT NULL"
        )
        defer { statement.reset() }
        var hints: [Int64: SeekHint] = [:]
        while try statement.step() {
            let words = IntegerBlob.decodeSigned(statement.blob(at: 1))
            guard words.count == 3, words[0] > 0 else { continue }
            hints[statement.int64(at: 0)] = SeekHint(mpegFrame: words[0], byteOffset: words[1], fileSize: words[2])
        }
        return hints
    }

    // MARK: counters

    /// Transactions this store committed.
    public var commitCount: Int { connection.commitCount }
    /// Of those, the fsync'd ones (`durable: true`).
    public var durableCommitCount: Int { connection.durableCommitCount }

    /// `PRAGMA integrity_check`: ["ok"] for a sound database (slow on big files: tests and diagnostics).
    public func integrityCheck() throws -> [String] {
        try connection.strings("PRAGMA integrity_check")
    }

    func cached(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = statements[sql] { return statement }
        let statement = try connection.prepare(sql)
        statements[sql] = statement
        return statement
    }
}

/// `mkdir -p` for the directory that holds `path`.
func makeParentDirectories(of path: String) throws(Errno) {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
    var current = ""
    for component in path[..<slash].split(separator: "/", omittingEmptySubsequences: true) {
        current += (current.isEmpty && !path.hasPrefix("/") ? "" : "/") + component
        try FileSystem.makeDirectory(current)
    }
}
