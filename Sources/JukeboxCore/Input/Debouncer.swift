/// Debounces one switch on the kernel's edge timestamps (never on a wall clock).
///
/// Leading-edge lockout: the first edge that changes the stable level is accepted at once (no
/// added latency: contact bounce starts with the first real contact), then every edge is
/// ignored for `lockoutNs`. When the lockout ends, the last raw level is compared with the
/// stable one; if they differ (the switch really changed while locked out, or a glitch ended
/// on the other level) that change is accepted at the lockout's end and a new lockout starts.
/// Time only moves forward; `advance(to:)` reports changes whose lockout ended by `now`.
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

    public let lockoutNs: Int64
    /// The debounced level.
    public private(set) var stable: Bool
    /// The level of the last raw edge.
    public private(set) var raw: Bool
    /// The end of the current lockout, when one is running.
    public private(set) var lockedUntil: Instant?

    /// `initial` is the level the line had when it was requested.
    public init(lockoutMs: Int, initial: Bool = false) {
        self.init(lockoutNs: Int64(lockoutMs) * 1_000_000, initial: initial)
    }

    public init(lockoutNs: Int64, initial: Bool = false) {
        self.lockoutNs = max(0, lockoutNs)
        stable = initial
        raw = initial
    }

    /// When `advance(to:)` may have something to report (the lockout's end), if ever.
    public var nextDeadline: Instant? { lockedUntil }

    /// One raw edge: `active` is the line's (logical) level after it.
    public mutating func handle(edge active: Bool, at: Instant) -> [Change] {
        var changes = advance(to: at)
        raw = active
        if lockedUntil == nil, active != stable {
            stable = active
            changes.append(Change(active: active, at: at))
            if lockoutNs > 0 { lockedUntil = at.adding(nanoseconds: lockoutNs) }
        }
        return changes
    }

    /// Ends a lockout that is over by `now`, reporting the change it hid, if any.
    public mutating func advance(to now: Instant) -> [Change] {
        var changes: [Change] = []
        while let until = lockedUntil, until <= now {
            lockedUntil = nil
            if raw != stable {
                stable = raw
                changes.append(Change(active: raw, at: until))
                if lockoutNs > 0 { lockedUntil = until.adding(nanoseconds: lockoutNs) }
            }
        }
        return changes
    }
}
