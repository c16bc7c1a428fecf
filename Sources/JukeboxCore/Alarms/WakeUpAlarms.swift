/// What a wake-up alarm plays.
public enum AlarmMusic: Sendable, Equatable, CustomStringConvertible {
    /// What a card plays (its music, its station), by the card's ID.
    case card(String)
    /// Music of the library: a folder or a stored playlist.
    case source(PlaySource)
    /// A web radio station, by its URL.
    case station(String)

    /// `folder "Wake up"`, for the status and the log.
    public var description: String {
        switch self {
        case .card(let id): "card \(id)"
        case .source(.folder(let path)): "folder \"\(path)\""
        case .source(.playlist(let name)): "playlist \"\(name)\""
        case .source(let source): source.title
        case .station(let url): "station \(url)"
        }
    }
}

/// One `[[alarm]]` of the config.
public struct WakeUpAlarm: Sendable, Equatable {
    /// Its `name`, or `alarm N` (its place in the file, from 1).
    public var name: String
    public var days: WeekdaySet
    /// The local minute of the day it rings at.
    public var minuteOfDay: Int
    public var music: AlarmMusic
    /// A folder of the library played when `music` cannot be (a station that cannot be
    /// reached); nil plays what was played last.
    public var fallbackFolder: String?
    /// The volume the fade-in reaches.
    public var volume: Int
    /// From silence to `volume` over this long.
    public var fadeSeconds: Int
    /// How long a snooze lasts.
    public var snoozeMinutes: Int
    /// The music stops this long after the alarm began unless someone took over (0: it plays on).
    public var stopAfterMinutes: Int

    public init(
        name: String, days: WeekdaySet = .all, minuteOfDay: Int, music: AlarmMusic, fallbackFolder: String? = nil,
        volume: Int = 30, fadeSeconds: Int = 60, snoozeMinutes: Int = 9, stopAfterMinutes: Int = 60
    ) {
        self.name = name
        self.days = days
        self.minuteOfDay = minuteOfDay
        self.music = music
        self.fallbackFolder = fallbackFolder
        self.volume = volume
        self.fadeSeconds = fadeSeconds
        self.snoozeMinutes = snoozeMinutes
        self.stopAfterMinutes = stopAfterMinutes
    }

    /// `wake-up: mon-fri 06:45, folder "Wake up", volume 30 over 60 s`.
    public var summary: String {
        "\(name): \(days) \(ClockTimeText.text(minuteOfDay)), \(music), volume \(volume) over \(fadeSeconds) s"
    }
}

/// What the alarms keep across a power cut (the daemon stores `text` in the database each
/// time it changes: a press while an alarm rings, an alarm's end): per alarm, by name, the
/// local minute whose ringing is over (stopped, snoozed, taken over or ended), so a restart
/// inside that alarm's fade does not ring it again; and a snooze's end in UTC seconds, so a
/// power cut during a snooze still wakes the sleeper.
public struct AlarmMemory: Sendable, Equatable {
    /// Alarm name -> the local minute (local seconds since 1970) whose ringing is over.
    public var settled: [String: Int64] = [:]
    /// The snoozed alarm's name and when it rings again (UTC seconds).
    public var snooze: Snooze?

    public struct Snooze: Sendable, Equatable {
        public var name: String
        public var untilUTCSeconds: Int64

        public init(name: String, untilUTCSeconds: Int64) {
            self.name = name
            self.untilUTCSeconds = untilUTCSeconds
        }
    }

    public init(settled: [String: Int64] = [:], snooze: Snooze? = nil) {
        self.settled = settled
        self.snooze = snooze
    }

    /// One line each: `settled LOCALSECONDS NAME`, `snooze UTCSECONDS NAME` (the name last: it
    /// may hold spaces).
    public var text: String {
        var lines = settled.sorted { $0.key < $1.key }.map { "settled \($0.value) \($0.key)" }
        if let snooze { lines.append("snooze \(snooze.untilUTCSeconds) \(snooze.name)") }
        return lines.joined(separator: "\n")
    }

