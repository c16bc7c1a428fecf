import TOML
import Testing

@testable import JukeboxCore

@Suite struct ConfigValidatorTests {
    typealias Entry = ConfigDocument.Entry

    static func document(_ entries: [Entry], tables: [(String, Int?)]? = nil) -> ConfigDocument {
        var all = [Entry(table: "", key: "music_dir", value: .string("/music"), line: 1)]
        all.append(contentsOf: entries)
        let declared =
            tables ?? Array(Set(entries.map(\.table)).filter { !$0.isEmpty }).sorted().map { ($0, Int?.none) }
        return ConfigDocument(fileName: "jukebox.toml", tables: declared.map { (name: $0.0, line: $0.1) }, entries: all)
    }

    static func validate(_ document: ConfigDocument, problem: String? = nil) -> (JukeboxConfig?, [ConfigDiagnostic]) {
        let result = ConfigValidator.validate(document) { _ in problem }
        return (result.config, result.diagnostics)
    }

    @Test func anArrayOfTablesIsReportedAsATable() throws {
        let text = "music_dir = \"/m\"\n[[audio]]\ndevice = \"x\""
        let document = try TOMLParser.parse(text, fileName: "jukebox.toml").get()
        #expect(
            ConfigValidator.validate(document) { _ in nil }.diagnostics.map(\.description) == [
                "jukebox.toml:2: audio[1]: unknown array of tables [[audio]]; 'audio' is a table, write it as [audio]"
            ])
    }

    /// Stored playlists go beside the database unless `playlist_dir` says otherwise.
    @Test func playlistFolder() throws {
        var config = JukeboxConfig(musicDir: "/music")
        #expect(config.playlistFolder == "/var/lib/jukebox/playlists")
        config.database = "state.sqlite"
        #expect(config.playlistFolder == "playlists")
        let entry = Entry(table: "", key: "playlist_dir", value: .string("/srv/lists"), line: 2)
        #expect(try #require(Self.validate(Self.document([entry])).0).playlistFolder == "/srv/lists")
    }

    @Test func defaultsWithOnlyMusicDir() throws {
        let (config, diagnostics) = Self.validate(Self.document([]))
        #expect(diagnostics == [])
        let value = try #require(config)
        var expected = JukeboxConfig(musicDir: "/music")
        expected.database = "/var/lib/jukebox/jukebox.sqlite"
        #expect(value == expected)
        #expect(value.audio.device == "default")
        #expect(value.audio.periodMs == 10)
        #expect(value.audio.bufferMs == 40)
        #expect(value.audio.mixer == "")
        #expect(value.audio.startVolume == 40)
        #expect(value.audio.maxVolume == 85)
        #expect(value.audio.pacing == .auto)
        #expect(value.queue.mode == .repeatAll)
        #expect(value.queue.maxLength == 16_384)
        #expect(value.resume.onStart == .play)
        #expect(value.resume.longTrackMs == 600_000)
        #expect(value.resume.syncIntervalMs == 4_000)
        #expect(value.console.device == "stdin")
        #expect(value.console.baud == 115_200)
        #expect(value.encoder.stepsPerDetent == 4)
        #expect(value.display.kind == JukeboxConfig.DisplayKind.none)
        #expect(value.network.port == 6600)
        #expect(value.lyricsDir == nil)
        #expect(
            value.playerConfiguration
                == PlayerMachine.Configuration(maxVolume: 85, startVolume: 40, longTrackMs: 600_000))
    }

    @Test func theDesignExampleIsValid() throws {
        let entries: [Entry] = [
            .init(table: "", key: "database", value: .string("/var/lib/jukebox/jukebox.sqlite"), line: 2),
            .init(table: "audio", key: "device", value: .string("hw:1,0"), line: 5),
            .init(table: "audio", key: "period_ms", value: .integer(10), line: 6),
            .init(table: "audio", key: "buffer_ms", value: .integer(40), line: 7),
            .init(table: "audio", key: "mixer", value: .string(""), line: 8),
            .init(table: "audio", key: "start_volume", value: .integer(40), line: 9),
            .init(table: "audio", key: "max_volume", value: .integer(85), line: 10),
            .init(table: "audio", key: "pacing", value: .string("clock"), line: 11),
            .init(table: "audio", key: "replaygain_preamp", value: .float(-2.5), line: 12),
            .init(table: "audio", key: "replaygain_missing_preamp", value: .integer(-6), line: 12),
            .init(table: "queue", key: "mode", value: .string("shuffle"), line: 13),
            .init(table: "queue", key: "max_length", value: .integer(500), line: 14),
            .init(table: "resume", key: "on_start", value: .string("paused"), line: 15),
            .init(table: "resume", key: "long_track_minutes", value: .float(7.5), line: 16),
            .init(table: "resume", key: "sync_interval_s", value: .integer(60), line: 17),
            .init(table: "resume", key: "checkpoint_device", value: .string("/dev/mmcblk0p3"), line: 18),
            .init(table: "buttons", key: "chip", value: .string("gpiochip0"), line: 19),
            .init(table: "buttons", key: "play_pause", value: .integer(17), line: 20),
            .init(table: "buttons", key: "next", value: .integer(27), line: 21),
            .init(table: "buttons", key: "previous", value: .integer(22), line: 22),
            .init(table: "encoder", key: "chip", value: .string("gpiochip0"), line: 24),
            .init(table: "encoder", key: "a", value: .integer(5), line: 25),
            .init(table: "encoder", key: "b", value: .integer(6), line: 26),
            .init(table: "encoder", key: "switch", value: .integer(13), line: 27),
            .init(table: "encoder", key: "steps_per_detent", value: .integer(2), line: 28),
            .init(table: "display", key: "kind", value: .string("serial-lcd"), line: 30),
            .init(table: "display", key: "device", value: .string("/dev/ttyUSB0"), line: 31),
            .init(table: "console", key: "device", value: .string("/dev/serial0"), line: 33),
            .init(table: "console", key: "baud", value: .integer(9600), line: 34),
            .init(table: "network", key: "address", value: .string("0.0.0.0"), line: 36),
            .init(table: "network", key: "port", value: .integer(6601), line: 37),
            .init(table: "", key: "lyrics_dir", value: .string("/lyrics"), line: 3),
        ]
        let (config, diagnostics) = Self.validate(Self.document(entries))
        #expect(diagnostics == [])
        let value = try #require(config)
        #expect(value.audio.device == "hw:1,0")
        #expect(value.audio.pacing == .clock)
        #expect(value.audio.replayGain == ReplayGainSettings(preampDb: -2.5, missingPreampDb: -6))
        #expect(value.resume.checkpointDevice == "/dev/mmcblk0p3")
        #expect(value.queue.mode == .shuffle)
        #expect(value.queue.maxLength == 500)
        #expect(value.resume.onStart == .paused)
        #expect(value.resume.longTrackMs == 450_000)
        #expect(value.resume.syncIntervalMs == 60_000)
        #expect(value.buttons.playPause == 17)
        #expect(value.buttons.next == 27)
        #expect(value.buttons.previous == 22)
        #expect(value.encoder.a == 5)
        #expect(value.encoder.b == 6)
        #expect(value.encoder.pushSwitch == 13)
        #expect(value.encoder.stepsPerDetent == 2)
        #expect(value.display.kind == .serialLCD)
        #expect(value.display.device == "/dev/ttyUSB0")
        #expect(value.console.device == "/dev/serial0")
        #expect(value.console.baud == 9600)
        #expect(value.network.address == "0.0.0.0")
        #expect(value.network.port == 6601)
        #expect(value.lyricsDir == "/lyrics")
    }

    @Test func theRulesTableIsReadAndItsBadEntriesSayWhy() throws {
        let good = """
            music_dir = "/m"
            [rules]
            profiles = ["all 07:00 day max=80 start=40", "mon-fri 19:00 evening max=40"]
            quiet_hours = ["mon-fri 19:30-07:00"]
            budget = ["all 60", "sat,sun 90"]
            allowed_cards = ["04A1B2C3"]
            clock = "system"
            """
        let document = try TOMLParser.parse(good, fileName: "jukebox.toml").get()
        let rules = try #require(ConfigValidator.validate(document) { _ in nil }.config).rules
        #expect(rules.profiles.map(\.name) == ["day", "evening"])
        #expect(rules.budgetMs(on: .saturday) == 5_400_000)
        #expect(rules.budgetMs(on: .monday) == 3_600_000)
        #expect(rules.allows(card: "04a1b2c3"))
        #expect(rules.clock == .system)
        let bad = """
            music_dir = "/m"
            [rules]
            profiles = ["all 7 day"]
            quiet_hours = "19:30-07:00"
            budget = ["someday 60"]
            """
        let badDocument = try TOMLParser.parse(bad, fileName: "jukebox.toml").get()
        #expect(
            ConfigValidator.validate(badDocument) { _ in nil }.diagnostics.map(\.description) == [
                "jukebox.toml:3: rules.profiles: 'all 7 day': '7': expected a time like 07:30",
                "jukebox.toml:4: rules.quiet_hours: expected an array of strings like \"DAYS HH:MM-HH:MM\", found a string",
                "jukebox.toml:5: rules.budget: 'someday 60': 'someday': expected days like mon-fri, sat,sun, weekdays, weekend or all",
            ])
    }

    @Test func anIntegerIsAcceptedWhereANumberIsExpected() throws {
        let (config, diagnostics) = Self.validate(
            Self.document([.init(table: "resume", key: "long_track_minutes", value: .integer(0), line: 4)]))
        #expect(diagnostics == [])
        #expect(try #require(config).resume.longTrackMs == 0)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var entry: Entry
        var key: String
        var problem: String
        var testDescription: String { name }

        init(_ name: String, _ table: String, _ key: String, _ value: ConfigValue, _ problem: String) {
            self.name = name
            self.entry = Entry(table: table, key: key, value: value, line: 7)
            self.key = table.isEmpty ? key : "\(table).\(key)"
            self.problem = problem
        }
    }

    @Test(arguments: [
        Case(
            "typo with suggestion", "audio", "period", .integer(10), "unknown key 'period'; did you mean 'period_ms'?"),
        Case(
            "swapped letters", "audio", "perdio_ms", .integer(10), "unknown key 'perdio_ms'; did you mean 'period_ms'?"),
        Case("wrong case", "audio", "Max_Volume", .integer(10), "unknown key 'Max_Volume'; did you mean 'max_volume'?"),
        Case("no suggestion", "audio", "colour", .string("red"), "unknown key 'colour'"),
        Case(
            "top-level typo", "", "music_directory", .string("/m"),
            "unknown key 'music_directory'; did you mean 'music_dir'?"),
        Case(
            "table written as key", "", "audio", .integer(3),
            "unknown key 'audio'; 'audio' is a table, write it as [audio]"),
        Case("string for integer", "audio", "period_ms", .string("10"), "expected an integer, found a string"),
        Case("float for integer", "audio", "max_volume", .float(50.0), "expected an integer, found a number"),
        Case("integer for string", "audio", "device", .integer(1), "expected a string, found an integer"),
        Case("bool for enum", "queue", "mode", .bool(true), "expected a string, found a boolean"),
        Case("array", "", "database", .array([.string("a")]), "expected a string, found an array"),
        Case("date", "", "database", .other("a date"), "expected a string, found a date"),
        Case("string for number", "resume", "long_track_minutes", .string("10"), "expected a number, found a string"),
        Case("volume too high", "audio", "max_volume", .integer(250), "must be between 1 and 100, found 250"),
        Case("max volume zero", "audio", "max_volume", .integer(0), "must be between 1 and 100, found 0"),
        Case(
            "lock as string", "audio", "volume_locked_at_rest", .string("yes"), "expected true or false, found a string"
        ),
        Case("min volume range", "audio", "min_volume", .integer(101), "must be between 0 and 100, found 101"),
        Case("negative start volume", "audio", "start_volume", .integer(-1), "must be between 0 and 100, found -1"),
        Case("period too long", "audio", "period_ms", .integer(501), "must be between 1 and 500, found 501"),
        Case("buffer too long", "audio", "buffer_ms", .integer(5000), "must be between 2 and 2000, found 5000"),
        Case(
            "long track range", "resume", "long_track_minutes", .float(1441.5),
            "must be between 0 and 1440, found 1441.5"),
        Case(
            "preamp range", "audio", "replaygain_preamp", .float(15.5), "must be between -15 and 15, found 15.5"),
        Case(
            "missing preamp type", "audio", "replaygain_missing_preamp", .string("-3 dB"),
            "expected a number, found a string"),
        Case("sync too short", "resume", "sync_interval_s", .integer(1), "must be between 2 and 600, found 1"),
        Case("empty queue", "queue", "max_length", .integer(0), "must be between 1 and 32768, found 0"),
        Case(
            "queue past the ids", "queue", "max_length", .integer(65_536), "must be between 1 and 32768, found 65536"
        ),
        Case(
            "checkpoint device number", "resume", "checkpoint_device", .integer(3),
            "expected a string, found an integer"),
        Case("gpio line range", "buttons", "next", .integer(512), "must be between 0 and 511, found 512"),
        Case("port zero", "network", "port", .integer(0), "must be between 1 and 65535, found 0"),
        Case("port too high", "network", "port", .integer(70000), "must be between 1 and 65535, found 70000"),
        Case(
            "odd baud", "console", "baud", .integer(12345),
            "must be one of 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800 or 921600, found 12345"),
        Case("steps per detent", "encoder", "steps_per_detent", .integer(3), "must be one of 1, 2 or 4, found 3"),
        Case(
            "mode", "queue", "mode", .string("loop"),
            "must be one of in-order, repeat-all, repeat-one or shuffle, found 'loop'"),
        Case("on start", "resume", "on_start", .string("resume"), "must be one of play, paused or off, found 'resume'"),
        Case("pacing", "audio", "pacing", .string("fast"), "must be one of auto, device or clock, found 'fast'"),
        Case(
            "display kind", "display", "kind", .string("oled"),
            "must be one of framebuffer, serial-lcd, i2c-lcd, terminal or none, found 'oled'"),
        Case("empty device", "audio", "device", .string(""), "must not be empty"),
        Case("empty database", "", "database", .string(""), "must not be empty"),
        Case("empty lyrics", "", "lyrics_dir", .string(""), "must not be empty"),
        Case("empty playlists", "", "playlist_dir", .string(""), "must not be empty"),
        Case("playlists type", "", "playlist_dir", .integer(1), "expected a string, found an integer"),
        Case(
            "console device", "console", "device", .string("ttyS0"),
            "must be 'stdin', 'none' or a device path like /dev/serial0, found 'ttyS0'"),
        Case("console device type", "console", "device", .integer(0), "expected a string, found an integer"),
    ])
    func singleProblems(testCase: Case) {
        let (config, diagnostics) = Self.validate(Self.document([testCase.entry]))
        #expect(config == nil)
        #expect(
            diagnostics == [
                ConfigDiagnostic(fileName: "jukebox.toml", line: 7, key: testCase.key, problem: testCase.problem)
            ])
    }

    @Test func missingMusicDir() {
        let document = ConfigDocument(
            fileName: "j.toml", entries: [.init(table: "audio", key: "device", value: .string("hw:0"), line: 2)])
        let result = ConfigValidator.validate(document) { _ in nil }
        #expect(result.config == nil)
        #expect(result.diagnostics.map(\.description) == ["j.toml:?: music_dir: required: the folder with your music"])
    }

    @Test(
        arguments: [
            (ConfigValue.string("/nope"), "does not exist", "j.toml:3: music_dir: does not exist"),
            (.string(""), nil, "j.toml:3: music_dir: must not be empty"),
            (.integer(3), nil, "j.toml:3: music_dir: expected a string, found an integer"),
        ] as [(ConfigValue, String?, String)])
    func musicDirProblems(value: ConfigValue, problem: String?, expected: String) {
        let document = ConfigDocument(
            fileName: "j.toml", entries: [.init(table: "", key: "music_dir", value: value, line: 3)])
        var asked: [String] = []
        let result = ConfigValidator.validate(document) { path in
            asked.append(path)
            return problem
        }
        #expect(result.config == nil)
        #expect(result.diagnostics.map(\.description).contains(expected))
        if case .string(let path) = value, !path.isEmpty { #expect(asked == [path]) } else { #expect(asked == []) }
    }

    @Test func unknownTablesAreReportedOnceWithSuggestions() {
        let entries: [Entry] = [
            .init(table: "audi", key: "device", value: .string("x"), line: 4),
            .init(table: "audi", key: "period_ms", value: .integer(10), line: 5),
            .init(table: "wifi", key: "ssid", value: .string("x"), line: 9),
        ]
        let document = Self.document(entries, tables: [("audi", 3), ("gadgets", 7)])
        let (config, diagnostics) = Self.validate(document)
        #expect(config == nil)
        #expect(
            diagnostics.map(\.description) == [
                "jukebox.toml:3: audi: unknown table [audi]; did you mean [audio]?",
                "jukebox.toml:7: gadgets: unknown table [gadgets]",
                "jukebox.toml:9: wifi: unknown table [wifi]",
            ])
    }

    @Test(arguments: [
        (
            [Entry(table: "audio", key: "buffer_ms", value: .integer(15), line: 8)],
            "jukebox.toml:8: audio.buffer_ms: must be at least twice period_ms (20), found 15"
        ),
        (
            [Entry(table: "audio", key: "period_ms", value: .integer(30), line: 6)],
            "jukebox.toml:6: audio.buffer_ms: must be at least twice period_ms (60), found 40"
        ),
        (
            [Entry(table: "audio", key: "start_volume", value: .integer(90), line: 9)],
            "jukebox.toml:9: audio.start_volume: must not be above max_volume (85), found 90"
        ),
        (
            [Entry(table: "audio", key: "max_volume", value: .integer(30), line: 10)],
            "jukebox.toml:10: audio.start_volume: must not be above max_volume (30), found 40"
        ),
        (
            [
                Entry(table: "buttons", key: "next", value: .integer(5), line: 11),
                Entry(table: "encoder", key: "a", value: .integer(5), line: 12),
                Entry(table: "encoder", key: "b", value: .integer(6), line: 13),
            ],
            "jukebox.toml:12: encoder.a: line 5 of gpiochip0 is already used by buttons.next"
        ),
        (
            [Entry(table: "audio", key: "min_volume", value: .integer(50), line: 11)],
            "jukebox.toml:11: audio.min_volume: must not be above start_volume (40) or max_volume (85), found 50"
        ),
        (
            [
                Entry(table: "audio", key: "min_volume", value: .integer(20), line: 11),
                Entry(table: "audio", key: "headphone_max_volume", value: .integer(15), line: 12),
            ],
            "jukebox.toml:12: audio.headphone_max_volume: must not be below min_volume (20), found 15"
        ),
        (
            [
                Entry(table: "buttons", key: "next", value: .integer(6), line: 11),
                Entry(table: "audio", key: "headphone_detect", value: .integer(6), line: 12),
            ],
            "jukebox.toml:11: buttons.next: line 6 of gpiochip0 is already used by audio.headphone_detect"
        ),
        (
            [Entry(table: "encoder", key: "a", value: .integer(5), line: 12)],
            "jukebox.toml:12: encoder.b: required when the encoder has the other line: an encoder needs both a and b"
        ),
    ])
    func crossFieldChecks(entries: [Entry], expected: String) {
        let (config, diagnostics) = Self.validate(Self.document(entries))
        #expect(config == nil)
        #expect(diagnostics.map(\.description) == [expected])
    }

    @Test func sameLineOnDifferentChipsIsFine() {
        let entries: [Entry] = [
            .init(table: "buttons", key: "next", value: .integer(5), line: 2),
            .init(table: "encoder", key: "chip", value: .string("gpiochip1"), line: 3),
            .init(table: "encoder", key: "a", value: .integer(5), line: 4),
            .init(table: "encoder", key: "b", value: .integer(6), line: 5),
        ]
        #expect(Self.validate(Self.document(entries)).1 == [])
    }

    @Test func everyProblemIsReportedInDocumentOrder() {
        let entries: [Entry] = [
            .init(table: "audio", key: "period_ms", value: .string("ten"), line: 3),
            .init(table: "audio", key: "volume", value: .integer(3), line: 4),
            .init(table: "network", key: "port", value: .integer(-1), line: 20),
        ]
        let (_, diagnostics) = Self.validate(Self.document(entries), problem: "is not a directory")
        #expect(diagnostics.map(\.line) == [3, 4, 20, 1])
        #expect(diagnostics.last?.problem == "is not a directory")
    }

    @Test(arguments: [
        ("kitten", "sitting", 3), ("", "abc", 3), ("abc", "", 3), ("period", "period_ms", 3), ("same", "same", 0),
    ])
    func editDistance(a: String, b: String, distance: Int) {
        #expect(ConfigValidator.editDistance(a, b) == distance)
    }
}
