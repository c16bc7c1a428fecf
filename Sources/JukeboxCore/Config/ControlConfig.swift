import TOML

// The controls' part of the config: the `[buttons]` and `[encoder]` keys and their checks, and
// the input subsystem's values built from a validated config. They live here, not in Input/,
// so that the arrow points one way: the config knows what it configures, the input does not
// know the config.

extension ControlMap {
    /// The mappings of a validated config (unparsable values were reported by the validator
    /// and are skipped here).
    public init(config: JukeboxConfig) {
        let all = config.buttons.gestures.merging(config.encoder.gestures) { first, _ in first }
        for (key, value) in all {
            guard case .success(let action?) = ControlAction.parse(value) else { continue }
            if let plus = key.firstIndex(of: "+") {
                let chord = Chord(
                    first: String(key[..<plus]), second: String(key[key.index(after: plus)...]), action: action)
                chords.append(chord)
            } else if let (button, gesture) = Self.split(key) {
                buttons[button, default: [:]][gesture] = action
            }
        }
        chords.sort { $0.name < $1.name }
        turn = config.encoder.turn
        step = config.encoder.step
        scrubButton = config.encoder.scrubButton.buttonName
        menuPlayNext = Self.split(config.menu.playNext).map { ButtonGesture(button: $0.0, gesture: $0.1) }
    }
}

extension JukeboxConfig {
    /// `[menu]`: the knob's menu (a gesture mapped to `menu` opens it).
    public struct MenuSettings: Sendable, Equatable {
        /// An idle menu goes back to what plays after this long.
        public var timeoutSeconds = 30
        /// `<button>_<gesture>` that adds the highlighted entry after the current track while
        /// the menu is open, or `none`.
        public var playNext = "next_short"

        /// The defaults.
        public init() {}

        /// `timeoutSeconds` in milliseconds (`Menu.timeoutMs`).
        public var timeoutMs: Int64 { Int64(timeoutSeconds) * 1000 }
    }
}

extension InputController.Settings {
    /// The settings of a validated config.
    public init(config: JukeboxConfig) {
        buttonDebounceMs = config.buttons.debounceMs
        timing = GestureTiming(
            longPressMs: Int64(config.buttons.longPressMs), repeatMs: Int64(config.buttons.repeatMs),
            doublePressMs: Int64(config.buttons.doublePressMs),
            veryLongPressMs: Int64(config.buttons.veryLongPressMs))
        stepsPerDetent = config.encoder.a != nil && config.encoder.b != nil ? config.encoder.stepsPerDetent : nil
        encoderLockoutUs = config.encoder.debounceMs.map { $0 * 1000 }
        inverted = config.encoder.direction == .reversed
        acceleration = config.encoder.acceleration
        coalesceMs = config.audio.periodMs
    }
}

extension EdgeReplay {
    /// The pin map and logic of a validated config.
    public init(config: JukeboxConfig) {
        let buttonsLow = config.buttons.active == .low
        let encoderLow = config.encoder.active == .low
        if let line = config.buttons.playPause { pins[line] = (.button("play_pause"), buttonsLow) }
        if let line = config.buttons.next { pins[line] = (.button("next"), buttonsLow) }
        if let line = config.buttons.previous { pins[line] = (.button("previous"), buttonsLow) }
        if let line = config.encoder.pushSwitch { pins[line] = (.button("switch"), encoderLow) }
        if let line = config.encoder.a { pins[line] = (.encoderA, encoderLow) }
        if let line = config.encoder.b { pins[line] = (.encoderB, encoderLow) }
        controller = InputController(
            map: ControlMap(config: config), settings: InputController.Settings(config: config))
    }
}

extension ConfigValidator {
    /// Gesture keys of one table: `<button>_<gesture>` for `buttons`.
    static func gestureKeys(
        buttons: [String], _ set: @escaping @Sendable (inout JukeboxConfig, String, String) -> Void
    ) -> [KeySpec] {
        var specs: [KeySpec] = []
        for button in buttons {
            for gesture in Gesture.allCases where gesture != .chord {
                let key = "\(button)_\(gesture.rawValue)"
                specs.append(string(key, allowEmpty: true) { set(&$0, key, $1) })
            }
        }
        return specs
    }

