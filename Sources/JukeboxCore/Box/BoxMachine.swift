/// The box's policies over time in one pure machine: the sleep timer (its fade and its end),
/// idle power-off, the card on the reader (its removal debounced), the knob's menu (closed
/// when left idle), the podcast feeds' refresh, when the start-up scan begins, scrubbing
/// with the knob (dropped when no release comes) and the family's listening rules (profiles,
/// quiet hours, the daily budget: `ListeningRules`, whose fade and the sleep timer's multiply).
/// The daemon feeds it events with the time from its one clock, performs the actions it
/// returns and wakes up no later than `nextDeadline`; nothing here reads a clock, so every
/// policy is table-tested on a manual one (BoxMachineTests).
public struct BoxMachine: Sendable {
    /// What the player is doing, as the daemon saw it at this turn of its loop.
    public struct PlayerView: Sendable, Equatable {
        public var state: PlayState
        public var speed: PlaybackSpeed
        /// The queue's current track.
        public var track: TrackID?
        public var positionMs: Int64
        /// What is left of the playing track and of its album (the track's rest plus the
        /// following queue entries of the same album), in track time; nil when nothing plays.
        public var trackLeftMs: Int64?
        public var albumLeftMs: Int64?
        /// The current track's chapters, for `sleep chapter`.
        public var chapters: ChapterList?
        /// The card whose music the queue holds (the rules' allowed cards).
        public var card: String?

        public init(
            state: PlayState, speed: PlaybackSpeed = .normal, track: TrackID? = nil, positionMs: Int64 = 0,
            trackLeftMs: Int64? = nil, albumLeftMs: Int64? = nil, chapters: ChapterList? = nil, card: String? = nil
        ) {
            self.card = card
            self.state = state
            self.speed = speed
            self.track = track
            self.positionMs = positionMs
            self.trackLeftMs = trackLeftMs
            self.albumLeftMs = albumLeftMs
            self.chapters = chapters
        }
    }

    public enum Event: Sendable, Equatable {
        /// Time passed: a deadline may have come.
        case tick
        /// A read or a removal at a card reader (or typed on a console).
        case card(TagCardPresence.Event)
        /// A gesture for the menu (opening it, turning, pressing).
        case menu(MenuEvent)
        /// Whether any podcast feed is followed now (each turn of the loop).
        case podcasts(following: Bool)
        /// The daemon started; `resuming`: it has a track to resume.
        case startedUp(resuming: Bool)
        /// The first sample of a track reached the output.
        case playbackStarted
        /// Clicks turned with the scrub button held, from the player's position and track length.
        case scrub(Int, positionMs: Int64, durationMs: Int64?)
        /// The scrub button let go.
        case scrubReleased
        /// The player as it is now (each turn of the daemon's loop).
        case player(PlayerView)
        /// `sleep ...` from a console, the menu or a gesture; nil turns the timer off.
        case setSleep(SleepTarget?)
        /// The local wall time (each turn of the loop), or nil while it is not known.
        case wallClock(LocalWallTime?)
        /// The listening time used, as persisted (at start-up).
        case listeningRestored(ListeningUsage)
    }

    public enum Action: Sendable, Equatable {
        /// Multiply the output's gain by this: the sleep timer's and the rules' fades (1 when
        /// not fading).
        case setFade(Float)
        /// What the listening rules ask for (their fade comes as `setFade`).
        case rules(ListeningRules.Action)
        /// The sleep timer ran out: stop playback.
        case sleepExpired
        /// Save everything and power off.
        case powerOff(reason: String)
        /// What the card on the reader asks for.
        case card(TagCardPresence.Action)
        /// What the menu chose (or that it closed).
        case menu(MenuAction)
        /// Read every podcast feed again.
        case refreshPodcasts
        /// Scan the library (the start-up rescan).
        case startScan
        /// Seek to where the scrub ended.
        case scrubTo(ms: Int64)
        /// A scrub whose release never came was dropped.
        case scrubDropped
    }

