import Testing

@testable import JukeboxCore

@Suite struct WakeUpAlarmsTests {
    typealias Action = WakeUpAlarms.Action

    /// Europe/Berlin's offset at a UTC second: +1 h, +2 h from the last Sunday of March 01:00
    /// UTC to the last Sunday of October 01:00 UTC (2026 and 2027 here).
    static func berlin(_ utc: Int64) -> Int64 {
        let summers: [(Int64, Int64)] = [
            (utcSeconds(2026, 3, 29, 1, 0), utcSeconds(2026, 10, 25, 1, 0)),
            (utcSeconds(2027, 3, 28, 1, 0), utcSeconds(2027, 10, 31, 1, 0)),
        ]
        return summers.contains { utc >= $0.0 && utc < $0.1 } ? 7200 : 3600
    }

    static func utcSeconds(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64, _ minute: Int64) -> Int64 {
        CivilTime.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: 0)!
    }

    /// The machine on a manual clock: monotonic and UTC time move together (unless a test
    /// steps the wall clock), the zone's offset from `berlin`; looks as the daemon's loop
    /// does, at the machine's deadline and at least every `maxWaitMs`.
    struct Clock {
        var machine: WakeUpAlarms
        var now = Instant.zero.adding(milliseconds: 1_000_000)
        var utcMs: Int64
        var known = true
        /// What the machine did, each with the local time (`2027-03-28 03:00:00`).
        var log: [(local: String, action: Action)] = []

        init(_ alarms: [WakeUpAlarm], localStart: (Int64, Int64, Int64, Int64, Int64)) {
            machine = WakeUpAlarms(alarms: alarms)
            // The local time given, in the zone's offset at that moment.
            let (y, m, d, h, min) = localStart
            let local = WakeUpAlarmsTests.utcSeconds(y, m, d, h, min)
            var utc = local - 3600
            if WakeUpAlarmsTests.berlin(utc) == 7200 { utc = local - 7200 }
            utcMs = utc * 1000
        }

        var wall: LocalWallTime {
            let utc = utcMs / 1000
            return LocalWallTime(utcSeconds: utc, utcOffsetSeconds: WakeUpAlarmsTests.berlin(utc))
        }

        var localText: String {
            let local = wall.localSeconds
            let second = local - WakeUpAlarms.day(local) * 86_400
            return "\(CivilTime.dayText(local)) \(ClockTimeText.text(Int(second / 60))):"
                + CivilTime.twoDigits(second % 60)
        }

        mutating func record(_ actions: [Action]) {
            for action in actions { log.append((localText, action)) }
        }

        mutating func look() { record(machine.handle(.look(known ? wall : nil), now: now)) }

        mutating func send(_ event: WakeUpAlarms.Event) { record(machine.handle(event, now: now)) }

        mutating func advance(ms: Int64) {
            now = now.adding(milliseconds: ms)
            utcMs += ms
        }

        /// Looks like the daemon's loop for `minutes`.
        mutating func run(minutes: Int64, maxWaitMs: Int64 = 60_000) {
            let end = now.adding(milliseconds: minutes * 60_000)
            look()
            while now < end {
                var next = now.adding(milliseconds: maxWaitMs)
                if let deadline = machine.nextDeadline, deadline < next {
                    next = max(deadline, now.adding(milliseconds: 1))
                }
                advance(ms: min(next, end).milliseconds(since: now))
                look()
            }
        }

        var starts: [String] {
            log.compactMap { entry in
                if case .start(let alarm, let fallback) = entry.action {
                    return "\(entry.local) \(alarm.name)\(fallback ? " fallback" : "")"
                }
                return nil
            }
        }

        var volumes: [(String, Int)] {
            log.compactMap { entry in
                if case .setVolume(let level) = entry.action { return (entry.local, level) }
                return nil
            }
        }

        var stops: [String] { log.filter { $0.action == .stop }.map(\.local) }

        /// What the machine asked to keep last.
        var remembered: AlarmMemory? {
            for entry in log.reversed() {
                if case .remember(let memory) = entry.action { return memory }
            }
            return nil
        }

        var announcements: [String] {
            log.compactMap { entry in
                if case .announce(let text) = entry.action { return text }
                return nil
            }
        }

        /// The power goes for `ms`: a new machine, the same config, with what the old one kept.
        mutating func powerCut(ms: Int64) {
            let kept = remembered.map { AlarmMemory(text: $0.text) }
            advance(ms: ms)
            machine = WakeUpAlarms(alarms: machine.alarms)
            if let kept { machine.restore(kept) }
            log = []
        }
    }

    static func alarm(
        _ name: String = "wake", _ days: String = "all", time: String, fade: Int = 60, volume: Int = 30,
        stopAfter: Int = 60
    ) -> WakeUpAlarm {
        WakeUpAlarm(
            name: name, days: WeekdaySet.parse(days)!, minuteOfDay: ClockTimeText.parse(Substring(time))!,
            music: .source(.folder(path: "Wake up")), volume: volume, fadeSeconds: fade,
            stopAfterMinutes: stopAfter)
    }

    // MARK: ringing and the fade

    @Test func ringsAtItsMinuteFromSilenceAndFadesToItsVolume() {
        // Monday 2026-12-07, 06:40 in Berlin (winter, +1 h).
        var clock = Clock([Self.alarm(time: "06:45")], localStart: (2026, 12, 7, 6, 40))
        clock.look()
        // The daemon sleeps until the alarm's minute, not a minute more.
        #expect(clock.machine.nextDeadline == clock.now.adding(milliseconds: 5 * 60_000))
        clock.run(minutes: 10)
        #expect(clock.starts == ["2026-12-07 06:45:00 wake"])
        let volumes = clock.volumes
        // From 0, one step at a time, 30 reached when the fade's 60 s are over.
        #expect(volumes.first! == ("2026-12-07 06:45:00", 0))
        #expect(volumes.map { $0.1 } == Array(0...30))
        #expect(volumes.first { $0.1 == 15 }!.0 == "2026-12-07 06:45:30")
        #expect(volumes.last! == ("2026-12-07 06:46:00", 30))
        // The volume comes before the music starts.
        let first = clock.log.firstIndex { if case .setVolume = $0.action { true } else { false } }!
        let start = clock.log.firstIndex { if case .start = $0.action { true } else { false } }!
        #expect(first < start)
        #expect(clock.machine.isRinging)
    }

    @Test func ringsOnceAcrossMidnightOnItsDaysOnly() {
        // Friday 2026-12-11 20:00 to Tuesday 2026-12-15 20:00: a 00:05 alarm on Saturday and
        // Monday only rings after Friday's and Sunday's midnight.
        var clock = Clock(
            [Self.alarm("night", "sat,mon", time: "00:05", stopAfter: 1)], localStart: (2026, 12, 11, 20, 0))
        clock.run(minutes: 4 * 1440)
        #expect(clock.starts == ["2026-12-12 00:05:00 night", "2026-12-14 00:05:00 night"])
        // Each ends by itself a minute later (stop_after_minutes = 1).
        #expect(clock.stops == ["2026-12-12 00:06:00", "2026-12-14 00:06:00"])
    }

    @Test func aWeekdayMaskLeavesTheWeekendQuiet() {
        // Thursday 2026-12-10 12:00 for a week, with looks only every minute (no deadlines).
        var clock = Clock(
            [Self.alarm("school", "mon-fri", time: "07:00", stopAfter: 5)], localStart: (2026, 12, 10, 12, 0))
        clock.run(minutes: 7 * 1440)
        #expect(
            clock.starts.map { String($0.prefix(10)) } == [
                "2026-12-11", "2026-12-14", "2026-12-15", "2026-12-16", "2026-12-17",
            ])
    }

    // MARK: daylight saving (Europe/Berlin)

    @Test func aMinuteThatSpringForwardSkipsRingsRightAfterTheJump() {
        // 2027-03-28: 02:00 becomes 03:00; 02:30 does not exist.
        var clock = Clock(
            [
                Self.alarm("early", "all", time: "02:30", stopAfter: 10),
                Self.alarm("later", "all", time: "06:00", stopAfter: 10),
            ],
            localStart: (2027, 3, 28, 0, 0))
        clock.run(minutes: 8 * 60)
        #expect(clock.starts == ["2027-03-28 03:00:00 early", "2027-03-28 06:00:00 later"])
    }

    @Test func aMinuteThatFallBackRepeatsRingsOnce() {
        // 2027-10-31: 03:00 becomes 02:00 again; 02:30 comes twice.
        var clock = Clock([Self.alarm("twice", "all", time: "02:30", stopAfter: 5)], localStart: (2027, 10, 31, 1, 0))
        clock.run(minutes: 4 * 60)
        #expect(clock.starts == ["2027-10-31 02:30:00 twice"])
        // The next day it rings again.
        clock.run(minutes: 24 * 60)
        #expect(clock.starts == ["2027-10-31 02:30:00 twice", "2027-11-01 02:30:00 twice"])
    }

    @Test func theNextAlarmAfterSpringForwardIsAtItsLocalTime() {
        // Saturday 2027-03-27 12:00 (+1 h); the next 07:00 is after the change (+2 h): the
        // deadline taken at +1 h comes an hour late, but the daemon looks every minute.
        var clock = Clock([Self.alarm(time: "07:00", stopAfter: 5)], localStart: (2027, 3, 27, 12, 0))
        clock.run(minutes: 20 * 60)
        #expect(clock.starts == ["2027-03-28 07:00:00 wake"])
    }

    // MARK: restarts and the clock

    @Test func aRestartInTheMiddleOfTheFadeRingsAgainWhereTheFadeWas() {
        var clock = Clock([Self.alarm(time: "07:00")], localStart: (2026, 12, 8, 6, 59))
        clock.run(minutes: 1)
        clock.advance(ms: 30_000)
        clock.look()
        #expect(clock.machine.volume == 15)
        // The power goes, the box starts again 10 s later: a new machine, the same config.
        clock.advance(ms: 10_000)
        clock.machine = WakeUpAlarms(alarms: clock.machine.alarms)
        clock.log = []
        clock.look()
        #expect(clock.starts == ["2026-12-08 07:00:40 wake"])
        #expect(clock.volumes.map { $0.1 } == [20])
        clock.run(minutes: 1)
        #expect(clock.volumes.last! == ("2026-12-08 07:01:00", 30))
    }

    @Test func aRestartAfterTheFadeDoesNotRingAgain() {
        var clock = Clock([Self.alarm(time: "07:00")], localStart: (2026, 12, 8, 7, 2))
        clock.run(minutes: 60)
        #expect(clock.starts == [])
        // The next day's still does.
        clock.run(minutes: 24 * 60)
        #expect(clock.starts == ["2026-12-09 07:00:00 wake"])
    }

    @Test func nothingRingsWhileTheClockIsNotKnown() {
        var clock = Clock([Self.alarm(time: "07:00")], localStart: (2026, 12, 8, 6, 50))
        clock.known = false
        clock.run(minutes: 30)
        #expect(clock.starts == [])
        #expect(clock.machine.nextDeadline == nil)
        let fields = clock.machine.statusFields(now: clock.now)
        #expect(fields.first! == ("clock", "not known: alarms wait for the time (NTP or a clock battery)"))
        // Known at 07:20: 07:00 is long past (more than the fade), it does not ring now.
        clock.known = true
        clock.run(minutes: 30)
        #expect(clock.starts == [])
        #expect(clock.machine.statusFields(now: clock.now)[1] == ("next", "2026-12-09 07:00 wake"))
    }

    @Test func aClockKnownWithinTheFadeRingsWhereTheFadeIs() {
        var clock = Clock([Self.alarm(time: "07:00", fade: 120)], localStart: (2026, 12, 8, 6, 50))
        clock.known = false
        clock.run(minutes: 11)
        clock.known = true
        clock.look()
        #expect(clock.starts == ["2026-12-08 07:01:00 wake"])
        #expect(clock.volumes.map { $0.1 } == [15])
    }

    @Test func aClockSetForwardDoesNotRingTheAlarmsItJumpsOver() {
        // NTP steps the clock from 05:00 to 09:00: 07:00 is not rung at 09:00.
        var clock = Clock([Self.alarm(time: "07:00")], localStart: (2026, 12, 8, 5, 0))
        clock.run(minutes: 5)
        clock.utcMs += 4 * 3_600_000
        clock.run(minutes: 5)
        #expect(clock.starts == [])
    }

    // MARK: the controls

    @Test func snoozeStopsTheMusicAndRingsAgainFromSilence() {
        var clock = Clock([Self.alarm(time: "07:00")], localStart: (2026, 12, 8, 6, 59))
        clock.run(minutes: 2)
        clock.send(.musicStarted)
        clock.send(.control(.snooze))
        #expect(clock.stops == ["2026-12-08 07:01:00"])
        #expect(!clock.machine.isRinging)
        #expect(clock.machine.nextDeadline == clock.now.adding(milliseconds: 9 * 60_000))
        #expect(clock.machine.statusFields(now: clock.now).contains { $0 == ("snoozed", "wake, rings again in 9:00") })
        clock.run(minutes: 10)
        #expect(clock.starts == ["2026-12-08 07:00:00 wake", "2026-12-08 07:10:00 wake"])
        #expect(clock.volumes.filter { $0.0 == "2026-12-08 07:10:00" }.map { $0.1 } == [0])
        // Play/pause stops it for good: nothing more today.
        clock.send(.control(.stop))
        #expect(clock.stops == ["2026-12-08 07:01:00", "2026-12-08 07:11:00"])
        clock.run(minutes: 12 * 60)
        #expect(clock.starts.count == 2)
        // A press when it does not ring is no alarm's.
        #expect(clock.machine.handle(.control(.stop), now: clock.now) == [])
    }

    @Test func theKnobTakesOverTheMusicAtItsVolume() {
        var clock = Clock([Self.alarm(time: "07:00")], localStart: (2026, 12, 8, 6, 59))
        clock.run(minutes: 1)
        clock.advance(ms: 20_000)
        clock.look()
        clock.send(.control(.takeOver))
        let before = clock.volumes.count
        clock.run(minutes: 120)
        // No step after the turn, no stop after an hour: the music is the child's now.
        #expect(clock.volumes.count == before)
        #expect(clock.stops == [])
    }

    @Test func itStopsByItselfAfterStopAfterMinutes() {
        var clock = Clock([Self.alarm(time: "07:00", stopAfter: 30)], localStart: (2026, 12, 8, 6, 59))
        clock.run(minutes: 40)
        #expect(clock.stops == ["2026-12-08 07:30:00"])
        // 0: it plays on once the fade is over, and the controls are the player's again.
        var onward = Clock([Self.alarm(time: "07:00", stopAfter: 0)], localStart: (2026, 12, 8, 6, 59))
        onward.run(minutes: 40)
        #expect(onward.stops == [])
        #expect(!onward.machine.isRinging)
    }

    @Test func aStationThatCannotPlayFallsBackToLocalMusicOnce() {
        var alarm = Self.alarm(time: "07:00")
        alarm.music = .station("http://radio.invalid/stream")
        alarm.fallbackFolder = "Wake up"
        var clock = Clock([alarm], localStart: (2026, 12, 8, 6, 59))
        clock.run(minutes: 1)
        clock.send(.musicFailed("connection refused"))
        #expect(clock.starts == ["2026-12-08 07:00:00 wake", "2026-12-08 07:00:00 wake fallback"])
        #expect(
            clock.log.contains {
                $0.action
                    == .announce(
                        "alarm wake: station http://radio.invalid/stream cannot play (connection refused); folder \"Wake up\" instead"
                    )
            })
        // The fade goes on.
        clock.run(minutes: 1)
        #expect(clock.volumes.last!.1 == 30)
        // When the fallback fails too, the alarm gives up (and says so).
        clock.send(.musicFailed("nothing to play"))
        #expect(!clock.machine.isRinging)
        #expect(clock.starts.count == 2)
    }

    @Test func aStopByAnotherFrontEndEndsTheRinging() {
        var clock = Clock([Self.alarm(time: "07:00")], localStart: (2026, 12, 8, 6, 59))
        clock.run(minutes: 1)
        // Before the music started, a stopped player is the start on its way.
        clock.send(.playerStopped)
        #expect(clock.machine.isRinging)
        clock.send(.musicStarted)
        clock.send(.playerStopped)
        #expect(!clock.machine.isRinging)
        clock.run(minutes: 5)
        #expect(clock.stops == [])
    }

    // MARK: kept across a power cut

    @Test func aSnoozeOutlivesAPowerCut() {
        var clock = Clock([Self.alarm(time: "07:00")], localStart: (2026, 12, 8, 6, 59))
        clock.run(minutes: 2)
        clock.send(.musicStarted)
        clock.send(.control(.snooze))
        #expect(clock.remembered?.snooze?.untilUTCSeconds == clock.utcMs / 1000 + 9 * 60)
        clock.advance(ms: 60_000)
        clock.powerCut(ms: 3 * 60_000)
        clock.run(minutes: 10)
        // 07:01 + 9 min, as if the power had stayed.
        #expect(clock.starts == ["2026-12-08 07:10:00 wake"])
        #expect(clock.volumes.first! == ("2026-12-08 07:10:00", 0))
        #expect(clock.remembered?.snooze == nil)
    }

    @Test func aSnoozeThatEndedWhileTheBoxWasOffRingsAtOnceIfNotLongAgo() {
        var clock = Clock([Self.alarm(time: "07:00", stopAfter: 30)], localStart: (2026, 12, 8, 6, 59))
        clock.run(minutes: 2)
        clock.send(.control(.snooze))
        var later = clock
        // Back at 07:25: the snooze ended at 07:10, within the alarm's 30 min.
        clock.powerCut(ms: 24 * 60_000)
        clock.look()
        #expect(clock.starts == ["2026-12-08 07:25:00 wake"])
        #expect(clock.announcements.first == "alarm wake: its snooze ended while the box was off")
        // Back at 07:45: too long ago; it says so and does not ring; tomorrow's rings.
        later.powerCut(ms: 44 * 60_000)
        later.look()
        #expect(later.starts == [])
        #expect(
            later.announcements == ["alarm wake: its snooze ended while the box was off, too long ago to ring"])
        later.run(minutes: 24 * 60)
        #expect(later.starts == ["2026-12-09 07:00:00 wake"])
    }

    @Test func aSnoozeKeptWaitsForTheClock() {
        var clock = Clock([Self.alarm(time: "07:00")], localStart: (2026, 12, 8, 6, 59))
        clock.run(minutes: 2)
        clock.send(.control(.snooze))
        clock.powerCut(ms: 60_000)
        // No clock battery: nothing until NTP answers; the snooze is still kept meanwhile.
        clock.known = false
        clock.run(minutes: 3)
        #expect(clock.starts == [])
        #expect(clock.machine.memory.snooze?.name == "wake")
        clock.known = true
        clock.run(minutes: 10)
        #expect(clock.starts == ["2026-12-08 07:10:00 wake"])
    }

    @Test func aStoppedAlarmDoesNotRingAgainAfterARestartInsideItsFade() {
        var clock = Clock([Self.alarm(time: "07:00", fade: 600)], localStart: (2026, 12, 8, 6, 59))
        clock.run(minutes: 2)
        clock.send(.control(.stop))
        #expect(clock.remembered?.settled["wake"] != nil)
        var forgetful = clock
        clock.powerCut(ms: 60_000)
        clock.run(minutes: 60)
        #expect(clock.starts == [])
        // Without what was kept, the restart would ring it again (the fade's catch-up).
        forgetful.advance(ms: 60_000)
        forgetful.machine = WakeUpAlarms(alarms: forgetful.machine.alarms)
        forgetful.log = []
        forgetful.look()
        #expect(forgetful.starts == ["2026-12-08 07:02:00 wake"])
        // Tomorrow's rings.
        clock.run(minutes: 24 * 60)
        #expect(clock.starts == ["2026-12-09 07:00:00 wake"])
    }

    @Test func theKeptTextReadsBackAndSkipsWhatItCannotRead() {
        let memory = AlarmMemory(
            settled: ["wake up": 1_796_713_200, "school": 1_796_716_800],
            snooze: .init(name: "wake up", untilUTCSeconds: 1_796_709_000))
        #expect(AlarmMemory(text: memory.text) == memory)
        #expect(AlarmMemory(text: "") == AlarmMemory())
        let garbled = AlarmMemory(text: "settled x wake\nsnooze 12\nrang 5 wake\n\nsettled 7 a b c")
        #expect(garbled == AlarmMemory(settled: ["a b c": 7]))
        // An alarm no longer in the config is left out.
        var machine = WakeUpAlarms(alarms: [Self.alarm("other", time: "07:00")])
        machine.restore(memory)
        #expect(machine.memory == AlarmMemory())
    }

    // MARK: skipping the next ring

    @Test func aSkippedAlarmStaysQuietOnceAndTheSkipOutlivesAPowerCut() throws {
        var clock = Clock([Self.alarm("school", "mon-fri", time: "06:45")], localStart: (2026, 12, 7, 20, 0))
        clock.look()
        let skipped = try clock.machine.skipNext("school", now: clock.now).get()
        clock.record(skipped)
        #expect(clock.announcements == ["alarm school skipped on 2026-12-08 06:45"])
        let fields = clock.machine.statusFields(now: clock.now)
        #expect(fields.contains { $0 == ("next", "2026-12-09 06:45 school") })
        #expect(fields.contains { $0 == ("skipped", "2026-12-08 06:45 school") })
        // A second skip is refused: the next ring is skipped already.
        #expect(
            clock.machine.skipNext("school", now: clock.now)
                == .failure(
                    .badArgument(command: "alarms skip", problem: "alarm school is already skipped on 2026-12-08 06:45")
                ))
        clock.powerCut(ms: 60_000)
        clock.run(minutes: 2 * 24 * 60)
        // Tuesday stays quiet; Wednesday rings.
        #expect(clock.starts == ["2026-12-09 06:45:00 school"])
    }

    @Test func anUnskipRingsAgainAndMistakesAreRefusedWithTheirReason() throws {
        var clock = Clock([Self.alarm("school", "mon-fri", time: "06:45")], localStart: (2026, 12, 7, 20, 0))
        // Before the clock is known there is no "next" to skip.
        clock.known = false
        clock.look()
        #expect(
            clock.machine.skipNext("school", now: clock.now)
                == .failure(.badArgument(command: "alarms skip", problem: "the clock is not known yet")))
        clock.known = true
        clock.look()
        #expect(
            clock.machine.skipNext("schol", now: clock.now)
                == .failure(.badArgument(command: "alarms skip", problem: "no alarm \"schol\" (alarms: \"school\")")))
        #expect(
            clock.machine.skipNext("school", unskip: true, now: clock.now)
                == .failure(.badArgument(command: "alarms unskip", problem: "alarm school is not skipped")))
        clock.record(try clock.machine.skipNext("school", now: clock.now).get())
        clock.record(try clock.machine.skipNext("school", unskip: true, now: clock.now).get())
        #expect(clock.remembered == AlarmMemory())
        clock.run(minutes: 12 * 60)
        #expect(clock.starts == ["2026-12-08 06:45:00 school"])
    }
}
