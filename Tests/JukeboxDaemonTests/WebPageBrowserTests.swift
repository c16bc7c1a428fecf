import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The family's web page in a real browser: Debian's chromium and chromedriver, driven by
/// Tests/Tools/web-browser-test.py (python3-selenium), against a real jukeboxd (ALSA's null
/// device) and the real jukebox-web reading the same config. `./dev setup` installs the
/// browser, so a missing one fails the test.
@Suite(.serialized) struct WebPageBrowserTests {
    static let hostileTitle = "<img src=x onerror=alert(1)>"

    static var webBinary: String { Fixtures.builtProduct("jukebox-web") }

    /// A daemon on `MenuEndToEndTests`' library plus Hostile/01.mp3 (titled `hostileTitle`),
    /// cards A and B assigned, the queue Alpha/First, Beta/First, Hostile playing, the system
    /// clock trusted (a card's last use is recorded); and jukebox-web on the same config.
    static func start() throws -> (DaemonHarness, DaemonProcess, web: String, mpdPort: Int) {
        let webPort = freeLoopbackPort()
        let (harness, client, mpdPort) = try TagCardDaemonTests.start(
            extra: "[web]\naddress = \"127.0.0.1\"\nport = \(webPort)\n[rules]\nclock = \"system\"\n")
        let hostile = "\(harness.musicDir)/Hostile"
        try FileManager.default.createDirectory(atPath: hostile, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(harness.musicDir)/Alpha/First/01.mp3", toPath: "\(hostile)/01.mp3")
        let tagged = try runTool(
            "/usr/bin/python3",
            [
                "-c",
                "import sys; from mutagen.easyid3 import EasyID3; t = EasyID3(sys.argv[1]); "
                    + "t['title'] = sys.argv[2]; t.save()", "\(hostile)/01.mp3", hostileTitle,
            ])
        try #require(tagged.status == 0, "\(tagged.output)")
        #expect(client.command("update").first?.hasPrefix("updating_db") == true)
        #expect(
            waitUntil(timeout: .seconds(10)) { client.command("lsinfo Hostile").contains("Title: \(hostileTitle)") },
            "\(harness.log)")
        TagCardDaemonTests.assignCards(client)
        for line in ["clear", "add Alpha/First", "add Beta/First", "add Hostile", "play 0"] {
            #expect(client.command(line) == ["OK"], "\(line)")
        }
        let web = try DaemonProcess(executable: webBinary, arguments: ["--config", harness.configPath])
        #expect(web.waitForLine(matching: "web page on http://127.0.0.1:\(webPort)/") != nil, "\(web.lines)")
        return (harness, web, "http://127.0.0.1:\(webPort)", mpdPort)
    }

    /// The one-time setup code jukebox-web logged (before the "web page on" line `start` waited for).
    static func setupCode(_ web: DaemonProcess) throws -> String {
        let logged = web.lines.last { $0.text.contains("setup code ") }?.text
        let code = String(logged?.split(separator: " ").last ?? "")
        try #require(code.count == 6, "\(web.lines)")
        return code
    }

    /// Ends jukebox-web, then the daemon.
    static func stop(_ harness: DaemonHarness, web: DaemonProcess) {
        web.kill(SIGTERM)
        _ = web.waitForExit(timeout: .seconds(5))
        MPDDaemonTests.stop(harness)
    }

    /// Runs a scenario of the browser script; its output shows in the test's log.
    static func browse(_ scenario: String) throws {
        let (harness, web, url, mpdPort) = try start()
        defer {
            web.kill(SIGTERM)
            #expect(web.waitForExit(timeout: .seconds(5)) == 0, "\(web.lines)")
            MPDDaemonTests.stop(harness)
        }
        let result = try runTool(
            "/usr/bin/python3",
            [
                Fixtures.path("Tests/Tools/web-browser-test.py"), scenario, "--url", url, "--mpd-port", "\(mpdPort)",
                "--setup-code", try setupCode(web),
            ],
            timeout: .seconds(120))
        print(result.output)
        #expect(result.status == 0, "\(result.output)\n\(web.text(of: .stderr))\n\(harness.log)")
    }

