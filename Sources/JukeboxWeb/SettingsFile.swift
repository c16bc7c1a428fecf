import JukeboxCore
import TOML

/// One config key on the settings page.
public struct SettingsField: Sendable, Equatable {
    /// "" for the top level, "audio", "card_reader.lid".
    public var table: String
    public var name: String
    public var kind: ConfigValidator.Kind
    /// The file's value as the form shows it; "" when the file does not set the key.
    public var value: String
    /// What the file's comment above the key says (the annotated config explains each key).
    public var description: String
    /// The validator's message for the value last posted, shown beside the field.
    public var problem: String?

    public var key: String { table.isEmpty ? name : "\(table).\(name)" }
    /// The form field's name: `k:` and the key (`k:audio.device`).
    public var formName: String { "k:" + key }
}

/// A key the settings form changes: `new` nil removes it from the file (its default applies).
public struct SettingsChange: Sendable, Equatable {
    public var table: String
    public var name: String
    public var old: String?
    public var new: String?

    public init(table: String, name: String, old: String? = nil, new: String? = nil) {
        self.table = table
        self.name = name
        self.old = old
        self.new = new
    }

    public var key: String { table.isEmpty ? name : "\(table).\(name)" }
}

/// The settings page's policy over the daemon's config file: the form's fields come from the
/// validator's own table (one source of truth with `jukeboxd --check-config`), and a change is
/// written into the file's text in place, so its comments and layout stay the user's.
public enum SettingsFile {
    /// Every key the validator takes: the fixed tables in its order, then each card reader
    /// table and each `[[alarm]]` (`alarm[N]`) the file has; the file's value and comment for each.
    public static func fields(of document: ConfigDocument, text: String) -> [SettingsField] {
        let comments = ConfigReference.annotatedKeys(in: text)
        var tables = ConfigReference.tables
        for (name, _) in document.tables
        where (name.hasPrefix("card_reader.") || name.hasPrefix("alarm[")) && !tables.contains(name) {
            tables.append(name)
        }
        var fields: [SettingsField] = []
        for table in tables {
            let commentTable =
                table.hasPrefix("card_reader.") ? "card_reader.NAME" : table.hasPrefix("alarm[") ? "alarm" : table
            for (name, kind) in ConfigReference.fields(of: table) ?? [] {
                let entry = document.entries.last { $0.table == table && $0.key == name }
                let comment = comments.first { $0.table == commentTable && $0.name == name }?.comment ?? ""
                fields.append(
                    SettingsField(
                        table: table, name: name, kind: kind, value: entry.map { formText($0.value) } ?? "",
                        description: comment))
            }
        }
        return fields
    }

