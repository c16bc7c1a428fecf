import TOML

/// The mapping as a TOML file, the other format `card export`/`card import` take (by the
/// file's extension, `.toml`): one table per card, named by its ID, with one kind key
/// (`folder`, `album`, `artist`, `playlist`, `url`, `command`), `artist` beside `album`,
/// `policy` (`continue`, `start`; left out: by length) and `name` (left out: the stored name
/// stays; "": none).
///
///     [card.04A1B2C3]
///     album = "The Gruffalo"
///     artist = "Julia Donaldson"
///     policy = "continue"
///     name = "yellow car"
extension TagCardFile {
    /// The two file formats, told apart by the file's extension.
    public enum Format: Sendable, Equatable {
        case csv, toml

        public init(path: String) {
            self = path.lowercased().hasSuffix(".toml") ? .toml : .csv
        }
    }

    /// The file's text for `cards` in `format`.
    public static func text(_ cards: [TagCard], as format: Format) -> String {
        format == .toml ? toml(cards) : csv(cards)
    }

    /// The cards of `text` in `format`, and one message per bad line.
    public static func parse(_ text: String, as format: Format) -> (cards: [TagCard], problems: [String]) {
        format == .toml ? parseTOML(text) : parse(text)
    }

    public static func toml(_ cards: [TagCard]) -> String {
        var text = """
            # Jukebox cards: one table per card ID. What it plays: folder, album (with artist), artist,
            # playlist, url or command; policy: continue or start (left out: by the music's length);
            # name: the card's name.

            """
        for card in cards {
            let (kind, values) = card.content.parts
            text += "\n[card.\(tomlKey(card.id))]\n\(kind) = \(TOMLText.basicString(values.last ?? ""))\n"
            if values.count == 2 { text += "artist = \(TOMLText.basicString(values[0]))\n" }
            if let policy = card.policy { text += "policy = \"\(policy.rawValue)\"\n" }
            if let name = card.name, !name.isEmpty { text += "name = \(TOMLText.basicString(name))\n" }
        }
        return text
    }

    /// The cards of a TOML file. A syntax error is one message (TOML cannot be read past
    /// it); after that each card's problems are one message each, with the line.
    public static func parseTOML(_ text: String) -> (cards: [TagCard], problems: [String]) {
        let document: ConfigDocument
        switch TOMLParser.parse(text, fileName: "") {
        case .success(let parsed): document = parsed
        case .failure(let error): return ([], ["line \(error.line): \(error.message)"])
        }
        var problems: [(line: Int, text: String)] = []
        func problem(_ line: Int?, _ text: String) { problems.append((line ?? 0, text)) }
        let prefix = "card."
        // The cards in the order of their tables; a table's entries follow its header.
        var order: [String] = []
        var tables: [String: (line: Int?, entries: [ConfigDocument.Entry])] = [:]
        var seen: [String: (table: String, line: Int?)] = [:]
        for table in document.tables where table.name.hasPrefix(prefix) {
            let id = TagCard.normalized(String(table.name.dropFirst(prefix.count)))
            if let first = seen[id], first.table != table.name {
                problem(table.line, "card \(id) is already on line \(first.line.map(String.init) ?? "?")")
                continue
            }
            guard seen[id] == nil else { continue }
            seen[id] = (table.name, table.line)
            order.append(table.name)
            tables[table.name] = (table.line, [])
        }
        for entry in document.entries {
            if tables[entry.table] != nil {
                tables[entry.table]!.entries.append(entry)
            } else if entry.table.hasPrefix(prefix),
                seen[TagCard.normalized(String(entry.table.dropFirst(prefix.count)))] != nil
            {
                continue  // a duplicate card's keys: its table is named already
            } else if entry.table == "card" {
                problem(entry.line, "card.\(entry.key): expected a table [card.\(entry.key)] with what it plays")
            } else {
                problem(entry.line, "\(entry.qualifiedKey): unknown key (each card is a table [card.ID])")
            }
        }
        var cards: [TagCard] = []
        for name in order {
            let (line, entries) = tables[name]!
            let id = TagCard.normalized(String(name.dropFirst(prefix.count)))
            var values: [String: (value: String, line: Int?)] = [:]
            var bad = false
            for entry in entries {
                guard Self.otherKeys.contains(entry.key) || TagCard.Content.kinds.contains(entry.key) else {
                    problem(entry.line, "card \(id): unknown key '\(entry.key)' (\(allKeys))")
                    bad = true
                    continue
                }
                guard case .string(let value) = entry.value else {
                    problem(entry.line, "card \(id): \(entry.key): expected a string, found \(entry.value.typeName)")
                    bad = true
                    continue
                }
                values[entry.key] = (value, entry.line)
            }
            if bad { continue }
            // Beside `album`, `artist` is the album's artist; alone, it is what the card plays.
            let kinds = TagCard.Content.kinds.filter {
                values[$0] != nil && !($0 == "artist" && values["album"] != nil)
            }
            guard kinds.count == 1, let kind = kinds.first else {
                problem(
                    line,
                    kinds.isEmpty
                        ? "card \(id): expected what it plays (\(TagCard.Content.kinds.joined(separator: ", ")))"
                        : "card \(id): plays one thing, found \(kinds.joined(separator: " and "))")
                continue
            }
            var policy: TagCard.Policy?
            if let given = values["policy"], given.value.lowercased() != "auto" {
                guard let known = TagCard.Policy(rawValue: given.value.lowercased()) else {
                    problem(given.line, "card \(id): policy: expected continue or start, found '\(given.value)'")
                    continue
                }
                policy = known
            }
            var name: String?
            if let given = values["name"] {
                switch TagCard.checkedName(given.value) {
                case .success(let checked): name = checked
                case .failure(let error):
                    problem(given.line, "card \(id): \(error.message)")
                    continue
                }
            }
            let parts =
                kind == "album"
                ? [values["artist"]?.value, values[kind]?.value].compactMap { $0 } : [values[kind]!.value]
            switch TagCard.Content.make(kind: kind, values: parts) {
            case .success(let content): cards.append(TagCard(id: id, content: content, policy: policy, name: name))
            case .failure(let error): problem(values[kind]?.line, "card \(id): \(error.message)")
            }
        }
        let ordered = problems.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }
        return (cards, ordered.map { "line \($0.element.line): \($0.element.text)" })
    }

    private static let otherKeys = ["policy", "name"]
    private static let allKeys = (TagCard.Content.kinds + otherKeys).joined(separator: ", ")

    /// A bare key when the ID is one, else a quoted key.
    private static func tomlKey(_ id: String) -> String {
        let bare =
            !id.isEmpty
            && id.unicodeScalars.allSatisfy {
                ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    || $0 == "_"
            }
        return bare ? id : TOMLText.basicString(id)
    }
}
