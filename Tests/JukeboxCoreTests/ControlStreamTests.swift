import Testing

@testable import JukeboxCore

/// The input logic with the default config on generated edge streams, one seed per case:
/// contact bounce of several 20–500 µs pulses at every transition, noise pulses of 0.5–4 ms,
/// flicks of 10–30 detents at about 1 ms per transition, slow turns, real presses.
@Suite struct ControlStreamTests {
    static let seeds = Array(UInt64(1)...150)

    /// The default config with the example box's lines wired.
    static func controller() -> InputController {
        var config = JukeboxConfig(musicDir: "/m")
        config.buttons.playPause = 17
        config.buttons.next = 27
        config.buttons.previous = 22
        config.encoder.a = 5
        config.encoder.b = 6
        config.encoder.pushSwitch = 13
        return InputController(map: ControlMap(config: config), settings: InputController.Settings(config: config))
    }

    static func gestures(_ outputs: [ControlOutput]) -> [GestureEvent] {
        outputs.compactMap { output in
            guard case .gesture(let event) = output else { return nil }
            return event
        }
    }

    /// A slow turn, a flick one way, a pause, a flick back, a slow turn: every detent once.
    @Test(arguments: seeds)
    func fastSpinsLoseNoDetent(seed: UInt64) {
        var builder = EdgeStreamBuilder(seed: seed)
        var expected: [Int] = []
        var timeUs: Int64 = 10_000
        for (speedUs, count) in [(20_000, 1...4), (1000, 10...30), (15_000, 1...3), (1000, 10...30), (8000, 2...5)] {
            let direction = builder.random.next(below: 2) == 0 ? 1 : -1
            let detents = Array(repeating: direction, count: builder.pick(count))
            timeUs = builder.turn(detents, atUs: timeUs, transitionUs: Int64(speedUs), jitter: 0.2) + 150_000
            expected += detents
        }
        var controller = Self.controller()
        let outputs = run(&controller, builder.sorted)
        let decoded = outputs.compactMap { output -> Int? in
            guard case .detent(let direction, _) = output else { return nil }
            return direction
        }
        #expect(decoded == expected)
        let volume = outputs.reduce(0) { sum, output in
            guard case .action(.command(.changeVolume(let delta)), _) = output else { return sum }
            return sum + delta
        }
        #expect(volume == 2 * expected.reduce(0, +), "every detent reaches the volume, 2 % each")
        #expect(Self.gestures(outputs).isEmpty)
    }

    /// The generated flicks are hard enough to matter: the old 3 ms per-line lockout loses
    /// detents on them, in most seeds.
    @Test func aThreeMillisecondLockoutLosesDetentsOnTheseFlicks() {
        var failures = 0
        for seed in Self.seeds {
            var builder = EdgeStreamBuilder(seed: seed)
            let detents = Array(repeating: 1, count: builder.pick(10...30))
            _ = builder.turn(detents, atUs: 10_000, transitionUs: 1000, jitter: 0.2)
            var decoder = RotaryDecoder(stepsPerDetent: 4, lockoutUs: 3000)
            var steps: [RotaryDecoder.Step] = []
            for edge in builder.sorted {
                steps += decoder.handle(edge.signal == .encoderA ? .a : .b, level: edge.active, at: edge.at)
            }
            steps += decoder.advance(to: .milliseconds(10_000))
            if steps.map(\.direction) != detents { failures += 1 }
        }
        #expect(failures > Self.seeds.count / 2)
    }

    /// Noise pulses on every button line, 10–300 ms apart: no gesture, no command.
    @Test(arguments: seeds)
    func noisePulsesMakeNoGesture(seed: UInt64) {
        var builder = EdgeStreamBuilder(seed: seed)
        var timeUs: Int64 = 10_000
        for _ in 0..<30 {
            let button = ControlDefaults.buttonNames[builder.random.next(below: ControlDefaults.buttonNames.count)]
            let lengthUs = Int64(builder.pick(500...4000))
            builder.noise(button, atUs: timeUs, lengthUs: lengthUs)
            timeUs += lengthUs + Int64(builder.pick(10_000...300_000))
        }
        var controller = Self.controller()
        let outputs = run(&controller, builder.sorted)
        #expect(outputs.isEmpty, "\(outputs)")
    }

    /// Presses of 30–700 ms on any button, bouncing at both ends, with noise pulses on the
    /// other lines and a 0.5–4 ms dropout inside the longer presses: one short press each,
    /// 5 ms after the first edge of the transition it fires on, whatever its bounce: the release, as every default button has a held
    /// gesture too (the knob's switch: its long press opens the menu).
    @Test(arguments: seeds)
    func realPressesOfThirtyMillisecondsOrMoreGiveOnePressEach(seed: UInt64) {
        var builder = EdgeStreamBuilder(seed: seed)
        var expected: [(button: String, firesAtUs: Int64)] = []
        var timeUs: Int64 = 10_000
        for _ in 0..<12 {
            let names = ControlDefaults.buttonNames
            let button = names[builder.random.next(below: names.count)]
            let lengthUs = Int64(builder.pick(30_000...700_000))
            builder.transition(.button(button), to: true, atUs: timeUs)
            if lengthUs > 100_000 {
                // The line drops out for 0.5–4 ms while held (a noise pulse the other way).
                let dropUs = timeUs + lengthUs / 2
                builder.transition(.button(button), to: false, atUs: dropUs, bounce: .none)
                builder.transition(
                    .button(button), to: true, atUs: dropUs + Int64(builder.pick(500...4000)), bounce: .none)
            }
            builder.transition(.button(button), to: false, atUs: timeUs + lengthUs)
            let others = names.filter { $0 != button }
            let noiseAtUs = timeUs + Int64(builder.pick(5000...25_000))
            builder.noise(
                others[builder.random.next(below: others.count)], atUs: noiseAtUs,
                lengthUs: Int64(builder.pick(500...4000)))
            expected.append((button, timeUs + lengthUs))
            timeUs += lengthUs + Int64(builder.pick(40_000...400_000))
        }
        var controller = Self.controller()
        let events = Self.gestures(run(&controller, builder.sorted))
        #expect(events.map(\.description) == expected.map { "\($0.button) short" })
        for (event, press) in zip(events, expected) {
            let lateUs = event.at.nanoseconds / 1000 - press.firesAtUs
            #expect(lateUs == 5000, "\(event) \(lateUs) µs after its edge")
        }
    }
}
