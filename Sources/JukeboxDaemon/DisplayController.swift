// The display, driven from the control loop (thread `jb-control`). It renders the core's
// `ScreenLayout` for the playing track, its lyrics and the audio-clock position when the
// core's `ScreenPacing` says (at most 20 Hz but for urgent changes); drivers send only the
// cells that changed. It never touches audio: a slow display costs display frames, not samples.

import Glibc
import JukeboxCore
import JukeboxDisplay
import LinuxSupport
import Logging

/// Owns the display driver; when to draw and which overlays to show is the core's
/// `ScreenPacing`. Control thread only.
final class DisplayController {
    private let screen: Screen
    private var pacing = ScreenPacing()

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
        pacing.sleepLimitMs(now: now, overlayEnds: screen.overlayEnds(after:))
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
        let look = ScreenPacing.Look(
            track: track, lyricsVersion: lyricsVersion, favourite: favourite, state: state, positionMs: positionMs,
            volume: volume, options: options, scrubTargetMs: scrubTargetMs)
        let decision = pacing.look(look, now: now, overlayEnds: screen.overlayEnds(after:))
        for overlay in decision.overlays { screen.handle(overlay, now: now) }
        guard decision.draw else { return }
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
        pacing.redrawNext()
    }

    /// Draws the open menu (every loop turn while it is open; the screen sends only changes).
    func showMenu(_ menu: Menu, now: Instant) {
        screen.show(menu, now: now)
        pacing.menuShown()
    }

    func close() { screen.close() }
}
