/// A strict TOML 1.0 parser that produces a `ConfigDocument`: every value with the line of its
/// key, every table with the line of its header, in file order.
///
/// It works on the text's UTF-8 bytes with the standard library only. Whatever TOML 1.0 does
/// not allow is a `TOMLSyntaxError` with its line and column: duplicate keys, tables defined
/// twice, invalid escapes, control characters, leading zeros, integer overflow, ...
///
/// What the validator sees:
/// - `[a.b]` and tables made by dotted keys (`a.b = 1`) and inline tables (`a = { b = 1 }`)
///   are tables with their entries, as in TOML they are the same thing.
/// - `[[a]]` (an array of tables) lists each element as a table `a[1]`, `a[2]`, ... (from 1, in
///   file order) with its entries (`[[alarm]]`); one inside an unlisted table is not listed.
/// - An inline table inside an array is `.other("an inline table")`; dates and times are
///   `.other("a date")`, `.other("a time")`, `.other("a date-time")`.
public enum TOMLParser {
    /// Parses `text` (a BOM at its start is skipped; lines may end with LF or CRLF).
    public static func parse(_ text: String, fileName: String) -> Result<ConfigDocument, TOMLSyntaxError> {
        var reader = TOMLReader(bytes: Array(text.utf8), fileName: fileName)
        do throws(TOMLSyntaxError) {
            return .success(try reader.parseDocument())
        } catch {
            return .failure(error)
        }
    }
}

/// Where a TOML text stops being valid, and why. Lines and columns count from 1; columns count
/// Unicode scalars.
public struct TOMLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(line):\(column): \(message)" }

    /// As a config diagnostic: `file:line: syntax: message`.
    public func diagnostic(fileName: String) -> ConfigDiagnostic {
        ConfigDiagnostic(fileName: fileName, line: line, key: "syntax", problem: message)
    }
}

// MARK: - the tree, to find duplicates

/// A table of the file being read. Only the parser sees it; the validator gets the flat
/// `ConfigDocument`.
private final class TOMLTable {
    enum Origin: Equatable {
        /// Made by a header for a table below it (`a` of `[a.b]`): may get its own header later.
        case implicit
        /// `[a]` (or one element of `[[a]]`).
        case header
        /// Made by a dotted key under the header counted as `section` (or in an inline table).
        case dotted(section: Int)
        /// `a = { ... }`: complete in itself.
        case inline
    }

    var origin: Origin
    var line: Int
    /// The dotted name for messages (and for the document when `documentIndex` is set).
    var name: String
    var children: [String: TOMLNode] = [:]
    var order: [String] = []
    /// Its place in `ConfigDocument.tables`, when it is listed there.
    var documentIndex: Int?

    init(origin: Origin, line: Int, name: String) {
        self.origin = origin
        self.line = line
        self.name = name
    }

    func add(_ key: String, _ node: TOMLNode) {
        children[key] = node
        order.append(key)
    }
}

private final class TOMLTableArray {
    var elements: [TOMLTable]
    let line: Int
    /// Whether its elements are listed in the document (as `name[N]`).
    let listed: Bool

    init(first: TOMLTable, line: Int, listed: Bool) {
        self.elements = [first]
        self.line = line
        self.listed = listed
    }
}

private enum TOMLNode {
    case value(ConfigValue, line: Int)
    case table(TOMLTable)
    case tableArray(TOMLTableArray)
}

/// A parsed value: a plain one, or an inline table that becomes a table of the tree.
private enum TOMLParsedValue {
    case value(ConfigValue)
    case inlineTable(TOMLTable)
}

// MARK: - bytes

extension UInt8 {
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let lineFeed = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let apostrophe = UInt8(ascii: "'")
    fileprivate static let numberSign = UInt8(ascii: "#")
    fileprivate static let plus = UInt8(ascii: "+")
    fileprivate static let minus = UInt8(ascii: "-")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let dot = UInt8(ascii: ".")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let equals = UInt8(ascii: "=")
    fileprivate static let underscore = UInt8(ascii: "_")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let leftBracket = UInt8(ascii: "[")
    fileprivate static let rightBracket = UInt8(ascii: "]")
    fileprivate static let leftBrace = UInt8(ascii: "{")
    fileprivate static let rightBrace = UInt8(ascii: "}")
    fileprivate static let delete: UInt8 = 0x7F

    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    fileprivate var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
    fileprivate var isBareKey: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z")) || self == .underscore || self == .minus
    }
    /// Not allowed in strings and comments (tab is).
    fileprivate var isControl: Bool { (self < 0x20 && self != .tab) || self == .delete }
    /// Ends a bare value such as a number, a boolean or a date.
    fileprivate var endsBareValue: Bool {
        switch self {
        case .space, .tab, .lineFeed, .carriageReturn, .comma, .rightBracket, .rightBrace, .numberSign, .leftBracket,
            .leftBrace, .equals, .quote, .apostrophe:
            true
        default: false
        }
    }
}

