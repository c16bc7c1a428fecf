/// A key read from a terminal in non-canonical mode.
public enum TerminalKey: Sendable, Equatable {
    case character(Character)
    case up, down, left, right
    case enter, escape, backspace
}

/// Bytes from a terminal → keys: UTF-8 characters, and the arrow keys' escape sequences
/// (`ESC [ A`, and `ESC O A` in application mode). Anything it does not know (function
/// keys, stray bytes) is dropped, never misread as a button.
public struct TerminalKeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [TerminalKey] {
        pending += bytes
        var keys: [TerminalKey] = []
        var i = 0
        while i < pending.count {
            let byte = pending[i]
            switch byte {
            case 0x1B:
                // A lone ESC is the Escape key; a CSI/SS3 sequence runs to its final byte.
                guard i + 1 < pending.count else {
                    keys.append(.escape)
                    i += 1
                    continue
                }
                let introducer = pending[i + 1]
                guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
                    keys.append(.escape)
                    i += 1
                    continue
                }
                var j = i + 2
                while j < pending.count, !(0x40...0x7E).contains(pending[j]) { j += 1 }
                guard j < pending.count else {
                    // An unfinished sequence: wait for the rest (a terminal sends it at once).
                    pending.removeFirst(i)
                    return keys
                }
                switch pending[j] {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                default: break
                }
                i = j + 1
            case 0x0D, 0x0A:
                keys.append(.enter)
                i += 1
            case 0x7F, 0x08:
                keys.append(.backspace)
                i += 1
            case 0x00..<0x20:
                i += 1
            case 0x80...:
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if length == 1 {
                    i += 1  // a stray continuation byte
                    continue
                }
                guard i + length <= pending.count else {
                    pending.removeFirst(i)
                    return keys
                }
                let text = String(decoding: pending[i..<i + length], as: UTF8.self)
                if let character = text.first, character != "\u{FFFD}" { keys.append(.character(character)) }
                i += length
            default:
                keys.append(.character(Character(Unicode.Scalar(byte))))
                i += 1
            }
        }
        pending.removeAll()
        return keys
    }
}

/// Keys as the box's buttons, for the demo and for a keyboard on the box: each key does
/// what the configured short press (or one detent of the knob) does, so the terminal tries
/// out the real mappings. `:` opens a command line for the full console language.
public struct TerminalKeyControls: Sendable {
    /// What a key did.
    public enum Output: Sendable, Equatable {
        case action(ControlAction)
        /// A knob turn or a gesture, as a typed `knob`/`button` line makes it: the daemon
        /// carries out its mapping, or gives it to the menu while that is open.
        case input(InjectedInput)
        /// A command line typed after `:`, complete.
        case line(String)
        /// Text to show: the command line being typed (the whole line, to redraw), or help.
        case show(String)
    }

    private let map: ControlMap
    /// The command line being typed, when one is open.
    private var line: String?

    public init(map: ControlMap) { self.map = map }

    /// The keys and what they do, for `?`.
    public static let help = """
        keys: space = play/pause button, n or → = next, p or ← = previous, ↑ ↓ or + - = knob,
              enter = knob switch, esc = hold it (the menu), m = mode, f = favourite,
              [ ] = lyrics 100 ms later/sooner, ? = this help,
              : = type a command (help lists them), Ctrl-C = stop the jukebox
        """

    public mutating func handle(_ key: TerminalKey) -> [Output] {
        if var typed = line {
            switch key {
            case .enter:
                line = nil
                return [.show("\n"), .line(typed)]
            case .escape:
                line = nil
                return [.show(" (cancelled)\n")]
            case .backspace:
                if typed.isEmpty {
                    line = nil
                    return [.show("\r\u{1B}[K")]
                }
                typed.removeLast()
                line = typed
            case .character(let character):
                guard typed.count < CommandParser.maximumLineLength else { return [] }
                typed.append(character)
                line = typed
            case .up, .down, .left, .right:
                return []
            }
            return [.show("\r\u{1B}[K:" + typed)]
        }
        switch key {
        case .character(" "): return button("play_pause")
        case .character("n"), .character("N"), .right: return [.input(.gesture(button: "next", .short))]
        case .character("p"), .character("P"), .left: return button("previous")
        case .enter: return [.input(.gesture(button: "switch", .short))]
        case .escape: return [.input(.gesture(button: "switch", .long))]
        case .up, .character("+"), .character("="): return turn(1)
        case .down, .character("-"), .character("_"): return turn(-1)
        case .character("m"), .character("M"): return [.action(.command(.cycleMode))]
        case .character("f"), .character("F"): return [.action(.favourite(.toggle))]
        case .character("]"): return [.action(.lyricsOffset(LyricNudge(relative: true, ms: ControlMap.lyricsStepMs)))]
        case .character("["): return [.action(.lyricsOffset(LyricNudge(relative: true, ms: -ControlMap.lyricsStepMs)))]
        case .character("?"), .character("h"), .character("H"): return [.show(Self.help + "\n")]
        case .character(":"), .character("/"):
            line = ""
            return [.show(":")]
        default: return []
        }
    }

    private func button(_ name: String) -> [Output] {
        map.buttons[name]?[.short].map { [.action($0)] } ?? []
    }

    private func turn(_ units: Int) -> [Output] {
        // A keyboard knob: volume by default; an encoder mapped to nothing still moves volume.
        if map.turnAction(units: units) != nil { return [.input(.turn(units))] }
        return [.action(.command(.changeVolume(units * map.step)))]
    }
}
