import JukeboxCore
import TOML
import Testing

@testable import JukeboxWeb

/// The settings page's policy: fields from the validator's table, edits written into the
/// file's own text (comments kept), and the password's guard.
@Suite struct SettingsTests {
    static let file = """
        # The music.
        music_dir = "/srv/music"

        # Audio output.
        [audio]
        # The ALSA device.
        device = "default"
        # Volume at start.
        start_volume = 30

        [card_reader.lid]
        type = "keyboard"
        """

    static func document(_ text: String) -> ConfigDocument {
        guard case .success(let document) = TOMLParser.parse(text, fileName: "jukebox.toml") else {
            Issue.record("does not parse: \(text)")
            return ConfigDocument(fileName: "jukebox.toml")
        }
        return document
    }

    static func kinds(_ fields: [SettingsField]) -> [String: ConfigValidator.Kind] {
        Dictionary(fields.map { ($0.key, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func everyValidatedKeyIsAFieldWithTheFilesValueAndComment() {
        let fields = SettingsFile.fields(of: Self.document(Self.file), text: Self.file)
        let keys = Set(fields.map(\.key))
        // A reader's and an alarm's keys are fields of the tables the file has (none here).
        for (table, name, _) in ConfigReference.validatedKeys where table != "card_reader.NAME" && table != "alarm" {
            #expect(keys.contains(table.isEmpty ? name : "\(table).\(name)"), "\(table).\(name)")
        }
        #expect(keys.contains("card_reader.lid.type"))
        let volume = fields.first { $0.key == "audio.start_volume" }
        #expect(volume?.value == "30")
        #expect(volume?.description == "Volume at start.")
        #expect(volume?.kind == .integer(0...100))
        #expect(fields.first { $0.key == "audio.period_ms" }?.value == "")
    }

    @Test func aChangedKeyIsWrittenInPlaceAndEverythingElseKept() throws {
        let fields = SettingsFile.fields(of: Self.document(Self.file), text: Self.file)
        let posted = ["k:audio.start_volume": "45", "k:audio.device": "default", "k:music_dir": "/srv/music"]
        let changes = SettingsFile.changes(posted: { posted[$0] }, fields: fields)
        #expect(changes == [SettingsChange(table: "audio", name: "start_volume", old: "30", new: "45")])
        let edited = try SettingsFile.edit(Self.file, fileName: "f", changes: changes, kinds: Self.kinds(fields)).get()
        let lines = Self.file.split(separator: "\n", omittingEmptySubsequences: false)
        let expected = lines.map { $0 == "start_volume = 30" ? "start_volume = 45" : String($0) }
        #expect(edited.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) == expected)
    }

    @Test func newKeysGoIntoTheirTableOrANewOneAndClearedKeysGo() throws {
        let fields = SettingsFile.fields(of: Self.document(Self.file), text: Self.file)
        let changes = [
            SettingsChange(table: "audio", name: "period_ms", old: nil, new: "20"),
            SettingsChange(table: "", name: "database", old: nil, new: "/var/lib/x \"q\".sqlite"),
            SettingsChange(table: "web", name: "port", old: nil, new: "8081"),
            SettingsChange(table: "audio", name: "device", old: "default", new: nil),
        ]
        let edited = try SettingsFile.edit(Self.file, fileName: "f", changes: changes, kinds: Self.kinds(fields)).get()
        let document = Self.document(edited)
        let values = Dictionary(document.entries.map { ($0.qualifiedKey, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(values["audio.period_ms"] == .integer(20))
        #expect(values["database"] == .string("/var/lib/x \"q\".sqlite"))
        #expect(values["web.port"] == .integer(8081))
        #expect(values["audio.device"] == nil)
        #expect(values["card_reader.lid.type"] == .string("keyboard"))
        #expect(edited.contains("# Audio output.\n[audio]"))
        #expect(edited.contains("# Volume at start."))
        // The top-level key went above the comment that opens [audio].
        #expect(edited.contains("database = \"/var/lib/x \\\"q\\\".sqlite\"\n\n# Audio output."), "\(edited)")
    }

    /// A value the field's kind cannot take is written as a string, so the validator refuses it
    /// in its own words, as `--check-config` would.
    @Test func aBadValueReachesTheValidatorAsItsOwnMessage() throws {
        let fields = SettingsFile.fields(of: Self.document(Self.file), text: Self.file)
        for (typed, expected) in [("loud", "expected an integer"), ("400", "between 0 and 100")] {
            let change = SettingsChange(table: "audio", name: "start_volume", old: "30", new: typed)
            let edited = try SettingsFile.edit(
                Self.file, fileName: "f", changes: [change], kinds: Self.kinds(fields)
            ).get()
            let diagnostics = ConfigValidator.validate(Self.document(edited)) { _ in nil }.diagnostics
            #expect(
                diagnostics.contains { $0.key == "audio.start_volume" && $0.problem.contains(expected) },
                "\(diagnostics)")
        }
    }

    /// A value written over several lines cannot be replaced line by line: refused, not mangled.
    @Test func aMultiLineValueIsRefusedNotMangled() {
        let text = "[podcasts]\nfeeds = [\n  \"https://a.example/feed\",\n]\n"
        let change = SettingsChange(table: "podcasts", name: "feeds", old: "x", new: "https://b.example/feed")
        let result = SettingsFile.edit(text, fileName: "f", changes: [change], kinds: ["podcasts.feeds": .urls])
        guard case .failure(let problem) = result else {
            Issue.record("edited: \(result)")
            return
        }
        #expect(problem.description.contains("by hand"))
    }

    @Test func stringsAreQuotedAsTOMLBasicStrings() {
        #expect(SettingsFile.quoted("a\"b\\c\n\u{1}é") == #""a\"b\\c\n\u0001é""#)
        #expect(SettingsFile.tomlValue("12", kind: .integer(0...20)) == "12")
        #expect(SettingsFile.tomlValue("12x", kind: .integer(0...20)) == "\"12x\"")
        #expect(SettingsFile.tomlValue("a\n b \n\n", kind: .urls) == "[\"a\", \"b\"]")
    }

    @Test func wrongPasswordsAreSlowedAfterThreeAndASuccessResets() {
        var login = WebLogin(passwordIsSet: true, setupCode: "123456")
        #expect(login.setupCode == nil)
        var waits: [Double] = []
        var now = 100.0
        for _ in 0..<8 {
            if case .wait(let seconds) = login.gate(at: now) {
                now += seconds
            }
            #expect(login.gate(at: now) == .open)
            login.failed(at: now)
            if case .wait(let seconds) = login.gate(at: now) { waits.append(seconds) } else { waits.append(0) }
        }
        #expect(waits == [0, 0, 1, 2, 4, 8, 16, 32])
        for _ in 0..<20 {
            now += 60
            login.failed(at: now)
        }
        #expect(login.gate(at: now) == .wait(WebLogin.longestWait))
        login.succeeded(at: now + 60, token: "t")
        #expect(login.gate(at: now + 60) == .open)
        #expect(login.isSignedIn("t", at: now + 61))
        #expect(!login.isSignedIn("u", at: now + 61))
        #expect(!login.isSignedIn("t", at: now + 61 + WebLogin.sessionSeconds))
    }

    @Test func theSetupCodeIsSpentOnceThePasswordIsSet() {
        var login = WebLogin(passwordIsSet: false, setupCode: "123456")
        #expect(!login.acceptsSetupCode("123457"))
        #expect(!login.acceptsSetupCode(nil))
        #expect(login.acceptsSetupCode("123456"))
        login.passwordSet(at: 0, token: "s")
        #expect(!login.acceptsSetupCode("123456"))
        #expect(login.isSignedIn("s", at: 1))
        login.signOut("s")
        #expect(!login.isSignedIn("s", at: 1))
        #expect(WebLogin.sessionToken(cookieHeader: "a=b; jukebox_session=xyz ; c=d") == "xyz")
        #expect(WebLogin.passwordProblem("short") != nil)
    }

    @Test func sessionsAreBounded() {
        var login = WebLogin(passwordIsSet: true, setupCode: "")
        for index in 0..<(WebLogin.maxSessions + 5) { login.succeeded(at: Double(index), token: "t\(index)") }
        #expect(!login.isSignedIn("t0", at: 100))
        #expect(login.isSignedIn("t\(WebLogin.maxSessions + 4)", at: 100))
    }

    @Test func settingsPageEscapesValuesAndShowsTheValidatorsMessage() {
        var field = SettingsField(
            table: "audio", name: "device", kind: .string(allowEmpty: false), value: "<script>", description: "x & y")
        field.problem = "no such <device>"
        let html = Pages.settings([field], token: CSRFToken(value: "t"))
        #expect(!html.contains("<script>"))
        #expect(html.contains("value=\"&lt;script&gt;\""))
        #expect(html.contains("no such &lt;device&gt;"))
        #expect(html.contains("<details open>"))
    }
}
