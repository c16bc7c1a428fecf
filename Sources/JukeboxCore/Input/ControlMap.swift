/// The bias a GPIO line is requested with.
public enum LineBias: String, Sendable, Equatable, CaseIterable {
    case pullUp = "pull-up"
    case pullDown = "pull-down"
    case disabled
    /// Leave whatever the board (or a device-tree overlay) set.
    case asIs = "as-is"
}

/// The level at which a button counts as pressed: `low` for a button to ground with a pull-up.
public enum LineActive: String, Sendable, Equatable, CaseIterable {
    case low
    case high
}

/// What turning the encoder does.
public enum EncoderTurn: String, Sendable, Equatable, CaseIterable {
    case volume
    case seek
    /// Nudges the playing track's lyrics, `lyricsStepMs` per detent (clockwise: sooner).
    case lyrics
    case none
}

/// Which way is up.
public enum EncoderDirection: String, Sendable, Equatable, CaseIterable {
    case normal
    case reversed
}

/// What a gesture does: a command of the one command model, a lyric offset nudge, a
/// favourite mark, or running the shutdown command.
public enum ControlAction: Sendable, Equatable, CustomStringConvertible {
    case command(Command)
    /// `lyrics offset +200`: the playing track's lyrics sooner (or later), saved per track.
    case lyricsOffset(LyricNudge)
    /// `favourite` (`favourite add`, `favourite remove`): the playing track in or out of the
    /// `Favourites` playlist.
    case favourite(Favourites.Edit)
    case shutdown
    /// `sleep 30`, `sleep track`, `sleep off`: sets the sleep timer.
    case sleep(SleepTarget?)
    /// Opens the menu (or, while it is open, closes it).
    case menu
    /// `say_address`: says the box's address and the web page's port aloud (for a box
    /// without a screen), e.g. on a long press.
    case sayAddress

    /// The `favourite` words, as `help` lists them.
    public static let favouriteHelpText = """
        favourite    mark the playing track as a favourite, or unmark it (favourite add, favourite remove)
        """

    /// Parses a mapping value: a console command line (`toggle`, `seek +10`), `shutdown`, or
    /// `none`/empty (nil: not mapped).
    public static func parse(_ text: String) -> Result<ControlAction?, CommandError> {
        let lowered = text.lowercased()
        if lowered.allSatisfy({ $0 == " " }) || lowered == "none" { return .success(nil) }
        if lowered == "shutdown" || lowered == "poweroff" { return .success(.shutdown) }
        if lowered == "menu" { return .success(.menu) }
        if lowered == "say_address" { return .success(.sayAddress) }
        let words = lowered.split(separator: " ")
        if let edit = parseFavourite(words.map(String.init)) { return edit.map { .favourite($0) } }
        if words.first == "sleep" {
            guard words.count == 2 else {
                return .failure(
                    .badArgument(command: "sleep", problem: "expected minutes, 90s, track, album, chapter or off"))
            }
            return SleepTarget.parse(String(words[1])).map { .sleep($0) }
        }
        if words.first == "lyrics" {
            guard words.count == 3, words[1] == "offset", let nudge = LyricNudge.parse(String(words[2])) else {
                return .failure(.badArgument(command: "lyrics", problem: LyricNudge.usage))
            }
            return .success(.lyricsOffset(nudge))
        }
        return CommandParser.parse(text).map { .command($0) }
    }

    /// Parses `favourite [add|remove|toggle]` (also `favorite`); nil when the first word is
    /// neither.
    public static func parseFavourite(_ words: [String]) -> Result<Favourites.Edit, CommandError>? {
        guard let first = words.first?.lowercased(), first == "favourite" || first == "favorite" else { return nil }
        guard words.count > 1 else { return .success(.toggle) }
        guard words.count == 2, let edit = Favourites.Edit(rawValue: words[1].lowercased()) else {
            return .failure(.badArgument(command: first, problem: "expected add, remove, toggle or nothing (toggle)"))
        }
        return .success(edit)
    }

    /// `toggle`, `seek +10`, `volume +4`, `favourite`, `shutdown`.
    public var description: String {
        switch self {
        case .shutdown: "shutdown"
        case .favourite(.toggle): "favourite"
        case .favourite(let edit): "favourite \(edit.rawValue)"
        case .menu: "menu"
        case .sayAddress: "say_address"
        case .sleep(let target): "sleep \(target?.consoleArgument ?? "off")"
        case .lyricsOffset(let nudge): "lyrics offset \(nudge.text)"
        case .command(let command): command.consoleText
        }
    }
}

/// Default gesture mappings (the issue's example box).
public enum ControlDefaults {
    /// Button names: the three buttons of `[buttons]` and the encoder's push switch.
    public static let buttonNames = ["play_pause", "next", "previous", "switch"]

