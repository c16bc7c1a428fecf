/// One timed word (enhanced LRC `<mm:ss.xx>` or a KSC unit): it starts at `timeMs`.
public struct LyricWord: Sendable, Equatable {
    /// Start, in milliseconds from the track's start (offset applied).
    public var timeMs: Int64
    /// The word with the spacing that follows it.
    public var text: String

    /// A word.
    public init(timeMs: Int64, text: String) {
        self.timeMs = timeMs
        self.text = text
    }
}

/// One lyric line. An empty `text` is an instrumental gap.
public struct LyricLine: Sendable, Equatable {
    /// Start, in milliseconds from the track's start (offset applied, never negative).
    public var timeMs: Int64
    public var text: String
    /// Word timing, when the file has it; empty otherwise.
    public var words: [LyricWord]
    /// When the line's singing ends, if the file says so (KSC); otherwise the next line's start.
    public var endMs: Int64?

    /// A line.
    public init(timeMs: Int64, text: String, words: [LyricWord] = [], endMs: Int64? = nil) {
        self.timeMs = timeMs
        self.text = text
        self.words = words
        self.endMs = endMs
    }
}

/// A line of the file that was not understood, with its 1-based line number.
public struct LyricWarning: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String

    /// A warning.
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// `line N: message`.
    public var description: String { "line \(line): \(message)" }
}

/// A parsed lyric file: sorted timed lines plus the tags.
public struct Lyrics: Sendable, Equatable {
    /// The file's format.
    public enum Format: String, Sendable { case lrc, ksc, unsynced }

    public var format: Format
    /// Sorted by time; lines with the same time keep the file's order.
    public var lines: [LyricLine]
    /// ID tags (`ti`, `ar`, `al`, `by`, `length`, ... ; keys lowercased).
    public var tags: [String: String]
    /// The file's `[offset:]` in ms (already applied to `lines`); positive = lyrics sooner.
    public var offsetMs: Int64
    public var warnings: [LyricWarning]
    /// The detected text encoding, when parsed from bytes.
    public var encoding: LyricEncoding?

    /// Lyrics.
    public init(
        format: Format, lines: [LyricLine], tags: [String: String] = [:], offsetMs: Int64 = 0,
        warnings: [LyricWarning] = [], encoding: LyricEncoding? = nil
    ) {
        self.format = format
        self.lines = lines
        self.tags = tags
        self.offsetMs = offsetMs
        self.warnings = warnings
        self.encoding = encoding
    }

    /// Decodes and parses a lyric file's bytes; `fileName` picks KSC by its extension
    /// (a KSC body is also recognised without it).
    public static func parse(bytes: [UInt8], fileName: String = "") -> Lyrics {
        let (text, encoding) = LyricsTextDecoder.decode(bytes)
        var lyrics = parse(text: text, fileName: fileName)
        lyrics.encoding = encoding
        return lyrics
    }

    /// Parses decoded text as KSC or LRC.
    public static func parse(text: String, fileName: String = "") -> Lyrics {
        if fileName.lowercased().hasSuffix(".ksc")
            || (!fileName.lowercased().hasSuffix(".lrc") && text.contains("karaoke.add"))
        {
            return KSCParser.parse(text)
        }
        return LRCParser.parse(text)
    }

    /// Unsynced text (ID3 USLT): lines without times, shown as a whole from the start.
    public static func unsynced(_ text: String) -> Lyrics {
        let lines = LRCParser.splitLines(text).map { $0.trimmedSpaces }.filter { !$0.isEmpty }
        return Lyrics(
            format: .unsynced, lines: lines.isEmpty ? [] : [LyricLine(timeMs: 0, text: lines.joined(separator: " / "))])
    }

    /// Lyrics embedded as text in a tag (a Vorbis comment's LYRICS): LRC with timed lines is
    /// synced, any other text unsynced; nil for blank text.
    public static func embedded(_ text: String) -> Lyrics? {
        let synced = LRCParser.parse(text)
        if !synced.lines.isEmpty { return synced }
        let plain = unsynced(text)
        return plain.lines.isEmpty ? nil : plain
    }

