/// The listening time counted on a day: what the daemon persists (small, rewritten whole).
public struct ListeningUsage: Sendable, Equatable {
    /// The local day counted for (days since 1970); nil when the clock was never known.
    public var day: Int64?
    public var usedMs: Int64

    public init(day: Int64?, usedMs: Int64) {
        self.day = day
        self.usedMs = usedMs
    }

    /// `day=20500 used_ms=1234`: the persisted line.
    public var line: String { "day=\(day.map(String.init) ?? "unknown") used_ms=\(usedMs)" }

    /// Reads `line` back; nil for anything else.
    public static func parse(_ text: String) -> ListeningUsage? {
        let words = text.trimmedSpaces.split(separator: " ")
        guard words.count == 2, words[0].hasPrefix("day="), words[1].hasPrefix("used_ms="),
            let used = Int64(words[1].dropFirst(8)), used >= 0
        else { return nil }
        let dayText = words[0].dropFirst(4)
        if dayText == "unknown" { return ListeningUsage(day: nil, usedMs: used) }
        guard let day = Int64(dayText) else { return nil }
        return ListeningUsage(day: day, usedMs: used)
    }
}

/// Why a start was refused.
public enum StartRefusal: Sendable, Equatable, CustomStringConvertible {
    case quietHours
    case budgetUsedUp

    /// One line for the console, the screen and an MPD client's ACK.
    public var description: String {
        switch self {
        case .quietHours: "quiet hours: nothing starts now"
        case .budgetUsedUp: "today's listening time is used up"
        }
    }
}

/// A family's rules over time: profiles (volumes by time of day and weekday), quiet hours
/// (nothing starts but the allowed cards) and a daily listening budget (a warning before its
/// end, then the track plays out within a grace time and fades; the time used survives
/// restarts through `.persist`).
///
/// Until the daemon says the wall time is known (`.clock(nil)`: a Pi without a clock battery
/// before NTP), profiles and quiet hours hold nothing, and the budget keeps counting on the
/// last known day's count with the smallest budget of the week (the day is not known).
///
/// Pure: the daemon gives it the wall time (local, with the zone's offset: daylight saving
/// comes from the system), the player's state and the time from its one clock, and performs
/// the actions (ListeningRulesTests runs it on a manual clock).
public struct ListeningRules: Sendable {
    public enum Event: Sendable, Equatable {
        /// The wall time now, or nil while it is not known.
        case clock(LocalWallTime?)
        /// The persisted usage, at start-up (before the first `.player`).
        case restored(ListeningUsage)
        /// The player now: `trackLeftMs` in track time (nil for a stream), `card` the card whose
        /// music plays.
        case player(state: PlayState, trackLeftMs: Int64?, speed: PlaybackSpeed, card: String?)
    }

    public enum Action: Sendable, Equatable {
        /// A profile began (nil: none holds, the config's volumes again): cap the volume at its
        /// maximum and set its start volume.
        case applyProfile(ListeningProfile?)
        /// The budget ends in `leftMs` (listening time): say so on the screen, the console and
        /// with a sound.
        case warn(leftMs: Int64)
        /// Multiply the output's gain by this (1 when not fading).
        case setFade(Float)
        /// The budget is used up and the grace time over: stop.
        case budgetEnded
        /// Save this (a small file, written whole).
        case persist(ListeningUsage)
    }

    public let config: ListeningRulesConfig
    /// The wall time at the last look; nil while not known.
    public private(set) var wallTime: LocalWallTime?
    public private(set) var usage = ListeningUsage(day: nil, usedMs: 0)
    /// The profile holding now (nil: none, or the time is not known).
    public private(set) var profile: ListeningProfile?
    /// Whether the budget's end was reached today: nothing starts until the next day.
    public private(set) var usedUp = false
    /// The fade asked for last.
    public private(set) var fadeGain: Float = 1
    private var warned = false
    /// At the budget's end: when the music stops.
    private var endAt: Instant?
    private var lastLook: Instant?
    /// The player's state at the last look: a start from anything but playing is what quiet
    /// hours and a used-up budget refuse.
    public private(set) var lastState = PlayState.stopped
    private var lastCountsTime = false
    private var persistedUsedMs: Int64 = 0
    /// Written at most this often while playing (a power cut loses at most this much).
    public static let persistEveryMs: Int64 = 60_000
    private static let fadeStepMs: Int64 = 20

