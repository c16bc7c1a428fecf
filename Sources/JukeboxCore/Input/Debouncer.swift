/// Debounces one switch on the kernel's edge timestamps (never on a wall clock).
///
/// A change is accepted only once the line has stayed at its new level for `stableNs`, as
/// the kernel's gpio-keys `debounce-interval` does: contact bounce and noise pulses shorter
/// than that (a relay, a motor, long wires) never get through, whatever their shape. The
/// price is that every press and release is recognised `stableNs` after the contact settled.
/// Time only moves forward; `advance(to:)` reports changes whose stable time ended by `now`.
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

    public let stableNs: Int64
    /// The debounced level.
    public private(set) var stable: Bool
    /// The level of the last raw edge.
    public private(set) var raw: Bool
    /// Since when the line has been at `raw`, while that differs from `stable`.
    private var pendingSince: Instant?

    /// `initial` is the level the line had when it was requested.
    public init(stableMs: Int, initial: Bool = false) {
        self.init(stableNs: Int64(stableMs) * 1_000_000, initial: initial)
    }

    public init(stableNs: Int64, initial: Bool = false) {
        self.stableNs = max(0, stableNs)
        stable = initial
        raw = initial
    }

    /// When `advance(to:)` may have something to report (the pending level's stable time
    /// ends), if ever.
    public var nextDeadline: Instant? { pendingSince?.adding(nanoseconds: stableNs) }

    /// One raw edge: `active` is the line's (logical) level after it.
    public mutating func handle(edge active: Bool, at: Instant) -> [Change] {
        var changes = advance(to: at)
        // Two edges to the same level hide one the kernel lost: the line was not stable.
        let moved = active != raw || active != stable
        raw = active
        if moved { pendingSince = active == stable ? nil : at }
        changes += advance(to: at)
        return changes
    }

    /// Accepts the pending level when it has been stable long enough by `now`.
    public mutating func advance(to now: Instant) -> [Change] {
        guard let deadline = nextDeadline, deadline <= now else { return [] }
        pendingSince = nil
        stable = raw
        return [Change(active: raw, at: deadline)]
    }
}
