import TOML

/// Turns a `ConfigDocument` into a `JukeboxConfig`, or explains every problem with its line.
///
/// Unknown tables and keys are errors (typos would otherwise be ignored silently) and come with
/// a "did you mean" suggestion. An integer is accepted where a number is expected; a number with
/// a fraction where an integer is expected is an error.
public enum ConfigValidator {
    /// Standard serial rates accepted for `console.baud`.
    public static let standardBaudRates: [Int64] = [
        1200, 2400, 4800, 9600, 19_200, 38_400, 57_600, 115_200, 230_400, 460_800, 921_600,
    ]

    /// Validates `document`. `directoryProblem` is asked about `music_dir` (the daemon checks the
    /// disk) and returns a problem like "does not exist", or nil when the folder is usable.
    /// The config is nil when there is any diagnostic.
    public static func validate(
        _ document: ConfigDocument, directoryProblem: (String) -> String?
    ) -> (config: JukeboxConfig?, diagnostics: [ConfigDiagnostic]) {
        var run = Run(document: document)
        var config = JukeboxConfig(musicDir: "")
        var musicDir: (value: String, line: Int?)?

        var reportedTables = Set<String>()
        // `[a.b]` lists `a` too: its own report is the one for `a.b`.
        let parents = Set(
            document.tables.compactMap { table in table.name.lastIndex(of: ".").map { table.name[..<$0] } })
        for table in document.tables where keys(for: table.name) == nil && !parents.contains(Substring(table.name)) {
            run.reportUnknownTable(table.name, line: table.line)
            reportedTables.insert(table.name)
        }

        var lines: [String: Int?] = [:]
        for entry in document.entries {
            guard let keys = keys(for: entry.table) else {
                if reportedTables.insert(entry.table).inserted {
                    run.reportUnknownTable(entry.table, line: entry.line)
                }
                continue
            }
            guard let spec = keys.first(where: { $0.name == entry.key }) else {
                var problem = "unknown key '\(entry.key)'"
                if schema[entry.table.isEmpty ? entry.key : "\(entry.table).\(entry.key)"] != nil {
                    problem += "; '\(entry.key)' is a table, write it as [\(entry.key)]"
                } else if let suggestion = suggest(entry.key, among: keys.map(\.name)) {
                    problem += "; did you mean '\(suggestion)'?"
                }
                run.report(entry, problem)
                continue
            }
            lines[entry.qualifiedKey] = entry.line
            guard let value = run.check(entry, against: spec.kind) else { continue }
            if entry.qualifiedKey == "music_dir" {
                musicDir = (value.text ?? "", entry.line)
            }
            spec.apply(&config, value)
        }

        if let musicDir {
            if musicDir.value.isEmpty {
                run.diagnostics.append(
                    .init(
                        fileName: document.fileName, line: musicDir.line, key: "music_dir", problem: "must not be empty"
                    ))
            } else if let problem = directoryProblem(musicDir.value) {
                run.diagnostics.append(
                    .init(fileName: document.fileName, line: musicDir.line, key: "music_dir", problem: problem))
            }
        } else {
            run.diagnostics.append(
                .init(
                    fileName: document.fileName, line: nil, key: "music_dir",
                    problem: "required: the folder with your music"))
        }

        if config.audio.bufferMs < 2 * config.audio.periodMs {
            run.diagnostics.append(
                .init(
                    fileName: document.fileName, line: lines["audio.buffer_ms"] ?? lines["audio.period_ms"] ?? nil,
                    key: "audio.buffer_ms",
                    problem: "must be at least twice period_ms (\(2 * config.audio.periodMs)), "
                        + "found \(config.audio.bufferMs)"
                ))
        }
        if config.audio.startVolume > config.audio.maxVolume {
            run.diagnostics.append(
                .init(
                    fileName: document.fileName, line: lines["audio.start_volume"] ?? lines["audio.max_volume"] ?? nil,
                    key: "audio.start_volume",
                    problem:
                        "must not be above max_volume (\(config.audio.maxVolume)), found \(config.audio.startVolume)"))
        }
        if config.audio.minVolume > min(config.audio.startVolume, config.audio.maxVolume) {
            run.diagnostics.append(
                .init(
                    fileName: document.fileName, line: lines["audio.min_volume"] ?? nil, key: "audio.min_volume",
                    problem: "must not be above start_volume (\(config.audio.startVolume)) or max_volume "
                        + "(\(config.audio.maxVolume)), found \(config.audio.minVolume)"))
        }
        if let headphoneMax = config.audio.headphoneMaxVolume, headphoneMax < config.audio.minVolume {
            run.diagnostics.append(
                .init(
                    fileName: document.fileName, line: lines["audio.headphone_max_volume"] ?? nil,
                    key: "audio.headphone_max_volume",
                    problem: "must not be below min_volume (\(config.audio.minVolume)), found \(headphoneMax)"))
        }
        if config.snapcast.rate == nil {
            run.diagnostics.append(
                .init(
                    fileName: document.fileName, line: lines["snapcast.sample_format"] ?? nil,
                    key: "snapcast.sample_format",
                    problem: "must be RATE:16:2 (16-bit stereo, a rate from 8000 to 192000, as the "
                        + "source's sampleformat in snapserver.conf), found '\(config.snapcast.sampleFormat)'"))
        }
        var usedLines: [String: String] = [:]
        let wired: [(String, String, Int?)] = [
            ("audio.headphone_detect", config.audio.headphoneChip, config.audio.headphoneDetect),
            ("sleep.hold_line", config.sleep.holdChip, config.sleep.holdLine),
            ("feedback.led_line", config.feedback.ledChip, config.feedback.ledLine),
            ("buttons.play_pause", config.buttons.chip, config.buttons.playPause),
            ("buttons.next", config.buttons.chip, config.buttons.next),
            ("buttons.previous", config.buttons.chip, config.buttons.previous),
            ("encoder.a", config.encoder.chip, config.encoder.a),
            ("encoder.b", config.encoder.chip, config.encoder.b),
            ("encoder.switch", config.encoder.chip, config.encoder.pushSwitch),
        ]
        for (key, chip, line) in wired {
            guard let line else { continue }
            let id = "\(chip)/\(line)"
            if let other = usedLines[id] {
                run.diagnostics.append(
                    .init(
                        fileName: document.fileName, line: lines[key] ?? nil, key: key,
                        problem: "line \(line) of \(chip) is already used by \(other)"))
            } else {
                usedLines[id] = key
            }
        }
        let encoderLines = [config.encoder.a, config.encoder.b].compactMap { $0 }
        if encoderLines.count == 1 {
            let key = config.encoder.a == nil ? "encoder.a" : "encoder.b"
            run.diagnostics.append(
                .init(
                    fileName: document.fileName, line: lines["encoder.a"] ?? lines["encoder.b"] ?? nil, key: key,
                    problem: "required when the encoder has the other line: an encoder needs both a and b"))
        }
        run.diagnostics += controlDiagnostics(config, lines: lines, fileName: document.fileName)
        run.diagnostics += CardReaderSection.diagnostics(config, document: document)
        run.diagnostics += AlarmSection.diagnostics(config, document: document)

        if run.diagnostics.isEmpty {
            return (config, [])
        }
        return (nil, run.diagnostics)
    }

