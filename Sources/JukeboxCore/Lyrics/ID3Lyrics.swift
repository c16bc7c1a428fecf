/// Lyrics embedded in an MP3's ID3v2 tag: SYLT (synced, preferred) or USLT (unsynced).
/// Pure: it takes the tag's bytes (the start of the file) and returns the lyrics, if any.
public enum ID3Lyrics {
    /// The size of the whole ID3v2 tag at the start of `header` (10 bytes are enough), or nil.
    public static func tagSize(_ header: [UInt8]) -> Int? {
        guard header.count >= 10, header[0] == 0x49, header[1] == 0x44, header[2] == 0x33 else { return nil }
        let size = header[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        return 10 + size + (header[5] & 0x10 != 0 ? 10 : 0)
    }

    /// SYLT or USLT lyrics in the ID3v2.3/2.4 tag at the start of `bytes`.
    public static func parse(_ bytes: [UInt8]) -> Lyrics? {
        guard let total = tagSize(bytes), bytes.count >= 10 else { return nil }
        let version = bytes[3]
        guard version == 3 || version == 4 else { return nil }
        let flags = bytes[5]
        var i = 10
        if flags & 0x40 != 0, bytes.count >= 14 {  // extended header
            let size = bytes[10..<14].reduce(0) { $0 << (version == 4 ? 7 : 8) | Int($1) }
            i += version == 4 ? size : size + 4
        }
        let end = min(total, bytes.count)
        var unsynced: Lyrics?
        while i + 10 <= end {
            let id = String(decoding: bytes[i..<i + 4], as: UTF8.self)
            if bytes[i] == 0 { break }
            let size =
                version == 4
                ? bytes[i + 4..<i + 8].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
                : bytes[i + 4..<i + 8].reduce(0) { $0 << 8 | Int($1) }
            let body = i + 10
            guard size > 0, body + size <= end else { break }
            let frame = Array(bytes[body..<body + size])
            if id == "SYLT", let lyrics = sylt(frame) { return lyrics }
            if id == "USLT", unsynced == nil, let text = uslt(frame) { unsynced = Lyrics.unsynced(text) }
            i = body + size
        }
        return unsynced
    }

    /// USLT: encoding, language[3], descriptor, text.
    static func uslt(_ frame: [UInt8]) -> String? {
        guard frame.count > 4 else { return nil }
        let encoding = frame[0]
        let (_, afterDescriptor) = string(frame, from: 4, encoding: encoding)
        let text = decode(Array(frame[min(afterDescriptor, frame.count)...]), encoding: encoding)
        return text.isEmpty ? nil : text
    }

    /// SYLT: encoding, language[3], timestamp format (2 = ms), content type, descriptor,
    /// then (text, 32-bit time) pairs.
    static func sylt(_ frame: [UInt8]) -> Lyrics? {
        guard frame.count > 6, frame[4] == 2 else { return nil }
        let encoding = frame[0]
        var (_, i) = string(frame, from: 6, encoding: encoding)
        var lines: [LyricLine] = []
        while i < frame.count {
            let (text, next) = string(frame, from: i, encoding: encoding)
            guard next + 4 <= frame.count else { break }
            let ms = frame[next..<next + 4].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            // Each entry is one line (tools that write syllables start new lines with "\n").
            lines.append(LyricLine(timeMs: ms, text: text.trimmedSpaces))
            i = next + 4
        }
        guard !lines.isEmpty else { return nil }
        var lyrics = Lyrics(format: .lrc, lines: lines)
        lyrics.sortLines()
        return lyrics
    }

    /// A terminated string at `from` and the index after its terminator.
    static func string(_ frame: [UInt8], from: Int, encoding: UInt8) -> (String, Int) {
        let wide = encoding == 1 || encoding == 2
        var i = from
        while i < frame.count {
            if wide {
                if i + 1 < frame.count, frame[i] == 0, frame[i + 1] == 0 {
                    return (decode(Array(frame[from..<i]), encoding: encoding), i + 2)
                }
                i += 2
            } else {
                if frame[i] == 0 { return (decode(Array(frame[from..<i]), encoding: encoding), i + 1) }
                i += 1
            }
        }
        return (decode(Array(frame[min(from, frame.count)...]), encoding: encoding), frame.count)
    }

    /// ID3 text encodings: 0 Latin-1, 1 UTF-16 with BOM, 2 UTF-16BE, 3 UTF-8.
    static func decode(_ bytes: [UInt8], encoding: UInt8) -> String {
        switch encoding {
        case 1: return LyricsTextDecoder.decode(bytes).text
        case 2: return LyricsTextDecoder.decode([0xFE, 0xFF] + bytes).text
        case 3: return String(decoding: bytes, as: UTF8.self)
        default: return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        }
    }
}
