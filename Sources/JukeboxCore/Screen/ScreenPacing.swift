/// When the box's screen is drawn, and which brief overlays a change shows. A frame is drawn
/// at most every `frameIntervalMs` (20 Hz; the loop turns that often while music plays, for
/// the lyric line and the clock, and otherwise only for events and an overlay's end), and at
/// once for what the eye must not wait for: another track, lyrics reloaded or nudged, the
/// favourite mark, the volume, the play mode or state, a jump in position, the knob's scrub
/// target, the menu closed, an overlay that ended.
///
/// Pure: the daemon's display adapter gives it each loop turn's look at the player with the
/// time and the screen's overlay end, hands the overlays to the screen and draws when told
/// (ScreenPacingTests runs it on a manual clock).
public struct ScreenPacing: Sendable {
    /// What the screen shows of the player, each loop turn.
    public struct Look: Sendable, Equatable {
        public var track: TrackInfo?
        /// Changes when the track's lyrics are reloaded or nudged.
        public var lyricsVersion: Int
        public var favourite: Bool
        public var state: PlayState
        public var positionMs: Int64
        public var volume: Int
        public var options: PlayOptions
        /// Where the knob's scrub will jump; nil when not scrubbing.
        public var scrubTargetMs: Int64?

        public init(
            track: TrackInfo?, lyricsVersion: Int, favourite: Bool, state: PlayState, positionMs: Int64, volume: Int,
            options: PlayOptions, scrubTargetMs: Int64?
        ) {
            self.track = track
            self.lyricsVersion = lyricsVersion
            self.favourite = favourite
            self.state = state
            self.positionMs = positionMs
            self.volume = volume
            self.options = options
            self.scrubTargetMs = scrubTargetMs
        }
    }

    /// What to do this turn: hand `overlays` to the screen, then draw if `draw`.
    public struct Decision: Sendable, Equatable {
        public var overlays: [ScreenEvent]
        public var draw: Bool
    }

    /// Minimum time between two frames that nothing urgent asked for.
    public static let frameIntervalMs: Int64 = 50
    /// A position that moved more than this since the last look jumped (a seek, a chapter).
    public static let jumpMs: Int64 = 1500

    private var last: Look?
    private var lastDraw: Instant?
    private var menuWasShown = false

    public init() {}

    /// Takes this turn's look. `overlayEnds` is the screen's: when the overlay showing at a
    /// time ends (nil: none then). Overlays this look starts always come with a draw, so the
    /// screen may take them after this call.
    public mutating func look(_ look: Look, now: Instant, overlayEnds: (Instant) -> Instant?) -> Decision {
        var overlays: [ScreenEvent] = []
        var urgent = menuWasShown
        if let last {
            if last.volume != look.volume { overlays.append(.volume(look.volume)) }
            if last.options != look.options { overlays.append(.mode(look.options)) }
            if last.state != look.state {
                if look.state == .paused { overlays.append(.paused) }
                if look.state == .playing && last.state == .paused { overlays.append(.resumed) }
            }
            urgent =
                urgent || last.track != look.track || last.lyricsVersion != look.lyricsVersion
                || last.favourite != look.favourite || last.volume != look.volume || last.options != look.options
                || last.state != look.state || abs(look.positionMs - last.positionMs) > Self.jumpMs
                || last.scrubTargetMs != look.scrubTargetMs
        } else {
            urgent = true
        }
        // An overlay ("Paused", a volume) that ended since the last frame comes down now: the
        // loop woke for its end, and with the player not playing no later frame is due (a frame
        // drawn just before the end kept "Paused" on the glass until the next event).
        if let lastDraw, overlayEnds(lastDraw) != nil, overlayEnds(now) == nil { urgent = true }
        last = look
        menuWasShown = false
        let due = lastDraw.map { now.milliseconds(since: $0) >= Self.frameIntervalMs } ?? true
        let draw = urgent || due
        if draw { lastDraw = now }
        return Decision(overlays: overlays, draw: draw)
    }

    /// The menu was drawn over the screen: what plays is drawn at once when it closes.
    public mutating func menuShown() { menuWasShown = true }

    /// A message overlay was put up: the next look draws it.
    public mutating func redrawNext() { lastDraw = nil }

    /// How long the loop may sleep before a frame is due (nil: only an event brings one).
    /// `overlayEnds` is the screen's, as for `look`. An overlay the last frame showed must come
    /// down when it ends, also when that end has already passed: the loop's turn takes its
    /// time once (a look at 0.99 s that drew "Paused" until 1 s, then a journal write, and the
    /// loop asking at 1.01 s found no overlay showing and slept until the next event with
    /// "Paused" on the glass; the I2C LCD's board test, on a loaded machine).
    public func sleepLimitMs(now: Instant, overlayEnds: (Instant) -> Instant?) -> Int64? {
        if last?.state == .playing { return Self.frameIntervalMs }
        if let lastDraw, let end = overlayEnds(lastDraw) { return max(1, end.milliseconds(since: now) + 1) }
        return nil
    }
}