    /// A value as its form field shows it: strings bare, a list one item per line.
    static func formText(_ value: ConfigValue) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .float(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .array(let items): items.map(formText).joined(separator: "\n")
        case .other(let text): text
        }
    }

    /// The keys whose posted text differs from the file's. A field the form did not post is
    /// left as it is.
    public static func changes(posted: (String) -> String?, fields: [SettingsField]) -> [SettingsChange] {
        var changes: [SettingsChange] = []
        for field in fields {
            guard var text = posted(field.formName) else { continue }
            text = text.replacingCRLF.trimmedSpaces
            guard text != field.value else { continue }
            changes.append(
                SettingsChange(
                    table: field.table, name: field.name, old: field.value.isEmpty ? nil : field.value,
                    new: text.isEmpty ? nil : text))
        }
        return changes
    }

    /// A form's text as the TOML value for a key of `kind`. Text that is not a valid literal
    /// of the kind is written as a string, so the validator names the problem in its own words
    /// ("expected an integer, found a string"), as `--check-config` would.
    static func tomlValue(_ text: String, kind: ConfigValidator.Kind) -> String {
        switch kind {
        case .integer, .integerChoice:
            if let number = Int64(text) { return String(number) }
        case .number:
            if let number = Double(text), number.isFinite { return String(number) }
        case .boolean:
            if text == "true" || text == "false" { return text }
        case .urls, .ruleList:
            let items = text.split(separator: "\n").map { String($0).trimmedSpaces }.filter { !$0.isEmpty }
            return "[" + items.map(quoted).joined(separator: ", ") + "]"
        case .string, .choice, .path, .brokerURL:
            break
        }
        return quoted(text)
    }

    static func quoted(_ text: String) -> String { TOMLText.basicString(text) }

    /// Why a change cannot be written into the file's text.
    public struct EditProblem: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// `text` with `changes` written: a key the file sets has its line replaced, a new key
    /// goes after its table's last key (a new table at the end), a removed key's line goes.
    /// The result is parsed again and must hold every other entry unchanged and each changed
    /// key as asked; otherwise (a value written over several lines, dotted keys) nothing is
    /// written and the problem says to edit the file by hand.
    public static func edit(
        _ text: String, fileName: String, changes: [SettingsChange], kinds: [String: ConfigValidator.Kind]
    ) -> Result<String, EditProblem> {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard case .success(let before) = TOMLParser.parse(text, fileName: fileName) else {
            return .failure(EditProblem(description: "\(fileName) does not parse; fix it by hand first"))
        }
        var document = before
        for change in changes {
            let line = change.new.map {
                "\(change.name) = \(tomlValue($0, kind: kinds[change.key] ?? .string(allowEmpty: true)))"
            }
            let entry = document.entries.last { $0.table == change.table && $0.key == change.name }
            if let entry, let number = entry.line, number >= 1, number <= lines.count {
                if let line { lines[number - 1] = line } else { lines.remove(at: number - 1) }
            } else if entry != nil {
                return .failure(
                    EditProblem(description: "\(change.key): cannot find its line; edit \(fileName) by hand"))
            } else if let line {
                let place = insertion(line, table: change.table, document: document, lines: lines)
                lines.insert(contentsOf: place.lines, at: place.index)
            }
            guard case .success(let parsed) = TOMLParser.parse(lines.joined(separator: "\n"), fileName: fileName) else {
                return .failure(
                    EditProblem(description: "\(change.key): the edit would break \(fileName); edit it by hand"))
            }
            document = parsed
        }
        let edited = lines.joined(separator: "\n")
        guard keeps(before, after: document, changes: changes) else {
            return .failure(
                EditProblem(
                    description: "\(fileName) writes these keys in a way this page cannot edit; edit it by hand"))
        }
        return .success(edited)
    }

    /// Where a new key's line goes: after its table's last key or its header; a new table at
    /// the end; a new top-level key before the first table.
    static func insertion(_ line: String, table: String, document: ConfigDocument, lines: [String])
        -> (index: Int, lines: [String])
    {
        let inTable = document.entries.filter { $0.table == table }.compactMap(\.line).max()
        let header = document.tables.first { $0.name == table }?.line
        if let after = inTable ?? header { return (min(after, lines.count), [line]) }
        if table.isEmpty {
            guard let first = document.tables.compactMap(\.line).min(), first >= 1 else { return (lines.count, [line]) }
            // Above the comment that introduces the first table.
            var index = first - 1
            while index > 0 && lines[index - 1].trimmedSpaces.hasPrefix("#") { index -= 1 }
            return (index, [line, ""])
        }
        var end = lines.count
        while end > 0 && lines[end - 1].isEmpty { end -= 1 }
        return (end, ["", "[\(table)]", line])
    }

    /// Whether `after` holds every entry of `before` but the changed keys unchanged, and each
    /// changed key set or removed as asked.
    static func keeps(_ before: ConfigDocument, after: ConfigDocument, changes: [SettingsChange]) -> Bool {
        let changed = Set(changes.map(\.key))
        let untouched = { (document: ConfigDocument) in
            document.entries.filter { !changed.contains($0.qualifiedKey) }.map { "\($0.qualifiedKey)=\($0.value)" }
        }
        guard untouched(before) == untouched(after) else { return false }
        for change in changes {
            let count = after.entries.filter { $0.qualifiedKey == change.key }.count
            if count != (change.new == nil ? 0 : 1) { return false }
        }
        return true
    }
}

extension String {
    fileprivate var replacingCRLF: String {
        var out = ""
        for character in self where character != "\r" { out.append(character) }
        return out
    }
}
