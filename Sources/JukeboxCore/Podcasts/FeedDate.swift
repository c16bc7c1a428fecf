/// The dates feeds carry, as seconds since 1970 (UTC): RSS's RFC 822 (`Wed, 02 Oct 2002
/// 13:00:00 GMT`, with the lax forms feeds use: no weekday, no seconds, two-digit years,
/// numeric or named zones) and Atom's RFC 3339 (`2003-12-13T18:30:02.25+01:00`).
public enum FeedDate {
    /// The date, or nil when it is neither form.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmedSpaces
        if let first = trimmed.first, first.isNumber, trimmed.contains("-"), !trimmed.contains(" ") {
            return rfc3339(trimmed)
        }
        return rfc822(trimmed)
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    /// RFC 822's zone names, in minutes east of UTC.
    static let zones: [String: Int64] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0, "est": -300, "edt": -240, "cst": -360, "cdt": -300, "mst": -420,
        "mdt": -360, "pst": -480, "pdt": -420,
    ]

    static func rfc822(_ text: String) -> Int64? {
        var words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { $0.lowercased() }
        if let first = words.first, first.first?.isLetter == true { words.removeFirst() }
        guard words.count >= 4, let day = Int64(words[0]),
            let month = months.firstIndex(of: String(words[1].prefix(3))),
            var year = Int64(words[2])
        else { return nil }
        if words[2].count == 2 { year += year < 50 ? 2000 : 1900 }
        let clock = words[3].split(separator: ":").map { Int64($0) }
        guard clock.count == 2 || clock.count == 3, let hour = clock[0], let minute = clock[1],
            let second = clock.count == 3 ? clock[2] : 0
        else { return nil }
        var offset: Int64 = 0
        if words.count > 4 {
            guard let zone = zoneMinutes(words[4]) else { return nil }
            offset = zone
        }
        return CivilTime.seconds(
            year: year, month: Int64(month) + 1, day: day, hour: hour, minute: minute, second: second
        )
        .map { $0 - offset * 60 }
    }

    static func zoneMinutes(_ word: String) -> Int64? {
        if let named = zones[word] { return named }
        guard word.count == 5, let sign = word.first, sign == "+" || sign == "-", let digits = Int64(word.dropFirst())
        else { return nil }
        let minutes = digits / 100 * 60 + digits % 100
        return sign == "-" ? -minutes : minutes
    }

    static func rfc3339(_ text: String) -> Int64? {
        let parts = text.split(maxSplits: 1, whereSeparator: { $0 == "T" || $0 == "t" })
        let date = parts[0].split(separator: "-").map { Int64($0) }
        guard date.count == 3, let year = date[0], let month = date[1], let day = date[2] else { return nil }
        guard parts.count == 2 else {
            return CivilTime.seconds(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
        }
        var clock = Substring(parts[1])
        var offset: Int64 = 0
        if clock.hasSuffix("Z") || clock.hasSuffix("z") {
            clock = clock.dropLast()
        } else if let signIndex = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = clock[clock.index(after: signIndex)...].split(separator: ":").map { Int64($0) }
            guard zone.count == 2, let hours = zone[0], let minutes = zone[1] else { return nil }
            offset = (hours * 60 + minutes) * (clock[signIndex] == "-" ? -1 : 1)
            clock = clock[..<signIndex]
        }
        let fields = clock.split(separator: ":").map { Int64($0.prefix { $0 != "." }) }
        guard fields.count == 3, let hour = fields[0], let minute = fields[1], let second = fields[2] else {
            return nil
        }
        return CivilTime.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            .map { $0 - offset * 60 }
    }
}
