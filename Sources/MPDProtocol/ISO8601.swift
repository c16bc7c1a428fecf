import JukeboxCore

/// Times as MPD writes them (`Last-Modified: 2024-03-01T12:00:05Z`).
enum ISO8601 {
    /// `seconds` since the epoch as a UTC date and time.
    static func utc(_ seconds: Int64) -> String {
        let second = CivilTime.date(seconds).secondOfDay
        let two = CivilTime.twoDigits
        return "\(CivilTime.dayText(seconds))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))Z"
    }
}
