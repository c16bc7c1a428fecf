import Testing

@testable import JukeboxCore

/// Debouncer and gesture detection on recorded-style edge streams (bounce 0.1–2 ms).
@Suite struct ButtonGestureTests {
    /// A press: button, start and length in milliseconds.
    struct Press: Sendable {
        var button: String
        var at: Int64
        var length: Int64
        init(_ button: String, _ at: Int64, _ length: Int64) {
            self.button = button
            self.at = at
            self.length = length
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var presses: [Press]
        /// Expected `control gesture @ms` (times to the millisecond).
        var expected: [String]
        var extraGestures: [String: String] = [:]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "30 ms tap of a short-only button fires on the press edge", presses: [Press("switch", 100, 30)],
            expected: ["switch short @100"]),
        Case(
            name: "120 ms press of next fires short on release", presses: [Press("next", 100, 120)],
            expected: ["next short @220"]),
        // Held time is measured between the contacts' first edges (bounce does not count).
        Case(name: "797 ms press is still short", presses: [Press("next", 0, 797)], expected: ["next short @797"]),
        Case(
            name: "1 s hold of next: long while held, no short", presses: [Press("next", 100, 1000)],
            expected: ["next long @900"]),
        Case(
            name: "3 s hold of next: long then a repeat every 300 ms", presses: [Press("previous", 100, 3000)],
            expected: ["previous long @900"]
                + stride(from: 1200, through: 3000, by: 300).map { "previous repeat @\($0)" }),
        Case(
            name: "3 s hold of play_pause: long only (very long is 5 s)", presses: [Press("play_pause", 0, 3000)],
            expected: ["play_pause long @800"]),
        Case(
            name: "5.5 s hold of play_pause: long then very long", presses: [Press("play_pause", 0, 5500)],
            expected: ["play_pause long @800", "play_pause very_long @5000"]),
        Case(
            name: "five quick taps of the switch, 150 ms apart",
            presses: (0..<5).map { Press("switch", 50 + Int64($0) * 150, 60) },
            expected: (0..<5).map { "switch short @\(50 + $0 * 150)" }),
        Case(
            name: "repeated next presses of 80 ms, 200 ms apart",
            presses: (0..<4).map { Press("next", Int64($0) * 200, 80) },
            expected: (0..<4).map { "next short @\($0 * 200 + 80)" }),
        Case(
            name: "alternating buttons",
            presses: [Press("next", 0, 100), Press("previous", 300, 40), Press("play_pause", 600, 250)],
            expected: ["next short @100", "previous short @340", "play_pause short @850"]),
        Case(
            name: "chord: play_pause then next held together for 1 s",
            presses: [Press("play_pause", 0, 1500), Press("next", 200, 1200)],
            expected: ["play_pause+next chord @1000"], extraGestures: ["play_pause+next": "mode"]),
        Case(
            name: "chord released early fires nothing",
            presses: [Press("play_pause", 0, 400), Press("next", 100, 250)],
            expected: [], extraGestures: ["play_pause+next": "mode"]),
        Case(
            name: "chord buttons alone still work",
            presses: [Press("next", 0, 100), Press("play_pause", 400, 100)],
            expected: ["next short @100", "play_pause short @500"], extraGestures: ["play_pause+next": "mode"]),
        Case(
            name: "double press", presses: [Press("previous", 0, 60), Press("previous", 210, 60)],
            expected: ["previous double @210"], extraGestures: ["previous_double": "mode"]),
        Case(
            name: "single press of a double-mapped button waits for the window",
            presses: [Press("previous", 0, 60)],
            expected: ["previous short @360"], extraGestures: ["previous_double": "mode"]),
        Case(
            name: "two presses too far apart for a double",
            presses: [Press("previous", 0, 60), Press("previous", 500, 60)],
            expected: ["previous short @360", "previous short @860"], extraGestures: ["previous_double": "mode"]),
        Case(
            name: "repeat without a long mapping starts at long_press_ms", presses: [Press("next", 0, 1500)],
            expected: ["next repeat @800", "next repeat @1100", "next repeat @1400"],
            extraGestures: ["next_long": "none"]),
        Case(
            name: "chord of the encoder switch and next",
            presses: [Press("switch", 0, 1200), Press("next", 100, 1000)],
            expected: ["next+switch chord @900"], extraGestures: ["next+switch": "mode"]),
        Case(
            name: "5.2 s hold: long, repeats, then very long",
            presses: [Press("previous", 0, 5200)],
            expected: ["previous long @800"]
                + stride(from: 1100, through: 5000, by: 300).map { "previous repeat @\($0)" }
                + ["previous very_long @5000"],
            extraGestures: ["previous_very_long": "shutdown"]),
    ]

