import JukeboxWeb

/// What Home Assistant shows of the box, read from the daemon's `status`, `currentsong` and
/// `sleep` replies.
public struct BoxState: Sendable, Equatable {
    /// MPD's `state`: play, pause or stop.
    public var playback = "stop"
    public var title = ""
    public var artist = ""
    /// 0 to 100; nil when the box has no volume to show.
    public var volume: Int?
    /// Whole minutes left on the sleep timer (rounded up); 0 when it is off or ends with the
    /// track, album or chapter.
    public var sleepMinutesLeft = 0
    /// Whether a sleep timer is set at all.
    public var sleepSet = false

    public init() {}

    /// The state in the three sections of `status`, `currentsong`, `sleep`.
    public init(status: [MPDField], song: [MPDField], sleep: [MPDField]) {
        func value(_ key: String, in fields: [MPDField]) -> String? { fields.first { $0.key == key }?.value }
        playback = value("state", in: status) ?? "stop"
        if let level = value("volume", in: status).flatMap(Int.init), (0...100).contains(level) { volume = level }
        if playback != "stop" {
            let file = value("file", in: song) ?? ""
            title = value("Title", in: song) ?? value("Name", in: song) ?? Self.fileName(file)
            artist = value("Artist", in: song) ?? ""
        }
        sleepSet = (value("sleep", in: sleep) ?? "off") != "off"
        if sleepSet, let left = value("sleep_left", in: sleep).flatMap(Int.init), left > 0, left < 1 << 40 {
            sleepMinutesLeft = (left + 59) / 60
        }
    }

    /// `Folder/01 Song.mp3` -> `01 Song`.
    static func fileName(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
