/// Text measured in display cells: a character cell display or a fixed-width pixel font
/// where East Asian wide characters take two cells and combining marks none.
public enum TextCells {
    /// Cells taken by one character (grapheme cluster): 0, 1 or 2.
    public static func width(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        return width(of: scalar)
    }

    /// Cells taken by one scalar.
    public static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if v < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if v == 0x200B { return 0 }
        return isWide(v) ? 2 : 1
    }

    /// East Asian Wide and Fullwidth ranges (Unicode 15, condensed).
    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3,
            0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB,
            0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA,
            0x26FD, 0x2705, 0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757,
            0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55,
            0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
            0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F320,
            0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393, 0x1F3A0...0x1F3CA,
            0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0, 0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440,
            0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A,
            0x1F595...0x1F596, 0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5, 0x1F6CC, 0x1F6D0...0x1F6D2,
            0x1F6D5...0x1F6D7, 0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F90C...0x1F93A,
            0x1F93C...0x1F945, 0x1F947...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// Cells taken by a string.
    public static func width<S: StringProtocol>(of text: S) -> Int {
        var total = 0
        for c in text { total += width(of: c) }
        return total
    }

    /// Exactly `columns` cells of `text` starting at cell `offset`: a wide character cut
    /// by either edge becomes a space, and the rest is padded with spaces.
    public static func window<S: StringProtocol>(_ text: S, offset: Int, columns: Int) -> String {
        var result = ""
        var cell = 0
        var used = 0
        let end = offset + columns
        for c in text {
            let w = width(of: c)
            if cell >= end { break }
            if w == 0 {
                if cell > offset && cell <= end && used > 0 { result.append(c) }
                continue
            }
            if cell >= offset && cell + w <= end {
                result.append(c)
                used += w
            } else if cell + w > offset && cell < end {
                let visible = min(cell + w, end) - max(cell, offset)
                result += String(repeating: " ", count: visible)
                used += visible
            }
            cell += w
        }
        if used < columns { result += String(repeating: " ", count: columns - used) }
        return result
    }

    /// `text` cut to `columns` cells with "…" when it does not fit, padded to exactly `columns`.
    public static func fit<S: StringProtocol>(_ text: S, columns: Int) -> String {
        if width(of: text) <= columns { return window(text, offset: 0, columns: columns) }
        guard columns > 1 else { return window(text, offset: 0, columns: columns) }
        return window(
            window(text, offset: 0, columns: columns - 1).trimmedTrailingSpaces + "…", offset: 0, columns: columns)
    }
}

extension String {
    /// The text without its trailing spaces.
    public var trimmedTrailingSpaces: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}

/// A marquee for one lyric line: the line is still when it fits; otherwise it holds at its
/// start, scrolls at the speed that brings its end into view by the time the next line
/// starts (the end of `window`), and holds at its end.
public struct LyricMarquee: Sendable, Equatable {
    /// Cells of text.
    public var textWidth: Int
    public var columns: Int
    /// When the line starts and when the next one starts (ms of track position).
    public var startMs: Int64
    public var endMs: Int64
    /// Longest hold at each end; a short window holds for a fifth of it at each end.
    public var maxHoldMs: Int64 = 1200

    /// A marquee.
    public init(textWidth: Int, columns: Int, startMs: Int64, endMs: Int64) {
        self.textWidth = textWidth
        self.columns = columns
        self.startMs = startMs
        self.endMs = max(endMs, startMs + 1)
    }

    /// Cells to travel; 0 when the text fits.
    public var travel: Int { max(0, textWidth - columns) }

    public var holdMs: Int64 { min(maxHoldMs, (endMs - startMs) / 5) }

    /// The first visible cell at `positionMs`.
    public func offset(at positionMs: Int64) -> Int {
        guard travel > 0 else { return 0 }
        let hold = holdMs
        let scrollStart = startMs + hold
        let scrollEnd = endMs - hold
        if positionMs <= scrollStart { return 0 }
        if positionMs >= scrollEnd { return travel }
        let elapsed = positionMs - scrollStart
        return Int(Int64(travel) * elapsed / max(1, scrollEnd - scrollStart))
    }

    /// When the offset next changes after `positionMs` (nil when it never does).
    public func nextChangeMs(after positionMs: Int64) -> Int64? {
        guard travel > 0 else { return nil }
        let hold = holdMs
        let scrollStart = startMs + hold
        let scrollEnd = endMs - hold
        if positionMs >= scrollEnd { return nil }
        let current = offset(at: positionMs)
        // offset = travel * elapsed / span  ⇒ reaches current+1 at elapsed = ceil((current+1) * span / travel)
        let span = max(1, scrollEnd - scrollStart)
        let elapsed = (Int64(current + 1) * span + Int64(travel) - 1) / Int64(travel)
        return max(positionMs + 1, scrollStart + elapsed)
    }
}
