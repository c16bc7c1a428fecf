import JukeboxCore
import Testing

/// Spoken announcements' line, on a manual clock: one text at a time, in order, limits on the
/// text and on the line, and speech that never ends given up on.
@Suite struct AnnouncementsTests {
    /// One step: an input (or a `say`), the actions expected, and the phase after it.
    enum Step {
        case say(String, Result<[Announcements.Action], CommandError>)
        case input(Announcements.Input, atMs: Int64, [Announcements.Action])
    }

    static func run(_ steps: [Step], enabled: Bool = true) -> Announcements {
        var line = Announcements(enabled: enabled)
        for (index, step) in steps.enumerated() {
            switch step {
            case .say(let text, let expected):
                #expect(line.say(text) == expected, "step \(index): say \(text)")
            case .input(let input, let ms, let expected):
                #expect(line.handle(input, now: .milliseconds(ms)) == expected, "step \(index): \(input)")
            }
        }
        return line
    }

    @Test func textsAreSpokenOneAtATimeInOrder() {
        let line = Self.run([
            .say("one", .success([.synthesize("one")])),
            .say("two", .success([])),
            .say("three", .success([])),
            // Made: handed to the output; the next waits until it was heard.
            .input(.synthesized(lengthMs: 800), atMs: 100, [.speak]),
            .input(.tick, atMs: 500, []),
            .input(.ended, atMs: 1000, [.synthesize("two")]),
            // A failure moves on to the next.
            .input(.failed("espeak-ng has no voice"), atMs: 1100, [.synthesize("three")]),
            .input(.synthesized(lengthMs: 500), atMs: 1200, [.speak]),
            .input(.ended, atMs: 1800, []),
        ])
        #expect(line.phase == .idle)
        #expect(line.waiting.isEmpty)
    }

    @Test func inputsOutOfTurnChangeNothing() {
        let line = Self.run([
            .input(.ended, atMs: 0, []),
            .input(.synthesized(lengthMs: 100), atMs: 0, []),
            .input(.failed("x"), atMs: 0, []),
            .say("hello", .success([.synthesize("hello")])),
            // Still being made: an end (of an earlier clip) or a tick does not move it on.
            .input(.ended, atMs: 10, []),
            .input(.tick, atMs: 100_000, []),
        ])
        #expect(line.phase == .synthesizing("hello"))
    }

    @Test func speechThatNeverEndsIsGivenUpOnAfterItsLengthAndTheGrace() {
        let deadline = 100 + 2000 + Announcements.graceMs
        let line = Self.run([
            .say("one", .success([.synthesize("one")])),
            .say("two", .success([])),
            .input(.synthesized(lengthMs: 2000), atMs: 100, [.speak]),
            .input(.tick, atMs: deadline - 1, []),
            .input(.tick, atMs: deadline, [.synthesize("two")]),
        ])
        #expect(line.phase == .synthesizing("two"))
        var speaking = Announcements(enabled: true)
        _ = speaking.say("x")
        _ = speaking.handle(.synthesized(lengthMs: 2000), now: .milliseconds(100))
        #expect(speaking.nextDeadline == .milliseconds(deadline))
    }

    @Test func refusals() {
        let long = String(repeating: "a", count: Announcements.maxCharacters + 1)
        let rows: [(String, Bool, String?)] = [
            ("hello", true, nil),
            (String(repeating: "ä", count: Announcements.maxCharacters), true, nil),
            (long, true, "the text has 201 characters, at most 200 are spoken"),
            ("", true, "nothing to say"),
            ("  \t", true, "nothing to say"),
            ("hello", false, "speech is off ([speech] enabled = false)"),
        ]
        for (text, enabled, refusal) in rows {
            #expect(Announcements.refusal(of: text, enabled: enabled) == refusal, "\(text.prefix(10))")
            var line = Announcements(enabled: enabled)
            let said = line.say(text)
            if let refusal {
                #expect(said == .failure(.badArgument(command: "say", problem: refusal)))
                #expect(line.phase == .idle)
            } else {
                #expect(said == .success([.synthesize(text)]))
            }
        }
    }

