/// The text encodings a lyric file may come in.
public enum LyricEncoding: String, Sendable, Equatable {
    case utf8 = "UTF-8"
    case utf8BOM = "UTF-8 with BOM"
    case utf16LE = "UTF-16LE"
    case utf16BE = "UTF-16BE"
    case gb18030 = "GB18030"
    case windows1252 = "Windows-1252"
}

/// Turns the bytes of a lyric file into text. Lives in the core (not the daemon, not
/// iconv) so that detection and decoding are pure and table-tested with byte fixtures, and
/// behave the same on every libc: a BOM decides first; then valid UTF-8; then GB18030
/// (which covers GBK and GB2312, the usual encodings of Chinese .lrc files) when every
/// byte sequence is valid GB18030; Windows-1252 as the last resort, so older Western files
/// keep their accents and no input is ever rejected.
public enum LyricsTextDecoder {
    /// The decoded text and the encoding that was detected.
    public static func decode(_ bytes: [UInt8]) -> (text: String, encoding: LyricEncoding) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return (String(decoding: bytes[3...], as: UTF8.self), .utf8BOM)
        }
        if bytes.starts(with: [0xFF, 0xFE]) { return (utf16(bytes[2...], bigEndian: false), .utf16LE) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (utf16(bytes[2...], bigEndian: true), .utf16BE) }
        if let text = String(validating: bytes, as: UTF8.self) { return (text, .utf8) }
        if looksLikeChinese(bytes), let text = GB18030.decode(bytes, strict: true) { return (text, .gb18030) }
        return (windows1252(bytes), .windows1252)
    }

    /// Western 8-bit text (é, à) can also be valid GBK ("été" is E9 74 E9): GB18030 is chosen
    /// only when most non-ASCII bytes pair up as GB2312 characters (both bytes 0xA1...0xFE),
    /// as the common hanzi do, and never when a high byte is followed by an ASCII letter.
    static func looksLikeChinese(_ bytes: [UInt8]) -> Bool {
        var high = 0
        var paired = 0
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                continue
            }
            high += 2
            guard i + 1 < bytes.count else { break }
            let next = bytes[i + 1]
            if (0xA1...0xFE).contains(b) && (0xA1...0xFE).contains(next) { paired += 2 }
            i += (0x30...0x39).contains(next) ? 4 : 2
        }
        return high > 0 && paired * 2 >= high
    }

    private static func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            let a = UInt16(bytes[index])
            let b = UInt16(bytes[index + 1])
            units.append(bigEndian ? a << 8 | b : b << 8 | a)
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// 0x80...0x9F of Windows-1252; the rest is Latin-1.
    private static let cp1252High: [UInt32] = [
        0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152,
        0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122,
        0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
    ]

    static func windows1252(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            let value = (0x80...0x9F).contains(byte) ? cp1252High[Int(byte) - 0x80] : UInt32(byte)
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(scalars)
    }
}

/// GB18030 decoding (GBK and GB2312 are subsets) from the generated `GB18030Table`.
public enum GB18030 {
    private static let twoByte: [Unicode.Scalar] = Array(GB18030Table.twoByte.unicodeScalars)

    /// Decodes `bytes`; with `strict`, nil when a sequence is invalid or unassigned,
    /// otherwise such sequences become U+FFFD.
    public static func decode(_ bytes: [UInt8], strict: Bool = false) -> String? {
        var scalars = String.UnicodeScalarView()
        var i = 0
        let n = bytes.count
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 {
                scalars.append(Unicode.Scalar(b0))
                i += 1
                continue
            }
            if b0 == 0x80 || b0 == 0xFF || i + 1 >= n {
                if strict { return nil }
                scalars.append("\u{FFFD}")
                i += 1
                continue
            }
            let b1 = bytes[i + 1]
            if (0x40...0xFE).contains(b1) && b1 != 0x7F {
                let index = Int(b0 - 0x81) * 190 + Int(b1 - 0x40) - (b1 > 0x7F ? 1 : 0)
                let scalar = twoByte[index]
                if scalar == "\u{FFFD}" && strict { return nil }
                scalars.append(scalar)
                i += 2
                continue
            }
            if (0x30...0x39).contains(b1), i + 3 < n, (0x81...0xFE).contains(bytes[i + 2]),
                (0x30...0x39).contains(bytes[i + 3])
            {
                let linear =
                    ((UInt32(b0 - 0x81) * 10 + UInt32(b1 - 0x30)) * 126 + UInt32(bytes[i + 2] - 0x81)) * 10
                    + UInt32(bytes[i + 3] - 0x30)
                if let scalar = fourByte(linear) {
                    scalars.append(scalar)
                    i += 4
                    continue
                }
            }
            if strict { return nil }
            scalars.append("\u{FFFD}")
            i += 1
        }
        return String(scalars)
    }

    private static func fourByte(_ linear: UInt32) -> Unicode.Scalar? {
        if linear >= 189_000 {
            return linear - 189_000 <= 0xFFFFF ? Unicode.Scalar(0x10000 + (linear - 189_000)) : nil
        }
        let ranges = GB18030Table.fourByteRanges
        var low = 0
        var high = ranges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let (start, first, count) = ranges[mid]
            if linear < start {
                high = mid - 1
            } else if linear >= start + count {
                low = mid + 1
            } else {
                return Unicode.Scalar(first + (linear - start))
            }
        }
        return nil
    }
}