    /// Sorts lines by time, keeping the file order among equal times.
    mutating func sortLines() {
        lines = lines.enumerated().sorted { a, b in
            a.element.timeMs != b.element.timeMs ? a.element.timeMs < b.element.timeMs : a.offset < b.offset
        }.map(\.element)
    }
}

/// The LRC parser: `[mm:ss]`, `[mm:ss.x]`, `[mm:ss.xx]`, `[mm:ss.xxx]`, `[mm:ss:xx]`,
/// `[hh:mm:ss.xx]`, several stamps on a line, ID tags, `[offset:±ms]` (spaces allowed;
/// positive = lyrics sooner), unsorted lines, empty lines as gaps, CRLF/CR/LF, enhanced word
/// timing `<mm:ss.xx>`; anything else is skipped with a warning.
public enum LRCParser {
    /// Parses LRC text.
    public static func parse(_ text: String) -> Lyrics {
        var lyrics = Lyrics(format: .lrc, lines: [])
        var offset: Int64 = 0
        for (number, rawLine) in splitLines(text).enumerated() {
            let line = rawLine.trimmedSpaces
            if line.isEmpty { continue }
            let lineNumber = number + 1
            var rest = Substring(line)
            var stamps: [Int64] = []
            var tag: (String, String)?
            var problem: String?
            while rest.first == "[" {
                guard let close = rest.firstIndex(of: "]") else {
                    problem = "unclosed '['"
                    break
                }
                let inside = rest[rest.index(after: rest.startIndex)..<close]
                if let ms = parseTimestamp(inside) {
                    stamps.append(ms)
                } else if let parsed = parseTag(inside), stamps.isEmpty {
                    tag = parsed
                } else if stamps.isEmpty {
                    problem = "not a timestamp or tag: [\(inside)]"
                    break
                } else {
                    break  // a bracket in the text after the stamps is text
                }
                rest = rest[rest.index(after: close)...]
                if tag != nil { break }
            }
            if let (key, value) = tag {
                if !rest.trimmedSpaces.isEmpty {
                    lyrics.warnings.append(
                        LyricWarning(line: lineNumber, message: "a tag followed by text: \(preview(line))"))
                    continue
                }
                if key == "offset" {
                    if let value = parseSignedInt(value) {
                        offset = value
                    } else {
                        lyrics.warnings.append(LyricWarning(line: lineNumber, message: "bad offset '\(value)'"))
                    }
                }
                lyrics.tags[key] = value
                continue
            }
            if let problem {
                lyrics.warnings.append(LyricWarning(line: lineNumber, message: problem))
                continue
            }
            if stamps.isEmpty {
                lyrics.warnings.append(LyricWarning(line: lineNumber, message: "no timestamp: \(preview(line))"))
                continue
            }
            let (text, words) = parseWords(rest)
            for stamp in stamps {
                // Word stamps belong to the first line stamp; repeats of the line move with it.
                let shifted = words.map { LyricWord(timeMs: $0.timeMs + stamp - stamps[0], text: $0.text) }
                lyrics.lines.append(LyricLine(timeMs: stamp, text: text, words: shifted))
            }
        }
        lyrics.offsetMs = offset
        if offset != 0 {
            for i in lyrics.lines.indices {
                lyrics.lines[i].timeMs = max(0, lyrics.lines[i].timeMs - offset)
                for w in lyrics.lines[i].words.indices {
                    lyrics.lines[i].words[w].timeMs = max(0, lyrics.lines[i].words[w].timeMs - offset)
                }
            }
        }
        lyrics.sortLines()
        return lyrics
    }

    /// Splits on CRLF, CR or LF.
    static func splitLines(_ text: String) -> [Substring] {
        // "\r\n" is one Character in Swift, so Character-based splitting handles all three.
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
    }

