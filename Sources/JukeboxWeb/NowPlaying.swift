/// What the now-playing page shows, read from the replies of `status`, `currentsong`,
/// `playlistinfo` and `lyrics`.
public struct NowPlaying: Sendable, Equatable {
    /// One queue entry.
    public struct Entry: Sendable, Equatable {
        public var id: Int
        public var position: Int
        public var file: String
        public var title: String
        public var artist: String
        public var duration: Double?
    }

    /// `play`, `pause` or `stop`.
    public var state = "stop"
    public var file = ""
    public var title = ""
    public var artist = ""
    public var album = ""
    public var elapsed: Double = 0
    public var duration: Double = 0
    /// nil when the box has no volume control.
    public var volume: Int?
    public var songID: Int?
    /// The current song's place in the queue (`status`' `song`); nil when there is none.
    public var position: Int?
    /// The entries shown: `queueWindow` of them around the current song, not the whole queue
    /// (16,384 entries would be megabytes in every state event and in the phone's page).
    public var queue: [Entry] = []
    /// The position of `queue`'s first entry, and the whole queue's length.
    public var queueFrom = 0
    public var queueLength = 0
    /// How many queue entries the page shows.
    public static let queueWindow = 50
    /// The lyric line at the played position, and the one after it.
    public var lyric = ""
    public var nextLyric = ""

    public init() {}

    /// The state from `status` and `currentsong` (sections of one command list).
    public init(status: [MPDField], song: [MPDField]) {
        func value(_ key: String, _ fields: [MPDField]) -> String? { fields.first { $0.key == key }?.value }
        state = value("state", status) ?? "stop"
        elapsed = value("elapsed", status).flatMap(Double.init) ?? 0
        duration = value("duration", status).flatMap(Double.init) ?? value("duration", song).flatMap(Double.init) ?? 0
        volume = value("volume", status).flatMap(Int.init).flatMap { $0 >= 0 ? $0 : nil }
        songID = value("songid", status).flatMap(Int.init)
        position = value("song", status).flatMap(Int.init)
        queueLength = max(value("playlistlength", status).flatMap(Int.init) ?? 0, 0)
        file = value("file", song) ?? ""
        title = Self.title(value("Title", song), file: file, name: value("Name", song))
        artist = value("Artist", song) ?? ""
        album = value("Album", song) ?? ""
    }

    /// A song's title: its tag, a station's name, else its file name without the folder.
    static func title(_ tag: String?, file: String, name: String?) -> String {
        if let tag, !tag.isEmpty { return tag }
        if let name, !name.isEmpty { return name }
        return String(file.split(separator: "/").last ?? "")
    }

    /// The positions of the queue entries shown (`playlistinfo START:END`): from a few before
    /// the current song (the queue's start when there is none), `queueWindow` in all, within
    /// the queue.
    public static func queueRange(position: Int?, length: Int) -> Range<Int> {
        let length = max(length, 0)
        let start = max(min((position ?? 0) - 5, length - queueWindow), 0)
        return start..<min(start + queueWindow, length)
    }

    /// The queue from `playlistinfo`'s lines: each entry starts at its `file:` line.
    public static func queue(_ fields: [MPDField]) -> [Entry] {
        var entries: [Entry] = []
        var current: [MPDField] = []
        func flush() {
            guard let file = current.first?.value else { return }
            func value(_ key: String) -> String? { current.first { $0.key == key }?.value }
            guard let id = value("Id").flatMap(Int.init), let position = value("Pos").flatMap(Int.init) else { return }
            entries.append(
                Entry(
                    id: id, position: position, file: file,
                    title: title(value("Title"), file: file, name: value("Name")), artist: value("Artist") ?? "",
                    duration: value("duration").flatMap(Double.init)))
        }
        for field in fields {
            if field.key == "file" {
                flush()
                current = []
            }
            current.append(field)
        }
        flush()
        return entries
    }

    /// Takes `lyrics`' reply (empty when the song has none).
    public mutating func setLyrics(_ fields: [MPDField]) {
        lyric = fields.first { $0.key == "line" }?.value ?? ""
        nextLyric = fields.first { $0.key == "next" }?.value ?? ""
    }

    /// The state as the page's script reads it (`state` events).
    public var json: String {
        let entries = queue.map { entry in
            JSONText.object([
                ("id", String(entry.id)), ("pos", String(entry.position)), ("title", JSONText.string(entry.title)),
                ("artist", JSONText.string(entry.artist)), ("file", JSONText.string(entry.file)),
                ("duration", entry.duration.map(JSONText.number) ?? "null"),
            ])
        }
        return JSONText.object([
            ("state", JSONText.string(state)), ("file", JSONText.string(file)), ("title", JSONText.string(title)),
            ("artist", JSONText.string(artist)), ("album", JSONText.string(album)),
            ("elapsed", JSONText.number(elapsed)), ("duration", JSONText.number(duration)),
            ("volume", volume.map(String.init) ?? "null"), ("songid", songID.map(String.init) ?? "null"),
            ("lyric", JSONText.string(lyric)), ("next", JSONText.string(nextLyric)),
            ("cover", JSONText.string(file.isEmpty ? "" : Self.coverPath(file))),
            ("queue", "[" + entries.joined(separator: ",") + "]"),
            ("queue_from", String(queueFrom)), ("queue_length", String(queueLength)),
        ])
    }

    /// Says what of the queue the page does not show: `12 before · 3,000 more`; empty when
    /// it shows all of it.
    public var queueElsewhere: String {
        let after = max(queueLength - queueFrom - queue.count, 0)
        return [queueFrom > 0 ? "\(queueFrom) before" : nil, after > 0 ? "\(after) more" : nil]
            .compactMap { $0 }.joined(separator: " · ")
    }

    /// The address of `file`'s cover.
    public static func coverPath(_ file: String) -> String { "/cover?file=" + HTMLText.queryValue(file) }

    /// `m:ss`, or `h:mm:ss` from an hour on.
    public static func clock(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int(seconds)) : 0
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        let ss = rest < 10 ? "0\(rest)" : "\(rest)"
        if hours > 0 { return "\(hours):\(minutes < 10 ? "0" : "")\(minutes):\(ss)" }
        return "\(minutes):\(ss)"
    }
}