    // MARK: schema

    /// What a key takes: the settings page makes its form fields from these.
    public enum Kind: Sendable, Equatable {
        case string(allowEmpty: Bool)
        case integer(ClosedRange<Int64>)
        case number(ClosedRange<Double>)
        case choice([String])
        case integerChoice([Int64])
        case boolean
        /// A path: relative ones are taken from the config file's folder by the daemon. With
        /// `allowStdin` (the console device) it is `stdin`, `none` or an absolute device path.
        case path(allowStdin: Bool)
        /// An array of http:// or https:// URLs.
        case urls
        /// An MQTT broker, `mqtt://host[:port]` or `mqtts://host[:port]`.
        case brokerURL
        /// An array of rules' texts (`[rules]`), each read by its parser.
        case ruleList(RuleListKind)
    }

    /// What a `[rules]` list holds.
    public enum RuleListKind: Sendable, Equatable {
        case profiles, quietHours, budgets, cards

        /// Why `text` is no rule of this kind; nil when it is one.
        func problem(_ text: String) -> String? {
            func refusal<T>(_ result: Result<T, RuleTextError>) -> RuleTextError? {
                if case .failure(let error) = result { error } else { nil }
            }
            let failure: RuleTextError?
            switch self {
            case .profiles: failure = refusal(ListeningProfile.parse(text))
            case .quietHours: failure = refusal(QuietHours.parse(text))
            case .budgets: failure = refusal(ListeningBudget.parse(text))
            case .cards:
                let valid = !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == ":" }
                failure = valid ? nil : RuleTextError("expected a card ID as the reader reports it", text)
            }
            return failure?.description
        }

