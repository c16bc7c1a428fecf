import JukeboxCore

/// A song filter for find/search/list/count: either MPD's old `TYPE VALUE` pairs or the
/// 0.21 expression syntax (`(artist == 'X')`, `(!EXPR)`, `(EXPR AND EXPR)`, `contains`,
/// `starts_with`, `!=`, `=~` and `!~` (regular expressions), `(base 'folder')`,
/// `(file == 'path')`, `(modified-since 'TIME')`, `(AudioFormat == '44100:16:2')` and
/// `(AudioFormat =~ '44100:*:*')`).
public indirect enum MPDFilter: Sendable, Equatable {
    /// What a condition looks at.
    public enum Field: Sendable, Equatable {
        case tag(MPDTag)
        /// Any tag, or the path.
        case any
        case file
    }

    /// How a condition compares.
    public enum Operator: Sendable, Equatable {
        case equals
        case notEquals
        case contains
        case startsWith
        /// `=~`: the pattern is found in the value (unanchored, as PCRE matches).
        case matches(TagPattern)
        /// `!~`: the negation of `=~`.
        case notMatches(TagPattern)
    }

    case condition(Field, Operator, String, foldCase: Bool)
    /// Songs whose file changed at or after this time (seconds since the epoch).
    case modifiedSince(Int64)
    /// Songs of this audio format (`44100:16:2`); with `mask`, `*` in a part matches any.
    case audioFormat(String, mask: Bool)
    case base(String)
    case not(MPDFilter)
    case and([MPDFilter])

    /// Whether `track` passes.
    public func matches(_ track: TrackInfo) -> Bool {
        switch self {
        case .condition(let field, let op, let value, let foldCase):
            let wanted = foldCase ? value.lowercased() : value
            // As MPD 0.23's TagSongFilter: `!=` is the negation of `==`; a song without the
            // tag matches an empty value.
            let folded = { (raw: String) in foldCase ? raw.lowercased() : raw }
            let test: (String) -> Bool = { raw in
                switch op {
                case .equals, .notEquals: return folded(raw) == wanted
                case .contains: return folded(raw).contains(wanted)
                case .startsWith: return folded(raw).hasPrefix(wanted)
                case .matches(let pattern), .notMatches(let pattern): return pattern.isFound(in: raw)
                }
            }
            let found: Bool
            switch field {
            case .tag(let tag):
                let values = tag.matchValues(of: track)
                found = values.isEmpty ? value.isEmpty : values.contains(where: test)
            case .file: found = test(track.path)
            case .any: found = MPDTag.allCases.contains { $0.values(of: track).contains(where: test) }
            }
            switch op {
            case .notEquals, .notMatches: return !found
            default: return found
            }
        case .modifiedSince(let seconds):
            return (track.modifiedSeconds ?? Int64.min) >= seconds
        case .audioFormat(let wanted, let mask):
            guard let format = track.format else { return false }
            guard mask else { return format == wanted }
            let have = format.split(separator: ":", omittingEmptySubsequences: false)
            let want = wanted.split(separator: ":", omittingEmptySubsequences: false)
            return have.count == want.count && zip(have, want).allSatisfy { $1 == "*" || $0 == $1 }
        case .base(let folder):
            return folder.isEmpty || track.path.hasPrefix(folder + "/")
        case .not(let inner):
            return !inner.matches(track)
        case .and(let parts):
            return parts.allSatisfy { $0.matches(track) }
        }
    }

    /// Parses the filter arguments of find (`exact`) or search (case-folded substring).
    /// Returns the filter and the arguments left over (`sort`, `window`, `group`, ...).
    public static func parse(_ arguments: [String], exact: Bool) throws(MPDError) -> (MPDFilter, [String]) {
        guard let first = arguments.first else { throw MPDError(.argument, "Incorrect number of filter arguments") }
        if first.hasPrefix("(") {
            var parser = ExpressionParser(text: Array(first.unicodeScalars), foldCase: !exact)
            let filter = try parser.parseExpression()
            parser.skipSpaces()
            guard parser.atEnd else { throw MPDError(.argument, "Unparsed garbage after expression") }
            return (filter, Array(arguments.dropFirst()))
        }
        var parts: [MPDFilter] = []
        var index = 0
        while index < arguments.count {
            let name = arguments[index].lowercased()
            if ["sort", "window", "group", "position"].contains(name) { break }
            guard index + 1 < arguments.count else {
                throw MPDError(.argument, "Incorrect number of filter arguments")
            }
            let value = arguments[index + 1]
            if name == "base" {
                parts.append(.base(MPDLibrary.normalized(value)))
            } else if name == "modified-since" {
                parts.append(.modifiedSince(try timeStamp(value)))
            } else {
                let field = try field(named: arguments[index])
                parts.append(.condition(field, exact ? .equals : .contains, value, foldCase: !exact))
            }
            index += 2
        }
        guard !parts.isEmpty else { throw MPDError(.argument, "Incorrect number of filter arguments") }
        return (parts.count == 1 ? parts[0] : .and(parts), Array(arguments[index...]))
    }

    /// A time as MPD takes it: seconds since the epoch, or ISO 8601 in UTC
    /// (`2024-01-01T00:00:00Z`, `2024-01-01T00:00:00`, `2024-01-01`).
    static func timeStamp(_ text: String) throws(MPDError) -> Int64 {
        if let seconds = Int64(text) { return seconds }
        guard let seconds = ISO8601.seconds(text) else { throw MPDError(.argument, "Failed to parse date") }
        return seconds
    }

    /// `RATE:BITS:CHANNELS`, each a number (BITS also `f`, `dsd`), or `*` in a mask.
    static func audioFormat(_ text: String, mask: Bool) throws(MPDError) -> String {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let valid =
            parts.count == 3
            && parts.enumerated().allSatisfy { index, part in
                (mask && part == "*") || (!part.isEmpty && part.allSatisfy(\.isNumber))
                    || (index == 1 && (part == "f" || part == "dsd"))
            }
        guard valid else { throw MPDError(.argument, "Failed to parse audio format") }
        return text
    }

    /// MPD's named operators, compared in any case: `contains` and `starts_with` and MPD
    /// 0.24's `!contains`, `!starts_with` and the `_cs`/`_ci` forms of these and of `eq`
    /// (`eq_cs`, `!eq_ci`, ...), which are case-sensitive or not whatever the command.
    static func namedOperator(_ word: String, foldCase: Bool) -> (op: Operator, negated: Bool, foldCase: Bool)? {
        var name = Substring(word.lowercased())
        let negated = name.hasPrefix("!")
        if negated { name = name.dropFirst() }
        var fold = foldCase
        var explicit = false
        if name.hasSuffix("_cs") || name.hasSuffix("_ci") {
            fold = name.hasSuffix("_ci")
            explicit = true
            name = name.dropLast(3)
        }
        switch name {
        case "contains": return (.contains, negated, fold)
        case "starts_with": return (.startsWith, negated, fold)
        case "eq" where explicit: return (.equals, negated, fold)
        default: return nil
        }
    }

    static func field(named name: String) throws(MPDError) -> Field {
        switch name.lowercased() {
        case "any": return .any
        case "file", "filename": return .file
        default:
            guard let tag = MPDTag(name: name) else { throw MPDError(.argument, "Unknown filter type") }
            return .tag(tag)
        }
    }

    /// A recursive-descent parser over one expression argument.
    struct ExpressionParser {
        var text: [Unicode.Scalar]
        var foldCase: Bool
        var index = 0
        var depth = 0

        var atEnd: Bool { index >= text.count }

        mutating func skipSpaces() {
            while index < text.count, text[index] == " " || text[index] == "\t" { index += 1 }
        }

        mutating func expect(_ scalar: Unicode.Scalar, _ message: String) throws(MPDError) {
            skipSpaces()
            guard index < text.count, text[index] == scalar else { throw MPDError(.argument, message) }
            index += 1
        }

        mutating func parseExpression() throws(MPDError) -> MPDFilter {
            depth += 1
            defer { depth -= 1 }
            guard depth < 32 else { throw MPDError(.argument, "Filter expression is nested too deeply") }
            try expect("(", "'(' expected")
            skipSpaces()
            if index < text.count, text[index] == "!" {
                index += 1
                let inner = try parseExpression()
                try expect(")", "')' expected")
                return .not(inner)
            }
            if index < text.count, text[index] == "(" {
                var parts = [try parseExpression()]
                while true {
                    skipSpaces()
                    if index < text.count, text[index] == ")" {
                        index += 1
                        return parts.count == 1 ? parts[0] : .and(parts)
                    }
                    let word = readWord()
                    guard word == "AND" else { throw MPDError(.argument, "'AND' expected") }
                    parts.append(try parseExpression())
                }
            }
            let name = readWord()
            guard !name.isEmpty else { throw MPDError(.argument, "Word expected") }
            if name == "base" {
                let value = try readQuoted()
                try expect(")", "')' expected")
                return .base(MPDLibrary.normalized(value))
            }
            if name == "modified-since" {
                let value = try readQuoted()
                try expect(")", "')' expected")
                return .modifiedSince(try MPDFilter.timeStamp(value))
            }
            if name.lowercased() == "audioformat" {
                skipSpaces()
                let mask: Bool
                if matchLiteral("==") {
                    mask = false
                } else if matchLiteral("=~") {
                    mask = true
                } else {
                    throw MPDError(.argument, "'==' or '=~' expected")
                }
                let value = try readQuoted()
                try expect(")", "')' expected")
                return .audioFormat(try MPDFilter.audioFormat(value, mask: mask), mask: mask)
            }
            let field = try MPDFilter.field(named: name)
            skipSpaces()
            let op: Operator
            if matchLiteral("==") {
                op = .equals
            } else if matchLiteral("!=") {
                op = .notEquals
            } else {
                let word = readWord()
                if let named = MPDFilter.namedOperator(word, foldCase: foldCase) {
                    let value = try readQuoted()
                    try expect(")", "')' expected")
                    let condition = MPDFilter.condition(field, named.op, value, foldCase: named.foldCase)
                    return named.negated ? .not(condition) : condition
                }
                switch word {
                case "=~", "!~":
                    let pattern = try TagPattern(try readQuoted(), ignoringCase: foldCase)
                    try expect(")", "')' expected")
                    return .condition(
                        field, word == "=~" ? .matches(pattern) : .notMatches(pattern), pattern.source,
                        foldCase: foldCase)
                default: throw MPDError(.argument, "Unknown filter operator")
                }
            }
            let value = try readQuoted()
            try expect(")", "')' expected")
            return .condition(field, op, value, foldCase: foldCase)
        }

        mutating func matchLiteral(_ literal: String) -> Bool {
            let scalars = Array(literal.unicodeScalars)
            guard index + scalars.count <= text.count, Array(text[index..<index + scalars.count]) == scalars else {
                return false
            }
            index += scalars.count
            return true
        }

        mutating func readWord() -> String {
            skipSpaces()
            var word = String.UnicodeScalarView()
            while index < text.count, text[index] != " ", text[index] != "(", text[index] != ")",
                text[index] != "'", text[index] != "\""
            {
                word.append(text[index])
                index += 1
            }
            return String(word)
        }

        mutating func readQuoted() throws(MPDError) -> String {
            skipSpaces()
            guard index < text.count, text[index] == "'" || text[index] == "\"" else {
                throw MPDError(.argument, "Quoted string expected")
            }
            let quote = text[index]
            index += 1
            var value = String.UnicodeScalarView()
            while index < text.count, text[index] != quote {
                if text[index] == "\\" { index += 1 }
                guard index < text.count else { break }
                value.append(text[index])
                index += 1
            }
            guard index < text.count else { throw MPDError(.argument, "Closing quote not found") }
            index += 1
            return String(value)
        }
    }
}