// MARK: - the reader

private struct TOMLReader {
    /// A place in the text, for errors.
    struct Mark {
        var position: Int
        var line: Int
        var lineStart: Int
    }

    /// The deepest nesting of arrays and inline tables (so that a hostile file cannot
    /// exhaust the stack).
    static let maximumDepth = 50

    let bytes: [UInt8]
    var position = 0
    var line = 1
    var lineStart = 0
    var document: ConfigDocument

    let root = TOMLTable(origin: .header, line: 0, name: "")
    /// The table the key/value lines go to: the last header's.
    var current: TOMLTable
    /// False inside the elements of an array of tables: their keys are not listed.
    var listed = true
    /// Counts table headers; dotted keys of one section may extend each other's tables.
    var section = 0

    init(bytes: [UInt8], fileName: String) {
        self.bytes = bytes
        self.document = ConfigDocument(fileName: fileName)
        self.current = root
    }

    var mark: Mark { Mark(position: position, line: line, lineStart: lineStart) }
    var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    func peek(at offset: Int) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    func error(_ message: String, at mark: Mark? = nil) -> TOMLSyntaxError {
        let mark = mark ?? self.mark
        var column = 1
        var index = mark.lineStart
        while index < mark.position, index < bytes.count {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return TOMLSyntaxError(line: mark.line, column: column, message: message)
    }

    /// What stands at `index`, for messages: `'x'`, `the end of the line`, `U+0007`.
    func describe(_ index: Int) -> String {
        guard index < bytes.count else { return "the end of the file" }
        let byte = bytes[index]
        if byte == .lineFeed || (byte == .carriageReturn && index + 1 < bytes.count && bytes[index + 1] == .lineFeed) {
            return "the end of the line"
        }
        if byte < 0x80 {
            if byte.isControl { return "the control character \(Self.codePoint(UInt32(byte)))" }
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        var iterator = bytes[index...].makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) {
            return "'\(Character(scalar))' (\(Self.codePoint(scalar.value)))"
        }
        return "a byte that is not UTF-8"
    }

    static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    static func display(_ key: [String]) -> String { key.joined(separator: ".") }

    static func join(_ table: String, _ key: String) -> String { table.isEmpty ? key : "\(table).\(key)" }

    // MARK: lines, whitespace, comments

    mutating func skipWhitespace() {
        while let byte = peek, byte == .space || byte == .tab { position += 1 }
    }

    /// At LF or CRLF: steps over it.
    mutating func consumeNewline() -> Bool {
        if peek == .lineFeed {
            position += 1
        } else if peek == .carriageReturn, peek(at: 1) == .lineFeed {
            position += 2
        } else {
            return false
        }
        line += 1
        lineStart = position
        return true
    }

    /// At `#`: steps to the end of the line (not over the newline).
    mutating func skipComment() throws(TOMLSyntaxError) {
        position += 1
        while let byte = peek, byte != .lineFeed {
            if byte == .carriageReturn, peek(at: 1) == .lineFeed { return }
            if byte.isControl {
                throw error("\(describe(position)) is not allowed in a comment")
            }
            position += 1
        }
    }

    /// After a header or a key/value: only spaces and a comment may follow on the line.
    mutating func expectEndOfLine(after what: String) throws(TOMLSyntaxError) {
        skipWhitespace()
        if peek == .numberSign { try skipComment() }
        if position == bytes.count || consumeNewline() { return }
        if peek == .carriageReturn {
            throw error("a carriage return must be followed by a line feed (lines end with LF or CRLF)")
        }
        throw error(
            "unexpected \(describe(position)) after \(what); each key = value or [table] needs a line of its own")
    }

    /// Inside arrays: spaces, newlines and comments.
    mutating func skipWhitespaceNewlinesAndComments() throws(TOMLSyntaxError) {
        while true {
            skipWhitespace()
            if peek == .numberSign {
                try skipComment()
            } else if !consumeNewline() {
                return
            }
        }
    }

    // MARK: document

    mutating func parseDocument() throws(TOMLSyntaxError) -> ConfigDocument {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            position = 3
            lineStart = 3
        }
        while position < bytes.count {
            skipWhitespace()
            guard let byte = peek else { break }
            switch byte {
            case .numberSign, .lineFeed, .carriageReturn:
                try expectEndOfLine(after: "the comment")
            case .leftBracket:
                let header = try parseHeader()
                try expectEndOfLine(after: "the table header \(header)")
            default:
                let key = try parseKeyValue(into: current, listed: listed, section: section)
                try expectEndOfLine(after: "the value of \"\(Self.display(key))\"")
            }
        }
        return document
    }

    // MARK: keys