    /// What happens when the sleep timer runs out.
    public let sleepEnd: SleepEnd
    private var sleepTimer: SleepTimer
    /// The chapter `sleep chapter` waits for.
    private var sleepChapter = ChapterEnd()
    /// What is left of the sleep timer at the last look at the player; nil when it is off.
    public private(set) var sleepLeftMs: Int64?
    /// The fade last asked for (1 when not fading): the sleep timer's times the rules'.
    public private(set) var fadeGain: Float = 1
    private var sleepGain: Float = 1
    /// Profiles, quiet hours and the daily listening budget (`[rules]`).
    public private(set) var rules: ListeningRules
    /// When the sleep timer next needs a look: its fade's next step, or the fade's start.
    private var sleepDue: Instant?
    /// `[sleep] idle_power_off`; nil for never.
    public let idlePowerOffMs: Int64?
    /// Since when the player has been stopped or paused.
    private var idleSince: Instant?
    /// The NFC/RFID card on the reader (place to play, swipes).
    public private(set) var cards: TagCardPresence
    /// The knob's menu over the library; closed until its gesture. The daemon gives it its
    /// catalog and what it shows; its gestures come as `.menu` events.
    public var menu = Menu(catalog: MenuCatalog(tracks: []))
    /// Feeds are read again this long after they were last read (the daemon reads them all
    /// at start).
    public static let podcastRefreshMs: Int64 = 6 * 3_600_000
    /// When every feed is read again; nil while none is followed.
    private var podcastRefreshDue: Instant?
    /// With something to resume, the first sample comes first: the start-up rescan waits
    /// until playback started (or this long), so it does not compete with it for the CPU.
    public static let startupScanWaitMs: Int64 = 2000
    /// When the start-up rescan begins, while it waits for playback to start.
    private var startupScanDue: Instant?
    /// Hold the scrub button and turn the knob: where the player will jump at the release.
    public private(set) var scrubber: Scrubber

    /// The machine for `config`, every policy idle.
    public init(config: JukeboxConfig) {
        sleepEnd = config.sleep.then
        sleepTimer = SleepTimer(fadeMs: Int64(config.sleep.fadeSeconds) * 1000)
        idlePowerOffMs = config.sleep.idlePowerOffMs
        cards = TagCardPresence(
            mode: config.cards.mode, swipeAgain: config.cards.swipeAgain,
            removalDebounceMs: Int64(config.cards.removalDebounceMs))
        menu.timeoutMs = config.menu.timeoutMs
        scrubber = Scrubber(stepMs: Int64(config.encoder.scrubStepSeconds) * 1000)
        rules = ListeningRules(config: config.rules)
    }

    /// The sleep timer's target; nil when it is off.
    public var sleepTarget: SleepTarget? { sleepTimer.target }

    /// The earliest time something here can change without an event: the daemon's loop
    /// sleeps no longer (and then sends `.player`).
    public var nextDeadline: Instant? {
        let idleDue = idlePowerOffMs.flatMap { idleMs in idleSince.map { $0.adding(milliseconds: idleMs) } }
        return [
            sleepDue, idleDue, cards.nextDeadline, menu.nextDeadline, podcastRefreshDue, startupScanDue,
            scrubber.nextDeadline, rules.nextDeadline,
        ].compactMap { $0 }.min()
    }

