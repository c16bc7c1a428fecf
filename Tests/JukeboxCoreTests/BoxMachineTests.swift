import Testing

@testable import JukeboxCore

/// The box machine's policies as tables on a manual clock: each row is an event at a time,
/// the actions the machine returns and the deadline it asks to be woken at.
@Suite struct BoxMachineTests {
    struct Row: Sendable, CustomStringConvertible {
        var atMs: Int64
        var event: BoxMachine.Event
        var actions: [BoxMachine.Action] = []
        /// The machine's next deadline after the event (nil: none).
        var deadlineMs: Int64?

        var description: String { "at \(atMs) ms: \(event)" }
    }

    static func config(_ change: (inout JukeboxConfig) -> Void) -> JukeboxConfig {
        var config = JukeboxConfig(musicDir: "/music")
        change(&config)
        return config
    }

    /// Runs the rows in order on one machine.
    static func run(_ rows: [Row], config: JukeboxConfig, sourceLocation: SourceLocation = #_sourceLocation) {
        var box = BoxMachine(config: config)
        for row in rows {
            let actions = box.handle(row.event, now: .milliseconds(row.atMs))
            #expect(actions == row.actions, "\(row)", sourceLocation: sourceLocation)
            #expect(
                box.nextDeadline == row.deadlineMs.map(Instant.milliseconds), "\(row)", sourceLocation: sourceLocation)
        }
    }

    static let playing = BoxMachine.Event.player(BoxMachine.PlayerView(state: .playing))
    static let paused = BoxMachine.Event.player(BoxMachine.PlayerView(state: .paused))
    static func playing(trackLeftMs: Int64, speed: Int = 100) -> BoxMachine.Event {
        .player(
            BoxMachine.PlayerView(
                state: .playing, speed: PlaybackSpeed(clamping: speed), track: 1, trackLeftMs: trackLeftMs,
                albumLeftMs: trackLeftMs))
    }

    // MARK: - the sleep timer

    @Test func aTimedSleepWakesAtTheFadeThenEvery20MsAndStops() {
        Self.run(
            [
                Row(atMs: 0, event: .setSleep(.after(ms: 60_000))),
                // 60 s to go and a 10 s fade: the next look is when the fade begins.
                Row(atMs: 0, event: Self.playing, deadlineMs: 50_000),
                Row(atMs: 50_000, event: Self.playing, deadlineMs: 50_020),
                Row(atMs: 55_000, event: Self.playing, actions: [.setFade(0.25)], deadlineMs: 55_020),
                Row(atMs: 57_500, event: Self.playing, actions: [.setFade(0.0625)], deadlineMs: 57_520),
                // Time is up: stop, the fade stays until the stop silenced the output.
                Row(atMs: 60_000, event: Self.playing, actions: [.sleepExpired]),
                Row(atMs: 60_100, event: Self.paused, actions: [.setFade(1)]),
            ], config: Self.config { $0.sleep.fadeSeconds = 10 })
    }

    @Test func theSleepTimerCountsTrackTimeAtTheSpeed() {
        // 60 s of track time at 2× is 30 s on the clock: the fade (10 s of track time) begins after 25 s.
        Self.run(
            [
                Row(atMs: 0, event: .setSleep(.after(ms: 60_000))),
                Row(atMs: 0, event: Self.playing(trackLeftMs: 600_000, speed: 200), deadlineMs: 25_000),
            ], config: Self.config { $0.sleep.fadeSeconds = 10 })
    }

    @Test func theEndOfTheTrackWaitsForPlayingAndFadesIntoIt() {
        Self.run(
            [
                Row(atMs: 0, event: .setSleep(.endOfTrack)),
                // Paused, nothing is left to count down: no deadline.
                Row(atMs: 0, event: Self.paused),
                Row(atMs: 1000, event: Self.playing(trackLeftMs: 14_000), deadlineMs: 5000),
                Row(atMs: 9000, event: Self.playing(trackLeftMs: 5000), actions: [.setFade(0.25)], deadlineMs: 9020),
                Row(atMs: 14_000, event: Self.playing(trackLeftMs: 0), actions: [.sleepExpired]),
            ], config: Self.config { $0.sleep.fadeSeconds = 10 })
    }

    @Test func aSleepThatPowersOffStopsFirst() {
        Self.run(
            [
                Row(atMs: 0, event: .setSleep(.after(ms: 1000))),
                Row(atMs: 0, event: Self.playing, actions: [.setFade(0.25)], deadlineMs: 20),
                Row(atMs: 1000, event: Self.playing, actions: [.sleepExpired, .powerOff(reason: "sleep timer")]),
            ],
            config: Self.config {
                $0.sleep.then = .powerOff
                $0.sleep.fadeSeconds = 2
            })
    }

    @Test func turningTheTimerOffEndsTheFadeAndTheDeadline() {
        Self.run(
            [
                Row(atMs: 0, event: .setSleep(.after(ms: 5000))),
                Row(atMs: 0, event: Self.playing, actions: [.setFade(0.25)], deadlineMs: 20),
                Row(atMs: 10, event: .setSleep(nil), deadlineMs: 20),
                Row(atMs: 20, event: Self.playing, actions: [.setFade(1)]),
            ], config: Self.config { $0.sleep.fadeSeconds = 10 })
    }

    // MARK: - idle power-off

    @Test func stoppedOrPausedForTheIdleTimePowersOff() {
        Self.run(
            [
                Row(atMs: 0, event: Self.playing),
                Row(atMs: 1000, event: Self.paused, deadlineMs: 61_000),
                // Playing again starts over.
                Row(atMs: 30_000, event: Self.playing),
                Row(atMs: 40_000, event: Self.paused, deadlineMs: 100_000),
                Row(atMs: 99_999, event: Self.paused, deadlineMs: 100_000),
                Row(atMs: 100_000, event: Self.paused, actions: [.powerOff(reason: "idle power-off")]),
                // Still idle after a power-off that did not happen (no command): again after the time.
                Row(atMs: 100_500, event: Self.paused, deadlineMs: 160_500),
            ], config: Self.config { $0.sleep.idlePowerOffMinutes = 1 })
    }

    @Test func withoutIdlePowerOffNothingIsDue() {
        Self.run(
            [Row(atMs: 0, event: Self.paused), Row(atMs: 86_400_000, event: Self.paused)], config: Self.config { _ in })
    }

    @Test func theSleepTimersStopStartsTheIdleTime() {
        Self.run(
            [
                Row(atMs: 0, event: .setSleep(.after(ms: 60_000))),
                Row(atMs: 0, event: Self.playing, deadlineMs: 60_000),
                Row(atMs: 60_000, event: Self.playing, actions: [.sleepExpired], deadlineMs: 120_000),
            ],
            config: Self.config {
                $0.sleep.idlePowerOffMinutes = 1
                $0.sleep.fadeSeconds = 0
            })
    }

    // MARK: - the card on the reader

    @Test func aCardAwayForLessThanTheDebounceNeverLeft() {
        Self.run(
            [
                Row(atMs: 0, event: .card(.read("A")), actions: [.card(.play("A"))]),
                Row(atMs: 1000, event: .card(.removed), deadlineMs: 2000),
                // Read again 800 ms later: a flaky read, nothing to do and nothing due.
                Row(atMs: 1800, event: .card(.read("A"))),
                Row(atMs: 2000, event: .tick),
                Row(atMs: 3000, event: .card(.removed), deadlineMs: 4000),
                Row(atMs: 3999, event: .tick, deadlineMs: 4000),
                Row(atMs: 4000, event: .tick, actions: [.card(.pause("A"))]),
                Row(atMs: 5000, event: .card(.read("A")), actions: [.card(.resume("A"))]),
                Row(atMs: 6000, event: .card(.read("B")), actions: [.card(.play("B"))]),
            ], config: Self.config { $0.cards.removalDebounceMs = 1000 })
    }

    @Test func aRemovalDueIsExpiredByTheNextEventOfAnyKind() {
        // The removal is real once its time passed, whatever event comes first.
        Self.run(
            [
                Row(atMs: 0, event: .card(.read("A")), actions: [.card(.play("A"))]),
                Row(atMs: 100, event: .card(.removed), deadlineMs: 600),
                Row(atMs: 700, event: .card(.read("B")), actions: [.card(.pause("A")), .card(.play("B"))]),
            ], config: Self.config { $0.cards.removalDebounceMs = 500 })
    }

    @Test func swipesIgnoreRemovalsAndRepeatTheSwipeAgainAction() {
        Self.run(
            [
                Row(atMs: 0, event: .card(.read("A")), actions: [.card(.play("A"))]),
                Row(atMs: 100, event: .card(.removed)),
                Row(atMs: 5000, event: .card(.read("A")), actions: [.card(.swipeAgain("A", .skip))]),
            ],
            config: Self.config {
                $0.cards.mode = .swipe
                $0.cards.swipeAgain = .skip
            })
    }

    // MARK: - the menu's timeout

    @Test func anIdleMenuClosesAfterTheTimeoutFromItsLastGesture() {
        Self.run(
            [
                Row(atMs: 0, event: .tick),
                Row(atMs: 1000, event: .menu(.open), deadlineMs: 31_000),
                Row(atMs: 10_000, event: .menu(.move(1)), deadlineMs: 40_000),
                Row(atMs: 39_999, event: .tick, deadlineMs: 40_000),
                Row(atMs: 40_000, event: .tick, actions: [.menu(.closed)]),
                Row(atMs: 100_000, event: .tick),
            ], config: Self.config { $0.menu.timeoutSeconds = 30 })
    }

    @Test func theMenuAndTheCardsShareOneDeadline() {
        Self.run(
            [
                Row(atMs: 0, event: .card(.read("A")), actions: [.card(.play("A"))]),
                Row(atMs: 0, event: .menu(.open), deadlineMs: 5000),
                Row(atMs: 4500, event: .card(.removed), deadlineMs: 5000),
                Row(atMs: 5000, event: .tick, actions: [.menu(.closed)], deadlineMs: 5500),
                Row(atMs: 5500, event: .tick, actions: [.card(.pause("A"))]),
            ],
            config: Self.config {
                $0.menu.timeoutSeconds = 5
                $0.cards.removalDebounceMs = 1000
            })
    }

    // MARK: - the podcast refresh

    @Test func followedFeedsAreReadAgainEverySixHours() {
        let hour: Int64 = 3_600_000
        Self.run(
            [
                Row(atMs: 0, event: .podcasts(following: false)),
                // The first feed: read at once by `podcast add`, again six hours later.
                Row(atMs: 1000, event: .podcasts(following: true), deadlineMs: 1000 + 6 * hour),
                Row(atMs: 2 * hour, event: .podcasts(following: true), deadlineMs: 1000 + 6 * hour),
                Row(
                    atMs: 1000 + 6 * hour, event: .podcasts(following: true), actions: [.refreshPodcasts],
                    deadlineMs: 1000 + 12 * hour),
                // The last feed gone: nothing due.
                Row(atMs: 7 * hour, event: .podcasts(following: false)),
            ], config: Self.config { _ in })
    }

    // MARK: - the start-up scan

    @Test func withNothingToResumeTheScanStartsAtOnce() {
        Self.run(
            [
                Row(atMs: 0, event: .startedUp(resuming: false), actions: [.startScan]),
                Row(atMs: 100, event: .playbackStarted),
                Row(atMs: 5000, event: .tick),
            ], config: Self.config { _ in })
    }

    @Test func resumingTheScanWaitsForTheFirstSampleOrTwoSeconds() {
        Self.run(
            [
                Row(atMs: 0, event: .startedUp(resuming: true), deadlineMs: 2000),
                Row(atMs: 700, event: .playbackStarted, actions: [.startScan]),
                // Once only: later tracks start no scan.
                Row(atMs: 3000, event: .playbackStarted),
            ], config: Self.config { _ in })
        Self.run(
            [
                Row(atMs: 0, event: .startedUp(resuming: true), deadlineMs: 2000),
                Row(atMs: 1999, event: .tick, deadlineMs: 2000),
                Row(atMs: 2000, event: .tick, actions: [.startScan]),
                Row(atMs: 2500, event: .playbackStarted),
            ], config: Self.config { _ in })
    }

    // MARK: - scrubbing

    @Test func aScrubMovesFromThePositionAndSeeksAtTheRelease() {
        Self.run(
            [
                Row(atMs: 0, event: .scrub(3, positionMs: 60_000, durationMs: 600_000), deadlineMs: 30_000),
                Row(atMs: 1000, event: .scrub(-1, positionMs: 0, durationMs: 600_000), deadlineMs: 31_000),
                Row(atMs: 2000, event: .scrubReleased, actions: [.scrubTo(ms: 80_000)]),
                Row(atMs: 3000, event: .scrubReleased),
                // Within the track: a second before its end at most.
                Row(atMs: 4000, event: .scrub(2, positionMs: 60_000, durationMs: 65_000), deadlineMs: 34_000),
                Row(atMs: 5000, event: .scrubReleased, actions: [.scrubTo(ms: 64_000)]),
            ], config: Self.config { $0.encoder.scrubStepSeconds = 10 })
    }

    @Test func aScrubWithoutAReleaseIsDroppedAfter30Seconds() {
        Self.run(
            [
                Row(atMs: 0, event: .scrub(1, positionMs: 0, durationMs: nil), deadlineMs: 30_000),
                Row(atMs: 29_999, event: .tick, deadlineMs: 30_000),
                Row(atMs: 30_000, event: .tick, actions: [.scrubDropped]),
                Row(atMs: 31_000, event: .scrubReleased),
            ], config: Self.config { _ in })
    }
}
