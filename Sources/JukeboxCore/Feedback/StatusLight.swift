/// The status LED of a box without a screen, as a state machine over what happened and the
/// time (given, never read): steady on while music plays, off otherwise; one blink when a card
/// is read (lit for `blinkMs`, dark for as long, then the steady level: seen whatever the
/// level was); a fast blink for an error (`errorBlinks` times `errorMs` lit and dark). The
/// daemon asks `isOn(at:)`, sets the line when it changes, and wakes at `nextChange(after:)`.
public struct StatusLight: Sendable, Equatable {
    public enum Event: Sendable, Equatable {
        /// Music plays or stopped playing.
        case playing(Bool)
        /// A card was read.
        case cardRead
        /// Something failed (a track, a card with nothing to play, the card mapping).
        case error
    }

    public static let blinkMs: Int64 = 150
    public static let errorMs: Int64 = 80
    public static let errorBlinks = 5

    public private(set) var playing = false
    /// The pattern that overrides the steady level, and when it began.
    private var pattern: Running?

    private struct Running: Sendable, Equatable {
        var kind: Pattern
        var since: Instant
    }

    private enum Pattern: Sendable, Equatable {
        case blink, error

        /// How long it is lit, then dark, per blink.
        var halfMs: Int64 { self == .blink ? StatusLight.blinkMs : StatusLight.errorMs }
        var lengthMs: Int64 { 2 * halfMs * Int64(self == .blink ? 1 : StatusLight.errorBlinks) }
    }

    public init() {}

    public mutating func handle(_ event: Event, now: Instant) {
        switch event {
        case .playing(let playing): self.playing = playing
        case .cardRead:
            // An error still blinking is not cut short by the next card.
            if let pattern, pattern.kind == .error, isRunning(pattern, at: now) { return }
            pattern = Running(kind: .blink, since: now)
        case .error: pattern = Running(kind: .error, since: now)
        }
    }

    /// Whether the LED is lit at `now`.
    public func isOn(at now: Instant) -> Bool {
        guard let pattern, isRunning(pattern, at: now) else { return playing }
        return (now.milliseconds(since: pattern.since) / pattern.kind.halfMs) % 2 == 0
    }

    /// When the level may change next after `now`, if a pattern is running.
    public func nextChange(after now: Instant) -> Instant? {
        guard let pattern, isRunning(pattern, at: now) else { return nil }
        let half = pattern.kind.halfMs
        return pattern.since.adding(milliseconds: (now.milliseconds(since: pattern.since) / half + 1) * half)
    }

    private func isRunning(_ pattern: Running, at now: Instant) -> Bool {
        now.milliseconds(since: pattern.since) < pattern.kind.lengthMs
    }
}
