import Testing

@testable import JukeboxCore

/// The quadrature decoder on recorded-style streams: every detent turned is decoded once,
/// in its direction, and bounce or wobble never makes a step.
@Suite struct RotaryDecoderTests {
    /// Clockwise order of the logical states `A << 1 | B`.
    static let order = [0b00, 0b10, 0b11, 0b01]

    /// Edges for `detents` (+1/-1 each), one every `detentMs`, `steps` transitions per detent,
    /// bouncing on whichever channel changes. Returns the edges and the decoder's steps.
    static func turn(
        _ detents: [Int], steps: Int, detentMs: Double, bounce: Bool = true, seed: UInt64 = 1,
        wobbleEvery: Int = 0
    ) -> [Int] {
        var builder = EdgeStreamBuilder(seed: seed)
        var timeUs = 10_000.0
        let transitionUs = detentMs * 1000 / Double(steps)
        func move(_ direction: Int) {
            builder.quarterStep(direction, atUs: Int64(timeUs), bounce: bounce ? .contact : .none)
            timeUs += transitionUs
        }
        for (index, direction) in detents.enumerated() {
            if wobbleEvery > 0, index % wobbleEvery == 0 {
                // Half a detent (or one state) forward and back: no step.
                let half = max(1, steps / 2)
                for _ in 0..<half { move(direction) }
                for _ in 0..<half { move(-direction) }
            }
            for _ in 0..<steps { move(direction) }
        }
        var decoder = RotaryDecoder(stepsPerDetent: steps)
        var decoded: [RotaryDecoder.Step] = []
        for edge in builder.sorted {
            decoded += decoder.handle(edge.signal == .encoderA ? .a : .b, level: edge.active, at: edge.at)
        }
        decoded += decoder.advance(to: Instant(nanoseconds: Int64(timeUs * 1000) + 1_000_000_000))
        return decoded.map(\.direction)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var detents: [Int]
        var detentMs: Double
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "slow clockwise", detents: Array(repeating: 1, count: 12), detentMs: 120),
        Case(name: "slow counter-clockwise", detents: Array(repeating: -1, count: 12), detentMs: 120),
        Case(name: "very fast clockwise (40 detents/s)", detents: Array(repeating: 1, count: 40), detentMs: 25),
        Case(
            name: "very fast counter-clockwise (40 detents/s)", detents: Array(repeating: -1, count: 40), detentMs: 25),
        Case(name: "single-step reversals", detents: [1, -1, 1, -1, -1, 1, 1, -1, 1], detentMs: 60),
        Case(name: "fast back and forth", detents: [1, 1, 1, -1, -1, -1, 1, -1, 1, 1], detentMs: 30),
    ]

    @Test(arguments: cases, [1, 2, 4])
    func decodesEveryDetentOnce(_ testCase: Case, steps: Int) {
        // At 1 or 2 steps per detent the same knob speed means fewer edges per second; keep
        // the edge rate of the 4-step case for the very fast runs.
        let detentMs = testCase.detentMs * Double(steps) / 4
        let minimum = max(detentMs, 6.0 * Double(steps))
        for seed in UInt64(1)...8 {
            let decoded = Self.turn(testCase.detents, steps: steps, detentMs: minimum, seed: seed)
            #expect(decoded == testCase.detents, "seed \(seed), \(steps) steps per detent")
        }
    }

    @Test(arguments: [2, 4])
    func wobbleInsideADetentMakesNoStep(steps: Int) {
        let detents = [1, 1, -1, 1, -1, -1]
        for seed in UInt64(1)...8 {
            let decoded = Self.turn(detents, steps: steps, detentMs: 60, seed: seed, wobbleEvery: 1)
            #expect(decoded == detents, "seed \(seed)")
        }
    }

    @Test func bounceAloneMakesNoStep() {
        var builder = EdgeStreamBuilder(seed: 3)
        // A goes high and back low (a touch of the knob), each with bounce; B stays.
        builder.transition(.encoderA, to: true, atUs: 10_000)
        builder.transition(.encoderA, to: false, atUs: 30_000)
        builder.transition(.encoderB, to: true, atUs: 60_000)
        builder.transition(.encoderB, to: false, atUs: 90_000)
        for steps in [1, 2, 4] {
            var decoder = RotaryDecoder(stepsPerDetent: steps)
            var decoded: [RotaryDecoder.Step] = []
            for edge in builder.sorted {
                decoded += decoder.handle(edge.signal == .encoderA ? .a : .b, level: edge.active, at: edge.at)
            }
            decoded += decoder.advance(to: .milliseconds(1000))
            let net = decoded.map(\.direction).reduce(0, +)
            #expect(net == 0, "\(steps) steps per detent")
            if steps == 4 { #expect(decoded.isEmpty) }
        }
    }

    @Test func inversionAndAcceleration() {
        var decoder = RotaryDecoder(stepsPerDetent: 4, inverted: true, lockoutUs: 0)
        var steps: [RotaryDecoder.Step] = []
        var t: Int64 = 0
        for (channel, level) in [(RotaryDecoder.Channel.a, true), (.b, true), (.a, false), (.b, false)] {
            t += 5
            steps += decoder.handle(channel, level: level, at: .milliseconds(t))
        }
        #expect(steps.map(\.direction) == [-1])

        var acceleration = RotaryAcceleration(maxFactor: 4, fastMs: 30)
        let factors = [0, 100, 120, 140, 190, 300].map {
            acceleration.factor(for: RotaryDecoder.Step(direction: 1, at: .milliseconds($0)))
        }
        #expect(factors == [1, 1, 4, 4, 2, 1])
    }

    @Test func fastTurnsAreCoalescedToOneVolumeChangePerPeriod() {
        var config = JukeboxConfig(musicDir: "/m")
        config.encoder.a = 5
        config.encoder.b = 6
        config.audio.periodMs = 10
        config.encoder.debounceMs = 0
        var controller = InputController(map: ControlMap(config: config), settings: .init(config: config))
        var builder = EdgeStreamBuilder(seed: 9)
        // 12 detents clockwise at 1 ms per transition (a flick), clean edges.
        _ = builder.turn(Array(repeating: 1, count: 12), atUs: 1000, transitionUs: 1000, bounce: .none)
        let outputs = run(&controller, builder.sorted)
        let volumes = outputs.compactMap { output -> (Int, Instant)? in
            guard case .action(.command(.changeVolume(let delta)), let at) = output else { return nil }
            return (delta, at)
        }
        #expect(volumes.map(\.0).reduce(0, +) == 24, "12 detents × 2 %")
        #expect(volumes.first?.0 == 2, "the first detent acts at once")
        for (a, b) in zip(volumes, volumes.dropFirst()) {
            #expect(b.1.nanoseconds - a.1.nanoseconds >= 10_000_000, "one change per 10 ms period")
        }
        #expect(volumes.count < 12)
    }
}