    public init(config: ListeningRulesConfig) {
        self.config = config
    }

    /// Whether quiet hours hold now.
    public var isQuiet: Bool {
        guard let wallTime else { return false }
        return config.quietHours.contains { $0.holds(on: wallTime.weekday, atMinute: wallTime.minuteOfDay) }
    }

    /// Today's budget (the smallest of the week while the day is not known); nil for none.
    public var budgetMs: Int64? {
        if let wallTime { return config.budgetMs(on: wallTime.weekday) }
        if let day = usage.day { return config.budgetMs(on: Weekday(daysSince1970: day)) }
        return config.smallestBudgetMs
    }

    /// What is left of today's budget; nil without one.
    public var budgetLeftMs: Int64? { budgetMs.map { max($0 - usage.usedMs, 0) } }

    /// Whether a start now (from stopped or paused; a track change while playing is no start)
    /// is refused, and why. The allowed cards always start.
    public func refusal(card: String?) -> StartRefusal? {
        if config.allows(card: card) { return nil }
        if isQuiet { return .quietHours }
        if usedUp || budgetLeftMs == 0 { return .budgetUsedUp }
        return nil
    }

    /// When the machine next needs a look without an event (the warning, the end, the fade's
    /// next step); the daemon's loop also looks at least every minute, which the profiles and
    /// quiet hours (minute-grained) rely on.
    public var nextDeadline: Instant? {
        guard let lastLook, lastCountsTime else { return nil }
        if let endAt {
            return min(endAt, lastLook.adding(milliseconds: Self.fadeStepMs))
        }
        guard let left = budgetLeftMs else { return nil }
        let warningMs = Int64(config.warningSeconds) * 1000
        let untilWarning = left - warningMs
        return lastLook.adding(milliseconds: !warned && untilWarning > 0 ? untilWarning : left)
    }

    public mutating func handle(_ event: Event, now: Instant) -> [Action] {
        switch event {
        case .restored(let saved):
            usage = saved
            persistedUsedMs = saved.usedMs
            return []
        case .clock(let time):
            return observeClock(time)
        case .player(let state, let trackLeftMs, let speed, let card):
            return observePlayer(state: state, trackLeftMs: trackLeftMs, speed: speed, card: card, now: now)
        }
    }

    private mutating func observeClock(_ time: LocalWallTime?) -> [Action] {
        wallTime = time
        var actions: [Action] = []
        if let time, usage.day != time.day {
            if usage.day == nil {
                // What was counted before the clock was known counts for today; it was held to
                // the week's smallest budget, and today's may be larger or none: an end that one
                // reached, or its warning, is taken back (fuzz finding 9).
                usage.day = time.day
                actions += reconsiderEnd()
            } else {
                usage = ListeningUsage(day: time.day, usedMs: 0)
                usedUp = false
                warned = false
                endAt = nil
                if fadeGain != 1 {
                    fadeGain = 1
                    actions.append(.setFade(1))
                }
            }
            persistedUsedMs = usage.usedMs
            actions.append(.persist(usage))
        }
        let holding = time.flatMap { Self.profile(at: $0, in: config.profiles) }
        if holding != profile {
            profile = holding
            actions.append(.applyProfile(holding))
        }
        return actions
    }

    /// The profile holding at `time`: the latest begun today, else the last one begun on an
    /// earlier day of the week.
    static func profile(at time: LocalWallTime, in profiles: [ListeningProfile]) -> ListeningProfile? {
        var day = time.weekday
        for back in 0...7 {
            let begun = profiles.filter { $0.days.contains(day) && (back > 0 || $0.fromMinute <= time.minuteOfDay) }
            if let latest = begun.max(by: { $0.fromMinute < $1.fromMinute }) { return latest }
            day = day.previous
        }
        return nil
    }