    /// `a`, `"a b"`, `'a'`, `a . b . "c"`.
    mutating func parseKey() throws(TOMLSyntaxError) -> [String] {
        var parts: [String] = []
        while true {
            skipWhitespace()
            parts.append(try parseSimpleKey(after: parts))
            skipWhitespace()
            guard peek == .dot else { return parts }
            position += 1
        }
    }

    mutating func parseSimpleKey(after parts: [String]) throws(TOMLSyntaxError) -> String {
        if let byte = peek, byte == .quote || byte == .apostrophe {
            if peek(at: 1) == byte, peek(at: 2) == byte {
                throw error("a multi-line string cannot be a key")
            }
            return byte == .quote ? try parseBasicString() : try parseLiteralString()
        }
        let start = position
        while let byte = peek, byte.isBareKey { position += 1 }
        if position == start {
            let found = describe(position)
            if parts.isEmpty { throw error("expected a key, found \(found)") }
            throw error("expected a key after \"\(Self.display(parts)).\", found \(found)")
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    // MARK: headers

    /// `[a.b]` or `[[a.b]]`; makes its table the current one. Returns the header as written.
    mutating func parseHeader() throws(TOMLSyntaxError) -> String {
        let start = mark
        let isArray = peek(at: 1) == .leftBracket
        position += isArray ? 2 : 1
        skipWhitespace()
        if peek == .rightBracket {
            throw error("a table header needs a name: [name]")
        }
        let key = try parseKey()
        let shown = isArray ? "[[\(Self.display(key))]]" : "[\(Self.display(key))]"
        if peek != .rightBracket || (isArray && peek(at: 1) != .rightBracket) {
            throw error(
                "expected '\(isArray ? "]]" : "]")' at the end of the table header \(shown.dropLast(isArray ? 2 : 1)), "
                    + "found \(describe(position))")
        }
        position += isArray ? 2 : 1
        section += 1
        try defineTable(key, isArray: isArray, shown: shown, at: start)
        return shown
    }

    mutating func defineTable(_ key: [String], isArray: Bool, shown: String, at start: Mark) throws(TOMLSyntaxError) {
        var table = root
        var isListed = true
        for part in key.dropLast() {
            let name = Self.join(table.name, part)
            switch table.children[part] {
            case .table(let child):
                if child.origin == .inline {
                    throw error(
                        "\(shown) cannot add to \"\(name)\", an inline table (line \(child.line)): an inline table is complete in itself",
                        at: start)
                }
                table = child
            case .tableArray(let array):
                table = array.elements[array.elements.count - 1]
                isListed = isListed && array.listed
            case .value(let value, let line):
                throw error(
                    "\(shown) cannot make a table inside \"\(name)\": it is \(value.typeName) (line \(line))", at: start
                )
            case nil:
                let child = TOMLTable(origin: .implicit, line: start.line, name: name)
                table.add(part, .table(child))
                if isListed { list(child) }
                table = child
            }
        }
        let last = key[key.count - 1]
        let name = Self.join(table.name, last)
        switch table.children[last] {
        case .table(let existing):
            if isArray {
                throw error(
                    "\(shown) cannot make \"\(name)\" an array of tables: it is a table (line \(existing.line))",
                    at: start)
            }
            switch existing.origin {
            case .implicit:
                existing.origin = .header
                existing.line = start.line
                if let index = existing.documentIndex { document.tables[index].line = start.line }
                current = existing
            case .header:
                throw error("the table \(shown) is defined twice (first on line \(existing.line))", at: start)
            case .dotted:
                throw error(
                    "the table \(shown) is already defined by dotted keys on line \(existing.line); "
                        + "write its keys in one place", at: start)
            case .inline:
                throw error(
                    "the table \(shown) is already defined as an inline table on line \(existing.line)", at: start)
            }
        case .tableArray(let array):
            guard isArray else {
                throw error(
                    "the table \(shown) is already an array of tables [[\(name)]] (line \(array.line))", at: start)
            }
            let element = TOMLTable(
                origin: .header, line: start.line, name: "\(name)[\(array.elements.count + 1)]")
            array.elements.append(element)
            if array.listed { list(element) }
            current = element
            isListed = array.listed
        case .value(let value, let line):
            if isArray, case .array = value {
                throw error(
                    "\(shown) cannot add to \"\(name)\": it is an array written as a value (line \(line))", at: start)
            }
            throw error("the table \(shown) redefines the key \"\(name)\" (line \(line))", at: start)
        case nil:
            let child = TOMLTable(origin: .header, line: start.line, name: isArray ? "\(name)[1]" : name)
            if isArray {
                table.add(last, .tableArray(TOMLTableArray(first: child, line: start.line, listed: isListed)))
                if isListed { list(child) }
            } else {
                table.add(last, .table(child))
                if isListed { list(child) }
            }
            current = child
        }
        listed = isListed
    }

    mutating func list(_ table: TOMLTable) {
        table.documentIndex = document.tables.count
        document.tables.append((name: table.name, line: table.line))
    }

    // MARK: key/value

    /// `key = value` into `table`. Returns the key.
    mutating func parseKeyValue(into table: TOMLTable, listed: Bool, section: Int) throws(TOMLSyntaxError) -> [String] {
        let start = mark
        let key = try parseKey()
        if peek != .equals {
            throw error("expected '=' after the key \"\(Self.display(key))\", found \(describe(position))")
        }
        position += 1
        skipWhitespace()
        let value = try parseValue(of: key, inArray: false, depth: 0)
        try insert(key, value, into: table, at: start, listed: listed, section: section)
        return key
    }

    mutating func insert(
        _ key: [String], _ value: TOMLParsedValue, into base: TOMLTable, at start: Mark, listed: Bool, section: Int
    ) throws(TOMLSyntaxError) {
        let shown = Self.display(key)
        var table = base
        for part in key.dropLast() {
            let name = Self.join(table.name, part)
            switch table.children[part] {
            case .table(let child):
                switch child.origin {
                case .inline:
                    throw error(
                        "cannot add \"\(shown)\" to \"\(name)\", an inline table (line \(child.line)): "
                            + "an inline table is complete in itself", at: start)
                case .header:
                    throw error(
                        "cannot add \"\(shown)\" to the table [\(name)] (line \(child.line)) with a dotted key: "
                            + "write the key under its header", at: start)
                case .dotted(let other) where other != section:
                    throw error(
                        "cannot add \"\(shown)\" to the table \"\(name)\" (line \(child.line)): "
                            + "it was defined with dotted keys under another header", at: start)
                case .dotted:
                    break
                case .implicit:
                    child.origin = .dotted(section: section)
                }
                table = child
            case .tableArray(let array):
                throw error(
                    "cannot add \"\(shown)\" to the array of tables [[\(name)]] (line \(array.line)) with a dotted key",
                    at: start)
            case .value(let existing, let line):
                throw error(
                    "cannot use the dotted key \"\(shown)\": \"\(name)\" is already \(existing.typeName) (line \(line)), "
                        + "not a table", at: start)
            case nil:
                let child = TOMLTable(origin: .dotted(section: section), line: start.line, name: name)
                table.add(part, .table(child))
                if listed { list(child) }
                table = child
            }
        }
        let last = key[key.count - 1]
        let name = Self.join(table.name, last)
        switch table.children[last] {
        case .value(_, let line):
            throw error("duplicate key \"\(name)\": already defined on line \(line)", at: start)
        case .table(let existing):
            throw error("the key \"\(name)\" redefines the table [\(name)] (line \(existing.line))", at: start)
        case .tableArray(let array):
            throw error("the key \"\(name)\" redefines the array of tables [[\(name)]] (line \(array.line))", at: start)
        case nil:
            break
        }
        switch value {
        case .value(let value):
            table.add(last, .value(value, line: start.line))
            if listed {
                document.entries.append(
                    ConfigDocument.Entry(table: table.name, key: last, value: value, line: start.line))
            }
        case .inlineTable(let inline):
            inline.line = start.line
            inline.name = name
            table.add(last, .table(inline))
            if listed { listInline(inline, name: name) }
        }
    }

    /// Lists an inline table and everything in it.
    mutating func listInline(_ table: TOMLTable, name: String) {
        document.tables.append((name: name, line: table.line))
        for key in table.order {
            switch table.children[key] {
            case .value(let value, let line):
                document.entries.append(ConfigDocument.Entry(table: name, key: key, value: value, line: line))
            case .table(let child):
                listInline(child, name: Self.join(name, key))
            case .tableArray, nil:
                break
            }
        }
    }

    // MARK: values

    mutating func parseValue(of key: [String], inArray: Bool, depth: Int) throws(TOMLSyntaxError) -> TOMLParsedValue {
        let shown = Self.display(key)
        guard let byte = peek, byte != .lineFeed, byte != .carriageReturn, byte != .numberSign else {
            if inArray { throw error("unterminated array \"\(shown)\": missing ']'") }
            throw error("missing the value of \"\(shown)\" after '='")
        }
        switch byte {
        case .quote:
            if peek(at: 1) == .quote, peek(at: 2) == .quote { return .value(.string(try parseMultilineBasicString())) }
            return .value(.string(try parseBasicString()))
        case .apostrophe:
            if peek(at: 1) == .apostrophe, peek(at: 2) == .apostrophe {
                return .value(.string(try parseMultilineLiteralString()))
            }
            return .value(.string(try parseLiteralString()))
        case .leftBracket:
            if depth >= Self.maximumDepth { throw error("arrays and inline tables are nested too deeply") }
            return .value(try parseArray(of: key, depth: depth + 1))
        case .leftBrace:
            if depth >= Self.maximumDepth { throw error("arrays and inline tables are nested too deeply") }
            return .inlineTable(try parseInlineTable(of: key, depth: depth + 1))
        default:
            return .value(try parseBareValue(of: shown, inArray: inArray))
        }
    }

    mutating func parseArray(of key: [String], depth: Int) throws(TOMLSyntaxError) -> ConfigValue {
        let start = mark
        let shown = Self.display(key)
        position += 1
        var items: [ConfigValue] = []
        while true {
            try skipWhitespaceNewlinesAndComments()
            guard let byte = peek else { throw error("unterminated array \"\(shown)\": missing ']'", at: start) }
            if byte == .rightBracket {
                position += 1
                return .array(items)
            }
            if startsKeyValue() {
                throw error("unterminated array \"\(shown)\": missing ']' before the key on line \(line)", at: start)
            }
            switch try parseValue(of: key, inArray: true, depth: depth) {
            case .value(let value): items.append(value)
            case .inlineTable: items.append(.other("an inline table"))
            }
            try skipWhitespaceNewlinesAndComments()
            switch peek {
            case .comma?:
                position += 1
            case .rightBracket?:
                position += 1
                return .array(items)
            case nil:
                throw error("unterminated array \"\(shown)\": missing ']'", at: start)
            default:
                throw error("expected ',' or ']' after a value in the array \"\(shown)\", found \(describe(position))")
            }
        }
    }

    /// Whether `key =` follows (a value never does): inside an array, the `]` was forgotten.
    func startsKeyValue() -> Bool {
        var index = position
        while index < bytes.count, bytes[index].isBareKey { index += 1 }
        if index == position, let quote = peek, quote == .quote || quote == .apostrophe {
            index += 1
            while index < bytes.count, bytes[index] != quote, bytes[index] != .lineFeed { index += 1 }
            guard index < bytes.count, bytes[index] == quote else { return false }
            index += 1
        }
        guard index > position else { return false }
        while index < bytes.count, bytes[index] == .space || bytes[index] == .tab { index += 1 }
        return index < bytes.count && bytes[index] == .equals
    }

    mutating func parseInlineTable(of key: [String], depth: Int) throws(TOMLSyntaxError) -> TOMLTable {
        let start = mark
        let shown = Self.display(key)
        position += 1
        let table = TOMLTable(origin: .inline, line: start.line, name: "")
        skipWhitespace()
        if peek == .rightBrace {
            position += 1
            return table
        }
        while true {
            skipWhitespace()
            switch peek {
            case nil:
                throw error("unterminated inline table \"\(shown)\": missing '}'", at: start)
            case .lineFeed?, .carriageReturn?:
                throw error("an inline table must be on one line (TOML 1.0): missing '}' of \"\(shown)\"")
            default:
                break
            }
            _ = try parseKeyValue(into: table, listed: false, section: -1)
            skipWhitespace()
            switch peek {
            case .comma?:
                position += 1
                skipWhitespace()
                if peek == .rightBrace {
                    throw error("a comma before '}' is not allowed in an inline table (TOML 1.0)")
                }
            case .rightBrace?:
                position += 1
                return table
            case nil:
                throw error("unterminated inline table \"\(shown)\": missing '}'", at: start)
            case .lineFeed?, .carriageReturn?:
                throw error("an inline table must be on one line (TOML 1.0): missing '}' of \"\(shown)\"")
            default:
                throw error(
                    "expected ',' or '}' after a value in the inline table \"\(shown)\", found \(describe(position))")
            }
        }
    }

    // MARK: strings

    mutating func parseBasicString() throws(TOMLSyntaxError) -> String {
        let start = mark
        position += 1
        var text: [UInt8] = []
        while true {
            guard let byte = peek else { throw error("unterminated string: missing the closing '\"'", at: start) }
            switch byte {
            case .quote:
                position += 1
                return String(decoding: text, as: UTF8.self)
            case .backslash:
                try parseEscape(into: &text)
            case .lineFeed, .carriageReturn:
                throw error(
                    "unterminated string: missing the closing '\"' on this line (\"\"\"...\"\"\" spans lines)",
                    at: start)
            default:
                if byte.isControl { throw controlCharacterError() }
                text.append(byte)
                position += 1
            }
        }
    }

    mutating func parseLiteralString() throws(TOMLSyntaxError) -> String {
        let start = mark
        position += 1
        let first = position
        while true {
            guard let byte = peek else { throw error("unterminated string: missing the closing \"'\"", at: start) }
            switch byte {
            case .apostrophe:
                position += 1
                return String(decoding: bytes[first..<(position - 1)], as: UTF8.self)
            case .lineFeed, .carriageReturn:
                throw error(
                    "unterminated string: missing the closing \"'\" on this line ('''...''' spans lines)", at: start)
            default:
                if byte.isControl { throw controlCharacterError() }
                position += 1
            }
        }
    }

    mutating func parseMultilineBasicString() throws(TOMLSyntaxError) -> String {
        let start = mark
        position += 3
        _ = consumeNewline()
        var text: [UInt8] = []
        while true {
            guard let byte = peek else {
                throw error("unterminated multi-line string: missing the closing '\"\"\"'", at: start)
            }
            switch byte {
            case .quote:
                if try closesMultilineString(.quote, into: &text) { return String(decoding: text, as: UTF8.self) }
            case .backslash:
                var index = position + 1
                while index < bytes.count, bytes[index] == .space || bytes[index] == .tab { index += 1 }
                let atLineEnd =
                    index < bytes.count
                    && (bytes[index] == .lineFeed
                        || (bytes[index] == .carriageReturn && index + 1 < bytes.count && bytes[index + 1] == .lineFeed))
                if atLineEnd {
                    // A line-ending backslash: drop the newline and the whitespace after it.
                    position = index
                    while true {
                        skipWhitespace()
                        if !consumeNewline() { break }
                    }
                } else {
                    try parseEscape(into: &text)
                }
            case .lineFeed, .carriageReturn:
                guard consumeNewline() else { throw controlCharacterError() }
                text.append(.lineFeed)
            default:
                if byte.isControl { throw controlCharacterError() }
                text.append(byte)
                position += 1
            }
        }
    }

    mutating func parseMultilineLiteralString() throws(TOMLSyntaxError) -> String {
        let start = mark
        position += 3
        _ = consumeNewline()
        var text: [UInt8] = []
        while true {
            guard let byte = peek else {
                throw error("unterminated multi-line string: missing the closing \"'''\"", at: start)
            }
            switch byte {
            case .apostrophe:
                if try closesMultilineString(.apostrophe, into: &text) {
                    return String(decoding: text, as: UTF8.self)
                }
            case .lineFeed, .carriageReturn:
                guard consumeNewline() else { throw controlCharacterError() }
                text.append(.lineFeed)
            default:
                if byte.isControl { throw controlCharacterError() }
                text.append(byte)
                position += 1
            }
        }
    }

    /// At a run of `delimiter`s in a multi-line string: one or two belong to the text; three
    /// close it (up to two more before them belong to the text).
    mutating func closesMultilineString(_ delimiter: UInt8, into text: inout [UInt8]) throws(TOMLSyntaxError) -> Bool {
        var count = 0
        while peek(at: count) == delimiter { count += 1 }
        if count > 5 {
            let three = String(repeating: Character(Unicode.Scalar(delimiter)), count: 3)
            throw error(
                "\(three) inside a multi-line string must be broken up\(delimiter == .quote ? " or escaped" : "")")
        }
        position += count
        if count < 3 {
            text.append(contentsOf: repeatElement(delimiter, count: count))
            return false
        }
        text.append(contentsOf: repeatElement(delimiter, count: count - 3))
        return true
    }

    /// At a backslash in a basic string.
    mutating func parseEscape(into text: inout [UInt8]) throws(TOMLSyntaxError) {
        let start = mark
        position += 1
        guard let byte = peek else { throw error("unterminated string: missing the closing '\"'") }
        position += 1
        switch byte {
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "t"): text.append(.tab)
        case UInt8(ascii: "n"): text.append(.lineFeed)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "r"): text.append(.carriageReturn)
        case .quote: text.append(.quote)
        case .backslash: text.append(.backslash)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = byte == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for offset in 0..<count {
                guard let digit = peek(at: offset), digit.isHexDigit else {
                    throw error(
                        "the escape \\\(Character(Unicode.Scalar(byte))) needs exactly \(count) hexadecimal digits",
                        at: start)
                }
                value = value * 16 + UInt32(Self.hexValue(digit))
            }
            let written = String(decoding: bytes[(start.position)..<(position + count)], as: UTF8.self)
            position += count
            guard let scalar = Unicode.Scalar(value) else {
                throw error(
                    "the escape \(written) is not a Unicode scalar value (no surrogates, at most 10FFFF)", at: start)
            }
            text.append(contentsOf: scalar.utf8)
        default:
            throw error(
                "invalid escape: \\ followed by \(describe(position - 1)) "
                    + "(valid: \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX; write a backslash as \\\\)",
                at: start)
        }
    }

    static func hexValue(_ digit: UInt8) -> UInt8 {
        if digit.isDigit { return digit - UInt8(ascii: "0") }
        return (digit | 0x20) - UInt8(ascii: "a") + 10
    }

    func controlCharacterError() -> TOMLSyntaxError {
        let byte = bytes[position]
        if byte == .carriageReturn {
            return error("a carriage return in a string must be followed by a line feed (or written as \\r)")
        }
        return error("\(describe(position)) is not allowed in a string; write it as an escape such as \\t or \\u001B")
    }

    // MARK: bare values: booleans, numbers, dates

    mutating func parseBareValue(of key: String, inArray: Bool) throws(TOMLSyntaxError) -> ConfigValue {
        let start = mark
        while let byte = peek, !byte.endsBareValue { position += 1 }
        // A date, a space and a time: one date-time.
        if position - start.position == 10, bytes[start.position + 4] == .minus, peek == .space,
            let hour = peek(at: 1), hour.isDigit, let digit = peek(at: 2), digit.isDigit, peek(at: 3) == .colon
        {
            position += 1
            while let byte = peek, !byte.endsBareValue { position += 1 }
        }
        let token = bytes[start.position..<position]
        let text = String(decoding: token, as: UTF8.self)
        guard let first = token.first else {
            if inArray { throw error("expected a value in the array \"\(key)\", found \(describe(position))") }
            throw error("missing the value of \"\(key)\" after '=', found \(describe(position))")
        }
        let result: Result<ConfigValue, TOMLValueProblem>
        if text == "true" {
            return .bool(true)
        } else if text == "false" {
            return .bool(false)
        } else if first.isDigit || first == .plus || first == .minus || first == .dot || text == "inf" || text == "nan"
        {
            if token.contains(.colon)
                || (token.count >= 5 && token.prefix(4).allSatisfy(\.isDigit) && token.dropFirst(4).first == .minus)
            {
                result = TOMLScalars.dateTime(token)
            } else {
                result = TOMLScalars.number(token)
            }
        } else {
            throw error(
                "invalid value \(text) for \"\(key)\" (a string needs quotes: \"\(text)\"; booleans are true and false)",
                at: start)
        }
        switch result {
        case .success(let value): return value
        case .failure(let problem):
            throw error("invalid \(problem.kind) \(text) for \"\(key)\": \(problem.reason)", at: start)
        }
    }
}

