/// A config file as parsed, before validation: every value with the line it came from.
/// `TOMLParser` builds it from the file's text; the core validates it without any I/O.
public struct ConfigDocument: Sendable, Equatable {
    /// One `key = value` of the file. `table` is the dotted table path (`"audio"`,
    /// `""` for the top level), `key` the key inside it.
    public struct Entry: Sendable, Equatable {
        public var table: String
        public var key: String
        public var value: ConfigValue
        public var line: Int?

        public init(table: String, key: String, value: ConfigValue, line: Int?) {
            self.table = table
            self.key = key
            self.value = value
            self.line = line
        }

        /// `audio.device`, or `music_dir` at the top level.
        public var qualifiedKey: String { table.isEmpty ? key : "\(table).\(key)" }
    }

    /// The tables the file declares (`[audio]`), with their lines, so that an unknown
    /// table can be reported even when it is empty.
    public var tables: [(name: String, line: Int?)]
    public var entries: [Entry]
    /// The file name used in diagnostics (`file:line: key: problem`).
    public var fileName: String

    public init(fileName: String, tables: [(name: String, line: Int?)] = [], entries: [Entry] = []) {
        self.fileName = fileName
        self.tables = tables
        self.entries = entries
    }

    public static func == (lhs: ConfigDocument, rhs: ConfigDocument) -> Bool {
        lhs.fileName == rhs.fileName && lhs.entries == rhs.entries
            && lhs.tables.map(\.name) == rhs.tables.map(\.name) && lhs.tables.map(\.line) == rhs.tables.map(\.line)
    }
}

/// A TOML value as the validator sees it. Dates are kept as their text.
public indirect enum ConfigValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    case array([ConfigValue])
    case other(String)

    /// The TOML type name, for messages: "expected an integer, found a string".
    public var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a number"
        case .bool: "a boolean"
        case .array: "an array"
        case .other(let text): text
        }
    }
}

/// One problem found in a config file. `description` is `file:line: key: problem`.
public struct ConfigDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public var fileName: String
    public var line: Int?
    public var key: String
    public var problem: String

    public init(fileName: String, line: Int?, key: String, problem: String) {
        self.fileName = fileName
        self.line = line
        self.key = key
        self.problem = problem
    }

    public var description: String {
        "\(fileName):\(line.map(String.init) ?? "?"): \(key): \(problem)"
    }
}