    public static let buttonGestures: [String: String] = [
        "play_pause_short": "toggle",
        "play_pause_long": "stop",
        "play_pause_very_long": "shutdown",
        "next_short": "next",
        "next_long": "seek +10",
        "next_repeat": "seek +10",
        "previous_short": "previous",
        "previous_long": "seek -10",
        "previous_repeat": "seek -10",
        // Both skip buttons held together: the knob's switch has toggle (short) and the menu
        // (long), and a double press would delay every short press; the chord costs no
        // other gesture anything (next and previous already wait for their release).
        "next+previous": "favourite",
    ]

    public static let encoderGestures: [String: String] = [
        "switch_short": "toggle",
        "switch_long": "menu",
    ]

    /// The gestures the open menu takes: the switch's press (choose) and long press (back),
    /// besides its play-next gesture (`ControlMap.menuPlayNext`). They are detected whenever a
    /// gesture opens the menu.
    public static let menuGestures: [String: Set<Gesture>] = ["switch": [.short, .long]]

    /// The open menu's play-next gesture unless `[menu] play_next` says otherwise.
    public static let menuPlayNext = ControlMap.ButtonGesture(button: "next", gesture: .short)

    /// `play_pause+next`, ... every pair of buttons in `buttonNames` order.
    public static let chordKeys: [String] = {
        var keys: [String] = []
        for (i, first) in buttonNames.enumerated() {
            for second in buttonNames[(i + 1)...] { keys.append("\(first)+\(second)") }
        }
        return keys
    }()
}

/// Gestures and encoder turns → actions (`ControlMap(config:)` in Config/ builds it from a config).
public struct ControlMap: Sendable, Equatable {
    /// By button name, the action of each mapped gesture.
    public var buttons: [String: [Gesture: ControlAction]] = [:]
    /// Chords: the two buttons and the action.
    public var chords: [Chord] = []
    public var turn = EncoderTurn.volume
    /// Percent of volume (or seconds of seek) per detent.
    public var step = 2
    /// The button that, held while the knob turns, scrubs through the track (nil: none).
    public var scrubButton: String?
    /// While the menu is open, this gesture adds the highlighted entry after the current
    /// track (nil: none).
    public var menuPlayNext: ButtonGesture? = ControlDefaults.menuPlayNext

    /// One gesture of one button (`next_short`).
    public struct ButtonGesture: Sendable, Equatable {
        public var button: String
        public var gesture: Gesture

        public init(button: String, gesture: Gesture) {
            self.button = button
            self.gesture = gesture
        }

        /// Whether `event` is this gesture.
        public func matches(_ event: GestureEvent) -> Bool { event.control == button && event.gesture == gesture }
    }

    /// A two-button chord.
    public struct Chord: Sendable, Equatable {
        public var first: String
        public var second: String
        public var action: ControlAction

        public init(first: String, second: String, action: ControlAction) {
            self.first = first
            self.second = second
            self.action = action
        }

        /// `play_pause+next`.
        public var name: String { "\(first)+\(second)" }
    }

    public init(
        buttons: [String: [Gesture: ControlAction]] = [:], chords: [Chord] = [], turn: EncoderTurn = .volume,
        step: Int = 2, scrubButton: String? = nil
    ) {
        self.buttons = buttons
        self.chords = chords
        self.turn = turn
        self.step = step
        self.scrubButton = scrubButton
    }

    /// `next_very_long` → (`next`, `.veryLong`).
    public static func split(_ key: String) -> (String, Gesture)? {
        for button in ControlDefaults.buttonNames where key.hasPrefix(button + "_") {
            if let gesture = Gesture(rawValue: String(key.dropFirst(button.count + 1))), gesture != .chord {
                return (button, gesture)
            }
        }
        return nil
    }

    /// The gesture detector's profiles: which gestures of each button are mapped.
    public var profiles: [String: GestureDetector.Profile] {
        var gestures = buttons.mapValues { Set($0.keys) }
        let opensMenu = buttons.values.contains { $0.values.contains(.menu) } || chords.contains { $0.action == .menu }
        if opensMenu {
            gestures.merge(ControlDefaults.menuGestures) { $0.union($1) }
            if let playNext = menuPlayNext { gestures[playNext.button, default: []].insert(playNext.gesture) }
        }
        return gestures.mapValues { GestureDetector.Profile($0) }
    }

    /// The action of a detected gesture, if mapped.
    public func action(for event: GestureEvent) -> ControlAction? {
        if event.gesture == .chord { return chords.first { $0.name == event.control }?.action }
        return buttons[event.control]?[event.gesture]
    }

    /// Milliseconds of lyric offset per detent when the encoder nudges lyrics.
    public static let lyricsStepMs: Int64 = 100

    /// The action for `units` detents (signed, after acceleration).
    public func turnAction(units: Int) -> ControlAction? {
        guard units != 0 else { return nil }
        switch turn {
        case .volume: return .command(.changeVolume(units * step))
        case .seek: return .command(.seek(.relative(ms: Int64(units * step) * 1000)))
        case .lyrics: return .lyricsOffset(LyricNudge(relative: true, ms: Int64(units) * Self.lyricsStepMs))
        case .none: return nil
        }
    }
}
