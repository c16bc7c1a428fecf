import Glibc
import JukeboxCore
import LinuxSupport
import Logging
import SQLite
import Synchronization

/// The result of one scan.
public struct ScanReport: Sendable, CustomStringConvertible {
    /// A file or directory the scan could not use, and why.
    public struct Skipped: Equatable, Sendable {
        public var path: String
        public var reason: String
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    public var added = 0
    public var updated = 0
    public var removed = 0
    public var unchanged = 0
    /// Files whose probe failed in this scan (they are recorded with their `problem`), and
    /// names or directories that could not be read. Known bad files that did not change
    /// are counted as unchanged and not probed or logged again.
    public var skipped: [Skipped] = []
    /// Wall time of the whole scan.
    public var duration: Duration = .zero
    /// Of that, time spent walking the directory trees (readdir + fstatat).
    public var walkDuration: Duration = .zero
    /// Of that, time spent inside the probe closure. The rest is database work.
    public var probeDuration: Duration = .zero
    /// Transactions committed.
    public var commits = 0

    public var description: String {
        "\(added) added, \(updated) updated, \(removed) removed, \(unchanged) unchanged, \(skipped.count) skipped"
            + " in \(Self.milliseconds(duration)) ms"
            + " (walking \(Self.milliseconds(walkDuration)) ms, probing \(Self.milliseconds(probeDuration)) ms,"
            + " \(commits) commits)"
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = (seconds * 10_000 + attoseconds / 100_000_000_000_000)
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// Brings the `tracks` table in line with the music directory.
///
/// Runs on its own thread (`jb-scan`) with its OWN connection to the database, opened on
/// the first `scan()`: `scan()` must always be called from that one thread, one call at a
/// time. `cancel()` may be called from any thread. Open the `LibraryStore` first: it
/// repairs a damaged database, the scanner does not.
///
/// A scan is incremental: one SELECT loads path, size and mtime of every row; the tree is
/// walked with readdir + fstatat; only new or changed files (size or mtime_ns differ) are
/// probed; vanished files are deleted. Probing happens outside transactions, and writes go
/// in batches of `batchSize` rows per transaction, so the control thread's writes wait at
/// most one batch, readers never wait (WAL), and a `kill -9` mid-scan leaves a consistent
/// database that the next scan completes. When nothing changed, nothing is written.
/// The scanner never touches `queue` or `playback`: a queued track that vanished keeps its
/// id in the queue, and `LibraryStore.tracks(ids:)` leaves it out.
public final class LibraryScanner: @unchecked Sendable {
    /// The scan was cancelled; the batches committed before stay.
    public struct Cancelled: Error, CustomStringConvertible {
        public var description: String { "scan cancelled" }
    }

    public let databasePath: String
    public let musicDirectory: String
    public let lyricsDirectory: String?
    private let audioExtensions: Set<String>
    private let probe: @Sendable (String) throws -> ProbedTags
    let logger: Logger
    private let batchSize: Int
    /// How CUE sheets are read (`[chapters] cue_sheets`) and, for `auto`, the file length over
    /// which a sheet is chapters.
    let cueSheets: CueSheetReading
    let cueChaptersMs: Int64
    private let cancelled = Atomic<Bool>(false)
    /// Used only by the thread that calls `scan()`.
    private var connection: Connection?

    /// - Parameters:
    ///   - audioExtensions: the lowercased extensions of the files to probe ("mp3", "flac", ...).
    ///   - probe: reads the tags of the file at an absolute path; throwing marks the file
    ///     unplayable, with the error's description as the reason.
    ///   - batchSize: rows written per transaction.
    ///   - cueSheets, cueChaptersMs: when a CUE sheet is its file's chapters instead of tracks.
    public init(
        databasePath: String, musicDirectory: String, lyricsDirectory: String?, audioExtensions: Set<String>,
        probe: @escaping @Sendable (String) throws -> ProbedTags, logger: Logger, batchSize: Int = 500,
        cueSheets: CueSheetReading = .tracks, cueChaptersMs: Int64 = 80 * 60_000
    ) {
        self.cueSheets = cueSheets
        self.cueChaptersMs = cueChaptersMs
        self.audioExtensions = audioExtensions
        self.databasePath = databasePath
        self.musicDirectory = Self.trimmingTrailingSlashes(musicDirectory)
        self.lyricsDirectory = lyricsDirectory.map(Self.trimmingTrailingSlashes)
        self.probe = probe
        self.logger = logger
        self.batchSize = max(1, batchSize)
    }

    /// Asks a running (or the next) scan to stop after the current file. Any thread.
    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// A row as the scanner needs it.
    struct Existing {
        var id: Int64
        var size: Int64
        var mtimeNs: Int64
        var lyricPath: String?
        /// False for playable rows scanned before the `tags` column existed, and for long
        /// MP3/MP4 rows from before the `chapters` column: probed again.
        var tagsRead: Bool
    }

    /// One pending write.
    private enum Write {
        case insert(DirectoryWalker.File, ProbedTags?, problem: String?, lyricPath: String?)
        case update(Int64, DirectoryWalker.File, ProbedTags?, problem: String?, lyricPath: String?)
        /// New tags for an unchanged file (its remembered position stays).
        case retag(Int64, DirectoryWalker.File, ProbedTags)
        case lyric(Int64, String?)
        case delete(Int64)
    }

    /// Scans the music directory once. Throws if the database cannot be opened or written,
    /// if the music directory itself cannot be read (nothing is removed then), or
    /// `Cancelled`.
    public func scan() throws -> ScanReport {
        let start = MonotonicClock.nanoseconds()
        var report = ScanReport()
        let connection = try openConnection()
        let commitsBefore = connection.commitCount

        var existing: [String: Existing] = [:]
        let select = try connection.prepare(
            """
            SELECT id, path, size, mtime_ns, lyric_path, (tags IS NOT NULL AND chapters IS NOT NULL) OR problem IS NOT NULL
            FROM tracks
            """)
        while try select.step() {
            existing[select.string(at: 1) ?? ""] = Existing(
                id: select.int64(at: 0), size: select.int64(at: 2), mtimeNs: select.int64(at: 3),
                lyricPath: select.string(at: 4), tagsRead: select.int64(at: 5) != 0)
        }

        let walkStart = MonotonicClock.nanoseconds()
        let tree = try DirectoryWalker(audioExtensions: audioExtensions).walk(root: musicDirectory) { isCancelled }
        var lyricsElsewhere: [String: String] = [:]
        if let lyricsDirectory {
            do {
                lyricsElsewhere = try DirectoryWalker(audioExtensions: []).walk(root: lyricsDirectory).lyricFiles
            } catch {
                logger.info("lyrics directory not read: \(error)")
            }
        }
        report.walkDuration = .nanoseconds(Int64(MonotonicClock.nanoseconds() - walkStart))
        if isCancelled { throw Cancelled() }
        for skipped in tree.skipped {
            logger.info("skipped \(skipped.path): \(skipped.reason)")
        }
        report.skipped = tree.skipped

        var pending: [Write] = []
        var writer: BatchWriter?
        func flush() throws {
            if pending.isEmpty { return }
            if writer == nil { writer = try BatchWriter(connection: connection) }
            try writer!.write(pending)
            pending.removeAll(keepingCapacity: true)
        }
        var seen = Set<String>()
        var toProbe: [(file: DirectoryWalker.File, old: Existing?, lyricPath: String?)] = []
        for file in tree.audioFiles {
            guard seen.insert(file.path).inserted else {
                // Two names that differ only in Unicode normalization compare equal in Swift.
                report.skipped.append(
                    .init(path: file.path, reason: "another file has the same name in another Unicode normalization"))
                continue
            }
            let lyricPath = lyricPath(for: file.path, beside: tree.lyricFiles, elsewhere: lyricsElsewhere)
            let old = existing.removeValue(forKey: file.path)
            if let old, old.size == file.size, old.mtimeNs == file.mtimeNs, old.tagsRead {
                if old.lyricPath == lyricPath {
                    report.unchanged += 1
                } else {
                    pending.append(.lyric(old.id, lyricPath))
                    report.updated += 1
                }
            } else {
                toProbe.append((file, old, lyricPath))
            }
        }

        // New files get their ids in path order.
        toProbe.sort { $0.file.path < $1.file.path }
        var probeNanoseconds: UInt64 = 0
        for (file, old, lyricPath) in toProbe {
            if isCancelled { throw Cancelled() }
            let probeStart = MonotonicClock.nanoseconds()
            var tags: ProbedTags?
            var problem: String?
            do {
                tags = try probe(musicDirectory + "/" + file.path)
            } catch {
                problem = String(describing: error)
            }
            probeNanoseconds += MonotonicClock.nanoseconds() - probeStart
            if let problem {
                logger.info("skipped \(file.path): \(problem)")
                report.skipped.append(.init(path: file.path, reason: problem))
            } else if old == nil {
                report.added += 1
            } else {
                report.updated += 1
            }
            if let old, let tags, old.size == file.size, old.mtimeNs == file.mtimeNs {
                pending.append(.retag(old.id, file, tags))
                if old.lyricPath != lyricPath { pending.append(.lyric(old.id, lyricPath)) }
            } else if let old {
                pending.append(.update(old.id, file, tags, problem: problem, lyricPath: lyricPath))
            } else {
                pending.append(.insert(file, tags, problem: problem, lyricPath: lyricPath))
            }
            if pending.count >= batchSize { try flush() }
        }

        try flush()
        try updateCueTracks(
            tree.cueSheets, audioFiles: seen, connection: connection, existing: &existing, report: &report)

        // What is left in `existing` has vanished, unless it lies in a directory we could not read.
        for (path, old) in existing where !tree.unreadableDirectories.contains(where: { Self.path(path, isInside: $0) })
        {
            pending.append(.delete(old.id))
            report.removed += 1
            if pending.count >= batchSize { try flush() }
        }
        try flush()

        report.commits = connection.commitCount - commitsBefore
        report.probeDuration = .nanoseconds(Int64(probeNanoseconds))
        report.duration = .nanoseconds(Int64(MonotonicClock.nanoseconds() - start))
        logger.info("library scan of \(musicDirectory): \(report)")
        return report
    }

    private func openConnection() throws -> Connection {
        if let connection { return connection }
        let opened = try Connection(path: databasePath, options: LibraryStore.connectionOptions)
        try Schema.migrate(opened)
        connection = opened
        return opened
    }

    /// The sidecar for a track: `.lrc`, then `.ksc`, beside the track; then in the lyrics
    /// directory at the same relative path; then at the top of the lyrics directory.
    private func lyricPath(for track: String, beside: [String: String], elsewhere: [String: String]) -> String? {
        if beside.isEmpty && elsewhere.isEmpty { return nil }
        let stem = DirectoryWalker.stem(of: track)
        for ext in DirectoryWalker.lyricExtensions where !beside.isEmpty {
            if let found = beside[stem + "." + ext] { return musicDirectory + "/" + found }
        }
        guard let lyricsDirectory, !elsewhere.isEmpty else { return nil }
        let baseName = stem.lastIndex(of: "/").map { stem[stem.index(after: $0)...] } ?? stem
        for key in [String(stem), String(baseName)] {
            for ext in DirectoryWalker.lyricExtensions {
                if let found = elsewhere[key + "." + ext] { return lyricsDirectory + "/" + found }
            }
        }
        return nil
    }

    private static func path(_ path: String, isInside directory: String) -> Bool {
        path.hasPrefix(directory + "/")
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The prepared statements of one scan; writes one batch per transaction.
    private final class BatchWriter {
        let connection: Connection
        let insert: Statement
        let update: Statement
        let lyric: Statement
        let retag: Statement
        let delete: Statement

        init(connection: Connection) throws {
            self.connection = connection
            insert = try connection.prepare(
                """
                INSERT INTO tracks(path, size, mtime_ns, title, artist, album, track_no, duration_ms, lyric_path,
                    problem, tags, format, embedded_cue, chapters)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            update = try connection.prepare(
                """
                UPDATE tracks SET size = ?2, mtime_ns = ?3, title = ?4, artist = ?5, album = ?6, track_no = ?7,
                    duration_ms = ?8, lyric_path = ?9, problem = ?10, tags = ?11, format = ?12, embedded_cue = ?13,
                    chapters = ?14, last_position_ms = NULL, last_position_hint = NULL
                WHERE id = ?1
                """)
            retag = try connection.prepare(
                """
                UPDATE tracks SET title = ?2, artist = ?3, album = ?4, track_no = ?5, duration_ms = ?6, tags = ?7,
                    format = ?8, embedded_cue = ?9, chapters = ?10
                WHERE id = ?1
                """)
            lyric = try connection.prepare("UPDATE tracks SET lyric_path = ? WHERE id = ?")
            delete = try connection.prepare("DELETE FROM tracks WHERE id = ?")
        }

        func write(_ writes: [Write]) throws {
            try connection.transaction(durable: false) {
                for write in writes {
                    switch write {
                    case .insert(let file, let tags, let problem, let lyricPath):
                        try insert.bind(file.path, at: 1)
                        try bindTrack(insert, file, tags, problem, lyricPath)
                        try insert.run()
                    case .update(let id, let file, let tags, let problem, let lyricPath):
                        try update.bind(id, at: 1)
                        try bindTrack(update, file, tags, problem, lyricPath)
                        try update.run()
                    case .retag(let id, let file, let tags):
                        try retag.bind(id, at: 1)
                        try retag.bind(LibraryScanner.title(tags.title, path: file.path), at: 2)
                        try retag.bind(LibraryScanner.nonEmpty(tags.artist), at: 3)
                        try retag.bind(LibraryScanner.nonEmpty(tags.album), at: 4)
                        try retag.bind(tags.trackNumber, at: 5)
                        try retag.bind(tags.durationMs, at: 6)
                        try retag.bind(TagText.encode(tags.tags), at: 7)
                        try retag.bind(tags.format, at: 8)
                        try retag.bind(tags.cueSheet, at: 9)
                        try retag.bind(Self.chapterText(tags.chapters, durationMs: tags.durationMs), at: 10)
                        try retag.run()
                    case .lyric(let id, let path):
                        try lyric.bind(path, at: 1)
                        try lyric.bind(id, at: 2)
                        try lyric.run()
                    case .delete(let id):
                        try delete.bind(id, at: 1)
                        try delete.run()
                    }
                }
            }
        }

        /// The `chapters` column of a probed file: '' when it has none.
        static func chapterText(_ chapters: [Chapter], durationMs: Int64?) -> String {
            ChapterList(chapters, durationMs: durationMs)?.text ?? ""
        }

        /// Binds parameters 2...14 (everything but the path or id).
        private func bindTrack(
            _ statement: Statement, _ file: DirectoryWalker.File, _ tags: ProbedTags?, _ problem: String?,
            _ lyricPath: String?
        ) throws {
            try statement.bind(file.size, at: 2)
            try statement.bind(file.mtimeNs, at: 3)
            try statement.bind(LibraryScanner.title(tags?.title, path: file.path), at: 4)
            try statement.bind(LibraryScanner.nonEmpty(tags?.artist), at: 5)
            try statement.bind(LibraryScanner.nonEmpty(tags?.album), at: 6)
            try statement.bind(tags?.trackNumber, at: 7)
            try statement.bind(tags?.durationMs, at: 8)
            try statement.bind(lyricPath, at: 9)
            try statement.bind(problem, at: 10)
            try statement.bind(TagText.encode(tags?.tags ?? []), at: 11)
            try statement.bind(tags?.format, at: 12)
            try statement.bind(tags?.cueSheet, at: 13)
            try statement.bind(Self.chapterText(tags?.chapters ?? [], durationMs: tags?.durationMs), at: 14)
        }
    }

    /// The tag title, or the file name without its extension when the tag is missing or blank.
    static func title(_ tagged: String?, path: String) -> String {
        if let tagged = nonEmpty(tagged) { return tagged }
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        return String(DirectoryWalker.stem(of: name))
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, text.contains(where: { !$0.isWhitespace }) else { return nil }
        return text
    }
}
