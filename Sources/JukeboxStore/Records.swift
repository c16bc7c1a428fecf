import JukeboxCore

/// One row of `tracks`: a file under the music directory. The daemon maps it to the
/// core's `TrackInfo`; ids are SQLite rowids (never reused: the table is AUTOINCREMENT).
public struct TrackRecord: Equatable, Sendable {
    public var id: Int64
    /// Path relative to the music directory, `/`-separated.
    public var path: String
    public var size: Int64
    /// Modification time in nanoseconds since the epoch (`st_mtim`).
    public var mtimeNs: Int64
    /// The tag title, or the file name without its extension for untagged files.
    public var title: String
    public var artist: String?
    public var album: String?
    public var trackNumber: Int?
    public var durationMs: Int64?
    /// Absolute path of the `.lrc`/`.ksc` sidecar, if one was found.
    public var lyricPath: String?
    /// Why the file cannot be played (the probe's error), nil for playable tracks.
    public var problem: String?
    /// The remembered position inside this track (long tracks only; the caller decides).
    public var lastPositionMs: Int64?
    /// The other tags (AlbumArtist, Genre, Date, ...).
    public var tags: [TrackTag]
    /// `44100:16:2`: the audio format, as MPD's `Format:`.
    public var format: String?
    /// For a CUE sheet's track: the part of the audio file it is (`size` and `mtimeNs` are
    /// that file's).
    public var cue: CueSpan?
    /// The file's chapters: a CUE sheet's read as chapters, else its own (MP4, ID3 CHAP).
    public var chapters: [Chapter]

    public init(
        id: Int64, path: String, size: Int64 = 0, mtimeNs: Int64 = 0, title: String, artist: String? = nil,
        album: String? = nil, trackNumber: Int? = nil, durationMs: Int64? = nil, lyricPath: String? = nil,
        problem: String? = nil, lastPositionMs: Int64? = nil, tags: [TrackTag] = [], format: String? = nil,
        cue: CueSpan? = nil, chapters: [Chapter] = []
    ) {
        self.chapters = chapters
        self.id = id
        self.path = path
        self.size = size
        self.mtimeNs = mtimeNs
        self.title = title
        self.artist = artist
        self.album = album
        self.trackNumber = trackNumber
        self.durationMs = durationMs
        self.lyricPath = lyricPath
        self.problem = problem
        self.lastPositionMs = lastPositionMs
        self.tags = tags
        self.format = format
        self.cue = cue
    }

    /// True when the track can be queued (its probe succeeded).
    public var isPlayable: Bool { problem == nil }
}

/// The single row of `playback`: what was playing, where, and how, so power-up continues
/// at the same place. Mode and state are stored as the core's raw strings; the daemon maps them.
public struct PlaybackRecord: Equatable, Sendable {
    /// Index into the saved queue (nil when nothing is current).
    public var queueIndex: Int?
    public var trackID: Int64?
    public var positionMs: Int64
    /// e.g. "playing", "paused", "stopped".
    public var state: String
    /// The play flags: a preset's name ("in-order", "repeat-all", "repeat-one", "shuffle") or
    /// the flags that are on ("random consume", "single-oneshot"); older records hold presets only.
    public var mode: String
    public var volume: Int
    /// The shuffle order (queue positions) and the shuffle history for `previous`.
    public var shuffleOrder: [Int64]
    public var shuffleHistory: [Int64]
    /// The deterministic RNG's state words.
    public var rngState: [UInt64]
    /// The queue version (MPD's `playlist:`) when the record was written.
    public var queueVersion: Int64
    /// The `PositionJournal` sequence number written together with this record: on
    /// resume, a journal entry with a higher sequence is newer than `positionMs`.
    public var journalSequence: UInt64
    /// The id the next added queue entry gets.
    public var nextEntryID: UInt32

