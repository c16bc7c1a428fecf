/// Maps text to the character ROM of an HD44780 (the common A00 "Japanese" ROM): ASCII as
/// is (but `\` and `~`, which that ROM lacks), the few accented letters it has (ä ö ü ñ,
/// ß as β, °, µ, ·), the layout's symbols to custom characters 0-7, every other accented
/// Latin letter to its base letter, typographic punctuation to ASCII, and anything else
/// (CJK, emoji) to `?` per cell. Never garbage.
public enum LCDCharset {
    /// CGRAM slots of the custom characters the driver defines at start.
    public static let playSlot: UInt8 = 0
    public static let pauseSlot: UInt8 = 1
    public static let noteSlot: UInt8 = 2
    public static let stopSlot: UInt8 = 3
    public static let barSlot: UInt8 = 4
    /// The ROM has no heart.
    public static let favouriteSlot: UInt8 = 5

    /// 5x8 bitmaps (one byte per row, low 5 bits) for slots 0...5.
    public static let customCharacters: [[UInt8]] = [
        [0x08, 0x0C, 0x0E, 0x0F, 0x0E, 0x0C, 0x08, 0x00],  // ▶
        [0x1B, 0x1B, 0x1B, 0x1B, 0x1B, 0x1B, 0x1B, 0x00],  // ‖
        [0x02, 0x03, 0x02, 0x02, 0x0E, 0x1E, 0x0C, 0x00],  // ♪
        [0x00, 0x1F, 0x1F, 0x1F, 0x1F, 0x1F, 0x00, 0x00],  // ■
        [0x00, 0x00, 0x1F, 0x1F, 0x1F, 0x00, 0x00, 0x00],  // ━
        [0x00, 0x0A, 0x1F, 0x1F, 0x0E, 0x04, 0x00, 0x00],  // ♥
    ]

    /// Base letters for U+00C0...U+00FF (× and ÷ become x and /).
    private static let latin1Folding = Array("AAAAAAACEEEEIIIIDNOOOOOxOUUUUYTsaaaaaaaceeeeiiiidnooooo/ouuuuyty")

    /// The ROM codes for one row: exactly `columns` bytes (a wide character gives `??`).
    public static func encode(_ row: String, columns: Int) -> [UInt8] {
        var out: [UInt8] = []
        for character in row {
            let cells = TextCells.width(of: character)
            if cells == 0 { continue }
            if cells == 2 {
                out += [0x3F, 0x3F]
                continue
            }
            out += codes(for: character)
        }
        if out.count > columns { out.removeLast(out.count - columns) }
        while out.count < columns { out.append(0x20) }
        return out
    }

    /// The codes for one narrow character (several for e.g. `…` → `...`, `Œ` → `OE`).
    public static func codes(for character: Character) -> [UInt8] {
        guard let scalar = character.unicodeScalars.first else { return [0x3F] }
        let v = scalar.value
        switch v {
        case 0x5C: return [0x2F]  // the ROM has ¥ here
        case 0x7E: return [0x2D]  // and → here
        case 0x20...0x7D: return [UInt8(v)]
        case 0xE4: return [0xE1]  // ä
        case 0xF6: return [0xEF]  // ö
        case 0xFC: return [0xF5]  // ü
        case 0xF1: return [0xEE]  // ñ
        case 0xDF: return [0xE2]  // ß ≈ β
        case 0xB0: return [0xDF]  // °
        case 0xB5: return [0xE4]  // µ
        case 0xB7: return [0xA5]  // ·
        case 0xC0...0xFF: return [UInt8(latin1Folding[Int(v - 0xC0)].asciiValue!)]
        case 0xA0: return [0x20]
        case 0xAB, 0xBB, 0x201C, 0x201D, 0x201E: return [0x22]
        case 0x2018, 0x2019, 0x201A, 0xB4, 0x60: return [0x27]
        case 0x2010...0x2015, 0x2212: return [0x2D]
        case 0x2026: return [0x2E, 0x2E, 0x2E]
        case 0x2022: return [0xA5]
        case 0x152: return [0x4F, 0x45]
        case 0x153: return [0x6F, 0x65]
        case 0x160: return [0x53]
        case 0x161: return [0x73]
        case 0x17D: return [0x5A]
        case 0x17E: return [0x7A]
        case 0x178: return [0x59]
        case 0x141: return [0x4C]
        case 0x142: return [0x6C]
        case 0x25B6: return [playSlot]
        case 0x2016: return [pauseSlot]
        case 0x266A: return [noteSlot]
        case 0x25A0: return [stopSlot]
        case 0x2501: return [barSlot]
        case 0x2665: return [favouriteSlot]
        case 0x2500: return [0x2D]
        case 0x2588: return [0xFF]
        default: return [0x3F]
        }
    }
}