    /// From `text`; a line it cannot read is left out (the memory is the daemon's own: a bad
    /// line costs at most a second ring of today's alarm).
    public init(text: String) {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, let seconds = Int64(parts[1]) else { continue }
            let name = String(parts[2])
            switch parts[0] {
            case "settled": settled[name] = seconds
            case "snooze": snooze = Snooze(name: name, untilUTCSeconds: seconds)
            default: continue
            }
        }
    }
}

/// The wake-up alarms (`[[alarm]]`): at an alarm's time the box starts its music from silence
/// and raises the volume to the alarm's over its fade time; while it rings a press of
/// play/pause (or the knob) stops it, next or previous snoozes it, and turning the knob takes
/// it over (the music plays on at the volume chosen). A station that cannot be reached falls
/// back to local music.
///
/// Times: the daemon gives the local wall time (UTC seconds and the zone's offset, from the
/// system: daylight saving included) and the monotonic `Instant` of its one clock. An alarm
/// is due when the local time passes its minute on one of its days: a minute that a spring
/// forward skips rings at the first look after the jump (02:30 in Berlin rings at 03:00), and
/// a minute that a fall back repeats rings once (each alarm remembers the last local minute
/// it rang for). Until the wall time is known (a Pi without a clock battery before NTP)
/// nothing rings. A restart, or a clock that jumps, rings an alarm whose time passed less
/// than its fade time (at least a minute) ago, its fade continuing where it would be, unless
/// its ringing was over (`AlarmMemory`); a snooze outlives a restart: one whose end passed
/// while the box was off rings at once if it ended less than the alarm's stop-after time
/// (an hour when it plays on) ago.
///
/// Pure: nothing here reads a clock (WakeUpAlarmsTests runs it on a manual one).
public struct WakeUpAlarms: Sendable {
    public enum Event: Sendable, Equatable {
        /// Time passed: the wall time now, or nil while it is not known.
        case look(LocalWallTime?)
        /// A control pressed or turned while the alarm rings (`isRinging`).
        case control(AlarmControl)
        /// The alarm's music reached the output.
        case musicStarted
        /// The alarm's music could not start (nothing to play, a station unreachable).
        case musicFailed(String)
        /// The player stopped or paused by other means (a client, a card) while it rang.
        case playerStopped
    }

    /// What a control does while the alarm rings.
    public enum AlarmControl: Sendable, Equatable {
        /// Play/pause or the knob's press: the music stops, the alarm is over for today.
        case stop
        /// Next or previous: the music stops and starts again after the snooze.
        case snooze
        /// The knob turned: the fade ends, the music plays on at the volume chosen.
        case takeOver
    }

    public enum Action: Sendable, Equatable {
        /// Start the alarm's music (`fallback`: its fallback folder, or what played last),
        /// after the volume was set by the `setVolume` before it.
        case start(WakeUpAlarm, fallback: Bool)
        /// Set the player's volume (the fade's steps).
        case setVolume(Int)
        /// Stop the music.
        case stop
        /// Say this (the log, the console, the screen).
        case announce(String)
        /// Keep this across a power cut (it changed).
        case remember(AlarmMemory)
    }

    public enum Phase: Sendable, Equatable {
        case idle
        /// Alarm `index` rings; its fade began at `fadeFrom` (earlier than its start after a
        /// restart in the middle of the fade).
        case ringing(index: Int, fadeFrom: Instant, fallback: Bool, started: Bool)
        /// Alarm `index` rings again at `until`.
        case snoozed(index: Int, until: Instant)
    }

    public let alarms: [WakeUpAlarm]
    public private(set) var phase = Phase.idle
    /// The wall time at the last look; nil while not known.
    public private(set) var wallTime: LocalWallTime?
    private var lastLook: Instant?
    /// The volume set last while ringing.
    public private(set) var volume: Int?
    /// Per alarm, the local minute (local seconds since 1970) it last rang for.
    private var rangFor: [Int: Int64] = [:]
    /// Per alarm, the local minute whose ringing is over (kept: `memory`).
    private var settled: [Int: Int64] = [:]
    /// The snooze's end in UTC seconds, while snoozed (kept: `memory`).
    private var snoozeUntilUTC: Int64?
    /// A snooze restored before the wall time was known: alarm index and UTC end.
    private var restoredSnooze: (index: Int, untilUTC: Int64)?
    /// Wall and monotonic time drifting apart by more than this between two looks is a clock
    /// set or stepped (daylight saving moves no UTC second).
    static let clockJumpSeconds: Int64 = 60

