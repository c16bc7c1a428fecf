/// Assembles the card numbers a USB "keyboard" reader types: key presses (evdev KEY_* codes)
/// of digits, A-F for readers that type hex, then Enter.
///
/// A reader types a whole number within milliseconds, so a partial line older than
/// `staleAfterMs` is dropped at the next key (a stray key press, a reader unplugged
/// mid-number). A line with any other key, or longer than `maximumLength`, or shorter than
/// `minimumLength`, is rejected at Enter with a reason; an empty Enter is ignored.
public struct KeyboardCardLine: Sendable, Equatable {
    public static let minimumLength = 4
    public static let maximumLength = 32
    public static let staleAfterMs: Int64 = 500

    public enum Outcome: Sendable, Equatable {
        case card(String)
        case rejected(String)
    }

    /// KEY_* codes (linux/input-event-codes.h) → characters: the top row, the keypad, A-F.
    static let characters: [UInt16: UInt8] = {
        var map: [UInt16: UInt8] = [:]
        for (offset, digit) in "1234567890".utf8.enumerated() { map[UInt16(2 + offset)] = digit }
        let keypad: [(UInt16, Character)] = [
            (71, "7"), (72, "8"), (73, "9"), (75, "4"), (76, "5"), (77, "6"), (79, "1"), (80, "2"), (81, "3"),
            (82, "0"),
        ]
        for (code, digit) in keypad { map[code] = digit.asciiValue! }
        let hex: [(UInt16, Character)] = [(30, "A"), (48, "B"), (46, "C"), (32, "D"), (18, "E"), (33, "F")]
        for (code, letter) in hex { map[code] = letter.asciiValue! }
        return map
    }()
    static let enterKeys: Set<UInt16> = [28, 96]  // KEY_ENTER, KEY_KPENTER
    /// Shift, Caps Lock and Num Lock: some readers press them around hex letters or digits.
    static let modifierKeys: Set<UInt16> = [42, 54, 58, 69]

    private var line: [UInt8] = []
    private var garbage: [UInt16] = []
    private var lastKey: Instant?

    public init() {}

    /// One key press (`value` 1 of an EV_KEY; releases and auto-repeats are not given).
    public mutating func press(code: UInt16, at now: Instant) -> Outcome? {
        if let lastKey, now.milliseconds(since: lastKey) > Self.staleAfterMs { clear() }
        lastKey = now
        if Self.enterKeys.contains(code) {
            defer { clear() }
            if !garbage.isEmpty {
                let codes = garbage.prefix(4).map { "\($0)" }.joined(separator: ", ")
                return .rejected("keys that are no digits (codes \(codes)) in '\(text)'")
            }
            if line.isEmpty { return nil }
            if line.count > Self.maximumLength {
                return .rejected("\(line.count) characters, at most \(Self.maximumLength)")
            }
            if line.count < Self.minimumLength {
                return .rejected("'\(text)' is shorter than \(Self.minimumLength) characters")
            }
            return .card(text)
        }
        if Self.modifierKeys.contains(code) { return nil }
        if let character = Self.characters[code] {
            if line.count <= Self.maximumLength { line.append(character) }
        } else {
            garbage.append(code)
        }
        return nil
    }

    private var text: String { String(decoding: line.prefix(Self.maximumLength), as: UTF8.self) }

    private mutating func clear() {
        line.removeAll(keepingCapacity: true)
        garbage.removeAll()
    }
}
