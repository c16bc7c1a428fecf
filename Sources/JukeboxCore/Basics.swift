/// The identity of a track in the library: its SQLite rowid.
public typealias TrackID = Int64

/// What the library knows about one track.
///
/// A value, kept in one shared, immutable object: the daemon holds every track in several
/// places (its table by id, the MPD index, the player, the menu), and a copy is then one
/// reference instead of ~250 bytes of fields. A setter replaces the object (tracks are
/// built once per scan and rarely changed after).
public struct TrackInfo: Sendable, Equatable, Hashable {
    private struct Fields: Sendable, Hashable {
        var id: TrackID
        var path: String
        var title: String?
        var artist: String?
        var album: String?
        var trackNumber: Int?
        var durationMs: Int64?
        var lyricPath: String?
        var tags: [TrackTag]
        var format: String?
        var modifiedSeconds: Int64?
        var cue: CueSpan?
        var chapters: ChapterList?
    }

    private final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    public var id: TrackID {
        get { storage.fields.id }
        set { change { $0.id = newValue } }
    }
    /// The file, relative to `music_dir`.
    public var path: String {
        get { storage.fields.path }
        set { change { $0.path = newValue } }
    }
    public var title: String? {
        get { storage.fields.title }
        set { change { $0.title = newValue } }
    }
    public var artist: String? {
        get { storage.fields.artist }
        set { change { $0.artist = newValue } }
    }
    public var album: String? {
        get { storage.fields.album }
        set { change { $0.album = newValue } }
    }
    public var trackNumber: Int? {
        get { storage.fields.trackNumber }
        set { change { $0.trackNumber = newValue } }
    }
    public var durationMs: Int64? {
        get { storage.fields.durationMs }
        set { change { $0.durationMs = newValue } }
    }
    /// The `.lrc` file beside the track, relative to `music_dir` (or `lyrics_dir`).
    public var lyricPath: String? {
        get { storage.fields.lyricPath }
        set { change { $0.lyricPath = newValue } }
    }
    /// Every other tag, in MPD's order.
    public var tags: [TrackTag] {
        get { storage.fields.tags }
        set { change { $0.tags = newValue } }
    }
    /// `44100:16:2`: rate, bits and channels of the decoded audio, as MPD's `Format:`.
    public var format: String? {
        get { storage.fields.format }
        set { change { $0.format = newValue } }
    }
    /// The file's modification time, seconds since the epoch.
    public var modifiedSeconds: Int64? {
        get { storage.fields.modifiedSeconds }
        set { change { $0.modifiedSeconds = newValue } }
    }
    /// For a CUE sheet's track: the part of the audio file it is (nil for a whole file).
    public var cue: CueSpan? {
        get { storage.fields.cue }
        set { change { $0.cue = newValue } }
    }
    /// The file's chapters (an audiobook's), nil when it has none.
    public var chapters: ChapterList? {
        get { storage.fields.chapters }
        set { change { $0.chapters = newValue } }
    }

    /// A track; only the id and path are required.
    public init(
        id: TrackID, path: String, title: String? = nil, artist: String? = nil, album: String? = nil,
        trackNumber: Int? = nil, durationMs: Int64? = nil, lyricPath: String? = nil, tags: [TrackTag] = [],
        format: String? = nil, modifiedSeconds: Int64? = nil, cue: CueSpan? = nil, chapters: ChapterList? = nil
    ) {
        storage = Storage(
            Fields(
                id: id, path: path, title: title, artist: artist, album: album, trackNumber: trackNumber,
                durationMs: durationMs, lyricPath: lyricPath, tags: tags, format: format,
                modifiedSeconds: modifiedSeconds, cue: cue, chapters: chapters))
    }

    private mutating func change(_ edit: (inout Fields) -> Void) {
        var fields = storage.fields
        edit(&fields)
        storage = Storage(fields)
    }

    public static func == (a: TrackInfo, b: TrackInfo) -> Bool {
        a.storage === b.storage || a.storage.fields == b.storage.fields
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(storage.fields) }