    static func controller(extra: [String: String] = [:]) -> InputController {
        var config = JukeboxConfig(musicDir: "/m")
        // The switch as a short-only button (the default's long press opens the menu, and
        // scrubbing with it held makes it act on its release).
        config.encoder.gestures["switch_long"] = nil
        config.encoder.scrubButton = .none
        config.buttons.gestures.merge(extra) { $1 }
        return InputController(map: ControlMap(config: config), settings: InputController.Settings(config: config))
    }

    @Test(arguments: cases)
    func gestures(_ testCase: Case) {
        // The same presses with ten different bounce patterns. Times in `expected` are those
        // of the contacts' real transitions; a gesture comes the default 5 ms later, whatever
        // the bounce of the edge it follows.
        for seed in UInt64(1)...10 {
            var builder = EdgeStreamBuilder(seed: seed)
            for press in testCase.presses { builder.press(press.button, atMs: press.at, forMs: press.length) }
            var controller = Self.controller(extra: testCase.extraGestures)
            let events = run(&controller, builder.sorted).compactMap { output -> GestureEvent? in
                guard case .gesture(let event) = output else { return nil }
                return event
            }
            let expected = testCase.expected.map { $0.split(separator: "@") }
            #expect(events.map { "\($0) " } == expected.map { String($0[0]) }, "seed \(seed)")
            for (event, words) in zip(events, expected) {
                let late = event.at.nanoseconds - Int64(words[1])! * 1_000_000
                #expect(late == 5_000_000, "seed \(seed): \(event) at \(event.at)")
            }
        }
    }

    @Test func defaultMappingsGiveTheIssuesCommands() {
        var builder = EdgeStreamBuilder(seed: 7)
        builder.press("play_pause", atMs: 0, forMs: 100)
        builder.press("next", atMs: 300, forMs: 100)
        builder.press("next", atMs: 600, forMs: 1200)
        builder.press("previous", atMs: 2000, forMs: 100)
        builder.press("play_pause", atMs: 2300, forMs: 1000)
        builder.press("switch", atMs: 3500, forMs: 50)
        var controller = Self.controller()
        let actions = run(&controller, builder.sorted).compactMap { output -> String? in
            guard case .action(let action, _) = output else { return nil }
            return "\(action)"
        }
        #expect(actions == ["toggle", "next", "seek +10", "seek +10", "previous", "stop", "toggle"])
    }

