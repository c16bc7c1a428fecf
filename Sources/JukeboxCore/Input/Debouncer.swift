/// Debounces one switch on the kernel's edge timestamps (never on a wall clock).
///
/// A change is accepted `settleNs` after the first edge that left the debounced level, when
/// the line is at the new level at that moment. Contact bounce does not restart the wait, so
/// a bouncing press counts `settleNs` after it began, not after it settled (a 5 ms wait from
/// the last bounce, as the kernel's gpio-keys `debounce-interval` does, counted a press up to
/// 7 ms after its first edge). A noise pulse (a relay, a motor, long wires), with dropouts
/// inside or not, that is over within `settleNs` is no change: the line is back at the old
/// level when it is judged, and its next edge starts a new wait. (Pulses closer together
/// than that make one longer pulse.) Time only moves forward; `advance(to:)` reports changes
/// whose wait ended by `now`.
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
    public var nextDeadline: Instant? { leftAt?.adding(nanoseconds: settleNs) }

    /// One raw edge: `active` is the line's (logical) level after it.
    public mutating func handle(edge active: Bool, at: Instant) -> [Change] {
        var changes = advance(to: at)
        if active != stable && (leftAt == nil || active == raw) {
            // The first edge away, or a second edge to the same level, which hides one the
            // kernel lost: the line was not where it seemed, so the wait starts again.
            leftAt = at
        }
        raw = active
        changes += advance(to: at)
        return changes
    }

    /// Judges the change being judged when its wait ended by `now`: accepted if the line is
    /// at the new level, else it was noise.
    public mutating func advance(to now: Instant) -> [Change] {
        guard let deadline = nextDeadline, deadline <= now else { return [] }
        leftAt = nil
        guard raw != stable else { return [] }
        stable = raw
        return [Change(active: raw, at: deadline)]
    }
}
