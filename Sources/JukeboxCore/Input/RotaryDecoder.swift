/// Decodes a quadrature rotary encoder's two lines into detents. Pure; time passed in.
///
/// The lines' levels walk a full quadrature state table, as the kernel's `rotary_encoder.c`
/// does: a transition to a neighbouring state counts one quarter step (+1 with A leading, -1
/// with B leading), a jump over a state (both lines changed, an edge lost) is counted as two
/// in the direction of travel so far, and a detent is reported only on arriving at a rest
/// state with a full detent's worth of quarter steps in one direction. Contact bounce on one
/// line while the other is stable walks back and forth between two states and nets zero, so
/// taking every edge in order is exact at any speed, a 1 ms-per-transition flick included.
///
/// Each line may also go through a `LeadingEdgeFilter` (`lockoutUs`). With 2 or 4 steps per
/// detent it is off by default: it helps only an encoder whose bounce lasts past the other
/// line's next transition, and any lockout loses detents at some speed (config/jukebox.toml
/// has the measurements). With 1 step per detent every state is a detent, so bounce would
/// step back and forth; there it is on by default.
public struct RotaryDecoder: Sendable, Equatable {
    /// A line of the encoder.
    public enum Channel: Sendable, Equatable {
        case a
        case b
    }

    /// One detent: `direction` is +1 (clockwise) or -1.
    public struct Step: Sendable, Equatable {
        public var direction: Int
        public var at: Instant

        public init(direction: Int, at: Instant) {
            self.direction = direction
            self.at = at
        }
    }

    /// Quadrature steps per detent: 1, 2 or 4.
    public let stepsPerDetent: Int
    /// Turns clockwise into -1.
    public let inverted: Bool
    private var a: LeadingEdgeFilter
    private var b: LeadingEdgeFilter
    /// The filtered state, `A << 1 | B`.
    private var state: Int
    /// The rest state of a 4-step detent (both lines at the level they have in a detent).
    private let restState: Int
    /// Quarter steps since the last rest state.
    private var count = 0

    /// The clockwise order of states (A leads).
    private static let order = [0b00, 0b10, 0b11, 0b01]

    /// The lockout used when none is given: 3 ms with 1 step per detent, else none.
    public static func defaultLockoutUs(stepsPerDetent: Int) -> Int { stepsPerDetent == 1 ? 3000 : 0 }

    /// `initialA`/`initialB` are the lines' levels when requested (a detent for most knobs).
    /// A `lockoutUs` must stay below the time a line takes from one transition to its next at
    /// the fastest turn (two quadrature transitions), or that transition is taken late.
    public init(
        stepsPerDetent: Int = 4, inverted: Bool = false, lockoutUs: Int? = nil, initialA: Bool = false,
        initialB: Bool = false
    ) {
        precondition([1, 2, 4].contains(stepsPerDetent), "steps per detent must be 1, 2 or 4")
        self.stepsPerDetent = stepsPerDetent
        self.inverted = inverted
        let lockoutNs = Int64(lockoutUs ?? Self.defaultLockoutUs(stepsPerDetent: stepsPerDetent)) * 1000
        a = LeadingEdgeFilter(lockoutNs: lockoutNs, initial: initialA)
        b = LeadingEdgeFilter(lockoutNs: lockoutNs, initial: initialB)
        state = (initialA ? 2 : 0) | (initialB ? 1 : 0)
        restState = state == 0b11 ? 0b11 : 0b00
    }

    /// When a line's bounce lockout ends (`advance(to:)` may then report a step).
    public var nextDeadline: Instant? {
        switch (a.nextDeadline, b.nextDeadline) {
        case (nil, nil): nil
        case (let x?, nil): x
        case (nil, let y?): y
        case (let x?, let y?): min(x, y)
        }
    }

    /// One raw edge of a channel; `level` is its (logical) level after the edge.
    public mutating func handle(_ channel: Channel, level: Bool, at: Instant) -> [Step] {
        var steps = advance(to: at)
        let changes: [LeadingEdgeFilter.Change]
        switch channel {
        case .a: changes = a.handle(edge: level, at: at)
        case .b: changes = b.handle(edge: level, at: at)
        }
        for change in changes { steps += apply(channel, change) }
        return steps
    }

