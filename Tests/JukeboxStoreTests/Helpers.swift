import Glibc
import JukeboxCore
import JukeboxStore
import LinuxSupport
import Logging
import SQLite
import Synchronization

/// A logger that drops everything (test output stays readable).
let quietLogger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

/// A logger that keeps its messages, for tests that check what was logged.
final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    let lock = ConditionLock()
    private var storage: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var messages: [String] { lock.withLock { storage } }

    func log(event: LogEvent) {
        lock.withLock { storage.append(event.message.description) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func logger() -> Logger { Logger(label: "test", factory: { _ in self }) }
}

/// `mkdir -p`.
func makeDirectories(_ path: String) {
    var current = ""
    for component in path.split(separator: "/") {
        current += "/" + component
        _ = mkdir(current, 0o755)
    }
}

/// Writes `bytes` to `path`, creating parent directories.
func writeFile(_ path: String, _ bytes: [UInt8]) {
    makeDirectories(String(path[..<path.lastIndex(of: "/")!]))
    let fd = try! FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC)
    if !bytes.isEmpty { try! fd.writeAll(bytes) }
}

func writeFile(_ path: String, _ text: String) { writeFile(path, Array(text.utf8)) }

/// Sets a file's modification time (seconds + nanoseconds).
func setModificationTime(_ path: String, seconds: Int, nanoseconds: Int = 0) {
    var times = [timespec(tv_sec: seconds, tv_nsec: nanoseconds), timespec(tv_sec: seconds, tv_nsec: nanoseconds)]
    precondition(utimensat(AT_FDCWD, path, &times, 0) == 0, "utimensat failed")
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// The error a fake probe throws.
struct FakeProbeError: Error, CustomStringConvertible {
    var description: String
}

/// Counts probe calls across threads.
final class ProbeCounter: Sendable {
    let count = Atomic<Int>(0)
    func increment() -> Int { count.wrappingAdd(1, ordering: .relaxed).newValue }
    var value: Int { count.load(ordering: .relaxed) }
}

/// A fake media probe over plain files: an empty file is "not an MPEG audio file (0 bytes)",
/// a file starting with "BAD" throws its remaining text, "TAG title|artist|album|track|ms|Name=value;...|ms:chapter;..."
/// gives those tags and chapters (and the format 44100:16:2), anything else is untagged.
func fakeProbe(counter: ProbeCounter? = nil) -> @Sendable (String) throws -> ProbedTags {
    { path in
        _ = counter?.increment()
        let bytes = try readWholeFile(path)
        if bytes.isEmpty { throw FakeProbeError(description: "not an MPEG audio file (0 bytes)") }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("BAD") { throw FakeProbeError(description: String(text.dropFirst(4))) }
        guard text.hasPrefix("TAG ") else { return ProbedTags() }
        let fields = text.dropFirst(4).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        return ProbedTags(
            title: fields[0], artist: fields.count > 1 ? fields[1] : nil, album: fields.count > 2 ? fields[2] : nil,
            trackNumber: fields.count > 3 ? Int(fields[3]) : nil,
            durationMs: fields.count > 4 ? Int64(fields[4]) : nil,
            tags: fields.count > 5
                ? fields[5].split(separator: ";").map {
                    let pair = $0.split(separator: "=", maxSplits: 1)
                    return TrackTag(TagName(rawValue: String(pair[0]))!, String(pair[1]))
                } : [],
            format: "44100:16:2",
            chapters: fields.count > 6
                ? fields[6].split(separator: ";").map {
                    let pair = $0.split(separator: ":", maxSplits: 1)
                    return Chapter(title: String(pair[1]), startMs: Int64(pair[0])!)
                } : [])
    }
}

/// A scanner over `music` writing to `database`, with the fake probe.
func makeScanner(
    database: String, music: String, lyrics: String? = nil, counter: ProbeCounter? = nil, batchSize: Int = 500,
    logger: Logger = quietLogger, cueSheets: CueSheetReading = .tracks
) -> LibraryScanner {
    LibraryScanner(
        databasePath: database, musicDirectory: music, lyricsDirectory: lyrics, audioExtensions: ["mp3", "wav"],
        probe: fakeProbe(counter: counter),
        logger: logger, batchSize: batchSize, cueSheets: cueSheets, cueChaptersMs: 80 * 60_000)
}

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

/// A database as an older jukeboxd left it: schema `version` (1: before seek hints, 2: before
/// tags), with the SQL `rows` run after the tables are made.
func makeOldDatabase(at path: String, version: Int, rows: String) throws {
    let raw = try Connection(path: path)
    try raw.execute(
        """
        CREATE TABLE tracks (id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL UNIQUE,
            size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, title TEXT NOT NULL, artist TEXT, album TEXT,
            track_no INTEGER, duration_ms INTEGER, lyric_path TEXT, problem TEXT, last_position_ms INTEGER);
        CREATE TABLE queue (pos INTEGER PRIMARY KEY, track_id INTEGER NOT NULL);
        CREATE TABLE playback (id INTEGER PRIMARY KEY CHECK (id = 1), queue_index INTEGER, track_id INTEGER,
            position_ms INTEGER NOT NULL, state TEXT NOT NULL, mode TEXT NOT NULL, volume INTEGER NOT NULL,
            shuffle_order BLOB, shuffle_history BLOB, rng_state BLOB, queue_version INTEGER NOT NULL,
            journal_seq INTEGER NOT NULL DEFAULT 0);
        \(version >= 2 ? "ALTER TABLE tracks ADD COLUMN last_position_hint BLOB;" : "")
        \(version >= 3 ? "ALTER TABLE tracks ADD COLUMN tags TEXT; ALTER TABLE tracks ADD COLUMN format TEXT;" : "")
        \(rows)
        PRAGMA user_version=\(version);
        """)
}