    public mutating func handle(_ event: Event, now: Instant) -> [Action] {
        switch event {
        case .tick:
            var scan: [Action] = []
            if let due = startupScanDue, now >= due {
                startupScanDue = nil
                scan = [.startScan]
            }
            let closed = menu.isOpen ? menu.handle(.tick, now: now).map(Action.menu) : []
            let dropped: [Action] = scrubber.advance(to: now) ? [.scrubDropped] : []
            return scan + cards.handle(.tick, now: now).map(Action.card) + closed + dropped
        case .menu(let event):
            return menu.handle(event, now: now).map(Action.menu)
        case .scrub(let units, let positionMs, let durationMs):
            scrubber.turn(units, positionMs: positionMs, durationMs: durationMs, now: now)
            return []
        case .scrubReleased:
            return scrubber.release().map { [.scrubTo(ms: $0)] } ?? []
        case .startedUp(let resuming):
            guard resuming else { return [.startScan] }
            startupScanDue = now.adding(milliseconds: Self.startupScanWaitMs)
            return []
        case .playbackStarted:
            guard startupScanDue != nil else { return [] }
            startupScanDue = nil
            return [.startScan]
        case .podcasts(let following):
            guard following else {
                podcastRefreshDue = nil
                return []
            }
            guard let due = podcastRefreshDue, now >= due else {
                podcastRefreshDue = podcastRefreshDue ?? now.adding(milliseconds: Self.podcastRefreshMs)
                return []
            }
            podcastRefreshDue = now.adding(milliseconds: Self.podcastRefreshMs)
            return [.refreshPodcasts]
        case .card(let event):
            return cards.handle(event, now: now).map(Action.card)
        case .player(let view):
            var actions = runSleepTimer(view, now: now)
            var ruled: [Action] = []
            for action in rules.handle(
                .player(state: view.state, trackLeftMs: view.trackLeftMs, speed: view.speed, card: view.card), now: now)
            {
                if case .setFade = action { continue }
                ruled.append(.rules(action))
            }
            let gain = sleepGain * rules.fadeGain
            if gain != fadeGain {
                fadeGain = gain
                actions.insert(.setFade(gain), at: 0)
            }
            actions += ruled
            // The stop the timer or the rules asked for makes the box idle from now.
            let stopping = actions.contains(.sleepExpired) || actions.contains(.rules(.budgetEnded))
            return actions + runIdlePowerOff(stopping ? .stopped : view.state, now: now)
        case .wallClock(let time):
            return rules.handle(.clock(time), now: now).compactMap { action in
                if case .setFade(let ruleGain) = action {
                    let gain = sleepGain * ruleGain
                    guard gain != fadeGain else { return nil }
                    fadeGain = gain
                    return .setFade(gain)
                }
                return .rules(action)
            }
        case .listeningRestored(let usage):
            return rules.handle(.restored(usage), now: now).map(Action.rules)
        case .setSleep(let target):
            sleepTimer.set(target, now: now)
            sleepChapter.reset()
            return []
        }
    }

    /// The fade steps every 20 ms (each step ramps over ~5 ms in the output); before it, the
    /// machine wants a look when it is due (the timer counts track time: at 2× it comes in
    /// half the time).
    private static let fadeStepMs: Int64 = 20

    private mutating func runSleepTimer(_ view: PlayerView, now: Instant) -> [Action] {
        let chapterLeft = sleepChapter.leftMs(
            track: view.track, chapters: view.chapters, positionMs: view.positionMs, trackLeftMs: view.trackLeftMs)
        let step = sleepTimer.step(
            now: now, speed: view.speed, trackLeftMs: view.trackLeftMs, albumLeftMs: view.albumLeftMs,
            chapterLeftMs: chapterLeft)
        var actions: [Action] = []
        var gain: Float = 1
        defer { sleepGain = gain }
        switch step {
        case .off:
            sleepLeftMs = nil
        case .running(let left):
            sleepLeftMs = left == Int64.max ? nil : left
        case .fading(let left, let fade):
            sleepLeftMs = left
            gain = fade
        case .expired:
            // The gain comes back on the next look, once the stop has silenced the output.
            gain = sleepGain
            sleepLeftMs = nil
            actions.append(.sleepExpired)
        }
        if step == .expired, sleepEnd == .powerOff { actions.append(.powerOff(reason: "sleep timer")) }
        sleepDue = sleepLeftMs.map { left in
            let fadeMs = sleepTimer.fadeMs
            return now.adding(
                milliseconds: left <= fadeMs ? Self.fadeStepMs : (left - fadeMs) * 100 / Int64(view.speed.hundredths))
        }
        return actions
    }

    /// Stopped or paused for `idlePowerOffMs`: power off (and count again from there).
    private mutating func runIdlePowerOff(_ state: PlayState, now: Instant) -> [Action] {
        guard let idleMs = idlePowerOffMs, state != .playing else {
            idleSince = nil
            return []
        }
        let since = idleSince ?? now
        guard now.milliseconds(since: since) >= idleMs else {
            idleSince = since
            return []
        }
        idleSince = nil
        return [.powerOff(reason: "idle power-off")]
    }
}