    public init(
        queueIndex: Int?, trackID: Int64?, positionMs: Int64, state: String, mode: String, volume: Int,
        shuffleOrder: [Int64] = [], shuffleHistory: [Int64] = [], rngState: [UInt64] = [], queueVersion: Int64 = 0,
        journalSequence: UInt64 = 0, nextEntryID: UInt32 = 1
    ) {
        self.queueIndex = queueIndex
        self.trackID = trackID
        self.positionMs = positionMs
        self.state = state
        self.mode = mode
        self.volume = volume
        self.shuffleOrder = shuffleOrder
        self.shuffleHistory = shuffleHistory
        self.rngState = rngState
        self.queueVersion = queueVersion
        self.journalSequence = journalSequence
        self.nextEntryID = nextEntryID
    }
}

/// One row of `queue`: a track and what MPD keeps per queue entry.
public struct QueueRecord: Equatable, Sendable {
    public var trackID: Int64
    /// The entry's id (nil in rows saved before ids were kept).
    public var entryID: UInt32?
    public var priority: Int
    /// The queue version of the entry's last change (0: unknown).
    public var version: UInt32

    public init(trackID: Int64, entryID: UInt32? = nil, priority: Int = 0, version: UInt32 = 0) {
        self.trackID = trackID
        self.entryID = entryID
        self.priority = priority
        self.version = version
    }
}

/// What a media probe found in a file's tags; every field is optional.
public struct ProbedTags: Equatable, Sendable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var trackNumber: Int?
    public var durationMs: Int64?
    /// The other tags (AlbumArtist, Genre, Date, ...).
    public var tags: [TrackTag]
    /// `44100:16:2`.
    public var format: String?
    /// A CUE sheet inside the file (a FLAC's CUESHEET): the scanner lists its tracks.
    public var cueSheet: String?
    /// The file's own chapters (MP4 chapter list, ID3 CHAP frames).
    public var chapters: [Chapter]

    public init(
        title: String? = nil, artist: String? = nil, album: String? = nil, trackNumber: Int? = nil,
        durationMs: Int64? = nil, tags: [TrackTag] = [], format: String? = nil, cueSheet: String? = nil,
        chapters: [Chapter] = []
    ) {
        self.chapters = chapters
        self.title = title
        self.artist = artist
        self.album = album
        self.trackNumber = trackNumber
        self.durationMs = durationMs
        self.tags = tags
        self.format = format
        self.cueSheet = cueSheet
    }
}

/// The `tags` column: `Name US value RS Name US value ...` (ASCII unit and record
/// separators, which tag values never hold: they are dropped from values). An empty text
/// means "read, none found"; NULL (rows from before the column) means "not read yet".
enum TagText {
    static let unit: Character = "\u{1F}"
    static let record: Character = "\u{1E}"

    static func encode(_ tags: [TrackTag]) -> String {
        tags.map { tag in
            tag.name.rawValue + String(unit) + String(tag.value.filter { $0 != unit && $0 != record })
        }.joined(separator: String(record))
    }

    static func decode(_ text: String?) -> [TrackTag] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: record).compactMap { entry -> TrackTag? in
            let parts = entry.split(separator: unit, maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let name = TagName(rawValue: String(parts[0])) else { return nil }
            return TrackTag(name, String(parts[1]))
        }
    }
}

/// Little-endian packing of integer arrays into blobs (shuffle order, RNG state).
enum IntegerBlob {
    static func encode(_ values: [UInt64]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 8)
        for value in values {
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]?) -> [UInt64] {
        guard let bytes else { return [] }
        var values: [UInt64] = []
        values.reserveCapacity(bytes.count / 8)
        var index = 0
        while index + 8 <= bytes.count {
            var value: UInt64 = 0
            for byte in 0..<8 { value |= UInt64(bytes[index + byte]) << UInt64(8 * byte) }
            values.append(value)
            index += 8
        }
        return values
    }

    static func encode(_ values: [Int64]) -> [UInt8] { encode(values.map { UInt64(bitPattern: $0) }) }
    static func decodeSigned(_ bytes: [UInt8]?) -> [Int64] { decode(bytes).map { Int64(bitPattern: $0) } }
}
