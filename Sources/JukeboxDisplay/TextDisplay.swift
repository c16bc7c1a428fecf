import JukeboxCore

/// A display driven from the control loop: it is given whole frames and sends only what
/// changed. Called on the control thread only; `show` must not block for long (a display
/// that cannot keep up drops frames rather than delay the loop).
public protocol TextDisplay: AnyObject {
    /// The size in character cells that the layout should fill.
    var columns: Int { get }
    var rows: Int { get }
    /// Shows `frame` (exactly `rows` rows of `columns` cells).
    func show(_ frame: ScreenFrame, now: Instant)
    /// Leaves the device in a sane state (cursor, scroll region, backlight on).
    func close()
}
