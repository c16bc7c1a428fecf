/// A day of the week; Monday first (ISO 8601).
public enum Weekday: Int, Sendable, Equatable, CaseIterable, Comparable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// `mon` … `sun`, as the rules write them.
    public var word: String { ["mon", "tue", "wed", "thu", "fri", "sat", "sun"][rawValue] }

    /// The weekday of the day `day` days after 1970-01-01 (a Thursday).
    public init(daysSince1970 day: Int64) {
        let index = ((day + 3) % 7 + 7) % 7
        self = Weekday(rawValue: Int(index)) ?? .monday
    }

    /// The day before.
    public var previous: Weekday { Weekday(rawValue: (rawValue + 6) % 7) ?? .monday }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The days a rule holds on: `mon-fri`, `sat,sun`, `all`, `weekdays`, `weekend`, `tue`.
public struct WeekdaySet: Sendable, Equatable, CustomStringConvertible {
    public var bits: UInt8

    public static let all = WeekdaySet(bits: 0x7F)

    public init(bits: UInt8) { self.bits = bits & 0x7F }

    public init(_ days: [Weekday]) { self.init(bits: days.reduce(0) { $0 | 1 << $1.rawValue }) }

    public func contains(_ day: Weekday) -> Bool { bits & 1 << day.rawValue != 0 }

    /// The set as `parse` reads it back: `all`, or days and ranges (`mon-fri,sun`).
    public var description: String {
        if self == .all { return "all" }
        var parts: [String] = []
        var day = 0
        while day < 7 {
            guard bits & 1 << day != 0 else {
                day += 1
                continue
            }
            var last = day
            while last + 1 < 7, bits & 1 << (last + 1) != 0 { last += 1 }
            let first = Weekday(rawValue: day)!.word
            parts.append(last == day ? first : "\(first)-\(Weekday(rawValue: last)!.word)")
            day = last + 1
        }
        return parts.joined(separator: ",")
    }

    /// `mon-fri`, `sat,sun`, `fri-mon` (a range may wrap over the week's end), `all`/`daily`,
    /// `weekdays`, `weekend`; nil for anything else.
    public static func parse(_ text: String) -> WeekdaySet? {
        switch text.lowercased() {
        case "all", "daily": return .all
        case "weekdays": return WeekdaySet([.monday, .tuesday, .wednesday, .thursday, .friday])
        case "weekend": return WeekdaySet([.saturday, .sunday])
        default: break
        }
        var set = WeekdaySet(bits: 0)
        for part in text.lowercased().split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false).map { word in
                Weekday.allCases.first { $0.word == word }
            }
            guard (1...2).contains(ends.count), let first = ends[0], let last = ends[ends.count - 1] else { return nil }
            var day = first
            while true {
                set.bits |= 1 << day.rawValue
                if day == last { break }
                day = Weekday(rawValue: (day.rawValue + 1) % 7)!
            }
        }
        return set
    }
}

/// The wall time as the box's zone shows it: seconds since 1970 in UTC and the zone's offset
/// from UTC at that moment (daylight saving included), both as the system's zone rules give
/// them. The daemon asks the system (`localtime_r`); the rules never know the zone's rules.
public struct LocalWallTime: Sendable, Equatable {
    public var utcSeconds: Int64
    public var utcOffsetSeconds: Int64

    public init(utcSeconds: Int64, utcOffsetSeconds: Int64) {
        self.utcSeconds = utcSeconds
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// Seconds since 1970 on the local calendar.
    public var localSeconds: Int64 { utcSeconds + utcOffsetSeconds }
    /// The local day, as days since 1970-01-01.
    public var day: Int64 { localSeconds >= 0 ? localSeconds / 86_400 : (localSeconds - 86_399) / 86_400 }
    public var weekday: Weekday { Weekday(daysSince1970: day) }
    /// Minutes since the local midnight.
    public var minuteOfDay: Int { Int((localSeconds - day * 86_400) / 60) }
}

/// `19:30`: a minute of the day.
public enum ClockTimeText {
    /// Minutes since midnight of `HH:MM` (00:00 to 23:59; 24:00 for the day's end); nil otherwise.
    public static func parse(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ (1...2).contains($0.count) }), parts[1].count == 2,
            let hours = Int(parts[0]), let minutes = Int(parts[1]), (0...24).contains(hours),
            (0...59).contains(minutes), hours * 60 + minutes <= 1440
        else { return nil }
        return hours * 60 + minutes
    }

    /// `07:05`.
    public static func text(_ minuteOfDay: Int) -> String {
        let hours = minuteOfDay / 60
        let minutes = minuteOfDay % 60
        return "\(hours < 10 ? "0" : "")\(hours):\(minutes < 10 ? "0" : "")\(minutes)"
    }
}

