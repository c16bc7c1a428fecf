@testable import JukeboxCore

/// How a contact bounces at a transition: after the real edge, `pulses` short returns to the
/// old level, each `pulseUs` long after `pulseUs` at the new level, the whole burst squeezed
/// into `withinUs` when it would be longer. It always ends on the new level.
struct Bounce: Sendable {
    var pulses: ClosedRange<Int>
    var pulseUs: ClosedRange<Int>
    var withinUs: Int

    /// A push button or a slowly turned encoder: one to four pulses of 20–500 µs, within 2 ms.
    static let contact = Bounce(pulses: 1...4, pulseUs: 20...500, withinUs: 2000)
    static let none = Bounce(pulses: 0...0, pulseUs: 0...0, withinUs: 0)

    /// The same pulses squeezed into `withinUs` (a fast turn leaves the contact less time).
    func within(_ withinUs: Int) -> Bounce { Bounce(pulses: pulses, pulseUs: pulseUs, withinUs: withinUs) }
}

/// Recorded-style edge streams for the input tests, from a seeded RNG: transitions with
/// contact bounce, noise pulses, presses and knob turns at any speed.
struct EdgeStreamBuilder {
    var random: SplitMix64
    /// Logical edges: signal, level, time.
    private(set) var edges: [(signal: InputSignal, active: Bool, at: Instant)] = []
    /// The encoder's logical state `A << 1 | B` after the last `quarterStep`.
    private var encoderState = 0

    /// Clockwise order of the logical encoder states `A << 1 | B`.
    static let quadratureOrder = [0b00, 0b10, 0b11, 0b01]

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    /// A uniformly random integer in `range`.
    mutating func pick(_ range: ClosedRange<Int>) -> Int { range.lowerBound + random.next(below: range.count) }

    /// One transition of `signal` to `active` at `atUs` microseconds, bouncing as `bounce` says.
    mutating func transition(_ signal: InputSignal, to active: Bool, atUs: Int64, bounce: Bounce = .contact) {
        edges.append((signal, active, Instant(nanoseconds: atUs * 1000)))
        let count = pick(bounce.pulses)
        guard count > 0 else { return }
        // Alternating stretches: at the new level, then back at the old one, `count` times.
        var stretches = (0..<(2 * count)).map { _ in Int64(pick(bounce.pulseUs)) }
        let total = stretches.reduce(0, +)
        if total > Int64(bounce.withinUs) {
            stretches = stretches.map { max(1, $0 * Int64(bounce.withinUs) / total) }
        }
        var timeUs = atUs
        var level = active
        for stretch in stretches {
            timeUs += stretch
            level.toggle()
            edges.append((signal, level, Instant(nanoseconds: timeUs * 1000)))
        }
    }

    /// A press of `durationMs` starting at `startMs`, bouncing on both edges.
    mutating func press(_ button: String, atMs startMs: Int64, forMs durationMs: Int64) {
        transition(.button(button), to: true, atUs: startMs * 1000)
        transition(.button(button), to: false, atUs: (startMs + durationMs) * 1000)
    }

    /// A noise pulse on a button line: active for `lengthUs` from `atUs`, with a few
    /// dropouts inside it, as a relay or motor couples it onto a long wire.
    mutating func noise(_ button: String, atUs: Int64, lengthUs: Int64) {
        var cuts = (0..<(2 * pick(0...3))).map { _ in atUs + Int64(pick(1...Int(lengthUs) - 1)) }.sorted()
        cuts = [atUs] + cuts + [atUs + lengthUs]
        for (index, at) in cuts.enumerated() {
            edges.append((.button(button), index % 2 == 0, Instant(nanoseconds: at * 1000)))
        }
    }

    /// One quarter step of the encoder (+1 clockwise) at `atUs`: the line that changes bounces.
    mutating func quarterStep(_ direction: Int, atUs: Int64, bounce: Bounce = .contact) {
        let order = Self.quadratureOrder
        let from = encoderState
        let to = order[(order.firstIndex(of: from)! + direction + 4) % 4]
        encoderState = to
        let changed = from ^ to
        transition(changed == 0b10 ? .encoderA : .encoderB, to: (to & changed) != 0, atUs: atUs, bounce: bounce)
    }

    /// `detents` whole detents of `steps` quarter steps each, `transitionUs` apart (±`jitter`,
    /// a fraction), from `atUs`. Every transition's bounce ends within 80 % of the time to the
    /// next transition (the other line's): one line bounces while the other is stable.
    /// Returns the time after the last transition.
    mutating func turn(
        _ detents: [Int], steps: Int = 4, atUs: Int64, transitionUs: Int64, jitter: Double = 0,
        bounce: Bounce = .contact
    ) -> Int64 {
        var timeUs = atUs
        for direction in detents {
            for _ in 0..<steps {
                let spread = Int64(Double(transitionUs) * jitter)
                let gap = transitionUs + (spread > 0 ? Int64(pick(-Int(spread)...Int(spread))) : 0)
                quarterStep(direction, atUs: timeUs, bounce: bounce.within(min(bounce.withinUs, Int(gap) * 4 / 5)))
                timeUs += gap
            }
        }
        return timeUs
    }

    /// The edges in time order (stable for equal times).
    var sorted: [(signal: InputSignal, active: Bool, at: Instant)] {
        edges.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }
}

/// Runs edges through a controller and lets every timer run out.
func run(_ controller: inout InputController, _ edges: [(signal: InputSignal, active: Bool, at: Instant)])
    -> [ControlOutput]
{
    var outputs: [ControlOutput] = []
    for edge in edges { outputs += controller.handle(edge.signal, active: edge.active, at: edge.at) }
    let end = (edges.last?.at ?? .zero).adding(milliseconds: 20_000)
    while let deadline = controller.nextDeadline, deadline <= end { outputs += controller.advance(to: deadline) }
    return outputs
}
