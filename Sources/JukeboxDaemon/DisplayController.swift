// The display, driven from the control loop (thread `jb-control`). It renders the core's
// `ScreenLayout` for the playing track, its lyrics and the audio-clock position, at most
// every 50 ms (20 Hz) and only when the rows change; drivers send only the cells that
// changed. It never touches audio: a slow display costs display frames, not samples.

import Glibc
import JukeboxCore
import JukeboxDisplay
import LinuxSupport
import Logging

/// Owns the display driver and the layout. Control thread only.
final class DisplayController {
    private let screen: Screen
    private var track: TrackInfo?
    private var favourite = false
    private var lyricsVersion = -1
    private var lastRender: Instant?
    private var lastVolume: Int?
    private var lastOptions: PlayOptions?
    private var lastState: PlayState?
    private var lastPositionMs: Int64 = 0
    private var lastScrubTargetMs: Int64?
    /// The menu was on the screen: what plays is drawn at once when it closes.
    private var showedMenu = false

    /// Minimum time between two frames.
    static let frameIntervalMs: Int64 = 50

    init(screen: Screen) {
        self.screen = screen
    }

    /// The display the config asks for, or nil for `none` (or when it cannot be opened:
    /// the player goes on without it).
    static func make(config: JukeboxConfig, logger: Logger) -> DisplayController? {
        let d = config.display
        let driver: Screen?
        switch d.kind {
        case .none:
            return nil
        case .terminal:
            var output = FileDescriptor.standardError
            if !output.isTerminal && FileDescriptor.standardOutput.isTerminal { output = .standardOutput }
            if !d.device.isEmpty {
                do {
                    output = try FileDescriptor(path: d.device, flags: O_WRONLY | O_NOCTTY)
                } catch {
                    logger.error("display: cannot open \(d.device): \(error.summary); going on without a display")
                    return nil
                }
            }
            driver = CharacterScreen(display: TerminalDisplay(output: output, columns: d.columns, rows: d.rows))
        default:
            driver = DisplayDrivers.open(config: d, logger: logger)
        }
        guard let driver else { return nil }
        logger.info("display: \(d.kind.rawValue)\(d.device.isEmpty ? "" : " on \(d.device)")")
        return DisplayController(screen: driver)
    }

    /// How long the loop may sleep before the next frame is due (nil: only on events).
    func sleepLimitMs(now: Instant) -> Int64? {
        if lastState == .playing { return Self.frameIntervalMs }
        if let ends = screen.overlayEnds(after: now) { return max(1, ends.milliseconds(since: now) + 1) }
        return nil
    }

    /// Called every loop turn with the player's state, the audio-clock position and the
    /// playing track's lyrics (`lyricsVersion` changes when they are reloaded or nudged).
    /// While the knob scrubs, `scrubTargetMs` is where the player will jump (the chapter shown
    /// is the target's).
    func update(
        now: Instant, track: TrackInfo?, lyrics: LyricTimeline?, lyricsVersion: Int, state: PlayState,
        positionMs: Int64, volume: Int, options: PlayOptions, favourite: Bool, sleepLeftMs: Int64?,
        scrubTargetMs: Int64?
    ) {
        var urgent = false
        if track != self.track || lyricsVersion != self.lyricsVersion || favourite != self.favourite {
            self.track = track
            self.favourite = favourite
            self.lyricsVersion = lyricsVersion
            urgent = true
        }
        if let lastVolume, lastVolume != volume { screen.handle(.volume(volume), now: now) }
        if let lastOptions, lastOptions != options { screen.handle(.mode(options), now: now) }
        if let lastState, lastState != state {
            if state == .paused { screen.handle(.paused, now: now) }
            if state == .playing && lastState == .paused { screen.handle(.resumed, now: now) }
        }
        // An overlay ("Paused", a volume) that ended since the last frame is taken down now:
        // the loop woke for its end, and with the player not playing no later frame is due (a
        // frame drawn just before the end kept "Paused" on the glass until the next event).
        let overlayEnded =
            lastRender.map { screen.overlayEnds(after: $0) != nil } ?? false
            && screen.overlayEnds(after: now) == nil
        urgent =
            urgent || showedMenu || lastVolume != volume || lastOptions != options || lastState != state
            || abs(positionMs - lastPositionMs) > 1500 || scrubTargetMs != lastScrubTargetMs || overlayEnded
        lastScrubTargetMs = scrubTargetMs
        lastVolume = volume
        lastOptions = options
        lastState = state
        lastPositionMs = positionMs
        showedMenu = false
        if !urgent, let lastRender, now.milliseconds(since: lastRender) < Self.frameIntervalMs { return }
        lastRender = now
        let playing = track.map {
            NowPlaying(
                title: $0.shownTitle, artist: $0.artist ?? "",
                state: state == .playing ? .playing : state == .paused ? .paused : .stopped, positionMs: positionMs,
                durationMs: $0.durationMs, favourite: favourite, sleepLeftMs: sleepLeftMs,
                chapter: $0.chapters?.moment(at: scrubTargetMs ?? positionMs), scrubTargetMs: scrubTargetMs)
        }
        screen.refresh(playing, lyrics: lyrics, now: now)
    }

    /// A brief message over the lyrics (a favourite marked or unmarked).
    func announce(_ text: String, now: Instant) {
        screen.handle(.message(text), now: now)
        lastRender = nil
    }

    /// Draws the open menu (every loop turn while it is open; the screen sends only changes).
    func showMenu(_ menu: Menu, now: Instant) {
        screen.show(menu, now: now)
        showedMenu = true
    }

    func close() { screen.close() }
}