    public init(alarms: [WakeUpAlarm]) {
        self.alarms = alarms
    }

    /// What is kept across a power cut.
    public var memory: AlarmMemory {
        var memory = AlarmMemory()
        for (index, minute) in settled { memory.settled[alarms[index].name] = minute }
        if case .snoozed(let index, _) = phase, let snoozeUntilUTC {
            memory.snooze = .init(name: alarms[index].name, untilUTCSeconds: snoozeUntilUTC)
        } else if let restoredSnooze {
            memory.snooze = .init(name: alarms[restoredSnooze.index].name, untilUTCSeconds: restoredSnooze.untilUTC)
        }
        return memory
    }

    /// After a start: what the last run kept. Alarms no longer in the config are left out.
    public mutating func restore(_ memory: AlarmMemory) {
        for (index, alarm) in alarms.enumerated() {
            guard let minute = memory.settled[alarm.name] else { continue }
            settled[index] = minute
            rangFor[index] = minute
        }
        if let snooze = memory.snooze, let index = alarms.firstIndex(where: { $0.name == snooze.name }) {
            restoredSnooze = (index, snooze.untilUTCSeconds)
        }
    }

    /// `alarms skip NAME`: alarm NAME does not ring at its next time (a holiday); the skip is
    /// kept across a power cut, as a settled minute. `unskip` takes it back. The actions
    /// (remember, announce), or why not.
    public mutating func skipNext(_ name: String, unskip: Bool = false, now: Instant) -> Result<[Action], CommandError>
    {
        let command = unskip ? "alarms unskip" : "alarms skip"
        guard let index = alarms.firstIndex(where: { $0.name == name }) else {
            let names = alarms.map { "\"\($0.name)\"" }.joined(separator: ", ")
            return .failure(.badArgument(command: command, problem: "no alarm \"\(name)\" (alarms: \(names))"))
        }
        guard let wallTime else {
            return .failure(.badArgument(command: command, problem: "the clock is not known yet"))
        }
        let skipped = skippedMinute(index, after: wallTime)
        if unskip {
            guard skipped != nil else {
                return .failure(.badArgument(command: command, problem: "alarm \(name) is not skipped"))
            }
            settled[index] = nil
            rangFor[index] = nil
            return .success([.remember(memory), .announce("alarm \(name) rings again at its next time")])
        }
        if let skipped {
            return .failure(
                .badArgument(
                    command: command, problem: "alarm \(name) is already skipped on \(Self.minuteText(skipped))"))
        }
        guard let next = nextOccurrence(of: index, after: wallTime.localSeconds) else {
            return .failure(.badArgument(command: command, problem: "alarm \(name) has no next time"))
        }
        settled[index] = next
        rangFor[index] = next
        return .success([.remember(memory), .announce("alarm \(name) skipped on \(Self.minuteText(next))")])
    }

    /// The local minute alarm `index` skips (a settled minute still to come), if any.
    private func skippedMinute(_ index: Int, after time: LocalWallTime) -> Int64? {
        guard let minute = settled[index], minute > time.localSeconds else { return nil }
        return minute
    }

    /// `2026-12-08 06:45`.
    static func minuteText(_ localSeconds: Int64) -> String {
        let minute = Int((localSeconds - day(localSeconds) * 86_400) / 60)
        return "\(CivilTime.dayText(localSeconds)) \(ClockTimeText.text(minute))"
    }

    public var isRinging: Bool {
        if case .ringing = phase { return true }
        return false
    }