/// From a time on some days on, until the next profile begins: the volumes that hold.
public struct ListeningProfile: Sendable, Equatable {
    /// Its name (the word after the time), or its time when it has none.
    public var name: String
    public var days: WeekdaySet
    /// Minutes after midnight it begins.
    public var fromMinute: Int
    /// The loudest the box goes while it holds; nil keeps `[audio] max_volume`.
    public var maxVolume: Int?
    /// The volume the box is set to when it begins (and at start-up while it holds); nil keeps the volume.
    public var startVolume: Int?

    public init(name: String, days: WeekdaySet, fromMinute: Int, maxVolume: Int? = nil, startVolume: Int? = nil) {
        self.name = name
        self.days = days
        self.fromMinute = fromMinute
        self.maxVolume = maxVolume
        self.startVolume = startVolume
    }

    /// `mon-fri 19:00 evening max=40 start=25`: days, the time it begins, an optional name,
    /// then `max=` and `start=` volumes (each optional, 0 to 100).
    public static func parse(_ text: String) -> Result<ListeningProfile, RuleTextError> {
        let words = text.split(separator: " ")
        guard words.count >= 2 else { return .failure(.init("expected 'DAYS HH:MM [NAME] [max=N] [start=N]'", text)) }
        guard let days = WeekdaySet.parse(String(words[0])) else { return .failure(.days(words[0], in: text)) }
        guard let from = ClockTimeText.parse(words[1]), from < 1440 else { return .failure(.time(words[1], in: text)) }
        var profile = ListeningProfile(name: ClockTimeText.text(from), days: days, fromMinute: from)
        for (index, word) in words.dropFirst(2).enumerated() {
            if let equals = word.firstIndex(of: "=") {
                let key = word[..<equals]
                guard let value = Int(word[word.index(after: equals)...]), (0...100).contains(value) else {
                    return .failure(.init("'\(word)': a volume is 0 to 100", text))
                }
                switch key {
                case "max": profile.maxVolume = value
                case "start": profile.startVolume = value
                default: return .failure(.init("'\(word)': expected max=N or start=N", text))
                }
            } else if index == 0 {
                profile.name = String(word)
            } else {
                return .failure(.init("'\(word)': expected max=N or start=N", text))
            }
        }
        if let start = profile.startVolume, let max = profile.maxVolume, start > max {
            return .failure(.init("start=\(start) is above max=\(max)", text))
        }
        return .success(profile)
    }
}

/// A time of the day when nothing starts (but the allowed cards).
public struct QuietHours: Sendable, Equatable {
    /// The days it begins on (`mon-fri 19:30-07:00` ends on Saturday morning too).
    public var days: WeekdaySet
    public var fromMinute: Int
    /// When it ends; at or before `fromMinute`, on the next day.
    public var untilMinute: Int

    public init(days: WeekdaySet, fromMinute: Int, untilMinute: Int) {
        self.days = days
        self.fromMinute = fromMinute
        self.untilMinute = untilMinute
    }

    /// Whether it holds at a minute of a weekday.
    public func holds(on day: Weekday, atMinute minute: Int) -> Bool {
        let crossesMidnight = untilMinute <= fromMinute
        if days.contains(day), minute >= fromMinute, crossesMidnight || minute < untilMinute { return true }
        return crossesMidnight && days.contains(day.previous) && minute < untilMinute
    }

    /// `mon-fri 19:30-07:00`.
    public static func parse(_ text: String) -> Result<QuietHours, RuleTextError> {
        let words = text.split(separator: " ")
        guard words.count == 2 else { return .failure(.init("expected 'DAYS HH:MM-HH:MM'", text)) }
        guard let days = WeekdaySet.parse(String(words[0])) else { return .failure(.days(words[0], in: text)) }
        let ends = words[1].split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let from = ClockTimeText.parse(ends[0]), from < 1440,
            let until = ClockTimeText.parse(ends[1])
        else { return .failure(.time(words[1], in: text)) }
        return .success(QuietHours(days: days, fromMinute: from, untilMinute: until % 1440))
    }
}

