import Testing

@testable import JukeboxWeb

/// `/system`'s facts from the daemon's `system` reply, the page (escaped), and how the page
/// waiting after Restart judges the daemon's answers.
@Suite struct SystemPageTests {
    static let fields = [
        MPDField("version", "0.1.0"), MPDField("build", "development build"), MPDField("pid", "4242"),
        MPDField("started_ms", "1765112345123"), MPDField("uptime", "3725"), MPDField("tracks", "812"),
        MPDField("music_dir", "/srv/music"), MPDField("music_free", "15676170240"),
        MPDField("config", "/etc/jukebox/jukebox.toml"), MPDField("database", "/var/lib/jukebox/jukebox.sqlite"),
        MPDField("restart_by", "systemd"), MPDField("problem", "first <b>"), MPDField("problem", "second"),
        MPDField("later_key", "ignored"),
    ]

    @Test func factsAreReadFromTheReply() {
        let facts = SystemFacts(Self.fields)
        #expect(facts.version == "0.1.0" && facts.pid == "4242" && facts.startedMs == 1_765_112_345_123)
        #expect(facts.uptimeSeconds == 3725 && facts.tracks == 812 && facts.musicFreeBytes == 15_676_170_240)
        #expect(facts.config == "/etc/jukebox/jukebox.toml" && facts.restartBy == "systemd")
        #expect(facts.problems == ["first <b>", "second"])
    }

    @Test(arguments: [
        (Int64(0), "0 s"), (59, "59 s"), (252, "4 min 12 s"), (3725, "1 h 2 min"), (273_600, "3 d 4 h"), (-5, "0 s"),
    ])
    func durations(seconds: Int64, text: String) {
        #expect(SystemFacts.duration(seconds) == text)
    }

    @Test(arguments: [
        (Int64(0), "0 MiB"), (851_443_712, "812 MiB"), (15_676_170_240, "14.6 GiB"), (1_073_741_824, "1.0 GiB"),
    ])
    func sizes(bytes: Int64, text: String) {
        #expect(SystemFacts.size(bytes) == text)
    }

    @Test func thePageShowsTheFactsEscapedAndTheRestartButton() {
        let token = CSRFToken(value: "t0k")
        let html = Pages.system(SystemFacts(Self.fields), token: token)
        #expect(html.contains("<dd id=\"sys-uptime\">1 h 2 min</dd>"))
        #expect(html.contains("<dd id=\"sys-tracks\">812 tracks</dd>"))
        #expect(html.contains("<dd id=\"sys-free\">14.6 GiB (/srv/music)</dd>"))
        #expect(html.contains("<dd id=\"sys-config\">/etc/jukebox/jukebox.toml</dd>"))
        #expect(html.contains("first &lt;b&gt;") && !html.contains("first <b>"))
        // Newest first.
        #expect(
            html.contains("<ol id=\"problems\"><li><code>second</code></li><li><code>first &lt;b&gt;</code></li></ol>"))
        #expect(html.contains("action=\"/system/restart\""))
        #expect(html.contains("<input type=\"hidden\" name=\"csrf\" value=\"t0k\">"))
        let down = Pages.system(nil, token: token, problem: "jukeboxd does not answer: <refused>")
        #expect(down.contains("jukeboxd does not answer: &lt;refused&gt;") && down.contains("/system/restart"))
    }

    @Test func theSettingsPageOffersARestartAfterASave() {
        let token = CSRFToken(value: "t0k")
        let saved = Pages.settings(
            [], token: token, saved: [SettingsChange(table: "audio", name: "max_volume", old: nil, new: "60")])
        #expect(saved.contains("action=\"/system/restart\""))
        #expect(!Pages.settings([], token: token).contains("action=\"/system/restart\""))
    }

    @Test func theWaitingPageJudgesTheDaemonsAnswers() {
        var before = SystemFacts()
        before.startedMs = 100
        var after = before
        after.startedMs = 200
        after.pid = "77"
        after.version = "0.1.0"
        #expect(RestartProgress.judge(before: 100, answer: .success(before)) == .stopping)
        #expect(RestartProgress.judge(before: 100, answer: .success(after)) == .running(after))
        #expect(RestartProgress.judge(before: nil, answer: .success(before)) == .running(before))
        #expect(RestartProgress.judge(before: 100, answer: .failure(.init("refused"))) == .down("refused"))
        #expect(
            RestartProgress.running(after).json()
                == "{\"state\":\"running\",\"pid\":\"77\",\"version\":\"0.1.0\",\"started_ms\":200}")
        #expect(RestartProgress.stopping.json() == "{\"state\":\"stopping\"}")
        #expect(
            RestartProgress.down("refused").json(configProblems: ["a.toml:3: <bad>"])
                == "{\"state\":\"down\",\"error\":\"refused\",\"problems\":[\"a.toml:3: \\u003cbad>\"]}")
    }

    @Test func theWaitingPageCarriesTheStartItWaitsToEnd() {
        let html = Pages.restarting(since: 1_765_112_345_123, token: CSRFToken(value: "t"))
        #expect(html.contains("data-since=\"1765112345123\"") && html.contains("id=\"restart-status\""))
    }
}