    @Test func keysTheKernelDebouncedActAtTheirOwnTime() {
        // gpio-keys waited its debounce-interval before reporting: play/pause acts on the
        // release itself (it has long and very long mappings), with no timer to wait for.
        func said(_ outputs: [ControlOutput]) -> [String] { outputs.map { "\($0) @\($0.at.nanoseconds / 1_000_000)" } }
        var controller = Self.controller()
        #expect(controller.handle(key: "play_pause", pressed: true, at: .milliseconds(100)).isEmpty)
        #expect(controller.nextDeadline == .milliseconds(900), "only the long press is timed")
        let release = controller.handle(key: "play_pause", pressed: false, at: .milliseconds(160))
        #expect(said(release) == ["play_pause short @160", "-> toggle @160"])
        #expect(controller.nextDeadline == nil)
        // A short-only button acts on the press edge, also at once; a key of no button does nothing.
        #expect(
            said(controller.handle(key: "switch", pressed: true, at: .milliseconds(300))) == [
                "switch short @300", "-> toggle @300",
            ])
        #expect(controller.handle(key: "eject", pressed: true, at: .milliseconds(400)).isEmpty)
        // Held, a key still makes its long press.
        #expect(controller.handle(key: "next", pressed: true, at: .milliseconds(1000)).isEmpty)
        #expect(said(controller.advance(to: .milliseconds(1800))) == ["next long @1800", "-> seek +10 @1800"])
    }

    @Test func shortOnlyButtonsFireOnThePressEdgeOthersWait() {
        let controller = GestureDetector(
            profiles: [
                "a": .init([.short]), "b": .init([.short, .long]), "c": .init([.short, .double]), "d": .init([.short]),
            ],
            chords: [("d", "a")])
        #expect(!controller.firesOnPress("a"), "a is in a chord")
        #expect(!controller.firesOnPress("b"))
        #expect(!controller.firesOnPress("c"))
        let free = GestureDetector(profiles: ["a": .init([.short])])
        #expect(free.firesOnPress("a"))
    }

    @Test func debouncerTakesALevelThatStillHoldsWhenItsWaitEnds() {
        var debouncer = Debouncer(settleMs: 5)
        var changes: [Debouncer.Change] = []
        // A press that bounces for 1.9 ms counts 5 ms after its first edge: the bounce does
        // not restart the wait.
        changes += debouncer.handle(edge: true, at: .milliseconds(100))
        changes += debouncer.handle(edge: false, at: Instant(nanoseconds: 100_300_000))
        changes += debouncer.handle(edge: true, at: Instant(nanoseconds: 101_900_000))
        #expect(debouncer.nextDeadline == .milliseconds(105))
        changes += debouncer.advance(to: Instant(nanoseconds: 104_999_999))
        #expect(changes.isEmpty)
        changes += debouncer.advance(to: .milliseconds(200))
        #expect(changes == [.init(active: true, at: .milliseconds(105))])
        changes = debouncer.handle(edge: false, at: .milliseconds(300))
        changes += debouncer.handle(edge: true, at: .milliseconds(301))
        changes += debouncer.handle(edge: false, at: .milliseconds(302))
        changes += debouncer.advance(to: .milliseconds(400))
        #expect(changes == [.init(active: false, at: .milliseconds(305))])
        // A 4.9 ms noise pulse, even with a dropout inside, is no press: the line is back
        // when its wait ends.
        changes = debouncer.handle(edge: true, at: .milliseconds(500))
        changes += debouncer.handle(edge: false, at: .milliseconds(502))
        changes += debouncer.handle(edge: true, at: Instant(nanoseconds: 502_100_000))
        changes += debouncer.handle(edge: false, at: Instant(nanoseconds: 504_900_000))
        changes += debouncer.advance(to: .milliseconds(505))
        #expect(changes.isEmpty)
        #expect(debouncer.nextDeadline == nil && !debouncer.stable)
        // A burst of 0.5-4 ms pulses, each over before the next begins 5 ms on, is no press:
        // each pulse starts a wait of its own.
        for start in stride(from: Int64(600), to: 640, by: 8) {
            let length = 500_000 + (start - 600) * 100_000
            changes += debouncer.handle(edge: true, at: .milliseconds(start))
            changes += debouncer.handle(edge: false, at: Instant(nanoseconds: start * 1_000_000 + length))
        }
        changes += debouncer.advance(to: .milliseconds(700))
        #expect(changes.isEmpty)
        // Pulses closer together than the wait, the last one still on when it ends: no press,
        // as the line was on for only 2 of those 5 ms; the decision waits for 3 ms at the new
        // level and the line goes back first.
        changes = debouncer.handle(edge: true, at: .milliseconds(700))
        changes += debouncer.handle(edge: false, at: .milliseconds(701))
        changes += debouncer.handle(edge: true, at: .milliseconds(704))
        #expect(debouncer.nextDeadline == .milliseconds(706))
        changes += debouncer.advance(to: Instant(nanoseconds: 705_500_000))
        changes += debouncer.handle(edge: false, at: Instant(nanoseconds: 705_500_000))
        changes += debouncer.advance(to: .milliseconds(720))
        #expect(changes.isEmpty)
        #expect(debouncer.nextDeadline == nil && !debouncer.stable)
        // The same start, then held: a press once the line was on for 3 ms of the wait.
        changes = debouncer.handle(edge: true, at: .milliseconds(730))
        changes += debouncer.handle(edge: false, at: .milliseconds(731))
        changes += debouncer.handle(edge: true, at: .milliseconds(734))
        changes += debouncer.advance(to: .milliseconds(740))
        #expect(changes == [.init(active: true, at: .milliseconds(736))])
        changes = debouncer.handle(edge: false, at: .milliseconds(760))
        changes += debouncer.advance(to: .milliseconds(780))
        #expect(changes == [.init(active: false, at: .milliseconds(765))])
        // A dropout while held (a pulse the other way) is no release.
        changes = debouncer.handle(edge: true, at: .milliseconds(800))
        changes += debouncer.handle(edge: false, at: .milliseconds(850))
        changes += debouncer.handle(edge: true, at: .milliseconds(854))
        changes += debouncer.advance(to: .milliseconds(900))
        #expect(changes == [.init(active: true, at: .milliseconds(805))])
        changes = debouncer.handle(edge: false, at: .milliseconds(1000))
        changes += debouncer.advance(to: .milliseconds(1100))
        #expect(changes == [.init(active: false, at: .milliseconds(1005))])
        // Two rising edges in a row hide a lost falling one: the wait starts again.
        changes = debouncer.handle(edge: true, at: .milliseconds(1200))
        changes += debouncer.handle(edge: true, at: .milliseconds(1203))
        changes += debouncer.advance(to: .milliseconds(1206))
        #expect(changes.isEmpty)
        changes += debouncer.advance(to: .milliseconds(1208))
        #expect(changes == [.init(active: true, at: .milliseconds(1208))])
        // No wait: every change at once.
        var immediate = Debouncer(settleMs: 0)
        #expect(immediate.handle(edge: true, at: .milliseconds(1)) == [.init(active: true, at: .milliseconds(1))])
    }
}