    /// `mm:ss`, `mm:ss.f…`, `mm:ss:ff`, `hh:mm:ss.ff` → milliseconds; nil if not a timestamp.
    public static func parseTimestamp<S: StringProtocol>(_ raw: S) -> Int64? {
        let s = raw.trimmedSpaces
        var parts = s.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, parts.count <= 3 else { return nil }
        var fraction = ""
        if let dot = parts[parts.count - 1].firstIndex(where: { $0 == "." || $0 == "," }) {
            let last = parts[parts.count - 1]
            fraction = String(last[last.index(after: dot)...])
            parts[parts.count - 1] = String(last[..<dot])
        } else if parts.count == 3, parts[2].count == 2, let seconds = Int(parts[1]), seconds < 60,
            parts[0].count <= 3
        {
            // [mm:ss:xx]: the third field is hundredths (not hours:minutes:seconds).
            fraction = parts[2]
            parts.removeLast()
        }
        guard parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) }),
            fraction.count <= 3, fraction.allSatisfy(\.isASCIIDigit)
        else { return nil }
        let numbers = parts.map { Int64($0)! }
        let seconds = numbers.last!
        guard seconds < 60 else { return nil }
        var total: Int64 = 0
        if numbers.count == 3 {
            guard numbers[1] < 60 else { return nil }
            total = (numbers[0] * 3600 + numbers[1] * 60 + seconds) * 1000
        } else {
            total = (numbers[0] * 60 + seconds) * 1000
        }
        if !fraction.isEmpty {
            let value = Int64(fraction)!
            total += fraction.count == 1 ? value * 100 : fraction.count == 2 ? value * 10 : value
        }
        return total
    }

    /// `key:value` with an alphabetic key → (lowercased key, trimmed value).
    static func parseTag(_ inside: Substring) -> (String, String)? {
        guard let colon = inside.firstIndex(of: ":") else { return nil }
        let key = inside[..<colon].trimmedSpaces.lowercased()
        guard !key.isEmpty, key.allSatisfy({ $0.isLetter && $0.isASCII }) else { return nil }
        return (key, inside[inside.index(after: colon)...].trimmedSpaces)
    }

    /// `+500`, `- 200`, ` 300 ` → Int64.
    static func parseSignedInt(_ raw: String) -> Int64? {
        var s = Substring(raw.filter { $0 != " " && $0 != "\t" })
        var sign: Int64 = 1
        if s.first == "+" {
            s = s.dropFirst()
        } else if s.first == "-" {
            sign = -1
            s = s.dropFirst()
        }
        guard !s.isEmpty, s.count <= 9, s.allSatisfy(\.isASCIIDigit) else { return nil }
        return sign * Int64(s)!
    }

    /// Enhanced LRC: `<mm:ss.xx>word <mm:ss.xx>word` → plain text and words. Text before the
    /// first word stamp is kept in the text but untimed.
    static func parseWords(_ rest: Substring) -> (String, [LyricWord]) {
        guard rest.contains("<") else { return (rest.trimmedSpaces, []) }
        var text = ""
        var words: [LyricWord] = []
        var current = rest[...]
        while let open = current.firstIndex(of: "<") {
            guard let close = current[open...].firstIndex(of: ">"),
                let ms = parseTimestamp(current[current.index(after: open)..<close])
            else {
                break
            }
            let before = current[..<open]
            append(before, to: &text, words: &words)
            words.append(LyricWord(timeMs: ms, text: ""))
            current = current[current.index(after: close)...]
        }
        append(current, to: &text, words: &words)
        // A trailing stamp with no text marks the end of the last word: drop it.
        while let last = words.last, last.text.trimmedSpaces.isEmpty { words.removeLast() }
        let trimmed = text.trimmedSpaces
        return (trimmed, words.isEmpty ? [] : words)
    }

    private static func append(_ piece: Substring, to text: inout String, words: inout [LyricWord]) {
        if piece.isEmpty { return }
        if text.isEmpty && words.isEmpty {
            text += piece.drop(while: { $0 == " " })
            return
        }
        if words.isEmpty {
            text += piece
            return
        }
        words[words.count - 1].text += piece
        text += piece
    }

    static func preview(_ line: String) -> String {
        line.count > 40 ? String(line.prefix(40)) + "…" : line
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
