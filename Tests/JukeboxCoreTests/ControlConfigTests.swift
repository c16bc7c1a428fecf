import TOML
import Testing

@testable import JukeboxCore

/// The [buttons]/[encoder] control keys, the control map built from them, and the edge-file parser.
@Suite struct ControlConfigTests {
    typealias Entry = ConfigDocument.Entry

    static func validate(_ entries: [Entry]) -> (JukeboxConfig?, [String]) {
        let all = [Entry(table: "", key: "music_dir", value: .string("/music"), line: 1)] + entries
        let tables = Array(Set(entries.map(\.table))).sorted().map { (name: $0, line: Int?.none) }
        let result = ConfigValidator.validate(ConfigDocument(fileName: "j.toml", tables: tables, entries: all)) { _ in
            nil
        }
        return (result.config, result.diagnostics.map(\.description))
    }

    @Test func defaultMappingsAreTheIssuesExample() throws {
        let map = ControlMap(config: JukeboxConfig(musicDir: "/m"))
        #expect(map.buttons["play_pause"] == [.short: .command(.toggle), .long: .command(.stop), .veryLong: .shutdown])
        #expect(
            map.buttons["next"] == [
                .short: .command(.next), .long: .command(.seek(.relative(ms: 10_000))),
                .repeated: .command(.seek(.relative(ms: 10_000))),
            ])
        #expect(map.buttons["previous"]?[.short] == .command(.previous))
        #expect(map.buttons["previous"]?[.repeated] == .command(.seek(.relative(ms: -10_000))))
        #expect(map.buttons["switch"] == [.short: .command(.toggle), .long: .menu])
        // Both skip buttons held together mark the playing track as a favourite.
        #expect(map.chords == [ControlMap.Chord(first: "next", second: "previous", action: .favourite(.toggle))])
        #expect(map.turnAction(units: -3) == .command(.changeVolume(-6)))
    }

    @Test func mappingsTimingsAndChordsFromTheFile() throws {
        let (config, diagnostics) = Self.validate([
            Entry(table: "buttons", key: "long_press_ms", value: .integer(600), line: 3),
            Entry(table: "buttons", key: "debounce_ms", value: .integer(15), line: 4),
            Entry(table: "buttons", key: "next_long", value: .string("none"), line: 5),
            Entry(table: "buttons", key: "previous_double", value: .string("mode shuffle"), line: 6),
            Entry(table: "buttons", key: "play_pause+next", value: .string("shutdown"), line: 7),
            Entry(table: "buttons", key: "shutdown_command", value: .string("sudo poweroff"), line: 8),
            Entry(table: "buttons", key: "active", value: .string("high"), line: 9),
            Entry(table: "buttons", key: "bias", value: .string("pull-down"), line: 10),
            Entry(table: "encoder", key: "turn", value: .string("seek"), line: 12),
            Entry(table: "encoder", key: "step", value: .integer(5), line: 13),
            Entry(table: "encoder", key: "direction", value: .string("reversed"), line: 14),
            Entry(table: "encoder", key: "acceleration", value: .integer(4), line: 15),
            Entry(table: "encoder", key: "switch_long", value: .string("mode"), line: 16),
        ])
        #expect(diagnostics == [])
        let value = try #require(config)
        #expect(value.buttons.longPressMs == 600)
        #expect(value.buttons.debounceMs == 15)
        #expect(value.buttons.active == .high)
        #expect(value.buttons.bias == .pullDown)
        #expect(value.buttons.shutdownCommand == "sudo poweroff")
        let map = ControlMap(config: value)
        #expect(map.buttons["next"]?[.long] == nil)
        #expect(map.buttons["previous"]?[.double] == .command(.setMode(.shuffle)))
        #expect(
            map.chords == [
                ControlMap.Chord(first: "next", second: "previous", action: .favourite(.toggle)),
                ControlMap.Chord(first: "play_pause", second: "next", action: .shutdown),
            ])
        #expect(map.buttons["switch"]?[.long] == .command(.cycleMode))
        #expect(map.turnAction(units: 2) == .command(.seek(.relative(ms: 10_000))))
        let settings = InputController.Settings(config: value)
        #expect(settings.timing.longPressMs == 600)
        #expect(settings.inverted)
        #expect(settings.acceleration == 4)
        #expect(settings.stepsPerDetent == nil, "no encoder lines wired")
    }

    @Test func lyricNudgesAsGesturesAndAsTheEncoderTurn() throws {
        let (config, diagnostics) = Self.validate([
            Entry(table: "buttons", key: "next_double", value: .string("lyrics offset +200"), line: 3),
            Entry(table: "buttons", key: "previous_double", value: .string("lyrics offset -200"), line: 4),
            Entry(table: "encoder", key: "turn", value: .string("lyrics"), line: 5),
        ])
        #expect(diagnostics.isEmpty)
        let map = ControlMap(config: try #require(config))
        #expect(map.buttons["next"]?[.double] == .lyricsOffset(LyricNudge(relative: true, ms: 200)))
        #expect(map.buttons["previous"]?[.double] == .lyricsOffset(LyricNudge(relative: true, ms: -200)))
        #expect(map.buttons["previous"]?[.double]?.description == "lyrics offset -200")
        #expect(map.turnAction(units: 3) == .lyricsOffset(LyricNudge(relative: true, ms: 300)))
        #expect(map.turnAction(units: -1) == .lyricsOffset(LyricNudge(relative: true, ms: -100)))

        let (_, bad) = Self.validate([
            Entry(table: "buttons", key: "next_double", value: .string("lyrics offset soon"), line: 3)
        ])
        #expect(bad.count == 1 && bad[0].hasPrefix("j.toml:3: buttons.next_double:"), "\(bad)")
    }

    @Test func theAddressIsAGestureLikeAnyOther() throws {
        let (config, diagnostics) = Self.validate([
            Entry(table: "buttons", key: "play_pause_long", value: .string("say_address"), line: 3),
            Entry(table: "buttons", key: "next+previous", value: .string("SAY_ADDRESS"), line: 4),
        ])
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let map = ControlMap(config: try #require(config))
        #expect(map.buttons["play_pause"]?[.long] == .sayAddress)
        #expect(map.chords == [ControlMap.Chord(first: "next", second: "previous", action: .sayAddress)])
        #expect(ControlAction.sayAddress.description == "say_address")
        #expect(try ControlAction.parse(ControlAction.sayAddress.description).get() == .sayAddress)
        // Not a text to say: the word is one, with its underscore.
        let (_, bad) = Self.validate([
            Entry(table: "buttons", key: "play_pause_long", value: .string("say address"), line: 3)
        ])
        #expect(bad.count == 1 && bad[0].hasPrefix("j.toml:3: buttons.play_pause_long: not a command"), "\(bad)")
    }

    @Test func lyricNudgeArguments() {
        #expect(LyricNudge.parse("+200") == LyricNudge(relative: true, ms: 200))
        #expect(LyricNudge.parse("-50") == LyricNudge(relative: true, ms: -50))
        #expect(LyricNudge.parse("0") == LyricNudge(relative: false, ms: 0))
        #expect(LyricNudge.parse("1e3") == nil)
        #expect(LyricNudge.parse("+") == nil)
        #expect(LyricNudge.parse("9999999") == nil)
        #expect(LyricNudge(relative: true, ms: -300).applied(to: 1000) == 700)
        #expect(LyricNudge(relative: false, ms: 250).applied(to: 1000) == 250)
        #expect(LyricNudge(relative: true, ms: 600_000).applied(to: 500_000) == LyricNudge.limitMs)
    }

    @Test func anyGestureCanOpenTheMenuAndThenTheMenusGesturesAreDetected() throws {
        let (config, diagnostics) = Self.validate([
            Entry(table: "buttons", key: "play_pause_double", value: .string("menu"), line: 3),
            Entry(table: "encoder", key: "switch_long", value: .string("none"), line: 4),
        ])
        #expect(diagnostics.isEmpty)
        let map = ControlMap(config: try #require(config))
        #expect(map.buttons["play_pause"]?[.double] == .menu)
        #expect(map.buttons["switch"]?[.long] == nil)
        // The open menu's press, back and play-next gestures are detected even though unmapped.
        #expect(map.profiles["switch"] == GestureDetector.Profile([.short, .long]))
        #expect(map.profiles["next"]?.gestures.contains(.short) == true)
        var without = JukeboxConfig(musicDir: "/m")
        without.encoder.gestures["switch_long"] = nil
        #expect(ControlMap(config: without).profiles["switch"] == GestureDetector.Profile([.short]))
    }

    @Test func theMenusTimeoutAndPlayNextGestureFromTheFile() throws {
        let defaults = ControlMap(config: JukeboxConfig(musicDir: "/m"))
        #expect(defaults.menuPlayNext == ControlMap.ButtonGesture(button: "next", gesture: .short))
        #expect(JukeboxConfig(musicDir: "/m").menu.timeoutMs == 30_000)
        let (config, diagnostics) = Self.validate([
            Entry(table: "menu", key: "timeout_s", value: .integer(12), line: 3),
            Entry(table: "menu", key: "play_next", value: .string("switch_double"), line: 4),
        ])
        #expect(diagnostics.isEmpty)
        let value = try #require(config)
        #expect(value.menu.timeoutMs == 12_000)
        let map = ControlMap(config: value)
        let playNext = try #require(map.menuPlayNext)
        #expect(playNext.matches(GestureEvent(control: "switch", gesture: .double, at: .zero)))
        #expect(!playNext.matches(GestureEvent(control: "next", gesture: .short, at: .zero)))
        // The switch's double press is detected (its press now waits for a second one); next's
        // press is no menu gesture any more, and next has its own mappings.
        #expect(map.profiles["switch"] == GestureDetector.Profile([.short, .long, .double]))
        #expect(map.profiles["next"] == GestureDetector.Profile([.short, .long, .repeated]))
        var none = value
        none.menu.playNext = "none"
        #expect(ControlMap(config: none).menuPlayNext == nil)
        #expect(ControlMap(config: none).profiles["switch"] == GestureDetector.Profile([.short, .long]))
    }

    @Test func badMenuKeysAreReportedWithTheirLines() {
        let (config, diagnostics) = Self.validate([
            Entry(table: "menu", key: "timeout_s", value: .integer(2), line: 3),
            Entry(table: "menu", key: "play_next", value: .string("nxt_short"), line: 4),
            Entry(table: "menu", key: "timeout", value: .integer(20), line: 5),
        ])
        #expect(config == nil)
        #expect(
            diagnostics == [
                "j.toml:3: menu.timeout_s: must be between 5 and 3600, found 2",
                "j.toml:5: menu.timeout: unknown key 'timeout'; did you mean 'timeout_s'?",
                "j.toml:4: menu.play_next: must be <button>_<gesture> (buttons: play_pause, next, previous, switch; "
                    + "gestures: short, double, long, repeat, very_long) or 'none', found 'nxt_short'; "
                    + "did you mean 'next_short'?",
            ])
        let (_, taken) = Self.validate([Entry(table: "menu", key: "play_next", value: .string("switch_long"), line: 6)])
        #expect(
            taken == [
                "j.toml:6: menu.play_next: switch_long goes back in the menu; take another gesture, e.g. "
                    + "'next_short' or 'switch_double'"
            ])
    }

    @Test func badControlKeysAreReportedWithTheirLines() {
        let (config, diagnostics) = Self.validate([
            Entry(table: "buttons", key: "next_short", value: .string("jump"), line: 3),
            Entry(table: "buttons", key: "next_tripple", value: .string("next"), line: 4),
            Entry(table: "buttons", key: "long_press_ms", value: .integer(2000), line: 5),
            Entry(table: "buttons", key: "very_long_press_ms", value: .integer(1500), line: 6),
            Entry(table: "encoder", key: "step", value: .integer(0), line: 7),
            Entry(table: "encoder", key: "direction", value: .string("backwards"), line: 8),
        ])
        #expect(config == nil)
        #expect(
            diagnostics == [
                "j.toml:4: buttons.next_tripple: unknown key 'next_tripple'; did you mean 'next'?",
                "j.toml:7: encoder.step: must be between 1 and 30, found 0",
                "j.toml:8: encoder.direction: must be one of normal or reversed, found 'backwards'",
                "j.toml:3: buttons.next_short: not a command (unknown command 'jump' (type 'help')); use a console "
                    + "command like 'toggle' or 'seek +10', 'favourite', 'shutdown', 'menu', 'say_address' or 'none'",
                "j.toml:6: buttons.very_long_press_ms: must be longer than long_press_ms (2000), found 1500",
            ])
    }

    @Test(arguments: [
        (
            "event:  RISING EDGE offset: 17 timestamp: [  1234.567890123]",
            RecordedEdge(at: Instant(nanoseconds: 1_234_567_890_123), line: 17, level: true)
        ),
        (
            "event: FALLING EDGE offset: 5 timestamp: [1700000000.000000001]",
            RecordedEdge(at: Instant(nanoseconds: 1_700_000_000_000_000_001), line: 5, level: false)
        ),
        (
            "1234.5\trising\tgpiochip0 27",
            RecordedEdge(at: Instant(nanoseconds: 1_234_500_000_000), line: 27, level: true)
        ),
        ("0.0125 17 0", RecordedEdge(at: Instant(nanoseconds: 12_500_000), line: 17, level: false)),
        ("  3 22 1   # a comment", RecordedEdge(at: Instant(nanoseconds: 3_000_000_000), line: 22, level: true)),
    ])
    func edgeLines(_ text: String, _ expected: RecordedEdge) throws {
        #expect(try EdgeStreamParser.parseLine(Substring(text)).get() == expected)
    }

    @Test func edgeFileProblems() throws {
        #expect(try EdgeStreamParser.parseLine("# only a comment").get() == nil)
        #expect(try EdgeStreamParser.parseLine("   ").get() == nil)
        for bad in ["0.1 17 2", "0.1 17", "x 17 1", "event: RISING EDGE offset: 17", "0.1234567891 17 1"] {
            if case .success = EdgeStreamParser.parseLine(Substring(bad)) { Issue.record("accepted '\(bad)'") }
        }
        let parsed = EdgeStreamParser.parse("0.1 17 0\n\n0.2 17 1\nnonsense\n")
        #expect(
            parsed
                == .failure(
                    EdgeStreamParser.Problem(
                        line: 4,
                        message: "expected 'seconds line value' (like 0.0125 17 0) or a gpiomon line, found 'nonsense'")
                ))
    }

    @Test func commandsPrintInTheConsoleLanguage() throws {
        let commands: [Command] = [
            .toggle, .seek(.relative(ms: -10_000)), .seek(.relative(ms: 2500)), .seek(.absolute(ms: 83_000)),
            .changeVolume(4), .changeVolume(-6), .setVolume(30), .setMode(.repeatOne), .cycleMode, .play(index: 2),
        ]
        for command in commands {
            #expect(try CommandParser.parse(command.consoleText).get() == command, "\(command.consoleText)")
        }
        #expect(Command.seek(.relative(ms: 2500)).consoleText == "seek +2.500")
    }
}
