/// The `card` words of every console: manage the mapping, or stand in for a reader.
public enum TagCardCommand: Sendable, Equatable {
    /// `card assign ID KIND VALUE...`
    case assign(TagCard)
    /// `card policy ID continue|start|auto`
    case policy(id: String, TagCard.Policy?)
    /// `card name ID "yellow car"` (checked by `TagCard.checkedName`; empty: no name)
    case name(id: String, name: String)
    /// `card list`
    case list
    /// `card info`: every card as `key: value` lines, for programs (the web page).
    case info
    /// `card unknown`: the last card read that plays nothing yet, until it is assigned.
    case unknown
    /// `card last`: the last card read, and how many were read since the daemon started (a
    /// program that follows `idle cards` tells a new scan of the same card by the count).
    case last
    /// `card forget ID`
    case forget(id: String)
    /// `card export FILE`, `card import FILE` (CSV, or TOML for a `.toml` file).
    case export(path: String)
    case `import`(path: String)
    /// `card ID`: a reader read this card.
    case read(id: String)
    /// `card none`: the reader sees no card.
    case removed

    /// The console words, as `help` lists them.
    public static let helpText = """
        card ID      as if card ID were put on the reader (card none: taken off)
        card assign ID KIND VALUE  what card ID does; KIND: folder, album (name, or artist and name), artist, \
        playlist, url, command (card assign 04A1B2 folder "Kids/Gruffalo")
        card policy ID continue|start|auto  where its music starts when it comes back after other music
        card name ID NAME  the card's name, in quotes when it has spaces (card name 04A1B2 "yellow car"; \
        "" clears it)
        card list, card info (for programs), card unknown (the last unread new card), card last (the last card \
        read), card forget ID, \
        card export FILE, card import FILE (CSV: card,kind,value,artist,policy,name; \
        a FILE.toml: a table [card.ID] per card)
        """

    /// Parses the words after `card` (already split, quotes removed).
    public static func parse(_ arguments: [String]) -> Result<TagCardCommand, CommandError> {
        let problem = { (text: String) in
            Result<TagCardCommand, CommandError>.failure(.badArgument(command: "card", problem: text))
        }
        guard let first = arguments.first else { return problem("expected a card ID, none, assign, list or forget") }
        let rest = Array(arguments.dropFirst())
        switch first.lowercased() {
        case "none": return rest.isEmpty ? .success(.removed) : problem("none takes no value")
        case "list": return rest.isEmpty ? .success(.list) : problem("list takes no value")
        case "info": return rest.isEmpty ? .success(.info) : problem("info takes no value")
        case "unknown": return rest.isEmpty ? .success(.unknown) : problem("unknown takes no value")
        case "last": return rest.isEmpty ? .success(.last) : problem("last takes no value")
        case "forget":
            return rest.count == 1
                ? .success(.forget(id: TagCard.normalized(rest[0]))) : problem("forget: expected a card ID")
        case "export", "import":
            guard rest.count == 1, !rest[0].isEmpty else { return problem("\(first.lowercased()): expected a file") }
            return .success(first.lowercased() == "export" ? .export(path: rest[0]) : .import(path: rest[0]))
        case "name":
            guard rest.count == 2, !TagCard.normalized(rest[0]).isEmpty else {
                return problem(
                    "name: expected a card ID and one name, in quotes when it has spaces "
                        + "(card name 04A1B2 \"yellow car\"; \"\" clears it)")
            }
            return TagCard.checkedName(rest[1]).map { .name(id: TagCard.normalized(rest[0]), name: $0) }
        case "policy":
            guard rest.count == 2 else { return problem("policy: expected a card ID and continue, start or auto") }
            if rest[1].lowercased() == "auto" { return .success(.policy(id: TagCard.normalized(rest[0]), nil)) }
            guard let policy = TagCard.Policy(rawValue: rest[1].lowercased()) else {
                return problem("policy: expected continue, start or auto, found '\(rest[1])'")
            }
            return .success(.policy(id: TagCard.normalized(rest[0]), policy))
        case "assign":
            guard rest.count >= 3 else { return problem("assign: expected a card ID, a kind and a value") }
            return TagCard.Content.make(kind: rest[1].lowercased(), values: Array(rest.dropFirst(2))).map {
                .assign(TagCard(id: rest[0], content: $0))
            }
        default:
            guard rest.isEmpty, !TagCard.normalized(first).isEmpty else {
                return problem("expected a card ID, none, assign, policy, name, list, forget, export or import")
            }
            return .success(.read(id: TagCard.normalized(first)))
        }
    }
}

extension TagCardCommand {
    /// `card info`'s reply: per card `card: ID`, `kind:`, `value:`, then `artist:` (an album's),
    /// `policy:`, `place:` with `position:` (seconds), `name:` and `last_used:` (ISO 8601 UTC,
    /// as MPD's `Last-Modified:`) when it has them.
    public static func infoLines(_ cards: [TagCard]) -> [String] {
        var lines: [String] = []
        for card in cards {
            let (kind, values) = card.content.parts
            lines += ["card: \(card.id)", "kind: \(kind)", "value: \(oneLine(values.last ?? ""))"]
            if values.count == 2 { lines.append("artist: \(oneLine(values[0]))") }
            if let policy = card.policy { lines.append("policy: \(policy.rawValue)") }
            if let place = card.place {
                let ms = max(0, place.positionMs)
                let fraction = String(ms % 1000)
                lines.append("place: \(oneLine(place.trackPath))")
                lines.append("position: \(ms / 1000).\(String(repeating: "0", count: 3 - fraction.count) + fraction)")
            }
            if let name = card.name, !name.isEmpty { lines.append("name: \(oneLine(name))") }
            if let lastUsed = card.lastUsed { lines.append("last_used: \(ISO8601.utc(lastUsed))") }
        }
        return lines
    }

