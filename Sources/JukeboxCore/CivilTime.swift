/// UTC calendar dates and seconds since 1970, both ways (Howard Hinnant's days_from_civil and
/// civil_from_days, proleptic Gregorian): feed dates, MPD's Last-Modified, the console's lists.
public enum CivilTime {
    /// Seconds since 1970 of a UTC date and time; nil when a field is out of range.
    public static func seconds(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64)
        -> Int64?
    {
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second), (1...9999).contains(year)
        else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The UTC date of `seconds` since 1970, and the second of that day.
    public static func date(_ seconds: Int64) -> (year: Int64, month: Int64, day: Int64, secondOfDay: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day, seconds - days * 86_400)
    }

    /// `2024-01-31`.
    public static func dayText(_ seconds: Int64) -> String {
        let date = date(seconds)
        return "\(date.year)-\(twoDigits(date.month))-\(twoDigits(date.day))"
    }

    /// `07`.
    public static func twoDigits(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
