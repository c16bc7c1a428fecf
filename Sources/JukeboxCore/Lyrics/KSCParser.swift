/// The KSC karaoke parser (the Pascal-like format of KSC/"千千静听" karaoke files):
/// `karaoke.add('00:18.466', '00:22.591', 'text', '402,405,...');` with one duration (ms) per
/// unit; a unit is one character, or a `[bracketed group]` (used for Latin words). Header
/// assignments (`karaoke.songname := '...'`, `karaoke.singer := '...'`, `karaoke.tag('k', 'v')`)
/// become tags; other statements are ignored; broken `add` lines are skipped with a warning.
public enum KSCParser {
    /// Parses KSC text.
    public static func parse(_ text: String) -> Lyrics {
        var lyrics = Lyrics(format: .ksc, lines: [])
        for (number, raw) in LRCParser.splitLines(text).enumerated() {
            let line = raw.trimmedSpaces
            let lower = line.lowercased()
            if line.isEmpty || line.hasPrefix("//") { continue }
            if lower.hasPrefix("karaoke.add") {
                switch parseAdd(line) {
                case .success(let parsed): lyrics.lines.append(parsed)
                case .failure(let problem):
                    lyrics.warnings.append(LyricWarning(line: number + 1, message: problem.message))
                }
            } else if lower.hasPrefix("karaoke.songname") || lower.hasPrefix("karaoke.singer") {
                if let value = quotedStrings(line).first {
                    lyrics.tags[lower.hasPrefix("karaoke.songname") ? "ti" : "ar"] = value
                }
            } else if lower.hasPrefix("karaoke.tag") {
                let values = quotedStrings(line)
                if values.count == 2 { lyrics.tags[values[0].lowercased()] = values[1] }
            } else if lower.hasPrefix("karaoke") || lower.hasPrefix("begin") || lower.hasPrefix("end") {
                continue
            } else {
                lyrics.warnings.append(
                    LyricWarning(line: number + 1, message: "not a KSC statement: \(LRCParser.preview(line))"))
            }
        }
        lyrics.sortLines()
        return lyrics
    }

    /// A problem with one line.
    struct Problem: Error {
        var message: String
    }

    static func parseAdd(_ line: String) -> Result<LyricLine, Problem> {
        let values = quotedStrings(line)
        guard values.count >= 3 else { return .failure(Problem(message: "karaoke.add needs start, end and text")) }
        guard let start = LRCParser.parseTimestamp(values[0]), let end = LRCParser.parseTimestamp(values[1]) else {
            return .failure(Problem(message: "bad time in karaoke.add: '\(values[0])', '\(values[1])'"))
        }
        let units = splitUnits(values[2])
        let text = units.joined().trimmedSpaces
        var durations: [Int64] = []
        if values.count >= 4 {
            durations = values[3].split(separator: ",").compactMap { Int64($0.trimmedSpaces) }
        }
        if durations.count != units.count {
            // Spread evenly rather than lose the line.
            let count = Int64(max(1, units.count))
            durations = Array(repeating: max(0, end - start) / count, count: units.count)
        }
        var words: [LyricWord] = []
        var t = start
        for (unit, duration) in zip(units, durations) {
            words.append(LyricWord(timeMs: t, text: unit))
            t += duration
        }
        return .success(LyricLine(timeMs: start, text: text, words: words, endMs: end))
    }

    /// Units of a KSC text: `[group]`s and single characters; spaces stick to the unit before.
    static func splitUnits(_ text: String) -> [String] {
        var units: [String] = []
        var chars = Substring(text)
        while let c = chars.first {
            if c == " " {
                if units.isEmpty {
                    chars = chars.dropFirst()
                    continue
                }
                units[units.count - 1].append(" ")
                chars = chars.dropFirst()
            } else if c == "[", let close = chars.firstIndex(of: "]") {
                units.append(String(chars[chars.index(after: chars.startIndex)..<close]))
                chars = chars[chars.index(after: close)...]
            } else {
                units.append(String(c))
                chars = chars.dropFirst()
            }
        }
        return units
    }

    /// The `'...'` strings of a statement (Pascal quoting: `''` is one quote).
    static func quotedStrings(_ line: String) -> [String] {
        var result: [String] = []
        var current: String?
        let iterator = Array(line)
        var i = 0
        while i < iterator.count {
            let c = iterator[i]
            if c == "'" {
                if current == nil {
                    current = ""
                } else if i + 1 < iterator.count && iterator[i + 1] == "'" {
                    current!.append("'")
                    i += 1
                } else {
                    result.append(current!)
                    current = nil
                }
            } else if current != nil {
                current!.append(c)
            }
            i += 1
        }
        return result
    }
}
