/// Debounces one switch on the kernel's edge timestamps (never on a wall clock).
///
/// A change is accepted `settleNs` after the first edge that left the debounced level, when
/// the line is at the new level at that moment and has been there for most of the wait
/// (`heldPercent`). Contact bounce does not restart the wait, so a bouncing press counts
/// `settleNs` after it began, not after it settled (a 5 ms wait from the last bounce, as the
/// kernel's gpio-keys `debounce-interval` does, counted a press up to 7 ms after its first
/// edge). A noise pulse (a relay, a motor, long wires), with dropouts inside or not, that is
/// over within `settleNs` is no change: the line is back at the old level when it is judged,
/// and its next edge starts a new wait. A burst of pulses whose last one is still on when the
/// wait ends is no change either unless the line was at the new level for most of the wait:
/// the decision waits until it was, and drops the change when the line goes back first.
/// Time only moves forward; `advance(to:)` reports changes whose wait ended by `now`.
public struct Debouncer: Sendable, Equatable {
    /// A debounced level change.
    public struct Change: Sendable, Equatable {
        public var active: Bool
        public var at: Instant

        public init(active: Bool, at: Instant) {
            self.active = active
            self.at = at
        }
    }

    public let settleNs: Int64
    /// The debounced level.
    public private(set) var stable: Bool
    /// The level of the last raw edge.
    public private(set) var raw: Bool
    /// The first edge away from `stable` of the change being judged.
    private var leftAt: Instant?
    /// Since when the line has been at `raw`.
    private var rawSince: Instant = .zero
    /// How long the line was at the new level between `leftAt` and `rawSince`.
    private var heldNs: Int64 = 0
    /// The part of the wait, in percent, the line must have spent at the new level: a
    /// bouncing press spends more (3.4 ms of 5 even when it bounces off for 1.6 ms), a burst
    /// of short pulses less.
    public static let heldPercent: Int64 = 60
    private var minimumHeldNs: Int64 { settleNs * Self.heldPercent / 100 }

    /// `initial` is the level the line had when it was requested.
    public init(settleMs: Int, initial: Bool = false) {
        self.init(settleNs: Int64(settleMs) * 1_000_000, initial: initial)
    }

    public init(settleNs: Int64, initial: Bool = false) {
        self.settleNs = max(0, settleNs)
        stable = initial
        raw = initial
    }

    /// When `advance(to:)` may have something to report (the change being judged is judged),
    /// if ever.
    public var nextDeadline: Instant? {
        guard let leftAt else { return nil }
        let waitEnds = leftAt.adding(nanoseconds: settleNs)
        guard raw != stable else { return waitEnds }
        let heldEnough = rawSince.adding(nanoseconds: max(0, minimumHeldNs - heldNs))
        return max(waitEnds, heldEnough)
    }

    /// One raw edge: `active` is the line's (logical) level after it.
    public mutating func handle(edge active: Bool, at: Instant) -> [Change] {
        var changes = advance(to: at)
        if active != stable && (leftAt == nil || active == raw) {
            // The first edge away, or a second edge to the same level, which hides one the
            // kernel lost: the line was not where it seemed, so the wait starts again.
            leftAt = at
            heldNs = 0
        } else if leftAt != nil && raw != stable {
            heldNs += at.nanoseconds - rawSince.nanoseconds
        }
        raw = active
        rawSince = at
        changes += advance(to: at)
        return changes
    }

    /// Judges the change being judged when its wait ended by `now`: accepted if the line is
    /// at the new level (and was for most of the wait), else it was noise.
    public mutating func advance(to now: Instant) -> [Change] {
        guard let deadline = nextDeadline, deadline <= now else { return [] }
        leftAt = nil
        guard raw != stable else { return [] }
        stable = raw
        return [Change(active: raw, at: deadline)]
    }
}