    static let buttonControlKeys: [KeySpec] =
        [
            integer("debounce_ms", 0...200) { $0.buttons.debounceMs = $1 },
            integer("long_press_ms", 100...10_000) { $0.buttons.longPressMs = $1 },
            integer("repeat_ms", 50...5000) { $0.buttons.repeatMs = $1 },
            integer("double_press_ms", 50...2000) { $0.buttons.doublePressMs = $1 },
            integer("very_long_press_ms", 500...60_000) { $0.buttons.veryLongPressMs = $1 },
            choice("bias", LineBias.self) { $0.buttons.bias = $1 },
            choice("active", LineActive.self) { $0.buttons.active = $1 },
            string("input_device", allowEmpty: true) { $0.buttons.inputDevice = $1 },
            string("shutdown_command", allowEmpty: true) { $0.buttons.shutdownCommand = $1 },
        ]
        + gestureKeys(buttons: ["play_pause", "next", "previous"]) { $0.buttons.gestures[$1] = $2 }
        + ControlDefaults.chordKeys.map { key in string(key, allowEmpty: true) { $0.buttons.gestures[key] = $1 } }

    static let encoderControlKeys: [KeySpec] =
        [
            integer("debounce_ms", 0...20) { $0.encoder.debounceMs = $1 },
            choice("turn", EncoderTurn.self) { $0.encoder.turn = $1 },
            integer("step", 1...30) { $0.encoder.step = $1 },
            choice("direction", EncoderDirection.self) { $0.encoder.direction = $1 },
            integer("acceleration", 1...10) { $0.encoder.acceleration = $1 },
            choice("bias", LineBias.self) { $0.encoder.bias = $1 },
            choice("active", LineActive.self) { $0.encoder.active = $1 },
            string("input_device", allowEmpty: true) { $0.encoder.inputDevice = $1 },
            choice("scrub_button", ScrubButton.self) { $0.encoder.scrubButton = $1 },
            integer("scrub_step_s", 1...600) { $0.encoder.scrubStepSeconds = $1 },
        ] + gestureKeys(buttons: ["switch"]) { $0.encoder.gestures[$1] = $2 }

    static let menuKeys: [KeySpec] = [
        integer("timeout_s", 5...3600) { $0.menu.timeoutSeconds = $1 },
        string("play_next") { $0.menu.playNext = $1 },
    ]

    /// What is wrong with a `[menu] play_next` value, nil when it is a gesture the menu can take.
    static func menuPlayNextProblem(_ value: String) -> String? {
        if value == "none" { return nil }
        guard let (button, gesture) = ControlMap.split(value) else {
            let gestures = Gesture.allCases.filter { $0 != .chord }.map(\.rawValue).joined(separator: ", ")
            let buttons = ControlDefaults.buttonNames.joined(separator: ", ")
            var problem =
                "must be <button>_<gesture> (buttons: \(buttons); gestures: \(gestures)) or 'none', found '\(value)'"
            let keys = ControlDefaults.buttonNames.flatMap { button in
                Gesture.allCases.filter { $0 != .chord }.map { "\(button)_\($0.rawValue)" }
            }
            if let suggestion = suggest(value, among: keys) { problem += "; did you mean '\(suggestion)'?" }
            return problem
        }
        if button == "switch" && ControlDefaults.menuGestures["switch", default: []].contains(gesture) {
            return "switch_\(gesture.rawValue) \(gesture == .short ? "chooses" : "goes back") in the menu; "
                + "take another gesture, e.g. 'next_short' or 'switch_double'"
        }
        return nil
    }

    /// Mapping values that are not commands, and timings that contradict each other.
    static func controlDiagnostics(_ config: JukeboxConfig, lines: [String: Int?], fileName: String)
        -> [ConfigDiagnostic]
    {
        var diagnostics: [ConfigDiagnostic] = []
        let tables = [("buttons", config.buttons.gestures), ("encoder", config.encoder.gestures)]
        for (table, gestures) in tables {
            for (key, value) in gestures.sorted(by: { $0.key < $1.key }) {
                let qualified = "\(table).\(key)"
                guard let line = lines[qualified] else { continue }
                if case .failure(let error) = ControlAction.parse(value) {
                    diagnostics.append(
                        ConfigDiagnostic(
                            fileName: fileName, line: line, key: qualified,
                            problem: "not a command (\(error.message)); use a console command like "
                                + "'toggle' or 'seek +10', 'favourite', 'shutdown', 'menu', 'say_address' or 'none'"))
                }
            }
        }
        if let problem = menuPlayNextProblem(config.menu.playNext) {
            diagnostics.append(
                ConfigDiagnostic(
                    fileName: fileName, line: lines["menu.play_next"] ?? nil, key: "menu.play_next", problem: problem))
        }
        if config.buttons.veryLongPressMs <= config.buttons.longPressMs {
            diagnostics.append(
                ConfigDiagnostic(
                    fileName: fileName,
                    line: lines["buttons.very_long_press_ms"] ?? lines["buttons.long_press_ms"] ?? nil,
                    key: "buttons.very_long_press_ms",
                    problem: "must be longer than long_press_ms (\(config.buttons.longPressMs)), "
                        + "found \(config.buttons.veryLongPressMs)"))
        }
        return diagnostics
    }
}
