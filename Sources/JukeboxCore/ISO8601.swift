/// Times as MPD writes them (`Last-Modified: 2024-03-01T12:00:05Z`), and as `card info` writes
/// a card's `last_used:`.
public enum ISO8601 {
    /// `seconds` since the epoch as a UTC date and time.
    public static func utc(_ seconds: Int64) -> String {
        let second = CivilTime.date(seconds).secondOfDay
        let two = CivilTime.twoDigits
        return "\(CivilTime.dayText(seconds))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))Z"
    }

    /// `2024-03-01T12:00:05Z` (the Z may be left out, as the time: midnight) as seconds since
    /// the epoch, UTC; nil when it is not such a time.
    public static func seconds(_ text: String) -> Int64? {
        var rest = Substring(text)
        if rest.hasSuffix("Z") { rest = rest.dropLast() }
        let halves = rest.split(separator: "T", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        let date = halves[0].split(separator: "-", omittingEmptySubsequences: false).map { Int64($0) }
        let time =
            halves.count == 2
            ? halves[1].split(separator: ":", omittingEmptySubsequences: false).map { Int64($0) } : [0, 0, 0]
        guard date.count == 3, time.count == 3, let year = date[0], let month = date[1], let day = date[2],
            let hour = time[0], let minute = time[1], let second = time[2], (1970...9999).contains(year),
            (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second)
        else { return nil }
        return CivilTime.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }
}