    /// When the machine next needs a look without an event: the fade's next step, the end of
    /// a snooze or of the ringing, the next alarm (approximate across a change of the zone's
    /// offset: the look then finds the right one).
    public var nextDeadline: Instant? {
        guard let lastLook else { return nil }
        switch phase {
        case .ringing(let index, let fadeFrom, _, _):
            let alarm = alarms[index]
            let fadeMs = Int64(alarm.fadeSeconds) * 1000
            let level = volume ?? 0
            if level < alarm.volume, fadeMs > 0 {
                // The fade's next whole step of volume.
                let stepMs = (Int64(level + 1) * fadeMs + Int64(alarm.volume) - 1) / Int64(alarm.volume)
                return fadeFrom.adding(milliseconds: stepMs)
            }
            return ringingEnd(index, fadeFrom: fadeFrom)
        case .snoozed(_, let until):
            return until
        case .idle:
            guard let wallTime, let next = nextOccurrence(after: wallTime) else { return nil }
            return lastLook.adding(milliseconds: (next.localSeconds - wallTime.localSeconds) * 1000)
        }
    }

    /// When the ringing of alarm `index` ends by itself; nil when it plays on.
    private func ringingEnd(_ index: Int, fadeFrom: Instant) -> Instant? {
        let alarm = alarms[index]
        if alarm.stopAfterMinutes == 0 { return fadeFrom.adding(milliseconds: Int64(alarm.fadeSeconds) * 1000) }
        return fadeFrom.adding(milliseconds: Int64(alarm.stopAfterMinutes) * 60_000)
    }

    public mutating func handle(_ event: Event, now: Instant) -> [Action] {
        switch event {
        case .look(let time):
            return look(time, now: now)
        case .control(let control):
            guard case .ringing(let index, _, _, _) = phase else { return [] }
            let alarm = alarms[index]
            phase = .idle
            volume = nil
            settle(index)
            switch control {
            case .stop:
                return [.stop, .remember(memory), .announce("alarm \(alarm.name) stopped")]
            case .snooze:
                let until = now.adding(milliseconds: Int64(alarm.snoozeMinutes) * 60_000)
                phase = .snoozed(index: index, until: until)
                snoozeUntilUTC = utcSeconds(at: until)
                return [
                    .stop, .remember(memory), .announce("alarm \(alarm.name) snoozed for \(alarm.snoozeMinutes) min"),
                ]
            case .takeOver:
                return [.remember(memory), .announce("alarm \(alarm.name): the music plays on")]
            }
        case .musicStarted:
            guard case .ringing(let index, let fadeFrom, let fallback, false) = phase else { return [] }
            phase = .ringing(index: index, fadeFrom: fadeFrom, fallback: fallback, started: true)
            return []
        case .musicFailed(let why):
            guard case .ringing(let index, let fadeFrom, let fallback, _) = phase else { return [] }
            let alarm = alarms[index]
            guard !fallback else {
                phase = .idle
                volume = nil
                settle(index)
                return [
                    .remember(memory), .announce("alarm \(alarm.name): the fallback cannot play either (\(why))"),
                ]
            }
            phase = .ringing(index: index, fadeFrom: fadeFrom, fallback: true, started: false)
            let instead = alarm.fallbackFolder.map { "folder \"\($0)\"" } ?? "what played last"
            return [
                .announce("alarm \(alarm.name): \(alarm.music) cannot play (\(why)); \(instead) instead"),
                .start(alarm, fallback: true),
            ]
        case .playerStopped:
            guard case .ringing(let index, _, _, true) = phase else { return [] }
            phase = .idle
            volume = nil
            settle(index)
            return [.remember(memory), .announce("alarm \(alarms[index].name) ended: the music was stopped")]
        }
    }

