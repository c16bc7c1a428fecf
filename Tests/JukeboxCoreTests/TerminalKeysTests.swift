import Testing

@testable import JukeboxCore

/// Keys from a terminal: escape sequences, UTF-8, and keys acting as the configured buttons.
@Suite struct TerminalKeysTests {
    @Test func decodesArrowsCharactersAndSplitSequences() {
        var decoder = TerminalKeyDecoder()
        #expect(
            decoder.feed(Array(" n\u{1B}[A\u{1B}[B\u{1B}OC\u{1B}[D\r\u{7F}".utf8)) == [
                .character(" "), .character("n"), .up, .down, .right, .left, .enter, .backspace,
            ])
        // A sequence split across two reads, and a UTF-8 character split too.
        #expect(decoder.feed([0x1B, UInt8(ascii: "[")]) == [])
        #expect(decoder.feed([UInt8(ascii: "A"), 0xC3]) == [.up])
        #expect(decoder.feed([0xA9]) == [.character("é")])
        // Function keys (ESC [ 1 5 ~), control bytes and stray continuation bytes do nothing.
        #expect(decoder.feed(Array("\u{1B}[15~".utf8) + [0x01, 0x80, UInt8(ascii: "m")]) == [.character("m")])
        // A lone ESC at the end of a read is the Escape key.
        #expect(decoder.feed([0x1B]) == [.escape])
    }

    /// What the keys' outputs do: actions, and the mapped actions of their gestures and turns.
    private func actions(_ outputs: [TerminalKeyControls.Output], _ map: ControlMap) -> [ControlAction] {
        outputs.flatMap { output -> [ControlAction] in
            switch output {
            case .action(let action): return [action]
            case .input(let input):
                return input.outputs(map: map, at: .zero).compactMap {
                    if case .action(let action, _) = $0 { return action }
                    return nil
                }
            case .line, .show: return []
            }
        }
    }

    @Test func keysDoWhatTheShortPressesAndTheKnobDo() {
        let map = ControlMap(config: JukeboxConfig(musicDir: "/m"))
        var keys = TerminalKeyControls(map: map)
        #expect(keys.handle(.character(" ")) == [.action(.command(.toggle))])
        #expect(keys.handle(.right) == [.input(.gesture(button: "next", .short))])
        #expect(actions(keys.handle(.right), map) == [.command(.next)])
        #expect(keys.handle(.character("p")) == [.action(.command(.previous))])
        #expect(keys.handle(.up) == [.input(.turn(1))])
        #expect(actions(keys.handle(.character("-")), map) == [.command(.changeVolume(-2))])
        #expect(actions(keys.handle(.enter), map) == [.command(.toggle)])
        // Escape holds the knob's switch: the menu.
        #expect(actions(keys.handle(.escape), map) == [.menu])
        #expect(keys.handle(.character("]")) == [.action(.lyricsOffset(LyricNudge(relative: true, ms: 100)))])
        #expect(keys.handle(.character("f")) == [.action(.favourite(.toggle))])
        #expect(keys.handle(.character("x")) == [])
        guard case .show(let help) = keys.handle(.character("?")).first else {
            Issue.record("no help")
            return
        }
        #expect(help.contains("space = play/pause"))
    }

    @Test func remappedButtonsAndAKnobOnSeek() {
        var config = JukeboxConfig(musicDir: "/m")
        config.buttons.gestures["next_short"] = "mode"
        config.encoder.turn = .seek
        config.encoder.step = 5
        let map = ControlMap(config: config)
        var keys = TerminalKeyControls(map: map)
        #expect(actions(keys.handle(.character("n")), map) == [.command(.cycleMode)])
        #expect(actions(keys.handle(.down), map) == [.command(.seek(.relative(ms: -5000)))])
    }

    @Test func colonOpensACommandLineWithEditing() {
        var keys = TerminalKeyControls(map: ControlMap(config: JukeboxConfig(musicDir: "/m")))
        #expect(keys.handle(.character(":")) == [.show(":")])
        for character in "seek +1x" { _ = keys.handle(.character(character)) }
        #expect(keys.handle(.backspace) == [.show("\r\u{1B}[K:seek +1")])
        #expect(keys.handle(.character("0")) == [.show("\r\u{1B}[K:seek +10")])
        // While typing, keys are text, not buttons.
        #expect(keys.handle(.character(" ")) == [.show("\r\u{1B}[K:seek +10 ")])
        #expect(keys.handle(.enter) == [.show("\n"), .line("seek +10 ")])
        #expect(keys.handle(.character(" ")) == [.action(.command(.toggle))])
        // Escape cancels; backspace on an empty line closes it.
        _ = keys.handle(.character(":"))
        _ = keys.handle(.character("q"))
        #expect(keys.handle(.escape) == [.show(" (cancelled)\n")])
        _ = keys.handle(.character(":"))
        #expect(keys.handle(.backspace) == [.show("\r\u{1B}[K")])
        #expect(keys.handle(.character("n")) == [.input(.gesture(button: "next", .short))])
    }
}