    /// Applies lockout ends due by `now`, in time order.
    public mutating func advance(to now: Instant) -> [Step] {
        var steps: [Step] = []
        while let deadline = nextDeadline, deadline <= now {
            if a.nextDeadline == deadline {
                for change in a.advance(to: deadline) { steps += apply(.a, change) }
            } else {
                for change in b.advance(to: deadline) { steps += apply(.b, change) }
            }
        }
        return steps
    }

    private mutating func apply(_ channel: Channel, _ change: LeadingEdgeFilter.Change) -> [Step] {
        let bit = channel == .a ? 0b10 : 0b01
        let next = change.active ? state | bit : state & ~bit
        guard next != state else { return [] }
        let from = Self.order.firstIndex(of: state)!
        let to = Self.order.firstIndex(of: next)!
        switch (to - from + 4) % 4 {
        case 1: count += 1
        case 3: count -= 1
        default: count += count > 0 ? 2 : (count < 0 ? -2 : 0)
        }
        state = next
        let atRest: Bool
        switch stepsPerDetent {
        case 4: atRest = state == restState
        case 2: atRest = state == 0b00 || state == 0b11
        default: atRest = true
        }
        guard atRest else { return [] }
        let threshold = stepsPerDetent == 4 ? 3 : stepsPerDetent
        defer { count = 0 }
        if count >= threshold { return [Step(direction: inverted ? -1 : 1, at: change.at)] }
        if count <= -threshold { return [Step(direction: inverted ? 1 : -1, at: change.at)] }
        return []
    }
}

/// One encoder line: the first edge that changes the filtered level is taken at once (contact
/// bounce starts with the real transition), then every edge is ignored for `lockoutNs`. When
/// the lockout ends, the last raw level is compared with the filtered one; if they differ (the
/// line really changed back while locked out, or bounce ended on the other level) that change
/// is taken at the lockout's end and a new lockout starts.
struct LeadingEdgeFilter: Sendable, Equatable {
    struct Change: Sendable, Equatable {
        var active: Bool
        var at: Instant
    }

    let lockoutNs: Int64
    private(set) var level: Bool
    /// The level of the last raw edge.
    private var raw: Bool
    /// The end of the current lockout, when one is running.
    private(set) var nextDeadline: Instant?

    init(lockoutNs: Int64, initial: Bool) {
        self.lockoutNs = max(0, lockoutNs)
        level = initial
        raw = initial
    }

    mutating func handle(edge active: Bool, at: Instant) -> [Change] {
        var changes = advance(to: at)
        raw = active
        if nextDeadline == nil, active != level { changes.append(take(active, at: at)) }
        return changes
    }

    /// Ends a lockout that is over by `now`, taking the change it hid, if any.
    mutating func advance(to now: Instant) -> [Change] {
        var changes: [Change] = []
        while let until = nextDeadline, until <= now {
            nextDeadline = nil
            if raw != level { changes.append(take(raw, at: until)) }
        }
        return changes
    }

    private mutating func take(_ active: Bool, at: Instant) -> Change {
        level = active
        if lockoutNs > 0 { nextDeadline = at.adding(nanoseconds: lockoutNs) }
        return Change(active: active, at: at)
    }
}

/// Makes fast turns count more: a detent that follows the previous one within `fastMs`
/// counts `maxFactor`, within `2 * fastMs` half of that (at least 1), otherwise 1.
public struct RotaryAcceleration: Sendable, Equatable {
    public var maxFactor: Int
    public var fastMs: Int64
    private var last: (direction: Int, at: Instant)?

    /// `maxFactor` 1 (or less) turns acceleration off.
    public init(maxFactor: Int, fastMs: Int64 = 30) {
        self.maxFactor = maxFactor
        self.fastMs = fastMs
    }

    public static func == (lhs: RotaryAcceleration, rhs: RotaryAcceleration) -> Bool {
        lhs.maxFactor == rhs.maxFactor && lhs.fastMs == rhs.fastMs && lhs.last?.direction == rhs.last?.direction
            && lhs.last?.at == rhs.last?.at
    }

    /// How many units this detent is worth.
    public mutating func factor(for step: RotaryDecoder.Step) -> Int {
        defer { last = (step.direction, step.at) }
        guard maxFactor > 1, let last, last.direction == step.direction else { return 1 }
        let gap = step.at.milliseconds(since: last.at)
        if gap < fastMs { return maxFactor }
        if gap < 2 * fastMs { return max(1, maxFactor / 2) }
        return 1
    }
}