    private mutating func look(_ time: LocalWallTime?, now: Instant) -> [Action] {
        let previous = wallTime
        let previousLook = lastLook
        wallTime = time
        lastLook = now
        var actions: [Action] = []
        switch phase {
        case .ringing(let index, let fadeFrom, let fallback, let started):
            actions += fade(index, fadeFrom: fadeFrom, now: now)
            if let end = ringingEnd(index, fadeFrom: fadeFrom), now >= end {
                phase = .idle
                volume = nil
                settle(index)
                actions.append(.remember(memory))
                if alarms[index].stopAfterMinutes > 0 {
                    actions += [
                        .stop,
                        .announce("alarm \(alarms[index].name) ended after \(alarms[index].stopAfterMinutes) min"),
                    ]
                }
            } else {
                phase = .ringing(index: index, fadeFrom: fadeFrom, fallback: fallback, started: started)
            }
        case .snoozed(let index, let until) where now >= until:
            snoozeUntilUTC = nil
            actions += [.remember(memory)] + ring(index, fadeFrom: now, now: now)
        default:
            break
        }
        guard let time else { return actions }
        if let (index, untilUTC) = restoredSnooze {
            restoredSnooze = nil
            actions += resumeSnooze(index, untilUTC: untilUTC, time: time, now: now)
        }
        // The local seconds after which an alarm's minute is due: the last look's, or after a
        // restart or a jump of the clock, as far back as each alarm's fade (at least a minute).
        var since: Int64?
        if let previous, let previousLook {
            let wallSeconds = time.utcSeconds - previous.utcSeconds
            let monotonicSeconds = now.milliseconds(since: previousLook) / 1000
            if abs(wallSeconds - monotonicSeconds) <= Self.clockJumpSeconds { since = previous.localSeconds }
        }
        var due: (index: Int, at: Int64)?
        for (index, alarm) in alarms.enumerated() {
            let catchUp = Int64(max(alarm.fadeSeconds, 60))
            let from = since ?? time.localSeconds - catchUp
            guard let at = occurrence(of: alarm, after: from, until: time.localSeconds), rangFor[index] != at else {
                continue
            }
            rangFor[index] = at
            if due == nil || at > due!.at { due = (index, at) }
        }
        if let due {
            if isRinging { actions.append(.stop) }
            let lateMs = (time.localSeconds - due.at) * 1000
            actions += ring(due.index, fadeFrom: now.adding(milliseconds: -lateMs), now: now)
        }
        return actions
    }

    /// The ringing of alarm `index` is over for the minute it rang for.
    private mutating func settle(_ index: Int) {
        if let minute = rangFor[index] { settled[index] = minute }
    }

    /// The UTC second of `instant`, from the last look's wall time; nil while it is not known.
    private func utcSeconds(at instant: Instant) -> Int64? {
        guard let wallTime, let lastLook else { return nil }
        return wallTime.utcSeconds + instant.milliseconds(since: lastLook) / 1000
    }

    /// A snooze the last run kept, once the wall time is known: it goes on, or rings now if it
    /// ended while the box was off (not long ago), or is dropped.
    private mutating func resumeSnooze(_ index: Int, untilUTC: Int64, time: LocalWallTime, now: Instant) -> [Action] {
        let alarm = alarms[index]
        let late = time.utcSeconds - untilUTC
        if late < 0 {
            phase = .snoozed(index: index, until: now.adding(milliseconds: -late * 1000))
            snoozeUntilUTC = untilUTC
            return []
        }
        let windowSeconds = Int64(alarm.stopAfterMinutes > 0 ? alarm.stopAfterMinutes : 60) * 60
        guard late < windowSeconds else {
            return [
                .remember(memory),
                .announce("alarm \(alarm.name): its snooze ended while the box was off, too long ago to ring"),
            ]
        }
        return [.remember(memory), .announce("alarm \(alarm.name): its snooze ended while the box was off")]
            + ring(index, fadeFrom: now, now: now)
    }

    /// Alarm `index` begins: from silence (or where its fade would be), its music.
    private mutating func ring(_ index: Int, fadeFrom: Instant, now: Instant) -> [Action] {
        let alarm = alarms[index]
        phase = .ringing(index: index, fadeFrom: fadeFrom, fallback: false, started: false)
        volume = nil
        let level = fadeLevel(alarm, elapsedMs: now.milliseconds(since: fadeFrom))
        volume = level
        return [.announce("alarm \(alarm.name): \(alarm.music)"), .setVolume(level), .start(alarm, fallback: false)]
    }

