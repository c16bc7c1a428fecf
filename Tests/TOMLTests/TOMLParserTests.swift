import Glibc
import JukeboxCore
import Testing

@testable import TOML

/// The TOML 1.0 parser: values, lines, errors, the repository's config files, and a
/// fuzz run over mutations of config/jukebox.toml.
@Suite struct TOMLParserTests {
    typealias Entry = ConfigDocument.Entry

    static func parse(_ text: String) -> Result<ConfigDocument, TOMLSyntaxError> {
        TOMLParser.parse(text, fileName: "jukebox.toml")
    }

    static func document(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> ConfigDocument? {
        switch parse(text) {
        case .success(let document): return document
        case .failure(let error):
            Issue.record("\(text.debugDescription) does not parse: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    // MARK: values

    static let values: [(toml: String, value: ConfigValue)] = [
        // basic strings and every escape
        (#""plain""#, .string("plain")),
        (#""""#, .string("")),
        (#""a\bb""#, .string("a\u{08}b")),
        (#""a\tb""#, .string("a\tb")),
        (#""a\nb""#, .string("a\nb")),
        (#""a\fb""#, .string("a\u{0C}b")),
        (#""a\rb""#, .string("a\rb")),
        (#""a\"b""#, .string("a\"b")),
        (#""a\\b""#, .string("a\\b")),
        (#""\u00e9\u0000""#, .string("é\u{0}")),
        (#""\U0001F600\U0010FFFF""#, .string("😀\u{10FFFF}")),
        ("\"tab\there é # not a comment\"", .string("tab\there é # not a comment")),
        // literal strings
        (#"'C:\Users\x #'"#, .string(#"C:\Users\x #"#)),
        ("''", .string("")),
        (#"'say "hi"'"#, .string(#"say "hi""#)),
        // multi-line basic: first newline trimmed, line-ending backslash, quotes inside
        ("\"\"\"\nRoses\nViolets\"\"\"", .string("Roses\nViolets")),
        ("\"\"\"one \\\n    two \\   \n\n  three\"\"\"", .string("one two three")),
        ("\"\"\"a \"\" b\"\"\"", .string("a \"\" b")),
        ("\"\"\"\"quoted\"\"\"\"\"", .string("\"quoted\"\"")),
        ("\"\"\"\\\"\"\"\\u00e9\"\"\"", .string("\"\"\"é")),
        ("\"\"\"\"\"\"", .string("")),
        // multi-line literal
        ("'''\nfirst newline trimmed\n  \\n stays'''", .string("first newline trimmed\n  \\n stays")),
        ("''''one' ''two'''''", .string("'one' ''two''")),
        // integers
        ("0", .integer(0)), ("+99", .integer(99)), ("-17", .integer(-17)), ("-0", .integer(0)),
        ("1_000_000", .integer(1_000_000)),
        ("9223372036854775807", .integer(.max)), ("-9223372036854775808", .integer(.min)),
        ("0xDEAD_beef", .integer(0xDEAD_BEEF)), ("0x7FFFFFFFFFFFFFFF", .integer(.max)),
        ("0o755", .integer(0o755)), ("0b1101_0110", .integer(0b1101_0110)), ("0x0", .integer(0)),
        // floats
        ("3.1415", .float(3.1415)), ("-0.01", .float(-0.01)), ("+1.0", .float(1)), ("5e+22", .float(5e22)),
        ("1e06", .float(1e6)), ("-2E-2", .float(-0.02)), ("6.626e-34", .float(6.626e-34)),
        ("224_617.445_991", .float(224_617.445_991)), ("1e1_0", .float(1e10)), ("0.0", .float(0)),
        ("inf", .float(.infinity)), ("+inf", .float(.infinity)), ("-inf", .float(-.infinity)),
        // booleans
        ("true", .bool(true)), ("false", .bool(false)),
        // arrays: nested, mixed, multi-line with comments and a trailing comma
        ("[]", .array([])), ("[ 1, 2, 3 ]", .array([.integer(1), .integer(2), .integer(3)])),
        ("[[1, 2], [\"a\"], []]", .array([.array([.integer(1), .integer(2)]), .array([.string("a")]), .array([])])),
        (
            "[1, \"two\", 3.0, true, 1979-05-27]",
            .array([.integer(1), .string("two"), .float(3), .bool(true), .other("a date")])
        ),
        ("[ # comment\n  1, # one\n\n  2, # two\n] ", .array([.integer(1), .integer(2)])),
        ("[\"a\",]", .array([.string("a")])),
        ("[{ x = 1 }, {}]", .array([.other("an inline table"), .other("an inline table")])),
        // dates and times
        ("1979-05-27T07:32:00Z", .other("a date-time")), ("1979-05-27T00:32:00.999999-07:00", .other("a date-time")),
        ("1979-05-27 07:32:00+05:30", .other("a date-time")), ("1979-05-27t07:32:00z", .other("a date-time")),
        ("1979-05-27T07:32:00", .other("a date-time")), ("1979-05-27 00:32:00.5", .other("a date-time")),
        ("1979-05-27", .other("a date")), ("2000-02-29", .other("a date")),
        ("07:32:00", .other("a time")), ("00:32:00.999999", .other("a time")), ("23:59:60", .other("a time")),
    ]

    @Test(arguments: values) func value(toml: String, value: ConfigValue) throws {
        let document = try #require(Self.document("key = \(toml) # comment\nnext = 1"))
        #expect(document.entries.first == Entry(table: "", key: "key", value: value, line: 1), "\(toml)")
        #expect(document.entries.last?.line == toml.count(where: { $0 == "\n" }) + 2)
    }

    @Test func notANumber() throws {
        for toml in ["nan", "+nan", "-nan"] {
            let document = try #require(Self.document("x = \(toml)"))
            guard case .float(let value) = document.entries.first?.value else {
                Issue.record("\(toml): \(document.entries)")
                continue
            }
            #expect(value.isNaN)
        }
    }

    // MARK: keys and tables

    @Test func keysAndTables() throws {
        let document = try #require(
            Self.document(
                """
                bare-key_1 = 1
                "quoted key" = 2
                'literal "key"' = 3
                "" = 4
                a . "b.c" . d = 5
                1234 = 6
                [table]
                key = 7
                [ "with space" . sub ]
                key = 8
                """))
        #expect(
            document.entries == [
                Entry(table: "", key: "bare-key_1", value: .integer(1), line: 1),
                Entry(table: "", key: "quoted key", value: .integer(2), line: 2),
                Entry(table: "", key: "literal \"key\"", value: .integer(3), line: 3),
                Entry(table: "", key: "", value: .integer(4), line: 4),
                Entry(table: "a.b.c", key: "d", value: .integer(5), line: 5),
                Entry(table: "", key: "1234", value: .integer(6), line: 6),
                Entry(table: "table", key: "key", value: .integer(7), line: 8),
                Entry(table: "with space.sub", key: "key", value: .integer(8), line: 10),
            ])
        #expect(document.tables.map(\.name) == ["a", "a.b.c", "table", "with space", "with space.sub"])
        #expect(document.tables.map(\.line) == [5, 5, 7, 9, 9])
    }

    @Test func tablesMadeByHeadersDottedKeysAndInlineTables() throws {
        let document = try #require(
            Self.document(
                """
                [x.y.z]
                k = 1
                [x]
                k = 2
                [fruit]
                apple.color = "red"
                apple.taste.sweet = true
                [fruit.apple.texture]
                smooth = true
                [inline]
                point = { x = 1, y.z = 2, deep = { a = [1] } }
                empty = {}
                """))
        #expect(
            document.tables.map(\.name) == [
                "x", "x.y", "x.y.z", "fruit", "fruit.apple", "fruit.apple.taste", "fruit.apple.texture", "inline",
                "inline.point", "inline.point.y", "inline.point.deep", "inline.empty",
            ])
        // An implicit table gets the line of its own header when it has one.
        #expect(document.tables.map(\.line) == [3, 1, 1, 5, 6, 7, 8, 10, 11, 11, 11, 12])
        #expect(
            document.entries == [
                Entry(table: "x.y.z", key: "k", value: .integer(1), line: 2),
                Entry(table: "x", key: "k", value: .integer(2), line: 4),
                Entry(table: "fruit.apple", key: "color", value: .string("red"), line: 6),
                Entry(table: "fruit.apple.taste", key: "sweet", value: .bool(true), line: 7),
                Entry(table: "fruit.apple.texture", key: "smooth", value: .bool(true), line: 9),
                Entry(table: "inline.point", key: "x", value: .integer(1), line: 11),
                Entry(table: "inline.point.y", key: "z", value: .integer(2), line: 11),
                Entry(table: "inline.point.deep", key: "a", value: .array([.integer(1)]), line: 11),
            ])
    }

    @Test func arraysOfTablesListEachElementAsATable() throws {
        let document = try #require(
            Self.document(
                """
                [[fruit]]
                name = "apple"
                [fruit.physical]
                color = "red"
                [[fruit.variety]]
                name = "red delicious"
                [[fruit]]
                name = "banana"

                [after]
                k = 1
                """))
        #expect(
            document.entries == [
                Entry(table: "fruit[1]", key: "name", value: .string("apple"), line: 2),
                Entry(table: "fruit[1].physical", key: "color", value: .string("red"), line: 4),
                Entry(table: "fruit[1].variety[1]", key: "name", value: .string("red delicious"), line: 6),
                Entry(table: "fruit[2]", key: "name", value: .string("banana"), line: 8),
                Entry(table: "after", key: "k", value: .integer(1), line: 11),
            ])
        #expect(
            document.tables.map(\.name) == [
                "fruit[1]", "fruit[1].physical", "fruit[1].variety[1]", "fruit[2]", "after",
            ])
        #expect(document.tables.map(\.line) == [1, 3, 5, 7, 10])
    }

    // MARK: lines

    @Test func linesAfterMultiLineStringsAndArrays() throws {
        let text = """
            # comment
            top = 1
            multi = \"\"\"
            one
            two\"\"\"
            after_multi = 2
            arr = [
              1, # one
              "two",
            ]
            after_arr = 3
            lit = '''
            x'''
              [audio]
            device = "null"
              [audio.sub]
              key = 'v'
            [queue]
            dotted.key = 1
            inline = { a = 1, b.c = [
              2,
            ] }
            cont = \"\"\"\\
              joined\"\"\"
            last = true
            """
        let document = try #require(Self.document(text))
        #expect(
            document.entries.map { "\($0.qualifiedKey)@\($0.line ?? 0)" } == [
                "top@2", "multi@3", "after_multi@6", "arr@7", "after_arr@11", "lit@12", "audio.device@15",
                "audio.sub.key@17", "queue.dotted.key@19", "queue.inline.a@20", "queue.inline.b.c@20", "queue.cont@23",
                "queue.last@25",
            ])
        #expect(
            document.tables.map { "\($0.name)@\($0.line ?? 0)" } == [
                "audio@14", "audio.sub@16", "queue@18", "queue.dotted@19", "queue.inline@20", "queue.inline.b@20",
            ])
        #expect(document.entries.first { $0.key == "multi" }?.value == .string("one\ntwo"))
        #expect(document.entries.first { $0.key == "cont" }?.value == .string("joined"))

        // CRLF line endings and a byte order mark change nothing.
        let crlf = "\u{FEFF}" + text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
        #expect(Self.document(crlf) == document)
    }

    // MARK: errors

    static let errors: [(toml: String, line: Int, message: String)] = [
        // keys and key/value lines
        ("a = 1\nvolume 5", 2, "expected '=' after the key \"volume\""),
        ("volume", 1, "expected '=' after the key \"volume\", found the end of the file"),
        ("= 1", 1, "expected a key, found '='"),
        ("a..b = 1", 1, "expected a key after \"a.\""),
        ("\"\"\"a\"\"\" = 1", 1, "a multi-line string cannot be a key"),
        ("é = 1", 1, "expected a key, found 'é' (U+00E9)"),
        // missing values and garbage after a value
        ("a = 1\nb =\nc = 2", 2, "missing the value of \"b\" after '='"),
        ("b = # nothing", 1, "missing the value of \"b\" after '='"),
        ("a = 1 2", 1, "unexpected '2' after the value of \"a\""),
        ("a = \"x\" y", 1, "unexpected 'y' after the value of \"a\""),
        ("a = [1] ]", 1, "unexpected ']' after the value of \"a\""),
        ("[a] b = 1", 1, "unexpected 'b' after the table header [a]"),
        ("device = null", 1, "invalid value null for \"device\" (a string needs quotes: \"null\""),
        ("a = True", 1, "invalid value True"),
        // duplicates and redefinitions
        ("[audio]\ndevice = \"a\"\n\ndevice = \"b\"", 4, "duplicate key \"audio.device\": already defined on line 2"),
        ("a = {b = 1, b = 2}", 1, "duplicate key \"b\""),
        ("[audio]\nx = 1\n[queue]\n[audio]", 4, "the table [audio] is defined twice (first on line 1)"),
        ("[a.b]\nx = 1\n[a]\nb = 2", 4, "the key \"a.b\" redefines the table [a.b] (line 1)"),
        ("a.b.c = 1\na.b = 2", 2, "the key \"a.b\" redefines the table [a.b] (line 1)"),
        ("a = 1\n[a]", 2, "the table [a] redefines the key \"a\" (line 1)"),
        ("a = 1\na.b = 2", 2, "\"a\" is already an integer (line 1), not a table"),
        ("a.b = 1\n[a]", 2, "the table [a] is already defined by dotted keys on line 1"),
        ("[a.b]\n[a]\nb.c = 1", 3, "cannot add \"b.c\" to the table [a.b] (line 1) with a dotted key"),
        ("a = {b = 1}\na.c = 2", 2, "cannot add \"a.c\" to \"a\", an inline table (line 1)"),
        ("a = {b = 1}\n[a]", 2, "the table [a] is already defined as an inline table on line 1"),
        ("a = {b = 1}\n[a.c]", 2, "[a.c] cannot add to \"a\", an inline table (line 1)"),
        ("[a]\n[[a]]", 2, "[[a]] cannot make \"a\" an array of tables: it is a table (line 1)"),
        ("[[a]]\n[a]", 2, "the table [a] is already an array of tables [[a]] (line 1)"),
        ("a = []\n[[a]]", 2, "[[a]] cannot add to \"a\": it is an array written as a value (line 1)"),
        // strings
        ("\n\na = \"x", 3, "unterminated string: missing the closing '\"'"),
        ("a = \"x\nb = 1", 1, "unterminated string: missing the closing '\"' on this line"),
        ("a = 'x\n", 1, "unterminated string: missing the closing \"'\" on this line"),
        ("\na = \"\"\"\nx\n", 2, "unterminated multi-line string: missing the closing '\"\"\"'"),
        ("a = '''x", 1, "unterminated multi-line string: missing the closing \"'''\""),
        ("a = \"\"\"x\"\"\"\"\"\"", 1, "\"\"\" inside a multi-line string must be broken up or escaped"),
        ("a = \"x\u{01}\"", 1, "the control character U+0001 is not allowed in a string"),
        ("a = 'x\u{7F}'", 1, "the control character U+007F is not allowed in a string"),
        ("a = \"\"\"\n\nx\u{00}\"\"\"", 3, "the control character U+0000 is not allowed in a string"),
        ("a = \"\"\"x\ry\"\"\"", 1, "a carriage return in a string must be followed by a line feed"),
        ("a = 1 # \u{08}", 1, "the control character U+0008 is not allowed in a comment"),
        ("a = 1\rb = 2", 1, "a carriage return must be followed by a line feed"),
        // escapes
        ("a = \"\\x41\"", 1, "invalid escape: \\ followed by 'x'"),
        ("a = \"\\e\"", 1, "invalid escape: \\ followed by 'e'"),
        ("a = \"C:\\ \"", 1, "invalid escape: \\ followed by ' '"),
        ("a = \"\\u00e\"", 1, "the escape \\u needs exactly 4 hexadecimal digits"),
        ("a = \"\\U0001F60\"", 1, "the escape \\U needs exactly 8 hexadecimal digits"),
        ("a = \"\\uD800\"", 1, "the escape \\uD800 is not a Unicode scalar value"),
        ("a = \"\\U00110000\"", 1, "the escape \\U00110000 is not a Unicode scalar value"),
        // integers
        ("a = 01", 1, "invalid integer 01 for \"a\": leading zeros are not allowed"),
        ("a = 0_1", 1, "leading zeros are not allowed"),
        ("a = 1__0", 1, "an underscore must stand between two digits"),
        ("a = 1_", 1, "an underscore must stand between two digits"),
        ("a = +0x1", 1, "a hexadecimal integer cannot have a sign"),
        ("a = 0x", 1, "a hexadecimal integer needs digits"),
        ("a = 0b2", 1, "'2' is not a digit of a binary integer"),
        ("a = 0o8", 1, "'8' is not a digit of an octal integer"),
        ("a = 9223372036854775808", 1, "out of range (a 64-bit signed integer)"),
        ("a = -9223372036854775809", 1, "out of range (a 64-bit signed integer)"),
        ("a = 0x8000000000000000", 1, "out of range (a 64-bit signed integer)"),
        // floats
        ("a = 1.", 1, "invalid number 1. for \"a\": the fraction after '.' needs digits"),
        ("a = .5", 1, "a number must start with a digit"),
        ("a = 1.e5", 1, "the fraction after '.' needs digits"),
        ("a = 1e", 1, "the exponent needs digits"),
        ("a = 01.5", 1, "leading zeros are not allowed"),
        ("a = 1.5.2", 1, "unexpected '.'"),
        ("a = Inf", 1, "invalid value Inf"),
        // dates and times
        ("a = 1979-13-01", 1, "invalid date 1979-13-01 for \"a\": there is no month 13"),
        ("a = 1979-02-29", 1, "month 2 has no day 29"),
        ("a = 24:00:00", 1, "invalid time 24:00:00 for \"a\": the time is out of range"),
        ("a = 07:32", 1, "expected a time as HH:MM:SS"),
        ("a = 07:32:00Z", 1, "a time of day cannot have an offset"),
        ("a = 1979-05-27T07:32:00+24:00", 1, "the offset is out of range"),
        // arrays and inline tables
        ("a = [1 2]", 1, "expected ',' or ']' after a value in the array \"a\", found '2'"),
        ("a = [1,,2]", 1, "expected a value in the array \"a\", found ','"),
        ("a = [\n  1,\n  2,\n\nb = 3", 1, "unterminated array \"a\": missing ']' before the key on line 5"),
        ("a = [\n  1,\n  \"b\" = 3", 1, "unterminated array \"a\": missing ']' before the key on line 3"),
        ("a = [\n  1,\n  2", 1, "unterminated array \"a\": missing ']'"),
        ("a = {b = 1,}", 1, "a comma before '}' is not allowed in an inline table"),
        ("a = {b = 1\n}", 1, "an inline table must be on one line"),
        ("a = {b = 1 c = 2}", 1, "expected ',' or '}' after a value in the inline table \"a\", found 'c'"),
        ("a = " + String(repeating: "[", count: 100), 1, "arrays and inline tables are nested too deeply"),
        // headers
        ("[a", 1, "expected ']' at the end of the table header [a, found the end of the file"),
        ("[[a]", 1, "expected ']]' at the end of the table header [[a, found ']'"),
        ("[]", 1, "a table header needs a name"),
        ("[a.]", 1, "expected a key after \"a.\", found ']'"),
        // lines after multi-line strings and arrays
        ("s = \"\"\"\n\n\n\"\"\"\nvolume 5", 5, "expected '=' after the key \"volume\""),
        ("a = [\n1,\n2]\nb = [\n3,\n4] x", 6, "unexpected 'x' after the value of \"b\""),
    ]

    @Test(arguments: errors) func syntaxError(toml: String, line: Int, message: String) {
        switch Self.parse(toml) {
        case .success(let document):
            Issue.record("\(toml.debugDescription) parses: \(document.entries)")
        case .failure(let error):
            #expect(error.line == line, "\(toml.debugDescription): \(error)")
            #expect(error.message.contains(message), "\(toml.debugDescription): \(error)")
        }
    }

    @Test func syntaxErrorsAsDiagnostics() throws {
        guard case .failure(let error) = Self.parse("a = 1\n\n\n\n\n\nvolume 5") else {
            Issue.record("parses")
            return
        }
        #expect(
            error.diagnostic(fileName: "jukebox.toml").description
                == "jukebox.toml:7: syntax: expected '=' after the key \"volume\", found '5'")
        #expect(error.column == 8)
        // Columns count characters, not bytes, and not the byte order mark.
        guard case .failure(let second) = Self.parse("\u{FEFF}\"é\" = \"é\" x") else { return }
        #expect(second.column == 11, "\(second)")
        guard case .failure(let third) = Self.parse("a = \"x\"\r\nb = 1 2") else { return }
        #expect((third.line, third.column) == (2, 7))
    }

    // MARK: the repository's config files

    /// What TOMLKit (toml++) made of the fixture files before the core parsed TOML itself:
    /// tables (sorted by name: TOMLKit sorted them, the parser keeps them in file order) and
    /// entries. (config/*.toml, which change with the product, are checked below instead.)
    static let tomlKitDocuments: [String: String] = [
        "Tests/Fixtures/config/good.toml": """
        [audio] 5
        [console] 22
        [queue] 14
        [resume] 17
        2 music_dir = string("../media")
        3 database = string("/tmp/jukebox-test-good/jukebox.sqlite")
        6 audio.device = string("null")
        7 audio.period_ms = integer(10)
        8 audio.buffer_ms = integer(40)
        9 audio.mixer = string("")
        10 audio.start_volume = integer(40)
        11 audio.max_volume = integer(85)
        12 audio.pacing = string("clock")
        15 queue.mode = string("repeat-all")
        18 resume.on_start = string("play")
        19 resume.long_track_minutes = integer(10)
        20 resume.sync_interval_s = integer(30)
        23 console.device = string("stdin")
        24 console.baud = integer(115200)
        """,
        "Tests/Fixtures/config/bad.toml": """
        [audio] 3
        [queue] 9
        [resum] 12
        1 music_dir = string("../no-such-folder")
        4 audio.device = string("null")
        5 audio.perod_ms = integer(10)
        6 audio.buffer_ms = string("40")
        7 audio.max_volume = integer(250)
        10 queue.mode = string("shufle")
        13 resum.on_start = string("play")
        """,
        "Tests/Fixtures/config/missing-music-dir.toml": """
        [audio] 1
        2 audio.device = string("null")
        """,
    ]

    static func read(_ relativePath: String) throws -> String {
        var root = #filePath
        for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
        let path = root + "/" + relativePath
        guard let file = fopen(path, "rb") else { throw ReadError(path: path) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    struct ReadError: Error { var path: String }

    static func snapshot(_ document: ConfigDocument) -> String {
        var lines = document.tables.sorted { $0.name < $1.name }.map { "[\($0.name)] \($0.line ?? -1)" }
        lines += document.entries.map { "\($0.line ?? -1) \($0.qualifiedKey) = \($0.value)" }
        return lines.joined(separator: "\n")
    }

    @Test(arguments: tomlKitDocuments.keys.sorted()) func repositoryFileParsesAsTOMLKitDid(path: String) throws {
        let document = try #require(Self.document(try Self.read(path)))
        #expect(Self.snapshot(document) == Self.tomlKitDocuments[path])
        let tableLines = document.tables.compactMap(\.line)
        #expect(tableLines == tableLines.sorted(), "tables in file order")
    }

    /// The shipped configs: every key is found on the line reported for it (that they validate
    /// is checked in JukeboxDaemonTests' CheckConfigTests).
    @Test(arguments: ["config/jukebox.toml", "config/demo.toml"])
    func shippedConfigParsesWithEveryKeyOnItsLine(path: String) throws {
        let text = try Self.read(path)
        let document = try #require(Self.document(text))
        let fileLines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(document.entries.count > 5)
        for entry in document.entries {
            let line = try #require(entry.line)
            let content = fileLines[line - 1].drop { $0 == " " || $0 == "\t" }
            // A key with characters outside bare keys (`"next+previous"`) is written quoted.
            #expect(
                content.hasPrefix(entry.key) || content.hasPrefix("\"\(entry.key)\""),
                "\(path):\(line): \(entry.qualifiedKey)")
        }
        for table in document.tables {
            let line = try #require(table.line)
            #expect(fileLines[line - 1].hasPrefix("[\(table.name)]"), "\(path):\(line): [\(table.name)]")
        }
    }

    @Test func syntaxFixtureHasItsLine() throws {
        guard case .failure(let error) = Self.parse(try Self.read("Tests/Fixtures/config/syntax.toml")) else {
            Issue.record("Tests/Fixtures/config/syntax.toml parses")
            return
        }
        #expect(error.line == 4)
        #expect(error.message.hasPrefix("unterminated string"))
    }

    // MARK: fuzz

    static func mutate(_ original: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        let interesting = Array("\"'[]{}=#.,\n\r\\ 0x_-+:\tetfu".utf8) + [0x00, 0x7F, 0xC3, 0xFF]
        var bytes = original
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            if bytes.isEmpty { bytes = [UInt8(ascii: "a")] }
            let at = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<7, using: &random) {
            case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.insert(interesting.randomElement(using: &random)!, at: at)
            case 2: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &random)))
            case 3: bytes[at] = interesting.randomElement(using: &random)!
            case 4:
                let from = Int.random(in: 0..<bytes.count, using: &random)
                let copied = bytes[from..<min(bytes.count, from + Int.random(in: 1...40, using: &random))]
                bytes.insert(contentsOf: copied, at: at)
            case 5:
                var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                let line = lines.randomElement(using: &random)!
                lines.insert(line, at: Int.random(in: 0...lines.count, using: &random))
                bytes = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
            default: bytes.removeSubrange(at...)
            }
        }
        return bytes
    }

    @Test(.timeLimit(.minutes(10))) func mutationsOfTheDefaultConfigGiveADocumentOrASyntaxError() throws {
        let original = Array(try Self.read("config/jukebox.toml").utf8)
        var random = SplitMix64(seed: 0x4A75_6B65_626F_78)
        var (documents, errors) = (0, 0)
        // 1,000 rounds (a few seconds in a debug build); `./dev fuzz toml` runs millions.
        for round in 0..<1000 {
            let text = String(decoding: Self.mutate(original, using: &random), as: UTF8.self)
            let lineCount = text.utf8.count(where: { $0 == UInt8(ascii: "\n") }) + 1
            switch Self.parse(text) {
            case .success(let document):
                documents += 1
                let lines = document.entries.compactMap(\.line)
                #expect(lines == lines.sorted(), "round \(round): entries out of file order")
                #expect(lines.allSatisfy { (1...lineCount).contains($0) }, "round \(round)")
            case .failure(let error):
                errors += 1
                #expect((1...lineCount).contains(error.line), "round \(round): \(error)")
                #expect(error.column >= 1 && !error.message.isEmpty, "round \(round): \(error)")
            }
        }
        // Both outcomes are exercised.
        #expect(documents > 100 && errors > 100, "\(documents) documents, \(errors) errors")
    }
}