    /// `card list`'s line of a card: `04A1B2 folder "Kids/Gruffalo" (continue) at PATH 1:02
    /// named "yellow car" used 2026-12-07T07:32:00Z`.
    public static func listLine(_ card: TagCard) -> String {
        var line = "\(card.id) \(card.content.description)"
        if let policy = card.policy { line += " (\(policy.rawValue))" }
        if let place = card.place { line += " at \(place.trackPath) \(ScreenLayout.clock(place.positionMs))" }
        if let name = card.name, !name.isEmpty { line += " named \(TagCard.Content.quoted(oneLine(name)))" }
        if let lastUsed = card.lastUsed { line += " used \(ISO8601.utc(lastUsed))" }
        return line
    }

    /// `card last`'s reply: `last: ID` and `reads: N` once a card was read.
    public static func lastLines(_ id: String?, reads: Int) -> [String] {
        id.map { ["last: \($0)", "reads: \(reads)"] } ?? []
    }

    /// `card unknown`'s reply: `unknown: ID` when `id` is a card that plays nothing yet.
    public static func unknownLines(_ id: String?) -> [String] {
        id.map { ["unknown: \($0)"] } ?? []
    }

    /// A value on one reply line: a newline would end it.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}

/// The mapping as a CSV file, for people who prepare many cards: a header line
/// `card,kind,value,artist,policy,name`, then one card a line (RFC 4180 quoting; `#` lines and
/// blank lines are skipped). `artist` is an album's artist (may be empty), `policy` is
/// `continue`, `start` or empty (by length), `name` the card's name (empty: none). A file of
/// an older version has no `name` column: its lines of 5 fields keep each card's stored name.
public enum TagCardFile {
    public static let header = "card,kind,value,artist,policy,name"
    /// The header of files written before cards had names.
    static let headerWithoutName = "card,kind,value,artist,policy"

    /// The file's text for `cards`.
    public static func csv(_ cards: [TagCard]) -> String {
        var lines = [header]
        for card in cards {
            let (kind, values) = card.content.parts
            let value = values.last ?? ""
            let artist = values.count == 2 ? values[0] : ""
            lines.append(
                [card.id, kind, value, artist, card.policy?.rawValue ?? "", card.name ?? ""].map(field)
                    .joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The cards of `text`, and one message per bad line (`line N: problem`); the caller
    /// takes the cards only when there is none, so a typo loses nothing.
    public static func parse(_ text: String) -> (cards: [TagCard], problems: [String]) {
        var cards: [TagCard] = []
        var problems: [String] = []
        var seen: [String: Int] = [:]
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let trimmed = line.trimmingSuffix("\r")
            if trimmed.allSatisfy(\.isWhitespace) || trimmed.hasPrefix("#") { continue }
            guard let fields = fields(of: trimmed) else {
                problems.append("line \(number): a quoted field is not closed")
                continue
            }
            if [header, headerWithoutName].contains(fields.map({ $0.lowercased() }).joined(separator: ",")) {
                continue
            }
            guard fields.count == 5 || fields.count == 6 else {
                problems.append("line \(number): expected 6 fields (\(header)), or 5, found \(fields.count)")
                continue
            }
            var name: String?
            if fields.count == 6 {
                switch TagCard.checkedName(fields[5]) {
                case .success(let checked): name = checked
                case .failure(let error):
                    problems.append("line \(number): \(error.message)")
                    continue
                }
            }
            let id = TagCard.normalized(fields[0])
            guard !id.isEmpty else {
                problems.append("line \(number): no card ID")
                continue
            }
            if let first = seen[id] {
                problems.append("line \(number): card \(id) is already on line \(first)")
                continue
            }
            let policy: TagCard.Policy?
            if fields[4].isEmpty || fields[4].lowercased() == "auto" {
                policy = nil
            } else if let given = TagCard.Policy(rawValue: fields[4].lowercased()) {
                policy = given
            } else {
                problems.append("line \(number): policy: expected continue, start or nothing, found '\(fields[4])'")
                continue
            }
            let values = fields[1].lowercased() == "album" && !fields[3].isEmpty ? [fields[3], fields[2]] : [fields[2]]
            switch TagCard.Content.make(kind: fields[1].lowercased(), values: values) {
            case .success(let content):
                seen[id] = number
                cards.append(TagCard(id: id, content: content, policy: policy, name: name))
            case .failure(let error):
                problems.append("line \(number): \(error.message)")
            }
        }
        return (cards, problems)
    }

    private static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }

    /// A line's fields; nil when a quote is not closed.
    private static func fields(of line: Substring) -> [String]? {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            index = line.index(after: index)
            if quoted {
                if character == "\"" {
                    if index < line.endIndex, line[index] == "\"" {
                        current.append("\"")
                        index = line.index(after: index)
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(current.trimmedSpaces)
                current = ""
            } else {
                current.append(character)
            }
        }
        guard !quoted else { return nil }
        fields.append(current.trimmedSpaces)
        return fields
    }
}

extension Substring {
    fileprivate func trimmingSuffix(_ suffix: Character) -> Substring { last == suffix ? dropLast() : self }
}
