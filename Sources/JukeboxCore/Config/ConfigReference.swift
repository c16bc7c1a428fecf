/// The config keys' reference (docs/CONFIG.md), made from the validator's table and the
/// annotated default config (config/jukebox.toml), so neither can drift from the other: every
/// key the validator takes must be documented there, and every key documented there must be
/// one the validator takes.
public enum ConfigReference {
    /// One key of the reference.
    public struct Key: Equatable, Sendable {
        /// "" for the top level, "audio", "card_reader.NAME".
        public var table: String
        public var name: String
        /// What the validator accepts: "integer, 1 to 500", "one of: in-order, shuffle".
        public var accepts: String
        /// The value the annotated config shows (its default), as written there; nil when it
        /// shows none.
        public var shown: String?
        /// The comment above it in the annotated config, as one paragraph.
        public var description: String
    }

    /// A key written in the annotated config, set or commented out (`# key = value`).
    public struct AnnotatedKey: Equatable, Sendable {
        public var table: String
        public var name: String
        public var value: String
        public var comment: String
    }

    /// The keys the validator takes, table by table, with what each accepts. Card readers'
    /// tables are listed once, as `card_reader.NAME`.
    public static var validatedKeys: [(table: String, name: String, accepts: String)] {
        var keys: [(String, String, String)] = []
        for table in ConfigValidator.schema.keys.sorted() {
            for spec in ConfigValidator.schema[table] ?? [] { keys.append((table, spec.name, accepts(spec.kind))) }
        }
        for spec in CardReaderSection.keys(for: "card_reader.NAME") ?? [] {
            keys.append(("card_reader.NAME", spec.name, accepts(spec.kind)))
        }
        for spec in AlarmSection.keys(for: AlarmSection.name) ?? [] {
            keys.append((AlarmSection.name, spec.name, accepts(spec.kind)))
        }
        return keys
    }

    /// The keys of `table` as the validator takes them: a fixed table's, or a card reader's
    /// (`card_reader.lid`); nil for a table it does not know.
    public static func fields(of table: String) -> [(name: String, kind: ConfigValidator.Kind)]? {
        ConfigValidator.keys(for: table)?.map { ($0.name, $0.kind) }
    }

    /// The fixed tables in the validator's order ("" is the top level).
    public static var tables: [String] { ConfigValidator.schema.keys.sorted() }

    public static func accepts(_ kind: ConfigValidator.Kind) -> String {
        switch kind {
        case .string(let allowEmpty): allowEmpty ? "text (may be empty)" : "text"
        case .integer(let range): "integer, \(range.lowerBound) to \(range.upperBound)"
        case .number(let range): "number, \(range.lowerBound) to \(range.upperBound)"
        case .choice(let choices): "one of: " + choices.joined(separator: ", ")
        case .integerChoice(let choices): "one of: " + choices.map(String.init).joined(separator: ", ")
        case .boolean: "true or false"
        case .path(let allowStdin): allowStdin ? "stdin, none or an absolute device path" : "a path"
        case .urls: "a list of http:// or https:// URLs"
        case .brokerURL: "mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
        case .ruleList(let kind): "a list of \"\(kind.example)\""
        }
    }

