/// Scrubbing through a long track: hold a button (`[encoder] scrub_button`) and turn the knob.
/// Each click moves a target time, which the screen shows; the player jumps there only when
/// the button is let go, so turning through an hour-long book costs one seek, not hundreds.
/// Pure: time comes in, the target to seek to comes out.
public struct Scrubber: Sendable, Equatable {
    /// How far one click (after the knob's acceleration) moves the target.
    public let stepMs: Int64
    /// A scrub with no turn for this long is dropped without a jump (a release that never
    /// came: a console's `knob scrub` without `knob release`, a line that went away).
    public let timeoutMs: Int64
    /// Where the player jumps at the release; nil while no scrub is on.
    public private(set) var targetMs: Int64?
    private var lastTurn = Instant.zero

    public init(stepMs: Int64, timeoutMs: Int64 = 30_000) {
        self.stepMs = max(stepMs, 1)
        self.timeoutMs = max(timeoutMs, 1)
    }

    /// `units` clicks (signed) with the button held. The first starts from `positionMs`; the
    /// target stays within the track (0 to its length, when known).
    public mutating func turn(_ units: Int, positionMs: Int64, durationMs: Int64?, now: Instant) {
        var target = (targetMs ?? positionMs) + Int64(units) * stepMs
        if let durationMs { target = min(target, max(durationMs - 1000, 0)) }
        targetMs = max(target, 0)
        lastTurn = now
    }

    /// The button was let go: the time to seek to (nil when no scrub was on).
    public mutating func release() -> Int64? {
        defer { targetMs = nil }
        return targetMs
    }

    /// When an abandoned scrub is dropped.
    public var nextDeadline: Instant? { targetMs == nil ? nil : lastTurn.adding(milliseconds: timeoutMs) }

    /// Drops a scrub whose time ran out; true when it did.
    public mutating func advance(to now: Instant) -> Bool {
        guard let deadline = nextDeadline, now >= deadline else { return false }
        targetMs = nil
        return true
    }
}