private struct TOMLValueProblem: Error {
    var kind: String
    var reason: String
}

/// Numbers, dates and times from the bytes of one bare value.
private enum TOMLScalars {
    /// `digit (_? digit)*`: nil when fine, or what is wrong.
    static func checkDigits(_ digits: ArraySlice<UInt8>, isDigit: (UInt8) -> Bool, what: String) -> String? {
        guard let first = digits.first else { return "\(what) needs digits" }
        if first == .underscore || digits.last == .underscore {
            return "an underscore must stand between two digits"
        }
        var previous: UInt8 = 0
        for byte in digits {
            if byte == .underscore {
                if previous == .underscore { return "an underscore must stand between two digits" }
            } else if !isDigit(byte) {
                return "'\(Character(Unicode.Scalar(byte)))' is not a digit of \(what)"
            }
            previous = byte
        }
        return nil
    }

    static func withoutUnderscores(_ digits: ArraySlice<UInt8>) -> String {
        String(decoding: digits.filter { $0 != .underscore }, as: UTF8.self)
    }

    static func number(_ token: ArraySlice<UInt8>) -> Result<ConfigValue, TOMLValueProblem> {
        var body = token
        var sign = ""
        if let first = body.first, first == .plus || first == .minus {
            sign = first == .minus ? "-" : "+"
            body = body.dropFirst()
        }
        if body.elementsEqual("inf".utf8) { return .success(.float(sign == "-" ? -.infinity : .infinity)) }
        if body.elementsEqual("nan".utf8) { return .success(.float(.nan)) }

        if body.count >= 2, body.first == UInt8(ascii: "0"), let prefix = body.dropFirst().first,
            let entry = radixes[prefix]
        {
            let (radix, name) = entry
            let problem = { (reason: String) in TOMLValueProblem(kind: "integer", reason: reason) }
            if !sign.isEmpty { return .failure(problem("\(name) integer cannot have a sign")) }
            let digits = body.dropFirst(2)
            let isDigit: (UInt8) -> Bool =
                switch radix {
                case 2: { $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: "1") }
                case 8: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
                default: { $0.isHexDigit }
                }
            if let reason = checkDigits(digits, isDigit: isDigit, what: "\(name) integer") {
                return .failure(problem(reason))
            }
            guard let value = Int64(withoutUnderscores(digits), radix: radix) else {
                return .failure(problem("out of range (a 64-bit signed integer)"))
            }
            return .success(.integer(value))
        }