    private mutating func observePlayer(
        state: PlayState, trackLeftMs: Int64?, speed: PlaybackSpeed, card: String?, now: Instant
    ) -> [Action] {
        var actions: [Action] = []
        // The time since the last look counts when the player was playing then (an allowed
        // card's bedtime story does not use the budget).
        if let lastLook, lastCountsTime, now > lastLook {
            usage.usedMs += now.milliseconds(since: lastLook)
        }
        let counts = state == .playing && !config.allows(card: card)
        lastLook = now
        let stoppedPlaying = lastState == .playing && state != .playing
        lastState = state
        lastCountsTime = counts && budgetMs != nil

        if let budget = budgetMs, counts {
            let left = budget - usage.usedMs
            let warningMs = Int64(config.warningSeconds) * 1000
            if !warned, left > 0, left <= warningMs {
                warned = true
                actions.append(.warn(leftMs: left))
            }
            if left <= 0, endAt == nil, !usedUp {
                usedUp = true
                // The track plays out, within the grace time (a stream: the grace time).
                let graceMs = Int64(config.graceSeconds) * 1000
                let trackWallMs = trackLeftMs.map { $0 * 100 / Int64(speed.hundredths) } ?? graceMs
                endAt = now.adding(milliseconds: max(min(trackWallMs, graceMs), 0))
                actions.append(.persist(usage))
                persistedUsedMs = usage.usedMs
            }
        }
        if let end = endAt {
            if state != .playing {
                // Stopped or paused meanwhile: nothing to end.
                endAt = nil
                actions += setGain(1)
            } else if now >= end {
                endAt = nil
                // The gain comes back on the next look, once the stop has silenced the output.
                actions.append(.budgetEnded)
                lastCountsTime = false
            } else {
                let left = end.milliseconds(since: now)
                let fadeMs = Int64(config.fadeSeconds) * 1000
                if left < fadeMs {
                    let fraction = Float(left) / Float(fadeMs)
                    actions += setGain(min(fadeGain, fraction * fraction))
                }
            }
        } else if !actions.contains(.budgetEnded), fadeGain != 1, state != .playing {
            actions += setGain(1)
        }
        if stoppedPlaying || usage.usedMs - persistedUsedMs >= Self.persistEveryMs {
            if usage.usedMs != persistedUsedMs {
                persistedUsedMs = usage.usedMs
                actions.append(.persist(usage))
            }
        }
        return actions
    }

    /// Undoes the budget's end, its fade and its warning when today's budget (the day just
    /// became known) leaves time.
    private mutating func reconsiderEnd() -> [Action] {
        let left = budgetLeftMs
        guard usedUp || warned || endAt != nil, left.map({ $0 > 0 }) ?? true else { return [] }
        usedUp = false
        endAt = nil
        if left.map({ $0 > Int64(config.warningSeconds) * 1000 }) ?? true { warned = false }
        return setGain(1)
    }

    private mutating func setGain(_ gain: Float) -> [Action] {
        guard gain != fadeGain else { return [] }
        fadeGain = gain
        return [.setFade(gain)]
    }

    /// What the `rules` command answers (console and MPD): `clock: known`, `profile: evening`,
    /// `max_volume: 40`, `quiet_hours: on`, `budget: 3600`, `budget_left: 754` (seconds).
    public var statusFields: [(String, String)] {
        guard !config.isEmpty else { return [("rules", "none")] }
        var fields = [("clock", wallTime == nil ? "not known (profiles and quiet hours wait for it)" : "known")]
        fields.append(("profile", profile?.name ?? "none"))
        if let max = profile?.maxVolume { fields.append(("max_volume", "\(max)")) }
        fields.append(("quiet_hours", isQuiet ? "on" : "off"))
        if let budget = budgetMs {
            fields.append(("budget", "\(budget / 1000)"))
            fields.append(("budget_left", "\(((budgetLeftMs ?? 0) + 999) / 1000)"))
        } else {
            fields.append(("budget", "none"))
        }
        return fields
    }

    /// `budget left 12:30`, for the screen and the log.
    public var budgetLeftText: String? { budgetLeftMs.map { "listening time left \(Self.minutes($0))" } }

    /// `12:05` (minutes and seconds).
    static func minutes(_ ms: Int64) -> String {
        let seconds = ms / 1000
        return "\(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60)"
    }
}
