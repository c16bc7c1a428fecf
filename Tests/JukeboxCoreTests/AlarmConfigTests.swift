import TOML
import Testing

@testable import JukeboxCore

/// `[[alarm]]` tables: read into `WakeUpAlarm`s, and every mistake named with its line.
@Suite struct AlarmConfigTests {
    static func validate(_ text: String) -> (JukeboxConfig?, [String]) {
        let document = try! TOMLParser.parse("music_dir = \"/m\"\n" + text, fileName: "jukebox.toml").get()
        let result = ConfigValidator.validate(document) { _ in nil }
        return (result.config, result.diagnostics.map(\.description))
    }

    @Test func alarmsAreReadFromAnArrayOfTables() throws {
        let (config, problems) = Self.validate(
            """
            [[alarm]]
            name = "school"
            time = "06:45"
            days = "mon-fri"
            folder = "Wake up"
            volume = 35
            fade_s = 90

            [[alarm]]
            time = "8:30"
            station = "http://radio.example/stream"
            fallback = "Calm"
            snooze_minutes = 5
            stop_after_minutes = 0
            """)
        #expect(problems == [])
        let alarms = try #require(config).alarms
        #expect(
            alarms == [
                WakeUpAlarm(
                    name: "school", days: WeekdaySet.parse("mon-fri")!, minuteOfDay: 405,
                    music: .source(.folder(path: "Wake up")), volume: 35, fadeSeconds: 90),
                WakeUpAlarm(
                    name: "alarm 2", minuteOfDay: 510, music: .station("http://radio.example/stream"),
                    fallbackFolder: "Calm", snoozeMinutes: 5, stopAfterMinutes: 0),
            ])
    }

    @Test(arguments: [
        (
            "[[alarm]]\ntime = \"25:00\"\nfolder = \"x\"",
            "jukebox.toml:3: alarm[1].time: expected a time like 06:45 (00:00 to 23:59), found '25:00'"
        ),
        (
            "[[alarm]]\ntime = \"07:00\"\nfolder = \"x\"\nsnoze_minutes = 5",
            "jukebox.toml:5: alarm[1].snoze_minutes: unknown key 'snoze_minutes'; did you mean 'snooze_minutes'?"
        ),
        (
            "[[alarm]]\ntime = \"07:00\"\nfolder = \"x\"\n[[alarm]]\nfolder = \"y\"",
            "jukebox.toml:5: alarm[2].time: required: when the alarm rings, like time = \"06:45\""
        ),
        (
            "[[alarm]]\ntime = \"07:00\"",
            "jukebox.toml:2: alarm[1].folder: required: what the alarm plays, one of card, folder, playlist or station (e.g. folder = \"Wake up\")"
        ),
        (
            "[[alarm]]\ntime = \"07:00\"\nfolder = \"x\"\ncard = \"04a1\"",
            "jukebox.toml:5: alarm[1].card: an alarm plays one thing: folder and card are given"
        ),
        (
            "[[alarm]]\ntime = \"07:00\"\nfolder = \"x\"\ndays = \"mon-fry\"",
            "jukebox.toml:5: alarm[1].days: expected days like mon-fri, sat,sun, weekdays, weekend or all, found 'mon-fry'"
        ),
        (
            "[[alarm]]\ntime = \"07:00\"\nstation = \"radio.example\"",
            "jukebox.toml:4: alarm[1].station: expected the station's http:// or https:// URL, found 'radio.example'"
        ),
        (
            "[[alarm]]\ntime = \"07:00\"\nfolder = \"x\"\nvolume = 0",
            "jukebox.toml:5: alarm[1].volume: must be between 1 and 100, found 0"
        ),
        (
            "[alarm]\ntime = \"07:00\"",
            "jukebox.toml:2: alarm: an alarm is one element of an array of tables: write [[alarm]] (each alarm under its own)"
        ),
        (
            "[[alarms]]\ntime = \"07:00\"",
            "jukebox.toml:2: alarms[1]: unknown array of tables [[alarms]]; did you mean [[alarm]]?"
        ),
    ])
    func badAlarmsAreExplainedWithTheirLine(text: String, problem: String) {
        let (config, problems) = Self.validate(text)
        #expect(config == nil)
        #expect(problems == [problem])
    }
}