/// How long the box may play on some days.
public struct ListeningBudget: Sendable, Equatable {
    public var days: WeekdaySet
    public var milliseconds: Int64

    public init(days: WeekdaySet, milliseconds: Int64) {
        self.days = days
        self.milliseconds = milliseconds
    }

    /// `mon-fri 60` (minutes), `sat,sun 90.5`, `all 30s` (seconds, for trying it out).
    public static func parse(_ text: String) -> Result<ListeningBudget, RuleTextError> {
        let words = text.split(separator: " ")
        guard words.count == 2 else { return .failure(.init("expected 'DAYS MINUTES'", text)) }
        guard let days = WeekdaySet.parse(String(words[0])) else { return .failure(.days(words[0], in: text)) }
        let amount = words[1]
        let milliseconds: Int64?
        if amount.hasSuffix("s"), let seconds = Int64(amount.dropLast()), (1...86_400).contains(seconds) {
            milliseconds = seconds * 1000
        } else if let minutes = Double(amount), minutes >= 0, minutes <= 1440 {
            milliseconds = Int64(minutes * 60_000)
        } else {
            milliseconds = nil
        }
        guard let milliseconds else {
            return .failure(.init("'\(amount)': expected minutes (0 to 1440) or seconds like 30s", text))
        }
        return .success(ListeningBudget(days: days, milliseconds: milliseconds))
    }
}

/// Why a rule's text was refused: what is wrong, and the rule.
public struct RuleTextError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problem: String
    public var rule: String

    public init(_ problem: String, _ rule: String) {
        self.problem = problem
        self.rule = rule
    }

    static func days(_ word: Substring, in rule: String) -> RuleTextError {
        .init("'\(word)': expected days like mon-fri, sat,sun, weekdays, weekend or all", rule)
    }

    static func time(_ word: Substring, in rule: String) -> RuleTextError {
        .init("'\(word)': expected a time like 07:30", rule)
    }

    /// `'mon-fri 25:00': '25:00': expected a time like 07:30`.
    public var description: String { "'\(rule)': \(problem)" }
}

/// How the box learns that its clock is right (`[rules] clock`).
public enum RulesClock: String, Sendable, Equatable, CaseIterable {
    /// Once the kernel's clock is synchronised (NTP): a Pi has no clock battery, and boots in
    /// the past until then.
    case synchronized
    /// The system clock is always right (a real-time clock, or a machine that keeps time).
    case system
}

/// `[rules]`: profiles, quiet hours and the listening budget of a family's box.
public struct ListeningRulesConfig: Sendable, Equatable {
    public var profiles: [ListeningProfile] = []
    public var quietHours: [QuietHours] = []
    /// Later entries win for the days they name; days without one have no budget.
    public var budgets: [ListeningBudget] = []
    /// Card IDs (as the reader reports them, in any case) that start in quiet hours and after the
    /// budget is used up; the time they play is not counted.
    public var allowedCards: [String] = []
    /// The warning comes this long before the budget ends.
    public var warningSeconds = 300
    /// At the budget's end the track plays to its end, but at most this long; then it fades out.
    public var graceSeconds = 120
    /// The fade before the music stops.
    public var fadeSeconds = 10
    public var clock = RulesClock.synchronized

    public init() {}

    /// Whether any rule is set (without any the machine does nothing).
    public var isEmpty: Bool { profiles.isEmpty && quietHours.isEmpty && budgets.isEmpty }

    /// The budget of a weekday; nil when there is none.
    public func budgetMs(on day: Weekday) -> Int64? {
        budgets.last { $0.days.contains(day) }?.milliseconds
    }

    /// While the day is not known: the smallest of the week (a box that cannot tell the day
    /// is strict); nil when no day has one.
    public var smallestBudgetMs: Int64? {
        Weekday.allCases.compactMap { budgetMs(on: $0) }.min()
    }

    /// Whether a card is one of the allowed cards.
    public func allows(card: String?) -> Bool {
        guard let card = card?.lowercased() else { return false }
        return allowedCards.contains { $0.lowercased() == card }
    }
}