    /// A combining mark joins the Character before it: one Character can hold any number of
    /// scalars, so the character limit alone let a text of any length through (fuzz finding 8).
    @Test func aCharacterOfManyMarksIsHeldToTheScalarLimit() {
        let marks = "a" + String(repeating: "\u{301}", count: 5000)
        #expect(marks.count == 1)
        #expect(
            Announcements.refusal(of: marks)
                == "the text has 5001 Unicode scalars (letters and marks), at most 800 are spoken")
        // Decomposed accents (as macOS writes names) are within it: 200 of them are 400 scalars.
        let decomposed = String(repeating: "a\u{308}", count: Announcements.maxCharacters)
        #expect(decomposed.unicodeScalars.count == 400)
        #expect(Announcements.refusal(of: decomposed) == nil)
        var line = Announcements(enabled: true)
        #expect(line.say(marks) == .failure(.badArgument(command: "say", problem: Announcements.refusal(of: marks)!)))
        #expect(line.phase == .idle)
    }

    /// What espeak-ng is handed: no control characters, nothing unassigned (up to Unicode
    /// 12.1), private-use or a noncharacter; a text of only those is nothing to say (fuzz
    /// finding 10: espeak-ng 1.51 read freed memory on `ПП\u{380}`).
    @Test func onlyWhatEspeakCanSayIsHandedOver() {
        #expect(Announcements.speakable("ПП\u{380}ив") == "ППив")
        #expect(Announcements.speakable("a\u{7}b\tc\nd") == "a b c d")
        #expect(Announcements.speakable("x\u{E000}y\u{FFFF}z") == "xyz")
        #expect(Announcements.speakable("Grüße, 你好, 🎵") == "Grüße, 你好, 🎵")
        #expect(Announcements.speakable("a\u{1F972}") == "a")  // 🥲 is Unicode 13.0
        var line = Announcements(enabled: true)
        #expect(line.say("ПП\u{380}ив") == .success([.synthesize("ППив")]))
        var other = Announcements(enabled: true)
        #expect(other.say("\u{380}\u{381}") == .failure(.badArgument(command: "say", problem: "nothing to say")))
    }

    @Test func theLineHasALimit() {
        var line = Announcements(enabled: true)
        #expect(line.say("now") == .success([.synthesize("now")]))
        for i in 0..<Announcements.maxWaiting { #expect(line.say("later \(i)") == .success([])) }
        #expect(
            line.say("one too many")
                == .failure(.badArgument(command: "say", problem: "busy: 4 texts wait to be spoken")))
        // An event is dropped quietly when the line is full.
        #expect(line.announce(.unknownCard) == [])
        #expect(line.waiting.count == Announcements.maxWaiting)
    }

    @Test func eventsHaveTheirWords() {
        var line = Announcements(enabled: true)
        #expect(line.announce(.unknownCard) == [.synthesize("unknown card")])
        // Speech off: an event says nothing either.
        var off = Announcements(enabled: false)
        #expect(off.announce(.unknownCard) == [])
    }

    @Test(
        arguments: [
            // One address, with the web page's port; each group said as a number.
            (["192.168.1.20"], 8080, "jukebox at 192 dot 168 dot 1 dot 20, port 8080"),
            // Loopback and IPv6 are left out; a web page on this machine only has no port.
            (["127.0.0.1", "::1", "fe80::1c2:3ff:fe04:506", "10.0.0.7"], nil, "jukebox at 10 dot 0 dot 0 dot 7"),
            // Several: Wi-Fi and Ethernet, a repeated one said once.
            (
                ["192.168.1.20", "10.0.0.7", "192.168.1.20"], 80,
                "jukebox at 192 dot 168 dot 1 dot 20 and 10 dot 0 dot 0 dot 7, port 80"
            ),
            // At most three.
            (
                ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"], 8080,
                "jukebox at 10 dot 0 dot 0 dot 1, 10 dot 0 dot 0 dot 2 and 10 dot 0 dot 0 dot 3, port 8080"
            ),
            // None, or only loopback and IPv6, or nothing that is an address.
            ([], 8080, "no network"),
            (["127.0.0.1", "::1", "fe80::1"], 8080, "no network"),
            (["192.168.1", "1.2.3.256", "+1.2.3.4", "a.b.c.d"], 8080, "no network"),
        ] as [([String], Int?, String)])
    func theAddressIsSaidOneGroupAtATime(addresses: [String], port: Int?, words: String) {
        let text = Announcements.Event.address(addresses, webPort: port).text
        #expect(text == words)
        #expect(Announcements.refusal(of: text) == nil)
    }

    @Test func theWebPageHasNoPortToSayWhenItListensOnThisMachineOnly() {
        #expect(Announcements.webPort(address: "0.0.0.0", port: 8080) == 8080)
        #expect(Announcements.webPort(address: "192.168.1.20", port: 80) == 80)
        #expect(Announcements.webPort(address: "127.0.0.1", port: 8080) == nil)
        #expect(Announcements.webPort(address: "localhost", port: 8080) == nil)
        #expect(Announcements.webPort(address: "::1", port: 8080) == nil)
    }

    @Test(
        arguments: [
            (300_000, "5 minutes of listening left"),
            // A warning due at 5:00 and taken a tick late still says 5.
            (299_900, "5 minutes of listening left"),
            (60_000, "1 minute of listening left"),
            (90_000, "90 seconds of listening left"),
            (30_000, "30 seconds of listening left"),
            (115_000, "2 minutes of listening left"),
            (600_000, "10 minutes of listening left"),
            (2_000, "10 seconds of listening left"),
            (-5, "10 seconds of listening left"),
        ] as [(Int64, String)])
    func theListeningBudgetsWords(leftMs: Int64, words: String) {
        #expect(Announcements.Event.listeningTimeLeft(ms: leftMs).text == words)
    }

    @Test func theBudgetsEndIsSaid() {
        var line = Announcements(enabled: true)
        #expect(line.announce(.listeningTimeOver) == [.synthesize("listening time is over for today")])
    }
}