    /// The page shows the playing song and follows a `next` from another client; its buttons,
    /// volume and the queue's remove act on the box; a POST without the CSRF token is refused.
    @Test func nowPlayingFollowsTheBox() throws { try Self.browse("now-playing") }

    /// A track titled `<img src=x onerror=alert(1)>` shows as text.
    @Test func hostileTitleShowsAsText() throws { try Self.browse("xss") }

    /// `card C0FFEE` on the MPD socket: the page offers it, a folder is assigned from the
    /// picker, the card is named on the page, and the card then plays that folder and shows
    /// its name and "last used: today HH:MM"; forget removes it.
    @Test func newCardIsOfferedAssignedAndPlays() throws { try Self.browse("cards") }

    /// The settings page: the password set with the setup code jukebox-web logged; a bad value
    /// refused with the validator's message and nothing written; good values written into the
    /// file (the previous one kept); no session or no token, nothing written; wrong passwords
    /// slowed. The daemon started again on the file runs with the new maximum volume.
    @Test func settingsAreSavedBehindThePasswordAndTheDaemonRunsWithThem() throws {
        let (harness, web, url, mpdPort) = try Self.start()
        defer {
            web.kill(SIGTERM)
            _ = web.waitForExit(timeout: .seconds(5))
        }
        // Logged before the "web page on" line that start() waited for.
        let code = try Self.setupCode(web)
        let result = try runTool(
            "/usr/bin/python3",
            [
                Fixtures.path("Tests/Tools/web-browser-test.py"), "settings", "--url", url, "--mpd-port", "\(mpdPort)",
                "--setup-code", code, "--config", harness.configPath,
            ],
            timeout: .seconds(240))
        print(result.output)
        #expect(result.status == 0, "\(result.output)\n\(web.text(of: .stderr))\n\(harness.log)")

        MPDDaemonTests.stop(harness)
        let process = try harness.start()
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: mpdPort)
        _ = client.command("setvol 100")
        #expect(client.fields("status")["volume"] == "60", "\(harness.log)")
        MPDDaemonTests.stop(harness)
    }

    /// A setting saved, then Restart on the settings page: the page waits until the daemon
    /// answers from a new start and says so; the daemon runs with the new maximum volume. It
    /// runs as under systemd ($NOTIFY_SOCKET): `restart` exits 75 and this test starts it
    /// again as the unit would, so the new start is a new process. The system page shows its facts.
    @Test func restartFromTheSettingsPageRunsTheDaemonWithTheNewSetting() throws {
        let (harness, web, url, mpdPort) = try Self.start()
        defer { Self.stop(harness, web: web) }
        let code = try Self.setupCode(web)
        MPDDaemonTests.stop(harness)
        let notify = try NotifySocket(path: harness.directory.file("notify"))
        let supervised = ["NOTIFY_SOCKET": notify.path]
        let first = try harness.start(environment: supervised)
        #expect(first.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        let browser = try DaemonProcess(
            executable: "/usr/bin/python3",
            arguments: [
                Fixtures.path("Tests/Tools/web-browser-test.py"), "restart", "--url", url, "--mpd-port", "\(mpdPort)",
                "--setup-code", code, "--config", harness.configPath, "--supervised",
            ])
        // The unit's part: start it again on exit status 75.
        #expect(waitUntil(timeout: .seconds(120)) { !first.isRunning || !browser.isRunning })
        if !first.isRunning {
            #expect(first.waitForExit() == 75, "\(harness.log)")
            let second = try harness.start(environment: supervised)
            #expect(second.pid != first.pid)
        }
        let status = browser.waitForExit(timeout: .seconds(240))
        print(browser.text(of: .stdout))
        #expect(
            status == 0,
            "\(browser.text(of: .stdout))\n\(browser.text(of: .stderr))\n\(web.text(of: .stderr))\n\(harness.log)")
    }

    /// Upload from the page: two MP3s and an .lrc into a new folder, which the daemon then plays
    /// with its lyrics; and the refusals (path escapes, hidden names, other types, no token or
    /// session, an existing name, more than the free space, a cut-off upload cleaned up).
    @Test func uploadedFilesPlayWithTheirLyricsAndHostileUploadsAreRefused() throws {
        let (harness, web, url, mpdPort) = try Self.start()
        defer { Self.stop(harness, web: web) }
        let code = try Self.setupCode(web)
        let source = harness.directory.file("to-upload")
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        let files = ["\(source)/01 Morning.mp3", "\(source)/02 Evening.mp3", "\(source)/01 Morning.lrc"]
        try FileManager.default.copyItem(atPath: "\(harness.musicDir)/Alpha/First/01.mp3", toPath: files[0])
        try FileManager.default.copyItem(atPath: "\(harness.musicDir)/Alpha/First/01.mp3", toPath: files[1])
        try "[00:00.00]Uploaded line one\n[09:00.00]Uploaded line two\n".write(
            toFile: files[2], atomically: true, encoding: .utf8)
        let result = try runTool(
            "/usr/bin/python3",
            [
                Fixtures.path("Tests/Tools/web-browser-test.py"), "upload", "--url", url, "--mpd-port", "\(mpdPort)",
                "--setup-code", code, "--music", harness.musicDir, "--files",
            ] + files,
            timeout: .seconds(240))
        print(result.output)
        #expect(result.status == 0, "\(result.output)\n\(web.text(of: .stderr))\n\(harness.log)")
    }

    /// The music page: browse Alpha → First → Play now on a song (the queue is that song and
    /// it plays), search by title → Add to queue (queued after it), the hostile title found
    /// shows as text, a favourite marked on the box is played from the page, a card's
    /// Recently played entry continued; no token, nothing queued.
    @Test func musicPageBrowsesSearchesAndPlays() throws { try Self.browse("music") }

    /// Board/jukebox-web.service as systemd reads it (ExecStart pointed at the binary under test).
    @Test func unitPassesSystemdAnalyzeVerify() throws {
        let unit = try verifyBoardUnit("jukebox-web", binary: Self.webBinary)
        #expect(unit.contains("After=jukeboxd.service"))
    }

    /// The music plays on when the web process dies.
    @Test func musicPlaysOnWhenTheWebProcessDies() throws {
        let (harness, web, _, mpdPort) = try Self.start()
        defer { MPDDaemonTests.stop(harness) }
        web.kill(SIGKILL)
        _ = web.waitForExit(timeout: .seconds(5))
        let client = try MPDTestClient(port: mpdPort)
        let before = Double(client.fields("status")["elapsed"] ?? "") ?? -1
        #expect(
            waitUntil(timeout: .seconds(5)) {
                let status = client.fields("status")
                return status["state"] == "play" && (Double(status["elapsed"] ?? "") ?? -1) > before + 1
            }, "\(harness.log)")
    }
}

/// Board/NAME.service as systemd reads it, with its ExecStart pointed at `binary` (the build
/// under test): `systemd-analyze verify` says nothing. Returns the unit's text.
func verifyBoardUnit(_ name: String, binary: String) throws -> String {
    let folder = try FileSystem.makeTemporaryDirectory(prefix: "\(name)-unit")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let unit = try String(contentsOfFile: "\(Fixtures.repoRoot)/Board/\(name).service", encoding: .utf8)
    #expect(unit.contains("ExecStart=/usr/local/bin/\(name) --config /etc/jukebox/jukebox.toml"))
    let path = "\(folder)/\(name).service"
    try unit.replacingOccurrences(of: "/usr/local/bin/\(name)", with: binary).write(
        toFile: path, atomically: true, encoding: .utf8)
    let result = try runTool("/usr/bin/systemd-analyze", ["verify", path])
    #expect(result.status == 0 && result.output.isEmpty, "\(result.output)")
    return unit
}
