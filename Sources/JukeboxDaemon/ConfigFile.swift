import JukeboxCore
import TOMLKit

/// A config file's text after TOML parsing.
public enum ParsedConfigFile {
    case document(ConfigDocument)
    case syntaxError(ConfigDiagnostic)
}

/// Turns the text of a TOML config file into the core's `ConfigDocument`.
///
/// TOMLKit (toml++) does the parsing; it reports lines for syntax errors but not for keys,
/// so `TOMLKeyLines` finds the line of each key in the text for the validator's messages.
public enum ConfigFile {
    /// Parses `text`; a syntax error comes back as one diagnostic with its line.
    public static func document(text: String, fileName: String) -> ParsedConfigFile {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            return .syntaxError(
                ConfigDiagnostic(
                    fileName: fileName, line: error.source.begin.line, key: "syntax",
                    problem: error.description))
        } catch {
            return .syntaxError(ConfigDiagnostic(fileName: fileName, line: nil, key: "syntax", problem: "\(error)"))
        }
        let lines = TOMLKeyLines(text: text)
        var document = ConfigDocument(fileName: fileName)
        collect(table, path: "", lines: lines, into: &document)
        return .document(document)
    }

    private static func collect(_ table: TOMLTable, path: String, lines: TOMLKeyLines, into document: inout ConfigDocument) {
        for key in table.keys.sorted() {
            guard let value = table[key] else { continue }
            if let child = value.table {
                let childPath = path.isEmpty ? key : "\(path).\(key)"
                document.tables.append((name: childPath, line: lines.tableLine(childPath)))
                collect(child, path: childPath, lines: lines, into: &document)
            } else {
                document.entries.append(
                    ConfigDocument.Entry(table: path, key: key, value: convert(value), line: lines.keyLine(table: path, key: key)))
            }
        }
        document.entries.sort { ($0.line ?? Int.max) < ($1.line ?? Int.max) }
    }

    private static func convert(_ value: any TOMLValueConvertible) -> ConfigValue {
        switch value.type {
        case .string: return .string(value.string ?? "")
        case .int: return .integer(Int64(value.int ?? 0))
        case .double: return .float(value.double ?? 0)
        case .bool: return .bool(value.bool ?? false)
        case .array: return .array(value.array.map { $0.map(convert) } ?? [])
        case .table: return .other("a table")
        case .date: return .other("a date")
        case .time: return .other("a time")
        case .dateTime: return .other("a date-time")
        }
    }
}

/// The line on which each table header and key of a TOML text stands. Only for messages:
/// it understands `[table]`, `[[array]]`, `key = …`, `"quoted key" = …` and dotted keys.
struct TOMLKeyLines {
    private var keys: [String: Int] = [:]
    private var tables: [String: Int] = [:]

    init(text: String) {
        var table = ""
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") {
                let inner = line.drop { $0 == "[" }.prefix { $0 != "]" }
                table = Self.normalized(inner)
                if tables[table] == nil { tables[table] = lineNumber }
            } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = Self.normalized(line[..<equals])
                let full = table.isEmpty ? key : "\(table).\(key)"
                if keys[full] == nil { keys[full] = lineNumber }
            }
        }
    }

    func keyLine(table: String, key: String) -> Int? {
        keys[table.isEmpty ? key : "\(table).\(key)"]
    }

    func tableLine(_ table: String) -> Int? { tables[table] ?? keys[table] }

    /// `a . "b c"` → `a.b c`.
    private static func normalized(_ text: Substring) -> String {
        text.split(separator: ".").map { part in
            part.trimmingSpaces.trimmingCharacters(in: "\"'")
        }.joined(separator: ".")
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed().reduce(into: "") { $0.append($1) }[...]
    }

    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = self
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