        // Decimal: integer part, optional fraction, optional exponent.
        let integerPart = body.prefix { $0.isDigit || $0 == .underscore }
        var rest = body.dropFirst(integerPart.count)
        var fraction: ArraySlice<UInt8>?
        var exponent: ArraySlice<UInt8>?
        var exponentSign = ""
        if rest.first == .dot {
            rest = rest.dropFirst()
            let digits = rest.prefix { $0.isDigit || $0 == .underscore }
            fraction = digits
            rest = rest.dropFirst(digits.count)
        }
        if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if let first = rest.first, first == .plus || first == .minus {
                exponentSign = first == .minus ? "-" : "+"
                rest = rest.dropFirst()
            }
            let digits = rest.prefix { $0.isDigit || $0 == .underscore }
            exponent = digits
            rest = rest.dropFirst(digits.count)
        }
        let isFloat = fraction != nil || exponent != nil
        let kind = isFloat ? "number" : "integer"
        let problem = { (reason: String) in TOMLValueProblem(kind: kind, reason: reason) }
        if integerPart.isEmpty {
            return .failure(problem("a number must start with a digit (after an optional sign)"))
        }
        if let first = rest.first {
            return .failure(problem("unexpected '\(Character(Unicode.Scalar(first)))'"))
        }
        if let reason = checkDigits(integerPart, isDigit: \.isDigit, what: "a number") {
            return .failure(problem(reason))
        }
        if integerPart.count > 1, integerPart.first == UInt8(ascii: "0") {
            return .failure(problem("leading zeros are not allowed"))
        }
        if let fraction, let reason = checkDigits(fraction, isDigit: \.isDigit, what: "the fraction after '.'") {
            return .failure(problem(reason))
        }
        if let exponent, let reason = checkDigits(exponent, isDigit: \.isDigit, what: "the exponent") {
            return .failure(problem(reason))
        }
        guard isFloat else {
            guard let value = Int64(sign + withoutUnderscores(integerPart)) else {
                return .failure(problem("out of range (a 64-bit signed integer)"))
            }
            return .success(.integer(value))
        }
        var text = sign + withoutUnderscores(integerPart)
        if let fraction { text += "." + withoutUnderscores(fraction) }
        if let exponent { text += "e" + exponentSign + withoutUnderscores(exponent) }
        guard let value = Double(text) else { return .failure(problem("not a number")) }
        return .success(.float(value))
    }

    static let radixes: [UInt8: (Int, String)] = [
        UInt8(ascii: "x"): (16, "a hexadecimal"), UInt8(ascii: "o"): (8, "an octal"),
        UInt8(ascii: "b"): (2, "a binary"),
    ]

    /// A local date, a local time, or a date-time with or without an offset.
    static func dateTime(_ token: ArraySlice<UInt8>) -> Result<ConfigValue, TOMLValueProblem> {
        var reader = FixedDigits(bytes: token)
        let hasDate = token.count >= 5 && token.dropFirst(4).first == .minus
        let kind = hasDate ? (token.count > 10 ? "date-time" : "date") : "time"
        let problem = { (reason: String) in TOMLValueProblem(kind: kind, reason: reason) }
        if hasDate {
            guard let year = reader.digits(4), reader.skip(.minus), let month = reader.digits(2), reader.skip(.minus),
                let day = reader.digits(2)
            else { return .failure(problem("expected a date as YYYY-MM-DD")) }
            guard (1...12).contains(month) else { return .failure(problem("there is no month \(month)")) }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            guard (1...days).contains(day) else { return .failure(problem("month \(month) has no day \(day)")) }
            if reader.atEnd { return .success(.other("a date")) }
            guard reader.skip(UInt8(ascii: "T")) || reader.skip(UInt8(ascii: "t")) || reader.skip(.space) else {
                return .failure(problem("expected 'T' or a space between the date and the time"))
            }
        }
        guard let hour = reader.digits(2), reader.skip(.colon), let minute = reader.digits(2), reader.skip(.colon),
            let second = reader.digits(2)
        else { return .failure(problem("expected a time as HH:MM:SS")) }
        guard hour < 24, minute < 60, second <= 60 else { return .failure(problem("the time is out of range")) }
        if reader.skip(.dot) {
            guard reader.digits(1) != nil else { return .failure(problem("expected digits after '.'")) }
            while reader.digits(1) != nil {}
        }
        if reader.atEnd { return .success(.other(hasDate ? "a date-time" : "a time")) }
        guard hasDate else { return .failure(problem("a time of day cannot have an offset or anything else after it")) }
        if reader.skip(UInt8(ascii: "Z")) || reader.skip(UInt8(ascii: "z")) {
        } else if reader.skip(.plus) || reader.skip(.minus) {
            guard let offsetHour = reader.digits(2), reader.skip(.colon), let offsetMinute = reader.digits(2) else {
                return .failure(problem("expected an offset as +HH:MM or -HH:MM"))
            }
            guard offsetHour < 24, offsetMinute < 60 else { return .failure(problem("the offset is out of range")) }
        } else {
            return .failure(problem("expected 'Z' or an offset such as +01:00 after the time"))
        }
        guard reader.atEnd else { return .failure(problem("unexpected text after the offset")) }
        return .success(.other("a date-time"))
    }

    struct FixedDigits {
        var bytes: ArraySlice<UInt8>

        var atEnd: Bool { bytes.isEmpty }

        mutating func skip(_ byte: UInt8) -> Bool {
            guard bytes.first == byte else { return false }
            bytes = bytes.dropFirst()
            return true
        }

        /// Exactly `count` digits.
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count >= count, bytes.prefix(count).allSatisfy(\.isDigit) else { return nil }
            let value = bytes.prefix(count).reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            bytes = bytes.dropFirst(count)
            return value
        }
    }
}