    /// The keys of an annotated config: `key = value` lines and `# key = value` examples, each
    /// with the comment lines right above it (a blank line ends a comment). A reader table's
    /// name (`card_reader.lid`) is reported as `card_reader.NAME`.
    public static func annotatedKeys(in text: String) -> [AnnotatedKey] {
        var keys: [AnnotatedKey] = []
        var table = ""
        var comment: [String] = []
        var afterKey = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmedSpaces
            if line.isEmpty {
                comment = []
                afterKey = false
                continue
            }
            var body = line
            let commented = line.hasPrefix("#")
            if commented { body = String(line.drop(while: { $0 == "#" })).trimmedSpaces }
            if let name = tableName(body) {
                table = name.hasPrefix(CardReaderSection.prefix) ? "card_reader.NAME" : name
                comment = []
                continue
            }
            if let (name, value, note) = assignment(body) {
                let text = (comment + (note.isEmpty ? [] : [note])).joined(separator: " ")
                keys.append(AnnotatedKey(table: table, name: name, value: value, comment: text))
                // Keys written one after another share the comment above the first.
                afterKey = true
                continue
            }
            if commented {
                if afterKey { comment = [] }
                afterKey = false
                comment.append(body)
            }
        }
        return keys
    }

    /// `[name]` alone on its line (a comment's "[buttons] shutdown_command" is prose); the
    /// array of tables `[[alarm]]` is `alarm`.
    static func tableName(_ line: String) -> String? {
        if line.hasPrefix("[[" + AlarmSection.name + "]]") {
            return line.dropFirst(AlarmSection.name.count + 4).trimmedSpaces.isEmpty ? AlarmSection.name : nil
        }
        guard line.hasPrefix("["), !line.hasPrefix("[["), let end = line.firstIndex(of: "]") else { return nil }
        let rest = line[line.index(after: end)...].trimmedSpaces
        guard rest.isEmpty || rest.hasPrefix("#") else { return nil }
        let name = line[line.index(after: line.startIndex)..<end].trimmedSpaces
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else {
            return nil
        }
        return name
    }

    /// `name = value` with a bare key of lowercase letters, digits and underscores, or a
    /// quoted one (`"next+previous"`); the value without a trailing `# comment` outside
    /// quotes (returned as its note), and only a value as TOML writes one (a comment's
    /// "auto = album when ..." is prose).
    static func assignment(_ line: String) -> (String, String, String)? {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        var name = line[..<equals].trimmedSpaces
        if name.count > 2, name.hasPrefix("\""), name.hasSuffix("\"") { name = String(name.dropFirst().dropLast()) }
        guard !name.isEmpty, name.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" || $0 == "+" }),
            name.first?.isLetter == true
        else { return nil }
        var value = ""
        var note = ""
        var quote: Character?
        let rest = line[line.index(after: equals)...]
        for index in rest.indices {
            let character = rest[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" {
                note = String(rest[rest.index(after: index)...]).trimmedSpaces
                break
            }
            value.append(character)
        }
        value = value.trimmedSpaces
        return isValue(value) ? (name, value, note) : nil
    }

    /// A quoted string, a number, a boolean or an array, as the annotated config writes them.
    static func isValue(_ text: String) -> Bool {
        guard let first = text.first, let last = text.last else { return false }
        if first == "\"" || first == "'" { return text.count >= 2 && last == first }
        if first == "[" { return last == "]" }
        if text == "true" || text == "false" { return true }
        return text.allSatisfy { $0.isHexDigit || "+-._xo".contains($0) } && (first.isNumber || "+-".contains(first))
    }

    /// The reference's keys in the validator's order, and the problems that make it drift:
    /// a key the validator takes that the annotated config does not show, or the reverse.
    public static func keys(annotated: [AnnotatedKey]) -> (keys: [Key], problems: [String]) {
        var problems: [String] = []
        var keys: [Key] = []
        let validated = validatedKeys
        for (table, name, accepts) in validated {
            let shown = annotated.first { $0.table == table && $0.name == name }
            if shown == nil { problems.append("\(qualified(table, name)): not in the annotated config") }
            keys.append(
                Key(table: table, name: name, accepts: accepts, shown: shown?.value, description: shown?.comment ?? ""))
        }
        for key in annotated where !validated.contains(where: { $0.table == key.table && $0.name == key.name }) {
            problems.append("\(qualified(key.table, key.name)): in the annotated config, not taken by the validator")
        }
        return (keys, problems)
    }

    static func qualified(_ table: String, _ name: String) -> String { table.isEmpty ? name : "\(table).\(name)" }

    /// docs/CONFIG.md.
    public static func markdown(_ keys: [Key]) -> String {
        var text = """
            # Config reference

            Every key `jukeboxd --check-config` accepts, what it accepts and the default that
            config/jukebox.toml shows. Generated from the validator's table and that file's
            comments (`ReferenceDocsTests` fails when they drift; `./dev docs` writes this
            file again).

            """
        var table: String?
        for key in keys {
            if key.table != table {
                table = key.table
                let header = key.table == AlarmSection.name ? "[[\(key.table)]]" : "[\(key.table)]"
                text += "\n## " + (key.table.isEmpty ? "Top level" : header) + "\n\n"
                text += "| key | accepts | default | what it does |\n|---|---|---|---|\n"
            }
            let shown = key.shown.map { "`\($0.replacingBars)`" } ?? ""
            text += "| `\(key.name)` | \(key.accepts.replacingBars) | \(shown) | \(key.description.replacingBars) |\n"
        }
        return text
    }
}

extension String {
    /// Safe inside a Markdown table cell.
    fileprivate var replacingBars: String {
        var out = ""
        for character in self { out += character == "|" ? "\\|" : String(character) }
        return out
    }
}