    private mutating func fade(_ index: Int, fadeFrom: Instant, now: Instant) -> [Action] {
        let level = fadeLevel(alarms[index], elapsedMs: now.milliseconds(since: fadeFrom))
        guard level != volume else { return [] }
        volume = level
        return [.setVolume(level)]
    }

    /// The fade's volume `elapsedMs` after it began: linear in volume steps (the box's volume
    /// curve makes them even to the ear).
    func fadeLevel(_ alarm: WakeUpAlarm, elapsedMs: Int64) -> Int {
        let fadeMs = Int64(alarm.fadeSeconds) * 1000
        guard fadeMs > 0, elapsedMs < fadeMs else { return alarm.volume }
        return Int(Int64(alarm.volume) * max(elapsedMs, 0) / fadeMs)
    }

    /// The latest local minute of `alarm` in (`after`, `until`] (local seconds); nil for none.
    func occurrence(of alarm: WakeUpAlarm, after: Int64, until: Int64) -> Int64? {
        guard until > after else { return nil }
        let lastDay = Self.day(until)
        // Two days back covers any gap between looks (a longer one is a clock jump).
        let firstDay = max(Self.day(after), lastDay - 2)
        var day = lastDay
        while day >= firstDay {
            let at = day * 86_400 + Int64(alarm.minuteOfDay) * 60
            if alarm.days.contains(Weekday(daysSince1970: day)), at > after, at <= until { return at }
            day -= 1
        }
        return nil
    }

    /// The next alarm after `time`: its index and local time; nil without alarms.
    public func nextOccurrence(after time: LocalWallTime) -> (index: Int, localSeconds: Int64)? {
        var best: (index: Int, localSeconds: Int64)?
        for index in alarms.indices {
            guard let at = nextOccurrence(of: index, after: time.localSeconds) else { continue }
            if best == nil || at < best!.localSeconds { best = (index, at) }
        }
        return best
    }

    /// Alarm `index`'s next local minute after `localSeconds`, past one it skips.
    func nextOccurrence(of index: Int, after localSeconds: Int64) -> Int64? {
        let alarm = alarms[index]
        let today = Self.day(localSeconds)
        for day in today...(today + 14) where alarm.days.contains(Weekday(daysSince1970: day)) {
            let at = day * 86_400 + Int64(alarm.minuteOfDay) * 60
            guard at > localSeconds, at != settled[index] else { continue }
            return at
        }
        return nil
    }

    static func day(_ localSeconds: Int64) -> Int64 {
        localSeconds >= 0 ? localSeconds / 86_400 : (localSeconds - 86_399) / 86_400
    }

    /// What the `alarms` command answers: `clock: known`, `next: 2026-12-08 06:45 wake-up`,
    /// `ringing: wake-up` or `snoozed: wake-up`, then one `alarm:` line each.
    public func statusFields(now: Instant) -> [(String, String)] {
        guard !alarms.isEmpty else { return [("alarms", "none")] }
        var fields: [(String, String)] = []
        if let wallTime {
            fields.append(("clock", "known"))
            if let next = nextOccurrence(after: wallTime) {
                fields.append(("next", "\(Self.minuteText(next.localSeconds)) \(alarms[next.index].name)"))
            }
            for index in alarms.indices {
                guard let skipped = skippedMinute(index, after: wallTime) else { continue }
                fields.append(("skipped", "\(Self.minuteText(skipped)) \(alarms[index].name)"))
            }
        } else {
            fields.append(("clock", "not known: alarms wait for the time (NTP or a clock battery)"))
        }
        switch phase {
        case .idle: break
        case .ringing(let index, _, let fallback, _):
            fields.append(("ringing", alarms[index].name + (fallback ? " (fallback music)" : "")))
            if let volume { fields.append(("alarm_volume", "\(volume)")) }
        case .snoozed(let index, let until):
            let left = max(until.milliseconds(since: now), 0)
            fields.append(("snoozed", "\(alarms[index].name), rings again in \(ScreenLayout.clock(left))"))
        }
        for alarm in alarms { fields.append(("alarm", alarm.summary)) }
        return fields
    }
}
