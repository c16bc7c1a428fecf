/// How names sort in the menu, as people expect rather than by code point: case and Latin
/// accents do not count (é = e, ß = ss, Ø = o, Œ = oe), runs of digits compare as numbers
/// ("Track 2" before "Track 10", leading zeros ignored), spaces and punctuation only separate
/// words, and a leading English article "The " is left out ("The Beatles" sorts, and jumps,
/// under B; it is still shown). Latin letters come after digits; other scripts come after
/// Latin, in code point order (Greek, Cyrillic, then kana, CJK ideographs, Hangul): a stable
/// order that needs no locale tables. Pure Swift over Unicode scalars; no Foundation or ICU.
public struct SortKey: Sendable, Hashable, Comparable {
    /// The collation elements: separator 1, a number 2 then its digit count then its
    /// digits, Latin letters from `latinBase`, everything else from `otherBase` + scalar.
    public let elements: [UInt32]

    static let separator: UInt32 = 1
    static let number: UInt32 = 2
    static let latinBase: UInt32 = 0x1000
    static let otherBase: UInt32 = 0x20_0000

    /// The key of `name`.
    public init(_ name: String) {
        var elements: [UInt32] = []
        elements.reserveCapacity(name.unicodeScalars.count)
        var digits: [UInt32] = []
        var pendingSeparator = false
        func flushDigits() {
            guard !digits.isEmpty else { return }
            var start = 0
            while start < digits.count - 1 && digits[start] == 0 { start += 1 }
            elements.append(Self.number)
            elements.append(UInt32(digits.count - start))
            elements.append(contentsOf: digits[start...])
            digits.removeAll(keepingCapacity: true)
        }
        for scalar in Self.droppingArticle(name).unicodeScalars {
            let v = scalar.value
            if v >= 0x30 && v <= 0x39 {
                if pendingSeparator && !elements.isEmpty { elements.append(Self.separator) }
                pendingSeparator = false
                digits.append(v - 0x30)
                continue
            }
            flushDigits()
            let folded = Self.fold(scalar)
            if folded.isEmpty {
                // A combining accent (decomposed text) adds nothing; a space or a mark separates.
                if !(0x300...0x36F).contains(v) { pendingSeparator = true }
                continue
            }
            if pendingSeparator && !elements.isEmpty { elements.append(Self.separator) }
            pendingSeparator = false
            elements.append(contentsOf: folded)
        }
        flushDigits()
        self.elements = elements
    }

    public static func < (a: SortKey, b: SortKey) -> Bool { a.elements.lexicographicallyPrecedes(b.elements) }

    /// The group a name jumps by: "A"–"Z" for Latin letters, "#" for digits and names with
    /// no letters, else the first letter itself (lowercased: "я", "月").
    public var initial: String {
        guard let first = elements.first, first != Self.separator else { return "#" }
        if first == Self.number { return "#" }
        if first < Self.otherBase {
            return String(Character(Unicode.Scalar(UInt8(first - Self.latinBase) + 0x41)))
        }
        return Unicode.Scalar(first - Self.otherBase).map { String(Character($0)) } ?? "#"
    }

    /// `name` without a leading "The " (any case) when more follows.
    static func droppingArticle(_ name: String) -> Substring {
        var rest = Substring(name)
        while rest.first == " " { rest = rest.dropFirst() }
        let scalars = Array(rest.unicodeScalars.prefix(4))
        if scalars.count == 4, scalars[0].value | 0x20 == 0x74, scalars[1].value | 0x20 == 0x68,
            scalars[2].value | 0x20 == 0x65, scalars[3] == " "
        {
            let after = rest.dropFirst(4).drop { $0 == " " }
            if !after.isEmpty { return after }
        }
        return rest
    }

    /// The elements of one scalar other than a digit: none for spaces, punctuation and
    /// combining marks.
    static func fold(_ scalar: Unicode.Scalar) -> [UInt32] {
        let v = scalar.value
        if v < 0x80 {
            let lower = v | 0x20
            return (0x61...0x7A).contains(lower) ? [latinBase + lower - 0x61] : []
        }
        if let base = latinBaseLetters(v) {
            return base.unicodeScalars.map { latinBase + $0.value - 0x61 }
        }
        let properties = scalar.properties
        if !properties.isAlphabetic && properties.numericType == nil { return [] }
        // Other scripts: lowercase (Greek, Cyrillic, ...), by code point.
        let lower = properties.lowercaseMapping.unicodeScalars
        return lower.map { otherBase + $0.value }
    }

    /// The base letters of a Latin letter with a diacritic or a ligature (Latin-1,
    /// Latin Extended-A, Romanian comma letters, Vietnamese), lowercase; nil for anything else.
    static func latinBaseLetters(_ v: UInt32) -> String? {
        switch v {
        case 0xC0...0xFF:
            let base = latin1[Int(v - 0xC0)]
            return base.isEmpty ? nil : base
        case 0x100...0x17F:
            return extendedA[Int(v - 0x100)]
        case 0x1A0, 0x1A1: return "o"
        case 0x1AF, 0x1B0: return "u"
        case 0x218, 0x219: return "s"
        case 0x21A, 0x21B: return "t"
        case 0x1EA0...0x1EB7: return "a"
        case 0x1EB8...0x1EC7: return "e"
        case 0x1EC8...0x1ECB: return "i"
        case 0x1ECC...0x1EE3: return "o"
        case 0x1EE4...0x1EF1: return "u"
        case 0x1EF2...0x1EF9: return "y"
        default: return nil
        }
    }

    /// U+00C0...U+00FF; "" for × and ÷.
    static let latin1: [String] =
        ("a a a a a a ae c e e e e i i i i d n o o o o o - o u u u u y th ss "
        + "a a a a a a ae c e e e e i i i i d n o o o o o - o u u u u y th y").split(separator: " ").map {
            $0 == "-" ? "" : String($0)
        }

    /// U+0100...U+017F.
    static let extendedA: [String] =
        ("a a a a a a c c c c c c c c d d "
        + "d d e e e e e e e e e e g g g g "
        + "g g g g h h h h i i i i i i i i "
        + "i i ij ij j j k k k l l l l l l l "
        + "l l l n n n n n n n n n o o o o "
        + "o o oe oe r r r r r r s s s s s s "
        + "s s t t t t t t u u u u u u u u "
        + "u u u u w w y y y z z z z z z s").split(separator: " ").map(String.init)
}
