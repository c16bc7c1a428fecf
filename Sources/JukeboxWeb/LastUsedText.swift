import JukeboxCore

/// When a card was last put on the reader, in the words a parent reads on the cards page:
/// "today 07:32", "yesterday 19:05", "3 days ago", "2026-11-02", "never". Days are the box's
/// local days (the zone's offset passed in, as the rules get it); a time ahead of now (the
/// clock was set back) shows as its date, or "today" when it is today.
public enum LastUsedText {
    /// A card used this many days ago or more shows its date.
    public static let datedAfterDays: Int64 = 7

    /// The text for `lastUsed` (seconds since 1970, UTC; nil: never) seen at `now` in a zone
    /// `utcOffsetSeconds` east of UTC.
    public static func text(_ lastUsed: Int64?, now: Int64, utcOffsetSeconds: Int64) -> String {
        guard let lastUsed else { return "never" }
        let local = lastUsed + utcOffsetSeconds
        let days = localDay(now + utcOffsetSeconds) - localDay(local)
        let second = CivilTime.date(local).secondOfDay
        let clock = "\(CivilTime.twoDigits(second / 3600)):\(CivilTime.twoDigits(second / 60 % 60))"
        switch days {
        case 0: return "today \(clock)"
        case 1: return "yesterday \(clock)"
        case 2..<datedAfterDays: return "\(days) days ago"
        default: return CivilTime.dayText(local)
        }
    }

    /// Days since 1970 of a local time in seconds (floored, also before 1970).
    private static func localDay(_ seconds: Int64) -> Int64 {
        seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }
}
