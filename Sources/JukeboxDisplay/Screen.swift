import JukeboxCore

/// A display as the control loop sees it: overlay events and refreshes with what is
/// playing; each implementation lays out and sends only what changed. Control thread only.
public protocol Screen: AnyObject {
    /// A change that gets a brief overlay (volume, mode, pause).
    func handle(_ event: ScreenEvent, now: Instant)
    /// Draws the screen for `playing` at `now` if it changed.
    func refresh(_ playing: NowPlaying?, lyrics: LyricTimeline?, now: Instant)
    /// Draws the open menu instead of what plays, if it changed.
    func show(_ menu: Menu, now: Instant)
    /// When an overlay ends (a refresh is due then even when nothing plays).
    func overlayEnds(after now: Instant) -> Instant?
    /// Leaves the device in a sane state.
    func close()
}

/// A character display (LCD, terminal) laid out by `ScreenLayout`.
public final class CharacterScreen: Screen {
    public let display: TextDisplay
    public private(set) var layout: ScreenLayout
    private var last: ScreenFrame?

    /// A screen on `display`.
    public init(display: TextDisplay) {
        self.display = display
        layout = ScreenLayout(columns: display.columns, rows: display.rows)
    }

    public func handle(_ event: ScreenEvent, now: Instant) { layout.handle(event, now: now) }

    public func refresh(_ playing: NowPlaying?, lyrics: LyricTimeline?, now: Instant) {
        let frame = layout.frame(playing, lyrics: lyrics, now: now)
        if frame != last {
            last = frame
            display.show(frame, now: now)
        }
    }

    public func show(_ menu: Menu, now: Instant) {
        guard let page = menu.page(rows: display.rows - 1, now: now) else { return }
        let frame = page.frame(columns: display.columns, rows: display.rows)
        if frame != last {
            last = frame
            display.show(frame, now: now)
        }
    }

    public func overlayEnds(after now: Instant) -> Instant? { layout.overlayEnds(after: now) }

    public func close() { display.close() }
}