        /// `"mon-fri 07:00 day max=80"`: an example for the reference and the settings page.
        public var example: String {
            switch self {
            case .profiles: "DAYS HH:MM [NAME] [max=N] [start=N]"
            case .quietHours: "DAYS HH:MM-HH:MM"
            case .budgets: "DAYS MINUTES (or SECONDSs)"
            case .cards: "card IDs"
            }
        }
    }

    struct KeySpec: Sendable {
        var name: String
        var kind: Kind
        var apply: @Sendable (inout JukeboxConfig, CheckedValue) -> Void
    }

    struct CheckedValue {
        var text: String?
        var integer: Int?
        var number: Double?
        var boolean: Bool?
        var texts: [String]?
    }

    static func path(
        _ name: String, allowStdin: Bool = false, _ set: @escaping @Sendable (inout JukeboxConfig, String) -> Void
    ) -> KeySpec {
        KeySpec(name: name, kind: .path(allowStdin: allowStdin)) { config, value in set(&config, value.text ?? "") }
    }

    static func string(
        _ name: String, allowEmpty: Bool = false, _ set: @escaping @Sendable (inout JukeboxConfig, String) -> Void
    )
        -> KeySpec
    {
        KeySpec(name: name, kind: .string(allowEmpty: allowEmpty)) { config, value in set(&config, value.text ?? "") }
    }

    static func integer(
        _ name: String, _ range: ClosedRange<Int64>, _ set: @escaping @Sendable (inout JukeboxConfig, Int) -> Void
    )
        -> KeySpec
    {
        KeySpec(name: name, kind: .integer(range)) { config, value in set(&config, value.integer ?? 0) }
    }

    static func boolean(_ name: String, _ set: @escaping @Sendable (inout JukeboxConfig, Bool) -> Void) -> KeySpec {
        KeySpec(name: name, kind: .boolean) { config, value in set(&config, value.boolean ?? false) }
    }

    static func choice<T: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ type: T.Type, _ set: @escaping @Sendable (inout JukeboxConfig, T) -> Void
    ) -> KeySpec where T.RawValue == String {
        KeySpec(name: name, kind: .choice(T.allCases.map(\.rawValue))) { config, value in
            if let parsed = T(rawValue: value.text ?? "") { set(&config, parsed) }
        }
    }

    static let gpioLines: ClosedRange<Int64> = 0...511

    /// The keys of `table`: a fixed table's, a card reader's (`card_reader.NAME`) or an
    /// alarm's (`alarm[N]`, an element of `[[alarm]]`).
    static func keys(for table: String) -> [KeySpec]? {
        schema[table] ?? CardReaderSection.keys(for: table)
            ?? (table == AlarmSection.name ? nil : AlarmSection.keys(for: table))
    }

    static let schema: [String: [KeySpec]] = [
        "": [
            string("music_dir", allowEmpty: true) { $0.musicDir = $1 },
            path("database") { $0.database = $1 },
            path("lyrics_dir") { $0.lyricsDir = $1 },
            path("playlist_dir") { $0.playlistDir = $1 },
        ],
        "audio": [
            string("device") { $0.audio.device = $1 },
            integer("period_ms", 1...500) { $0.audio.periodMs = $1 },
            integer("buffer_ms", 2...2000) { $0.audio.bufferMs = $1 },
            integer("deep_buffer_ms", 0...2000) { $0.audio.deepBufferMs = $1 },
            string("mixer", allowEmpty: true) { $0.audio.mixer = $1 },
            integer("start_volume", 0...100) { $0.audio.startVolume = $1 },
            integer("max_volume", 1...100) { $0.audio.maxVolume = $1 },
            integer("min_volume", 0...100) { $0.audio.minVolume = $1 },
            integer("headphone_max_volume", 1...100) { $0.audio.headphoneMaxVolume = $1 },
            string("headphone_chip") { $0.audio.headphoneChip = $1 },
            integer("headphone_detect", gpioLines) { $0.audio.headphoneDetect = $1 },
            boolean("volume_locked_at_rest") { $0.audio.volumeLockedAtRest = $1 },
            choice("pacing", JukeboxConfig.Pacing.self) { $0.audio.pacing = $1 },
            // MPD's range for both.
            KeySpec(name: "replaygain_preamp", kind: .number(-15...15)) {
                $0.audio.replayGain.preampDb = $1.number ?? 0
            },
            KeySpec(name: "replaygain_missing_preamp", kind: .number(-15...15)) {
                $0.audio.replayGain.missingPreampDb = $1.number ?? 0
            },
        ],
        "queue": [
            choice("mode", PlayMode.self) { $0.queue.mode = $1 },
            integer("max_length", 1...Int64(PlayQueue.maxLimit)) { $0.queue.maxLength = $1 },
        ],
        "resume": [
            choice("on_start", ResumeOnStart.self) { $0.resume.onStart = $1 },
            KeySpec(name: "long_track_minutes", kind: .number(0...1440)) {
                $0.resume.longTrackMinutes = $1.number ?? 10
            },
            integer("sync_interval_s", 2...600) { $0.resume.syncIntervalSeconds = $1 },
            string("checkpoint_device", allowEmpty: true) { $0.resume.checkpointDevice = $1 },
        ],
        "cards": [
            choice("mode", TagCardPresence.Mode.self) { $0.cards.mode = $1 },
            choice("swipe_again", TagCardPresence.SwipeAgain.self) { $0.cards.swipeAgain = $1 },
            integer("removal_debounce_ms", 0...10_000) { $0.cards.removalDebounceMs = $1 },
            KeySpec(name: "continue_over_minutes", kind: .number(0...1440)) {
                $0.cards.continueOverMinutes = $1.number ?? 20
            },
        ],
        "feedback": [
            boolean("sounds") { $0.feedback.sounds = $1 },
            integer("volume", 0...100) { $0.feedback.volume = $1 },
            string("led_chip") { $0.feedback.ledChip = $1 },
            integer("led_line", gpioLines) { $0.feedback.ledLine = $1 },
        ],
        "speech": [
            boolean("enabled") { $0.speech.enabled = $1 },
            string("voice") { $0.speech.voice = $1 },
            integer("rate", 80...450) { $0.speech.rate = $1 },
            integer("volume", 0...100) { $0.speech.volume = $1 },
            integer("duck", 0...100) { $0.speech.duck = $1 },
            boolean("events") { $0.speech.events = $1 },
        ],
        "console": [
            path("device", allowStdin: true) { $0.console.device = $1 },
            KeySpec(name: "baud", kind: .integerChoice(standardBaudRates)) { $0.console.baud = $1.integer ?? 115_200 },
            choice("input", JukeboxConfig.ConsoleInput.self) { $0.console.input = $1 },
        ],
        "buttons": [
            string("chip") { $0.buttons.chip = $1 },
            integer("play_pause", gpioLines) { $0.buttons.playPause = $1 },
            integer("next", gpioLines) { $0.buttons.next = $1 },
            integer("previous", gpioLines) { $0.buttons.previous = $1 },
        ] + buttonControlKeys,
        "encoder": [
            string("chip") { $0.encoder.chip = $1 },
            integer("a", gpioLines) { $0.encoder.a = $1 },
            integer("b", gpioLines) { $0.encoder.b = $1 },
            integer("switch", gpioLines) { $0.encoder.pushSwitch = $1 },
            KeySpec(name: "steps_per_detent", kind: .integerChoice([1, 2, 4])) {
                $0.encoder.stepsPerDetent = $1.integer ?? 4
            },
        ] + encoderControlKeys,
        "menu": menuKeys,
        "display": [
            choice("kind", JukeboxConfig.DisplayKind.self) { $0.display.kind = $1 },
            string("device", allowEmpty: true) { $0.display.device = $1 },
            integer("columns", 8...200) { $0.display.columns = $1 },
            integer("rows", 1...60) { $0.display.rows = $1 },
            KeySpec(name: "baud", kind: .integerChoice(standardBaudRates)) { $0.display.baud = $1.integer ?? 9600 },
            integer("i2c_address", 0x03...0x77) { $0.display.i2cAddress = $1 },
            choice("serial_protocol", JukeboxConfig.SerialLCDProtocol.self) { $0.display.serialProtocol = $1 },
            string("font", allowEmpty: true) { $0.display.font = $1 },
        ],
        "sleep": [
            integer("fade_s", 0...120) { $0.sleep.fadeSeconds = $1 },
            choice("then", SleepEnd.self) { $0.sleep.then = $1 },
            KeySpec(name: "idle_power_off_minutes", kind: .number(0...1440)) {
                $0.sleep.idlePowerOffMinutes = $1.number ?? 0
            },
            string("hold_chip") { $0.sleep.holdChip = $1 },
            integer("hold_line", gpioLines) { $0.sleep.holdLine = $1 },
            boolean("hold_high") { $0.sleep.holdHigh = $1 },
        ],
        "rules": [
            choice("clock", RulesClock.self) { $0.rules.clock = $1 },
            KeySpec(name: "profiles", kind: .ruleList(.profiles)) {
                $0.rules.profiles = ($1.texts ?? []).compactMap { try? ListeningProfile.parse($0).get() }
            },
            KeySpec(name: "quiet_hours", kind: .ruleList(.quietHours)) {
                $0.rules.quietHours = ($1.texts ?? []).compactMap { try? QuietHours.parse($0).get() }
            },
            KeySpec(name: "budget", kind: .ruleList(.budgets)) {
                $0.rules.budgets = ($1.texts ?? []).compactMap { try? ListeningBudget.parse($0).get() }
            },
            KeySpec(name: "allowed_cards", kind: .ruleList(.cards)) { $0.rules.allowedCards = $1.texts ?? [] },
            integer("warning_s", 0...3600) { $0.rules.warningSeconds = $1 },
            integer("grace_s", 0...3600) { $0.rules.graceSeconds = $1 },
            integer("fade_s", 0...120) { $0.rules.fadeSeconds = $1 },
        ],
        "chapters": [
            boolean("navigate") { $0.chapters.navigate = $1 },
            choice("cue_sheets", CueSheetReading.self) { $0.chapters.cueSheets = $1 },
            integer("cue_chapters_minutes", 1...10_000) { $0.chapters.cueChaptersMinutes = $1 },
        ],
        "podcasts": [
            KeySpec(name: "feeds", kind: .urls) { $0.podcasts.feeds = $1.texts ?? [] },
            path("cache_dir") { $0.podcasts.cacheDir = $1 },
            integer("cache_limit_mb", 1...1_048_576) { $0.podcasts.cacheLimitMB = $1 },
        ],
        "network": [
            string("address") { $0.network.address = $1 },
            integer("port", 1...65535) { $0.network.port = $1 },
            string("socket", allowEmpty: true) { $0.network.socket = $1 },
            string("password", allowEmpty: true) { $0.network.password = $1 },
            integer("max_connections", 1...1000) { $0.network.maxConnections = $1 },
        ],
        "web": [
            string("address") { $0.web.address = $1 },
            integer("port", 1...65535) { $0.web.port = $1 },
        ],
        "mqtt": [
            KeySpec(name: "broker", kind: .brokerURL) { $0.mqtt.broker = $1.text.flatMap(MQTTBroker.parse) },
            string("username", allowEmpty: true) { $0.mqtt.username = $1 },
            string("password", allowEmpty: true) { $0.mqtt.password = $1 },
            string("discovery_prefix") { $0.mqtt.discoveryPrefix = $1 },
            string("topic_prefix") { $0.mqtt.topicPrefix = $1 },
            path("ca_file") { $0.mqtt.caFile = $1 },
        ],
        "snapcast": [
            string("fifo", allowEmpty: true) { $0.snapcast.fifo = $1 },
            string("sample_format") { $0.snapcast.sampleFormat = $1 },
            string("name") { $0.snapcast.name = $1 },
        ],
    ]

    /// The closest name within a small edit distance, or one that contains `word`.
    static func suggest(_ word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate)
            let limit = max(2, candidate.count / 3)
            let contains = lowered.count >= 3 && (candidate.contains(lowered) || lowered.contains(candidate))
            guard distance <= limit || contains else { continue }
            let score = contains ? min(distance, limit) : distance
            if best == nil || score < best!.distance { best = (candidate, score) }
        }
        return best?.name
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    // MARK: checking values

    struct Run {
        var document: ConfigDocument
        var diagnostics: [ConfigDiagnostic] = []

        mutating func report(_ entry: ConfigDocument.Entry, _ problem: String) {
            diagnostics.append(
                .init(fileName: document.fileName, line: entry.line, key: entry.qualifiedKey, problem: problem))
        }

        mutating func reportUnknownTable(_ name: String, line: Int?) {
            var problem = "unknown table [\(name)]"
            let known = ConfigValidator.schema.keys.filter { !$0.isEmpty }.sorted()
            let head = String(name.prefix { $0 != "." })
            if let open = name.firstIndex(of: "["), !name.contains(".") {
                let array = name[..<open]
                problem = "unknown array of tables [[\(array)]]"
                if ConfigValidator.schema[String(array)] != nil {
                    problem += "; '\(array)' is a table, write it as [\(array)]"
                } else if let suggestion = ConfigValidator.suggest(String(array), among: [AlarmSection.name]) {
                    problem += "; did you mean [[\(suggestion)]]?"
                }
            } else if name == AlarmSection.name {
                problem = "an alarm is one element of an array of tables: write [[alarm]] (each alarm under its own)"
            } else if name == "card_reader" {
                problem = "a card reader needs a name: write [card_reader.NAME], e.g. [card_reader.front]"
            } else if head == "card_reader" {
                problem += "; a card reader's table is [card_reader.NAME], one name without dots"
            } else if name.contains("."), ConfigValidator.suggest(head, among: ["card_reader"]) != nil {
                problem += "; did you mean [card_reader.\(name.dropFirst(head.count + 1))]?"
            } else if let suggestion = ConfigValidator.suggest(name, among: known) {
                problem += "; did you mean [\(suggestion)]?"
            }
            diagnostics.append(.init(fileName: document.fileName, line: line, key: name, problem: problem))
        }

        mutating func check(_ entry: ConfigDocument.Entry, against kind: Kind) -> CheckedValue? {
            switch (kind, entry.value) {
            case (.string(let allowEmpty), .string(let text)):
                if !allowEmpty, text.isEmpty {
                    report(entry, "must not be empty")
                    return nil
                }
                return CheckedValue(text: text)
            case (.path(let allowStdin), .string(let text)):
                if allowStdin {
                    if text == "stdin" || text == "none" || text.hasPrefix("/") { return CheckedValue(text: text) }
                    report(entry, "must be 'stdin', 'none' or a device path like /dev/serial0, found '\(text)'")
                    return nil
                }
                guard !text.isEmpty else {
                    report(entry, "must not be empty")
                    return nil
                }
                return CheckedValue(text: text)
            case (.choice(let choices), .string(let text)):
                guard choices.contains(text) else {
                    report(entry, "must be one of \(ConfigValidator.list(choices)), found '\(text)'")
                    return nil
                }
                return CheckedValue(text: text)
            case (.integer(let range), .integer(let value)):
                guard range.contains(value) else {
                    report(entry, "must be between \(range.lowerBound) and \(range.upperBound), found \(value)")
                    return nil
                }
                return CheckedValue(integer: Int(value))
            case (.integerChoice(let choices), .integer(let value)):
                guard choices.contains(value) else {
                    report(entry, "must be one of \(ConfigValidator.list(choices.map { "\($0)" })), found \(value)")
                    return nil
                }
                return CheckedValue(integer: Int(value))
            case (.boolean, .bool(let value)):
                return CheckedValue(boolean: value)
            case (.urls, .array(let values)):
                var urls: [String] = []
                for value in values {
                    guard case .string(let url) = value,
                        url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://")
                    else {
                        let found = if case .string(let text) = value { "'\(text)'" } else { value.typeName }
                        report(entry, "expected http:// or https:// URLs, found \(found)")
                        return nil
                    }
                    urls.append(url)
                }
                return CheckedValue(texts: urls)
            case (.brokerURL, .string(let text)):
                guard MQTTBroker.parse(text) != nil else {
                    report(entry, "expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT], found '\(text)'")
                    return nil
                }
                return CheckedValue(text: text)
            case (.ruleList(let kind), .array(let values)):
                var texts: [String] = []
                for value in values {
                    guard case .string(let text) = value else {
                        report(entry, "expected strings like \"\(kind.example)\", found \(value.typeName)")
                        return nil
                    }
                    if let problem = kind.problem(text.trimmedSpaces) {
                        report(entry, problem)
                        return nil
                    }
                    texts.append(text.trimmedSpaces)
                }
                return CheckedValue(texts: texts)
            case (.number(let range), .integer(let value)):
                return checkNumber(entry, Double(value), range: range, shown: "\(value)")
            case (.number(let range), .float(let value)):
                return checkNumber(entry, value, range: range, shown: "\(value)")
            case (.string, _), (.choice, _), (.path, _), (.brokerURL, _):
                report(entry, "expected a string, found \(entry.value.typeName)")
            case (.integer, _), (.integerChoice, _):
                report(entry, "expected an integer, found \(entry.value.typeName)")
            case (.boolean, _):
                report(entry, "expected true or false, found \(entry.value.typeName)")
            case (.number, _):
                report(entry, "expected a number, found \(entry.value.typeName)")
            case (.urls, _):
                report(entry, "expected an array of URLs, found \(entry.value.typeName)")
            case (.ruleList(let kind), _):
                report(entry, "expected an array of strings like \"\(kind.example)\", found \(entry.value.typeName)")
            }
            return nil
        }

        private mutating func checkNumber(
            _ entry: ConfigDocument.Entry, _ value: Double, range: ClosedRange<Double>, shown: String
        ) -> CheckedValue? {
            guard range.contains(value) else {
                let bounds = "\(Self.format(range.lowerBound)) and \(Self.format(range.upperBound))"
                report(entry, "must be between \(bounds), found \(shown)")
                return nil
            }
            return CheckedValue(number: value)
        }

        private static func format(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
        }
    }

    /// `a, b or c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + items.last!
    }
}