    /// Decoded wider than 16 bits (the bits of `format` above 16: a 24- or 32-bit FLAC, WAV
    /// or ALAC; not a float format, decoded to S16).
    public var isWide: Bool {
        guard let format, let bits = format.split(separator: ":").dropFirst().first.flatMap({ Int($0) }) else {
            return false
        }
        return bits > 16
    }

    /// The values of tag `name`, in file order.
    public func values(_ name: TagName) -> [String] {
        tags.compactMap { $0.name == name ? $0.value : nil }
    }

    /// What the box shows as its title: the tag, else the file name without its extension
    /// (MPD gives an untagged song no title; its clients show the file name too).
    public var shownTitle: String {
        if let title, !title.isEmpty { return title }
        return Self.fileStem(path)
    }

    /// The last component of `path` without its extension (`a/07 Song.mp3` -> `07 Song`).
    public static func fileStem(_ path: String) -> String {
        var name = Substring(path)
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return String(name)
    }
}

/// A point on the monotonic clock, in nanoseconds. The core never reads a clock: the daemon passes it in.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    /// The instant `nanoseconds` after the clock's origin.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The instant `milliseconds` after the clock's origin.
    public static func milliseconds(_ milliseconds: Int64) -> Instant {
        Instant(nanoseconds: milliseconds &* 1_000_000)
    }

    /// The clock's origin.
    public static let zero = Instant(nanoseconds: 0)

    /// This instant moved by `milliseconds` (negative moves back).
    public func adding(milliseconds: Int64) -> Instant {
        Instant(nanoseconds: nanoseconds &+ milliseconds &* 1_000_000)
    }

    /// This instant plus `nanoseconds`.
    public func adding(nanoseconds delta: Int64) -> Instant { Instant(nanoseconds: nanoseconds &+ delta) }

    /// Whole milliseconds from `earlier` to this instant (negative when `earlier` is later).
    public func milliseconds(since earlier: Instant) -> Int64 {
        (nanoseconds &- earlier.nanoseconds) / 1_000_000
    }

    /// Earlier instants are smaller.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The instant `milliseconds` later.
    public static func + (lhs: Instant, milliseconds: Int64) -> Instant { lhs.adding(milliseconds: milliseconds) }

    /// Milliseconds, for logs and test failures.
    public var description: String { "\(nanoseconds / 1_000_000)ms" }
}

/// A small deterministic random number generator (SplitMix64). Its whole state is one
/// `UInt64`, so a persisted queue restores the same shuffle.
public struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    public var state: UInt64

    /// A generator whose state starts at `seed` (any value, 0 included).
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0..<bound` (bound > 0), without modulo bias.
    public mutating func next(below bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        let limit = UInt64(bound)
        let threshold = (0 &- limit) % limit
        while true {
            let value = next()
            if value >= threshold { return Int(value % limit) }
        }
    }

    /// Fisher–Yates shuffle with this generator; stable across Swift versions (unlike `shuffle(using:)`).
    public mutating func shuffle<T>(_ array: inout [T]) {
        guard array.count > 1 else { return }
        for i in stride(from: array.count - 1, to: 0, by: -1) {
            let j = next(below: i + 1)
            if i != j { array.swapAt(i, j) }
        }
    }
}

/// The `key: value` lines of status replies, which the console's `status` and the MPD protocol
/// share.
public enum ReplyLine {
    /// `83450` ms → `83.450`, as MPD writes seconds (a negative time is `0.000`).
    public static func seconds(_ ms: Int64) -> String {
        let clamped = max(ms, 0)
        let fraction = clamped % 1000
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(clamped / 1000).\(padded)"
    }

    /// Replaces CR and LF so a value cannot end the reply or inject lines.
    public static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
    }
}

/// The daemon's version, shown by `--version` and the consoles' greetings.
public enum JukeboxVersion {
    public static let string = "0.1.0"
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and other whitespace.
    public var trimmedSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}

extension Comparable {
    /// The nearest value inside `range`.
    func clamped(to range: ClosedRange<Self>) -> Self {
        min(max(self, range.lowerBound), range.upperBound)
    }
}
