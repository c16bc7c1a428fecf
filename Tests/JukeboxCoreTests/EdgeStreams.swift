@testable import JukeboxCore

/// Recorded-style edge streams for the input tests: real transitions with contact bounce
/// bursts of 0.1–2 ms (an odd number of extra toggles that ends on the new level).
struct EdgeStreamBuilder {
    var random: SplitMix64
    /// Logical edges: signal, level, time.
    private(set) var edges: [(signal: InputSignal, active: Bool, at: Instant)] = []

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    /// A uniformly random number of microseconds in `range`.
    mutating func microseconds(_ range: ClosedRange<Int>) -> Int64 {
        Int64(range.lowerBound + random.next(below: range.count))
    }

    /// One transition of `signal` to `active` at `atUs` microseconds, with a bounce burst
    /// of 100–2000 µs (or none when `bounce` is false).
    mutating func transition(_ signal: InputSignal, to active: Bool, atUs: Int64, bounce: Bool = true) {
        let start = Instant(nanoseconds: atUs * 1000)
        guard bounce else {
            edges.append((signal, active, start))
            return
        }
        let burstUs = microseconds(100...2000)
        let extraPairs = 1 + random.next(below: 4)
        var offsets = (0..<(2 * extraPairs - 1)).map { _ in microseconds(1...Int(burstUs) - 1) }.sorted()
        offsets.append(burstUs)
        edges.append((signal, active, start))
        var level = active
        precondition(offsets.count % 2 == 0)
        for offset in offsets {
            level.toggle()
            edges.append((signal, level, start.adding(nanoseconds: offset * 1000)))
        }
    }

    /// A press of `durationMs` starting at `startMs`, bouncing on both edges.
    mutating func press(_ button: String, atMs startMs: Int64, forMs durationMs: Int64) {
        transition(.button(button), to: true, atUs: startMs * 1000)
        transition(.button(button), to: false, atUs: (startMs + durationMs) * 1000)
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
