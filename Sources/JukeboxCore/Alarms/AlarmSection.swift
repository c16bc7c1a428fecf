import TOML

/// The `[[alarm]]` tables' keys and checks, for `ConfigValidator`: the parser lists the
/// elements of the array as tables `alarm[1]`, `alarm[2]`, ... (in file order).
enum AlarmSection {
    static let name = "alarm"
    /// What plays: exactly one of these.
    static let musicKeys = ["card", "folder", "playlist", "station"]

    /// The element's number (from 1) of `table` when it is an `[[alarm]]`'s table, else nil.
    static func number(of table: String) -> Int? {
        guard table.hasPrefix(name + "["), table.hasSuffix("]") else { return nil }
        guard let number = Int(table.dropFirst(name.count + 1).dropLast()), number >= 1 else { return nil }
        return number
    }

    /// The key specs of `table` when it is an alarm's (`alarm[N]`, or `alarm` for the
    /// reference), else nil.
    static func keys(for table: String) -> [ConfigValidator.KeySpec]? {
        let number: Int
        if table == name {
            number = 1
        } else if let element = Self.number(of: table) {
            number = element
        } else {
            return nil
        }
        @Sendable func set(_ change: @escaping @Sendable (inout WakeUpAlarm, ConfigValidator.CheckedValue) -> Void)
            -> @Sendable (inout JukeboxConfig, ConfigValidator.CheckedValue) -> Void
        {
            { config, value in
                while config.alarms.count < number {
                    // Filled in by its keys; one without time or music is refused by `diagnostics`.
                    config.alarms.append(
                        WakeUpAlarm(name: "alarm \(config.alarms.count + 1)", minuteOfDay: 0, music: .card("")))
                }
                change(&config.alarms[number - 1], value)
            }
        }
        return [
            .init(name: "name", kind: .string(allowEmpty: false), apply: set { $0.name = $1.text ?? $0.name }),
            .init(
                name: "time", kind: .string(allowEmpty: false),
                apply: set { alarm, value in
                    if let minute = ClockTimeText.parse(Substring(value.text ?? "")), minute < 1440 {
                        alarm.minuteOfDay = minute
                    }
                }),
            .init(
                name: "days", kind: .string(allowEmpty: false),
                apply: set { alarm, value in
                    if let days = WeekdaySet.parse(value.text ?? "") { alarm.days = days }
                }),
            .init(name: "card", kind: .string(allowEmpty: false), apply: set { $0.music = .card($1.text ?? "") }),
            .init(
                name: "folder", kind: .string(allowEmpty: true),
                apply: set { $0.music = .source(.folder(path: $1.text ?? "")) }),
            .init(
                name: "playlist", kind: .string(allowEmpty: false),
                apply: set { $0.music = .source(.playlist(name: $1.text ?? "")) }),
            .init(name: "station", kind: .string(allowEmpty: false), apply: set { $0.music = .station($1.text ?? "") }),
            .init(name: "fallback", kind: .string(allowEmpty: true), apply: set { $0.fallbackFolder = $1.text }),
            .init(name: "volume", kind: .integer(1...100), apply: set { $0.volume = $1.integer ?? 30 }),
            .init(name: "fade_s", kind: .integer(0...3600), apply: set { $0.fadeSeconds = $1.integer ?? 60 }),
            .init(name: "snooze_minutes", kind: .integer(1...120), apply: set { $0.snoozeMinutes = $1.integer ?? 9 }),
            .init(
                name: "stop_after_minutes", kind: .integer(0...1440),
                apply: set { $0.stopAfterMinutes = $1.integer ?? 60 }),
        ]
    }

    /// The checks across an alarm's keys: its time and days as text, and what it plays.
    static func diagnostics(_ config: JukeboxConfig, document: ConfigDocument) -> [ConfigDiagnostic] {
        var diagnostics: [ConfigDiagnostic] = []
        for table in document.tables where table.name.hasPrefix(name + "[") {
            guard number(of: table.name) != nil else { continue }
            let entries = document.entries.filter { $0.table == table.name }
            func report(_ key: String, _ problem: String) {
                let line = entries.first { $0.key == key }?.line ?? table.line
                diagnostics.append(
                    .init(fileName: document.fileName, line: line, key: "\(table.name).\(key)", problem: problem))
            }
            func text(_ key: String) -> String? {
                if case .string(let text) = entries.first(where: { $0.key == key })?.value { return text }
                return nil
            }
            if let time = text("time") {
                if ClockTimeText.parse(Substring(time)).map({ $0 >= 1440 }) ?? true {
                    report("time", "expected a time like 06:45 (00:00 to 23:59), found '\(time)'")
                }
            } else if !entries.contains(where: { $0.key == "time" }) {
                report("time", "required: when the alarm rings, like time = \"06:45\"")
            }
            if let days = text("days"), WeekdaySet.parse(days) == nil {
                report("days", "expected days like mon-fri, sat,sun, weekdays, weekend or all, found '\(days)'")
            }
            let music = entries.filter { musicKeys.contains($0.key) }
            if music.isEmpty {
                report(
                    "folder",
                    "required: what the alarm plays, one of \(ConfigValidator.list(musicKeys)) (e.g. folder = \"Wake up\")"
                )
            } else if music.count > 1 {
                report(
                    music[1].key, "an alarm plays one thing: \(music.map(\.key).joined(separator: " and ")) are given")
            }
            if let station = text("station"), !(station.hasPrefix("http://") || station.hasPrefix("https://")) {
                report("station", "expected the station's http:// or https:// URL, found '\(station)'")
            }
        }
        return diagnostics
    }
}
