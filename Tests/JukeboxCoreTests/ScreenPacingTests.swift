import JukeboxCore
import Testing

/// When the screen is drawn and which overlays show, on a manual clock, with a screen whose
/// overlays last a fixed time (as ScreenLayout's do).
struct ScreenPacingTests {
    /// The pacing and a stand-in for the screen's overlay: one at a time, ending `overlayMs`
    /// after it was put up.
    struct Box {
        var pacing = ScreenPacing()
        var overlayEnd: Instant?
        var draws: [Int64] = []
        let overlayMs: Int64 = 1000

        func overlayEnds(after time: Instant) -> Instant? { Self.ends(overlayEnd, after: time) }

        static func ends(_ end: Instant?, after time: Instant) -> Instant? {
            guard let end, end > time else { return nil }
            return end
        }

        /// One loop turn at `ms`: the overlays it starts, and whether it drew.
        mutating func turn(_ look: ScreenPacing.Look, at ms: Int64) -> (overlays: [ScreenEvent], drew: Bool) {
            let now = Instant.milliseconds(ms)
            let decision = pacing.look(
                look, now: now, overlayEnds: { [overlayEnd] in Self.ends(overlayEnd, after: $0) })
            if !decision.overlays.isEmpty { overlayEnd = now.adding(milliseconds: overlayMs) }
            if decision.draw { draws.append(ms) }
            return (decision.overlays, decision.draw)
        }
    }

    static let song = TrackInfo(id: 1, path: "a.mp3", title: "A")

    static func look(
        state: PlayState = .playing, at positionMs: Int64 = 0, volume: Int = 50, track: TrackInfo? = song,
        lyrics: Int = 0, favourite: Bool = false, options: PlayOptions = PlayOptions(), scrub: Int64? = nil
    ) -> ScreenPacing.Look {
        ScreenPacing.Look(
            track: track, lyricsVersion: lyrics, favourite: favourite, state: state, positionMs: positionMs,
            volume: volume, options: options, scrubTargetMs: scrub)
    }

    @Test func playingDrawsAtMost20FramesASecond() {
        var box = Box()
        for ms in stride(from: Int64(0), through: 200, by: 10) { _ = box.turn(Self.look(at: ms), at: ms) }
        #expect(box.draws == [0, 50, 100, 150, 200])
        #expect(box.pacing.sleepLimitMs(now: .milliseconds(200), overlayEnds: { _ in nil }) == 50)
    }

    /// Each row: what changed 10 ms after a frame, the overlays it shows; it draws at once.
    @Test(arguments: [
        ("volume", look(volume: 60), [ScreenEvent.volume(60)]),
        ("mode", look(options: PlayOptions(repeat: true)), [.mode(PlayOptions(repeat: true))]),
        ("pause", look(state: .paused), [.paused]),
        ("stop", look(state: .stopped), []),
        ("another track", look(track: TrackInfo(id: 2, path: "b.mp3")), []),
        ("lyrics nudged", look(lyrics: 1), []),
        ("favourite", look(favourite: true), []),
        ("a seek", look(at: 1600), []),
        ("the knob scrubs", look(scrub: 90_000), []),
    ])
    func anUrgentChangeDrawsAtOnce(what: String, changed: ScreenPacing.Look, overlays: [ScreenEvent]) {
        var box = Box()
        #expect(box.turn(Self.look(), at: 0) == ([], true))
        let turn = box.turn(changed, at: 10)
        #expect(turn.overlays == overlays, "\(what)")
        #expect(turn.drew, "\(what)")
    }

    @Test func positionMovingAsItPlaysWaitsForTheNextFrame() {
        var box = Box()
        _ = box.turn(Self.look(at: 0), at: 0)
        #expect(box.turn(Self.look(at: 1400), at: 10).drew == false)
    }

    @Test func resumingAfterAPauseShowsResumed() {
        var box = Box()
        _ = box.turn(Self.look(), at: 0)
        #expect(box.turn(Self.look(state: .paused), at: 100).overlays == [.paused])
        #expect(box.turn(Self.look(state: .playing), at: 200).overlays == [.resumed])
        // From stopped, playing is no "resumed".
        _ = box.turn(Self.look(state: .stopped), at: 300)
        #expect(box.turn(Self.look(state: .playing), at: 400).overlays == [])
    }

    /// The I2C LCD's "Paused never went away": paused at 0 ("Paused" until 1,000), a frame at
    /// 980 for another event; the loop wakes at 1,001 for the overlay's end: it must draw,
    /// though the last frame is 21 ms old, or "Paused" stays with nothing else due.
    @Test func anOverlayThatEndedComesDownAtOnce() {
        var box = Box()
        _ = box.turn(Self.look(), at: -100)
        #expect(box.turn(Self.look(state: .paused), at: 0) == ([.paused], true))
        #expect(box.pacing.sleepLimitMs(now: .milliseconds(0), overlayEnds: box.overlayEnds(after:)) == 1001)
        box.pacing.redrawNext()  // a message at 980 (any event that drew)
        #expect(box.turn(Self.look(state: .paused), at: 980).drew)
        #expect(box.turn(Self.look(state: .paused), at: 1001).drew)
        // Paused, no overlay: nothing more is due.
        #expect(
            box.pacing.sleepLimitMs(now: .milliseconds(1001), overlayEnds: box.overlayEnds(after:))
                == nil)
    }

    /// The board's stuck "Paused", on a loaded machine: a turn looked at 990 (before the
    /// overlay's end at 1,000) and drew "Paused"; its work took until 1,010, where the loop
    /// asks how long it may sleep. The overlay the frame showed has ended: it must wake at
    /// once, and that look must draw.
    @Test func anOverlayThatEndedDuringTheTurnStillComesDown() {
        var box = Box()
        _ = box.turn(Self.look(), at: -100)
        _ = box.turn(Self.look(state: .paused), at: 0)
        #expect(box.turn(Self.look(state: .paused, at: 1000), at: 990).drew)  // a frame was due: "Paused" still up
        #expect(box.pacing.sleepLimitMs(now: .milliseconds(1010), overlayEnds: box.overlayEnds(after:)) == 1)
        #expect(box.turn(Self.look(state: .paused, at: 1000), at: 1011).drew)
        #expect(box.pacing.sleepLimitMs(now: .milliseconds(1011), overlayEnds: box.overlayEnds(after:)) == nil)
    }

    @Test func theMenuClosingDrawsWhatPlays() {
        var box = Box()
        _ = box.turn(Self.look(state: .paused), at: 0)
        box.pacing.menuShown()
        #expect(box.turn(Self.look(state: .paused), at: 10).drew)
        #expect(box.turn(Self.look(state: .paused), at: 20).drew == false)
    }

    @Test func aMessageIsDrawnAtTheNextLook() {
        var box = Box()
        _ = box.turn(Self.look(), at: 0)
        box.pacing.redrawNext()
        #expect(box.turn(Self.look(), at: 5).drew)
    }

    @Test func stoppedWithNothingShowingSleepsUntilAnEvent() {
        var box = Box()
        _ = box.turn(Self.look(state: .stopped, track: nil), at: 0)
        #expect(box.pacing.sleepLimitMs(now: .milliseconds(10), overlayEnds: box.overlayEnds(after:)) == nil)
        #expect(box.turn(Self.look(state: .stopped, track: nil), at: 10).drew == false)
    }
}
