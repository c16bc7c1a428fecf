import Testing

@testable import JukeboxCore

/// `knob` and `button` console words: parsed, refused with a useful message, and mapped by
/// the config's `ControlMap` as the hardware's gestures are.
@Suite struct InjectedInputParserTests {
    static func parse(_ line: String) -> Result<InjectedInput, CommandError>? {
        InjectedInput.parse(words: line.split(separator: " ").map(String.init))
    }

    @Test(arguments: [
        ("knob +3", InjectedInput.turn(3)),
        ("knob -1", .turn(-1)),
        ("KNOB 2", .turn(2)),
        ("knob press", .gesture(button: "switch", .short)),
        ("knob long", .gesture(button: "switch", .long)),
        ("button next long", .gesture(button: "next", .long)),
        ("button play_pause very_long", .gesture(button: "play_pause", .veryLong)),
        ("button previous very-long", .gesture(button: "previous", .veryLong)),
        ("button switch double", .gesture(button: "switch", .double)),
        ("button next repeat", .gesture(button: "next", .repeated)),
        ("button next+previous chord", .gesture(button: "next+previous", .chord)),
        ("button previous+next chord", .gesture(button: "next+previous", .chord)),
        ("button switch+play_pause chord", .gesture(button: "play_pause+switch", .chord)),
        ("knob scrub +3", .scrub(3)),
        ("knob scrub -12", .scrub(-12)),
        ("knob scrub end", .scrubEnd),
    ])
    func parses(_ line: String, _ expected: InjectedInput) {
        #expect(Self.parse(line) == .success(expected))
    }

    @Test(arguments: [
        ("knob", "knob: expected +N or -N (clicks, up to 100), press, long, scrub ±N or scrub end"),
        ("knob +0", "knob: expected +N or -N (clicks, up to 100), press, long, scrub ±N or scrub end, found '+0'"),
        ("knob +101", "knob: expected +N or -N (clicks, up to 100), press, long, scrub ±N or scrub end, found '+101'"),
        ("knob left", "knob: expected +N or -N (clicks, up to 100), press, long, scrub ±N or scrub end, found 'left'"),
        (
            "knob scrub 0",
            "knob: expected +N or -N (clicks, up to 100), press, long, scrub ±N or scrub end, found 'scrub 0'"
        ),
        ("button next", "button: expected a button and a gesture, like next long"),
        ("button stop short", "button: unknown button 'stop' (play_pause, next, previous, switch)"),
        ("button next chord", "button: unknown gesture 'chord' (short, double, long, repeat, very_long)"),
        ("button next hold", "button: unknown gesture 'hold' (short, double, long, repeat, very_long)"),
        ("button next+next chord", "button: unknown chord 'next+next' (two of play_pause, next, previous, switch)"),
        ("button next+stop chord", "button: unknown chord 'next+stop' (two of play_pause, next, previous, switch)"),
        ("button next+previous long", "button: two buttons make a chord: button next+previous chord"),
    ])
    func refuses(_ line: String, _ message: String) {
        guard case .failure(let error)? = Self.parse(line) else {
            Issue.record("\(line) parsed")
            return
        }
        #expect(error.message == message)
    }

    @Test func otherWordsAreNotTheirs() {
        #expect(Self.parse("volume +2") == nil)
        #expect(Self.parse("") == nil)
    }

    @Test func theConfiguredMappingApplies() {
        var config = JukeboxConfig(musicDir: "/m")
        config.encoder.step = 5
        config.buttons.gestures["next_long"] = "mode"
        let map = ControlMap(config: config)
        let at = Instant.milliseconds(7)
        #expect(
            InjectedInput.turn(-2).outputs(map: map, at: at)
                == [.detent(-1, at: at), .detent(-1, at: at), .action(.command(.changeVolume(-10)), at: at)])
        let long = GestureEvent(control: "next", gesture: .long, at: at)
        #expect(
            InjectedInput.gesture(button: "next", .long).outputs(map: map, at: at)
                == [.gesture(long), .action(.command(.cycleMode), at: at)])
        // A chord by either order of its buttons: the default favourite chord.
        let chord = GestureEvent(control: "next+previous", gesture: .chord, at: at)
        guard case .success(let injected)? = Self.parse("button previous+next chord") else {
            Issue.record("no chord")
            return
        }
        #expect(injected.outputs(map: map, at: at) == [.gesture(chord), .action(.favourite(.toggle), at: at)])
        // Nothing mapped: the gesture alone (a menu or the log may still use it).
        let double = GestureEvent(control: "next", gesture: .double, at: at)
        #expect(InjectedInput.gesture(button: "next", .double).outputs(map: map, at: at) == [.gesture(double)])
    }

    @Test func helpNamesEveryButtonAndGesture() {
        for name in ControlDefaults.buttonNames + InjectedInput.gestureNames {
            #expect(InjectedInput.helpText.contains(name), "\(name)")
        }
        for line in InjectedInput.helpText.split(separator: "\n") {
            #expect(Self.parse(String(line.split(separator: " ")[0])) != nil, "\(line)")
        }
    }
}
