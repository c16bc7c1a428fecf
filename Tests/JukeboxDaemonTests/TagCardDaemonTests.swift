import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// NFC/RFID cards on the real daemon, injected as a reader would give them (`card ID`,
/// `card none` on the stdin console), with the player watched over the MPD listener: place to
/// play, a removal debounced, each card's own place, a kill -9, and the learn flow.
@Suite(.serialized) struct TagCardDaemonTests {
    /// A daemon on `MenuEndToEndTests`' library (three artists, two albums each, two 21 s
    /// tracks per album) with cards A (folder Alpha/First, continue) and B (album Beta Second).
    static func start(onStart: String = "play", extra: String = "") throws -> (DaemonHarness, MPDTestClient, Int) {
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(
            tracks: [], configExtra: "[network]\nport = \(port)\n\(extra)", onStart: onStart)
        try MenuEndToEndTests.writeLibrary(in: harness.musicDir)
        let process = try harness.start()
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: port)
        #expect(
            waitUntil(timeout: .seconds(10)) { client.command("lsinfo \"Alpha/First\"").count > 1 }, "\(harness.log)")
        return (harness, client, port)
    }

    static func assignCards(_ client: MPDTestClient) {
        #expect(client.command(#"card assign a folder "Alpha/First""#) == [#"card: A folder "Alpha/First""#, "OK"])
        #expect(client.command("card policy A continue") == ["OK"])
        #expect(client.command(#"card assign b album Beta Second"#) == [#"card: B album "Beta" "Second""#, "OK"])
    }

    /// The playing file and position, and the state.
    static func now(_ client: MPDTestClient) -> (file: String?, elapsed: Double, state: String?) {
        let status = client.fields("status")
        return (
            client.fields("currentsong")["file"], status["elapsed"].flatMap(Double.init) ?? -1, status["state"]
        )
    }

    /// Waits until the player plays a file under `folder`; that moment (MonotonicClock).
    static func waitForPlaying(_ folder: String, _ client: MPDTestClient) -> UInt64? {
        var at: UInt64?
        waitUntil(timeout: .seconds(5), pollingEvery: .milliseconds(10)) {
            let now = Self.now(client)
            guard now.state == "play", now.file?.hasPrefix(folder + "/") == true else { return false }
            at = MonotonicClock.nanoseconds()
            return true
        }
        return at
    }

    @Test func placeToPlayWithEachCardsOwnPlace() throws {
        let (harness, client, _) = try Self.start()
        defer { MPDDaemonTests.stop(harness) }
        Self.assignCards(client)

        harness.send("card A")
        #expect(Self.waitForPlaying("Alpha/First", client) != nil, "\(harness.log)")
        #expect(waitUntil(timeout: .seconds(5)) { Self.now(client).elapsed >= 3 })

        // Removed: the pause comes when the debounce (1 s) is over, within 200 ms of it.
        let removed = MonotonicClock.nanoseconds()
        harness.send("card none")
        var pausedAt: UInt64 = 0
        #expect(
            waitUntil(timeout: .seconds(3), pollingEvery: .milliseconds(10)) {
                pausedAt = MonotonicClock.nanoseconds()
                return client.fields("status")["state"] == "pause"
            }, "\(harness.log)")
        let pauseDelay = seconds(from: removed, to: pausedAt)
        print("card none -> paused: \(pauseDelay) s (debounce 1 s)")
        #expect(pauseDelay >= 1.0 && pauseDelay <= 1.2, "paused \(pauseDelay) s after the removal")
        let left = Self.now(client)

        // Card B plays B.
        harness.send("card B")
        #expect(Self.waitForPlaying("Beta/Second", client) != nil, "\(harness.log)")
        #expect(
            client.command("playlistinfo").filter { $0.hasPrefix("file: ") } == [
                "file: Beta/Second/01.mp3", "file: Beta/Second/02.mp3",
            ])

        #expect(waitUntil(timeout: .seconds(5)) { Self.now(client).elapsed >= 2 })

        // A back (B taken off first) continues A where it paused.
        harness.send("card none")
        harness.send("card A")
        #expect(Self.waitForPlaying("Alpha/First", client) != nil, "\(harness.log)")
        let back = Self.now(client)
        #expect(back.file == left.file)
        #expect(abs(back.elapsed - left.elapsed) <= 1.0, "paused at \(left.elapsed) s, continued at \(back.elapsed) s")
        let listing = client.command("card list")
        let placeOfB = #"card: B album "Beta" "Second" at Beta/Second/01.mp3 0:02"#
        #expect(listing.contains { $0.hasPrefix(placeOfB) }, "\(listing)")
    }

    @Test func aCardLostFor800MillisecondsDoesNotPause() throws {
        let (harness, client, _) = try Self.start()
        defer { MPDDaemonTests.stop(harness) }
        Self.assignCards(client)
        harness.send("card A")
        #expect(Self.waitForPlaying("Alpha/First", client) != nil, "\(harness.log)")
        let lost = MonotonicClock.nanoseconds()
        harness.send("card none")
        while seconds(from: lost, to: MonotonicClock.nanoseconds()) < 0.8 {
            #expect(client.fields("status")["state"] == "play")
            sleepMilliseconds(20)
        }
        harness.send("card A")
        // Past the old debounce deadline and beyond, it keeps playing.
        while seconds(from: lost, to: MonotonicClock.nanoseconds()) < 2.5 {
            #expect(client.fields("status")["state"] == "play", "\(harness.log)")
            sleepMilliseconds(20)
        }
        #expect(!harness.log.contains("card: pause"), "\(harness.log)")
    }

    /// Card A plays to 6.5 s; the daemon is killed (-9) and started again (paused). Where A
    /// was, and a client of the new process.
    static func killWhileAPlays() throws -> (
        harness: DaemonHarness, killed: (file: String?, elapsed: Double, state: String?), client: MPDTestClient
    ) {
        let (harness, client, port) = try Self.start(onStart: "paused")
        Self.assignCards(client)
        harness.send("card A")
        #expect(Self.waitForPlaying("Alpha/First", client) != nil, "\(harness.log)")
        #expect(waitUntil(timeout: .seconds(10)) { Self.now(client).elapsed >= 6.5 })
        let killed = Self.now(client)
        let process = try #require(harness.process)
        process.kill(SIGKILL)
        _ = process.waitForExit(timeout: .seconds(5))

        let again = try harness.start()
        #expect(again.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        let restarted = try MPDTestClient(port: port)
        #expect(waitUntil(timeout: .seconds(5)) { restarted.fields("status")["state"] == "pause" }, "\(harness.log)")
        return (harness, killed, restarted)
    }

    @Test func afterKill9TheCardContinuesWithin2Seconds() throws {
        let (harness, killed, restarted) = try Self.killWhileAPlays()
        defer { MPDDaemonTests.stop(harness) }
        harness.send("card A")
        #expect(Self.waitForPlaying("Alpha/First", restarted) != nil, "\(harness.log)")
        let continued = Self.now(restarted)
        print("killed at \(killed.elapsed) s of \(killed.file ?? "?"), card A continued at \(continued.elapsed) s")
        #expect(continued.file == killed.file)
        #expect(abs(continued.elapsed - killed.elapsed) <= 2.0)
    }

    /// The case the place per card must cover too: after the kill -9 another card plays first,
    /// and the first card, put back, continues where the kill left its music (the restarted
    /// daemon knows which card the restored queue belongs to, so the switch writes its place).
    @Test func afterKill9AnotherCardThenTheFirstContinuesWithin2Seconds() throws {
        let (harness, killed, restarted) = try Self.killWhileAPlays()
        defer { MPDDaemonTests.stop(harness) }
        harness.send("card B")
        #expect(Self.waitForPlaying("Beta/Second", restarted) != nil, "\(harness.log)")
        harness.send("card none")
        harness.send("card A")
        #expect(Self.waitForPlaying("Alpha/First", restarted) != nil, "\(harness.log)")
        let continued = Self.now(restarted)
        print(
            "killed at \(killed.elapsed) s of \(killed.file ?? "?"), after card B card A continued at \(continued.elapsed) s"
        )
        #expect(continued.file == killed.file)
        #expect(
            abs(continued.elapsed - killed.elapsed) <= 2.0,
            "killed at \(killed.elapsed) s, continued at \(continued.elapsed) s")
    }

    @Test func aNewCardLearnsWhatTheMenuChooses() throws {
        let (harness, client, _) = try Self.start()
        defer { MPDDaemonTests.stop(harness) }
        let process = try #require(harness.process)
        harness.send("card 04c0ffee")
        #expect(process.waitForLine(matching: "new card 04C0FFEE", on: .stdout) != nil, "\(harness.log)")
        // The menu is open: Artists, the second artist, its second album, Play all.
        for gesture in ["+1", "press", "+1", "press", "+1", "press", "press"] {
            #expect(client.command("knob \(gesture)") == ["OK"], "knob \(gesture)")
        }
        #expect(Self.waitForPlaying("Beta/Second", client) != nil, "\(harness.log)")
        let listing = client.command("card list")
        #expect(listing.first?.hasPrefix(#"card: 04C0FFEE album "Beta" "Second" at Beta/Second/01.mp3"#) == true)
        #expect(listing.count == 2, "\(listing)")
        // It holds the queue like any card: taken off, the music pauses.
        harness.send("card none")
        #expect(waitUntil(timeout: .seconds(3)) { client.fields("status")["state"] == "pause" }, "\(harness.log)")
    }

    /// Swipe mode: taking a card away does nothing, a second swipe toggles; a command card runs
    /// its command and leaves the music alone.
    @Test func swipesAndACommandCard() throws {
        let (harness, client, _) = try Self.start(extra: "[cards]\nmode = \"swipe\"\nremoval_debounce_ms = 100\n")
        defer { MPDDaemonTests.stop(harness) }
        Self.assignCards(client)
        #expect(client.command(#"card assign c command "volume 30""#) == [#"card: C command "volume 30""#, "OK"])
        harness.send("card A")
        #expect(Self.waitForPlaying("Alpha/First", client) != nil, "\(harness.log)")
        harness.send("card none")
        sleepMilliseconds(300)  // three debounces: a removal would have paused by now
        #expect(client.fields("status")["state"] == "play")
        harness.send("card A")
        #expect(waitUntil(timeout: .seconds(3)) { client.fields("status")["state"] == "pause" }, "\(harness.log)")
        harness.send("card A")
        #expect(Self.waitForPlaying("Alpha/First", client) != nil, "\(harness.log)")
        harness.send("card C")
        #expect(waitUntil(timeout: .seconds(3)) { client.fields("status")["volume"] == "30" }, "\(harness.log)")
        #expect(Self.now(client).state == "play")
        #expect(Self.now(client).file?.hasPrefix("Alpha/First/") == true)
    }

    /// The `card info` fields of card `id`.
    static func info(_ client: MPDTestClient, card id: String) -> [String: String] {
        var fields: [String: String] = [:]
        var current: String?
        for line in client.command("card info") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon])
            let value = String(line[colon...].dropFirst().drop { $0 == " " })
            if key == "card" { current = value }
            if current == id { fields[key] = value }
        }
        return fields
    }

    /// `card name` through the socket, every bad name refused with its reason and nothing
    /// changed; a read of the card records its last use (the clock trusted: `[rules] clock =
    /// "system"`), shown by `card info` and `card list`; the name goes out and comes back in
    /// the CSV, and an old CSV without names keeps it.
    @Test func aCardIsNamedAndItsLastUseRecorded() throws {
        let (harness, client, _) = try Self.start(extra: "[rules]\nclock = \"system\"\n")
        defer { MPDDaemonTests.stop(harness) }
        Self.assignCards(client)
        #expect(client.command(#"card name a "yellow car""#) == ["OK"])
        #expect(Self.info(client, card: "A")["name"] == "yellow car")
        #expect(Self.info(client, card: "A")["last_used"] == nil, "never read yet")
        let refusals: [(String, String)] = [
            (
                "card name a \"\(String(repeating: "x", count: 65))\"",
                "ACK [2@0] {card} card: name: at most 64 characters, found 65"
            ),
            ("card name a", "ACK [2@0] {card} card: name: expected a card ID and one name"),
            ("card name a yellow car", "ACK [2@0] {card} card: name: expected a card ID and one name"),
            ("card name a \"red\tbus\"", "ACK ["),
            ("card name ZZ \"red bus\"", "ACK [52@0] {card} no card ZZ"),
        ]
        for (line, refusal) in refusals {
            let reply = client.command(line)
            #expect(reply.count == 1 && reply[0].hasPrefix(refusal), "\(line): \(reply)")
        }
        #expect(Self.info(client, card: "A")["name"] == "yellow car", "a refused name changed nothing")
        #expect(Self.info(client, card: "ZZ").isEmpty)

        let before = Int64(Date().timeIntervalSince1970)
        harness.send("card A")
        #expect(Self.waitForPlaying("Alpha/First", client) != nil, "\(harness.log)")
        var used: Int64?
        #expect(
            waitUntil(timeout: .seconds(5)) {
                used = Self.info(client, card: "A")["last_used"].flatMap(Self.isoSeconds)
                return used != nil
            }, "\(client.command("card info"))")
        let after = Int64(Date().timeIntervalSince1970)
        #expect(
            used.map { (before...after).contains($0) } == true,
            "\(String(describing: used)) not in \(before)...\(after)")
        #expect(Self.info(client, card: "B")["last_used"] == nil)
        let list = client.command("card list")
        #expect(list.first?.hasPrefix(#"card: A folder "Alpha/First" (continue)"#) == true, "\(list)")
        #expect(list.first?.contains(#" named "yellow car" used 20"#) == true, "\(list)")

        // The name in the CSV, both ways; a file from before names keeps it.
        let file = harness.directory.file("cards.csv")
        #expect(client.command("card export \"\(file)\"") == ["card: 2 cards written to \(file)", "OK"])
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "card,kind,value,artist,policy,name\nA,folder,Alpha/First,,continue,yellow car\nB,album,Second,Beta,,\n"
        )
        try "card,kind,value,artist,policy,name\nB,album,Second,Beta,,red bus\nC,folder,x,,,\"a\u{7}\"\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let refused = client.command("card import \"\(file)\"")
        #expect(
            refused.first?.contains("nothing imported; line 3: card: name: control characters") == true, "\(refused)")
        #expect(Self.info(client, card: "B")["name"] == nil)
        try "card,kind,value,artist,policy,name\nB,album,Second,Beta,,red bus\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect(client.command("card import \"\(file)\"") == ["card: 1 cards read from \(file)", "OK"])
        try "card,kind,value,artist,policy\nA,folder,Alpha/First,,continue\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect(client.command("card import \"\(file)\"") == ["card: 1 cards read from \(file)", "OK"])
        #expect(Self.info(client, card: "A")["name"] == "yellow car")
        #expect(Self.info(client, card: "B")["name"] == "red bus")
        #expect(
            Self.info(client, card: "A")["last_used"].flatMap(Self.isoSeconds) == used, "an import keeps the last use")
        #expect(client.command(#"card name b """#) == ["OK"])
        #expect(Self.info(client, card: "B")["name"] == nil)
    }

    /// `2026-12-08T07:32:00Z` as seconds since 1970.
    static func isoSeconds(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
    }

    @Test func exportAndImportOnAConsole() throws {
        let (harness, client, _) = try Self.start()
        defer { MPDDaemonTests.stop(harness) }
        Self.assignCards(client)
        let file = harness.directory.file("cards.csv")
        #expect(client.command("card export \"\(file)\"") == ["card: 2 cards written to \(file)", "OK"])
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "card,kind,value,artist,policy,name\nA,folder,Alpha/First,,continue,\nB,album,Second,Beta,,\n")
        try "card,kind,value,artist,policy\nC,playlist,mix,,\nD,song,x,,\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect(
            client.command("card import \"\(file)\"")
                == [
                    "ACK [52@0] {card} \(file): nothing imported; line 3: card: unknown kind 'song' (folder, album, artist, playlist, url, command)"
                ])
        try "C,command,stop,,\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(client.command("card import \"\(file)\"") == ["card: 1 cards read from \(file)", "OK"])
        #expect(client.command("card forget b") == ["OK"])
        #expect(
            client.command("card list") == [
                #"card: A folder "Alpha/First" (continue)"#, #"card: C command "stop""#, "OK",
            ])

        // The same as TOML, chosen by the file's extension.
        let toml = harness.directory.file("cards.toml")
        #expect(client.command("card export \"\(toml)\"") == ["card: 2 cards written to \(toml)", "OK"])
        let exported = try String(contentsOfFile: toml, encoding: .utf8)
        #expect(
            exported.hasSuffix(
                "\n[card.A]\nfolder = \"Alpha/First\"\npolicy = \"continue\"\n\n[card.C]\ncommand = \"stop\"\n"),
            "\(exported)")
        try "[card.D]\nplaylist = \"mix\"\n[card.E]\nsong = \"x\"\n[card.F]\n".write(
            toFile: toml, atomically: true, encoding: .utf8)
        #expect(
            client.command("card import \"\(toml)\"")
                == [
                    "ACK [52@0] {card} \(toml): nothing imported; line 4: card E: unknown key 'song' (folder, album, artist, playlist, url, command, policy, name); line 5: card F: expected what it plays (folder, album, artist, playlist, url, command)"
                ])
        try (exported + "\n[card.D]\nalbum = \"Second\"\nartist = \"Beta\"\n").write(
            toFile: toml, atomically: true, encoding: .utf8)
        #expect(client.command("card forget C") == ["OK"])
        #expect(client.command("card import \"\(toml)\"") == ["card: 3 cards read from \(toml)", "OK"])
        #expect(
            client.command("card list") == [
                #"card: A folder "Alpha/First" (continue)"#, #"card: C command "stop""#,
                #"card: D album "Beta" "Second""#, "OK",
            ])
    }
}
