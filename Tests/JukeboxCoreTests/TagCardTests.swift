import TOML
import Testing

@testable import JukeboxCore

/// Place to play and swipes, row by row on a manual clock.
@Suite struct TagCardPresenceTests {
    typealias Event = TagCardPresence.Event
    typealias Action = TagCardPresence.Action

    /// Feeds `(ms, event, expected actions)` rows in order.
    func run(_ presence: inout TagCardPresence, _ rows: [(Int64, Event, [Action])]) {
        for (ms, event, expected) in rows {
            let actions = presence.handle(event, now: .milliseconds(ms))
            #expect(actions == expected, "at \(ms) ms, \(event)")
        }
    }

    @Test func placeToPlay() {
        var presence = TagCardPresence()
        run(
            &presence,
            [
                (0, .read("A"), [.play("A")]),
                (100, .read("A"), []),  // a reader repeats its read: nothing new
                (500, .removed, []),
                (1_499, .tick, []),
                (1_500, .tick, [.pause("A")]),  // away for the whole debounce: removed
                (1_600, .tick, []),
                (3_000, .read("A"), [.resume("A")]),  // the same card back: continue
                (4_000, .removed, []),
                (5_000, .tick, [.pause("A")]),
                (6_000, .read("B"), [.play("B")]),  // another card: its content
                (7_000, .removed, []),
                (8_000, .tick, [.pause("B")]),
                (9_000, .read("A"), [.play("A")]),  // A again after B: A's content, from its place
            ])
    }

    @Test func aCardLostForLessThanTheDebounceWasNeverGone() {
        var presence = TagCardPresence()
        run(
            &presence,
            [
                (0, .read("A"), [.play("A")]),
                (1_000, .removed, []),
                (1_800, .read("A"), []),  // lost for 800 ms
                (2_000, .tick, []),
                (2_500, .tick, []),  // the old deadline passed without a removal
                (2_600, .removed, []),
                (2_700, .removed, []),  // a repeated removal does not move the deadline
                (3_600, .tick, [.pause("A")]),
            ])
        #expect(presence.nextDeadline == nil)
    }

    @Test func anotherCardDuringTheDebounceSwitchesAtOnce() {
        var presence = TagCardPresence(removalDebounceMs: 300)
        run(
            &presence,
            [
                (0, .read("A"), [.play("A")]),
                (100, .removed, []),
                (200, .read("B"), [.play("B")]),
                (1_000, .tick, []),  // no pause for A: B plays
            ])
        #expect(presence.present == "B")
    }

    @Test func theDebounceIsConfigurableAndItsDeadlineIsPublished() {
        var presence = TagCardPresence(removalDebounceMs: 250)
        _ = presence.handle(.read("A"), now: .milliseconds(0))
        _ = presence.handle(.removed, now: .milliseconds(40))
        #expect(presence.nextDeadline == .milliseconds(290))
        // A late event also delivers the expired removal first.
        #expect(presence.handle(.read("B"), now: .milliseconds(400)) == [.pause("A"), .play("B")])
    }

    @Test(arguments: TagCardPresence.SwipeAgain.allCases) func swipes(again: TagCardPresence.SwipeAgain) {
        var presence = TagCardPresence(mode: .swipe, swipeAgain: again)
        run(
            &presence,
            [
                (0, .read("A"), [.play("A")]),
                (100, .removed, []),
                (5_000, .tick, []),  // taking a swiped card away does nothing
                (6_000, .read("A"), [.swipeAgain("A", again)]),
                (7_000, .read("B"), [.play("B")]),
                (8_000, .read("A"), [.play("A")]),
            ])
    }
}

@Suite struct TagCardCommandTests {
    @Test func parsesEveryForm() throws {
        func parse(_ words: [String]) -> TagCardCommand? { try? TagCardCommand.parse(words).get() }
        #expect(parse(["04a1b2"]) == .read(id: "04A1B2"))
        #expect(parse(["none"]) == .removed)
        #expect(parse(["list"]) == .list)
        #expect(parse(["info"]) == .info)
        #expect(parse(["Unknown"]) == .unknown)
        #expect(parse(["last"]) == .last)
        #expect(parse(["last", "x"]) == nil)
        #expect(parse(["info", "x"]) == nil)
        #expect(parse(["forget", "04a1"]) == .forget(id: "04A1"))
        #expect(parse(["export", "/tmp/c.csv"]) == .export(path: "/tmp/c.csv"))
        #expect(parse(["import", "/tmp/c.csv"]) == .import(path: "/tmp/c.csv"))
        #expect(parse(["policy", "a1", "start"]) == .policy(id: "A1", .start))
        #expect(parse(["policy", "a1", "auto"]) == .policy(id: "A1", nil))
        #expect(
            parse(["assign", "a1", "folder", "Kids/Gruffalo"])
                == .assign(TagCard(id: "A1", content: .source(.folder(path: "Kids/Gruffalo")))))
        #expect(
            parse(["assign", "a1", "album", "Julia Donaldson", "The Gruffalo"])
                == .assign(
                    TagCard(id: "A1", content: .source(.album(artist: "Julia Donaldson", album: "The Gruffalo")))))
        #expect(
            parse(["assign", "a1", "album", "The Gruffalo"])
                == .assign(TagCard(id: "A1", content: .source(.album(artist: "", album: "The Gruffalo")))))
        #expect(
            parse(["assign", "a1", "artist", "X"]) == .assign(TagCard(id: "A1", content: .source(.artist(name: "X")))))
        #expect(
            parse(["assign", "a1", "command", "sleep 30"]) == .assign(TagCard(id: "A1", content: .command("sleep 30"))))
        #expect(
            parse(["assign", "a1", "url", "http://x/y"]) == .assign(TagCard(id: "A1", content: .url("http://x/y"))))
    }

    @Test func badWordsSayWhatIsWrong() {
        func message(_ words: [String]) -> String? {
            if case .failure(let error) = TagCardCommand.parse(words) { return error.message }
            return nil
        }
        #expect(message([]) == "card: expected a card ID, none, assign, list or forget")
        #expect(
            message(["assign", "a1", "song", "x"])
                == "card: unknown kind 'song' (folder, album, artist, playlist, url, command)")
        #expect(message(["assign", "a1", "folder", "a", "b"]) == "card: folder: expected one value")
        #expect(message(["assign", "a1", "folder", ""]) == "card: folder: expected one value")
        #expect(message(["policy", "a1", "later"]) == "card: policy: expected continue, start or auto, found 'later'")
        #expect(
            message(["a1", "b2"])
                == "card: expected a card ID, none, assign, policy, name, list, forget, export or import")
    }

    /// `card name ID NAME`: trimmed, at most 64 characters, no control characters, one word
    /// (quoted on the console); "" clears the name.
    @Test func namesAreCheckedWhereTheyAreParsed() {
        func parse(_ words: [String]) -> Result<TagCardCommand, CommandError> { TagCardCommand.parse(words) }
        let usage =
            "card: name: expected a card ID and one name, in quotes when it has spaces "
            + "(card name 04A1B2 \"yellow car\"; \"\" clears it)"
        let sixtyFour = String(repeating: "é", count: 64)
        let table: [([String], Result<TagCardCommand, CommandError>)] = [
            (["name", "04a1", "yellow car"], .success(.name(id: "04A1", name: "yellow car"))),
            (["NAME", "04a1", "  yellow car \u{3000}"], .success(.name(id: "04A1", name: "yellow car"))),
            (["name", "04a1", ""], .success(.name(id: "04A1", name: ""))),
            (["name", "04a1", "🚗 gelbes Auto"], .success(.name(id: "04A1", name: "🚗 gelbes Auto"))),
            (["name", "04a1", sixtyFour], .success(.name(id: "04A1", name: sixtyFour))),
            (
                ["name", "04a1", sixtyFour + "x"],
                .failure(.badArgument(command: "card", problem: "name: at most 64 characters, found 65"))
            ),
            (
                ["name", "04a1", "yellow\ncar"],
                .failure(
                    .badArgument(
                        command: "card",
                        problem: "name: control characters (a newline, a tab) are not allowed in a name"))
            ),
            (
                ["name", "04a1", "a\tb"],
                .failure(
                    .badArgument(
                        command: "card",
                        problem: "name: control characters (a newline, a tab) are not allowed in a name"))
            ),
            (
                ["name", "04a1", "yellow", "car"],
                .failure(.badArgument(command: "card", problem: String(usage.dropFirst(6))))
            ),
            (["name", "04a1"], .failure(.badArgument(command: "card", problem: String(usage.dropFirst(6))))),
            (["name", " ", "x"], .failure(.badArgument(command: "card", problem: String(usage.dropFirst(6))))),
        ]
        for (words, expected) in table {
            #expect(parse(words) == expected, "\(words)")
        }
        if case .failure(let error) = parse(["name"]) { #expect(error.message == usage) } else { Issue.record() }
    }

    /// `card info` gains `name:` and `last_used:` (ISO 8601 UTC, as MPD's Last-Modified) when
    /// a card has them; `card list` shows both after what it plays.
    @Test func infoAndListShowTheNameAndTheLastUse() {
        let card = TagCard(
            id: "a1", content: .source(.folder(path: "Kids")), name: "yellow \"car\"\n", lastUsed: 1_796_715_120)
        #expect(
            TagCardCommand.infoLines([card, TagCard(id: "b2", content: .command("stop"), name: "")]) == [
                "card: A1", "kind: folder", "value: Kids", "name: yellow \"car\" ", "last_used: 2026-12-08T07:32:00Z",
                "card: B2", "kind: command", "value: stop",
            ])
        #expect(
            TagCardCommand.listLine(card) == #"A1 folder "Kids" named "yellow \"car\" " used 2026-12-08T07:32:00Z"#)
        #expect(TagCardCommand.listLine(TagCard(id: "b2", content: .command("stop"))) == #"B2 command "stop""#)
    }

    @Test func contentDescribesItselfAsAssignTakesIt() {
        #expect(TagCard.Content.source(.album(artist: "A \"B\"", album: "C")).description == #"album "A \"B\"" "C""#)
        #expect(TagCard.Content.command("stop").description == #"command "stop""#)
    }

    @Test func policyByLength() {
        let card = TagCard(id: "a", content: .command("stop"))
        #expect(card.continues(durationMs: 20 * 60_000 + 1, continueOverMs: 20 * 60_000))
        #expect(!card.continues(durationMs: 20 * 60_000, continueOverMs: 20 * 60_000))
        var fixed = card
        fixed.policy = .start
        #expect(!fixed.continues(durationMs: 99 * 60_000, continueOverMs: 60_000))
        fixed.policy = .continue
        #expect(fixed.continues(durationMs: 1, continueOverMs: 60_000))
    }
}

@Suite struct TagCardFileTests {
    @Test func exportThenImportGivesTheSameCards() {
        let cards = [
            TagCard(id: "04A1", content: .source(.folder(path: "Kids/Gruffalo, \"read\"")), policy: .continue),
            TagCard(id: "04A2", content: .source(.album(artist: "Julia Donaldson", album: "Zog"))),
            TagCard(id: "04A3", content: .source(.album(artist: "", album: "Zog"))),
            TagCard(id: "04A4", content: .source(.artist(name: "Queen")), policy: .start),
            TagCard(id: "04A5", content: .source(.playlist(name: "mix"))),
            TagCard(id: "04A6", content: .url("http://radio/x")),
            TagCard(id: "04A7", content: .command("volume 30")),
        ]
        let text = TagCardFile.csv(cards)
        #expect(
            text.hasPrefix(
                "card,kind,value,artist,policy,name\n04A1,folder,\"Kids/Gruffalo, \"\"read\"\"\",,continue,\n"))
        let parsed = TagCardFile.parse(text)
        #expect(parsed.problems == [])
        // An exported card without a name comes back with the name "" (none), which clears one.
        #expect(
            parsed.cards
                == cards.map {
                    var card = $0; card.name = ""; return card
                })
    }

    /// The name column goes out and comes back; a file from before names (5 fields, with or
    /// without its header) still imports, its cards' names nil: the stored names stay.
    @Test func namesRoundTripAndAFileWithoutThemStillImports() {
        let named = [
            TagCard(id: "04A1", content: .source(.folder(path: "Kids")), name: "yellow car, \"fast\""),
            TagCard(id: "04A2", content: .command("stop"), name: ""),
        ]
        let text = TagCardFile.csv(named)
        #expect(
            text
                == "card,kind,value,artist,policy,name\n04A1,folder,Kids,,,\"yellow car, \"\"fast\"\"\"\n04A2,command,stop,,,\n"
        )
        #expect(TagCardFile.parse(text).cards == named)
        let old = TagCardFile.parse("card,kind,value,artist,policy\n04A1,folder,Kids,,continue\n04A2,command,stop,,\n")
        #expect(old.problems == [])
        #expect(
            old.cards == [
                TagCard(id: "04A1", content: .source(.folder(path: "Kids")), policy: .continue),
                TagCard(id: "04A2", content: .command("stop")),
            ])
        #expect(old.cards.allSatisfy { $0.name == nil })
        let long = String(repeating: "x", count: 65)
        #expect(
            TagCardFile.parse("A1,folder,Kids,,,\(long)\nA2,folder,K,,,ok\n").problems == [
                "line 1: card: name: at most 64 characters, found 65"
            ])
    }

    @Test func everyBadLineIsNamed() {
        let text = """
            card,kind,value,artist,policy
            # comment
            A1,folder,Kids,,
            A2,song,x,,
            A3,folder,"open,,
            A4,folder,x
            A1,album,Zog,,
            A5,folder,x,,later
            ,folder,x,,

            A6,album,Zog,Julia,start\r
            """
        let parsed = TagCardFile.parse(text)
        #expect(
            parsed.problems == [
                "line 4: card: unknown kind 'song' (folder, album, artist, playlist, url, command)",
                "line 5: a quoted field is not closed",
                "line 6: expected 6 fields (card,kind,value,artist,policy,name), or 5, found 3",
                "line 7: card A1 is already on line 3",
                "line 8: policy: expected continue, start or nothing, found 'later'",
                "line 9: no card ID",
            ])
        #expect(
            parsed.cards == [
                TagCard(id: "A1", content: .source(.folder(path: "Kids"))),
                TagCard(id: "A6", content: .source(.album(artist: "Julia", album: "Zog")), policy: .start),
            ])
    }
}

@Suite struct TagCardTOMLFileTests {
    static let cards = [
        TagCard(id: "04A1", content: .source(.folder(path: "Kids/Gruffalo, \"read\" \\ here")), policy: .continue),
        TagCard(id: "04A2", content: .source(.album(artist: "Julia Donaldson", album: "Zog"))),
        TagCard(id: "04A3", content: .source(.album(artist: "", album: "Zog"))),
        TagCard(id: "04A4", content: .source(.artist(name: "Björk")), policy: .start),
        TagCard(id: "04A5", content: .source(.playlist(name: "mix\tnight"))),
        TagCard(id: "04.A6", content: .url("http://radio/x")),
        TagCard(id: "04A7", content: .command("volume 30")),
    ]

    @Test func exportThenImportGivesTheSameCards() {
        let text = TagCardFile.toml(Self.cards)
        #expect(
            text.contains(
                """
                [card.04A2]
                album = "Zog"
                artist = "Julia Donaldson"
                """))
        #expect(text.contains("[card.\"04.A6\"]\nurl = \"http://radio/x\"\n"), "\(text)")
        let parsed = TagCardFile.parseTOML(text)
        #expect(parsed.problems == [])
        #expect(parsed.cards == Self.cards)
        // The extension chooses the format, both ways.
        #expect(TagCardFile.Format(path: "/tmp/Cards.TOML") == .toml)
        #expect(TagCardFile.Format(path: "/tmp/cards.csv") == .csv)
        #expect(
            TagCardFile.parse(TagCardFile.text(Self.cards, as: .csv), as: .csv).cards
                == Self.cards.map {
                    var card = $0; card.name = ""; return card
                })
    }

    @Test func everyBadCardIsNamedWithItsLine() {
        let text = """
            [card.A1]
            folder = "Kids"

            [card.A2]
            song = "x"
            [card.A3]
            folder = "x"
            album = "y"
            [card.a1]
            folder = "again"
            [card.A4]
            policy = "later"
            folder = "x"
            [card.A5]
            artist = "Queen"
            folder = "x"
            [card.A6]
            folder = 3
            [card.A7]
            [card.A8]
            album = "Zog"
            artist = "Julia"
            policy = "start"
            [other]
            x = 1
            """
        let parsed = TagCardFile.parseTOML(text)
        #expect(
            parsed.problems == [
                "line 5: card A2: unknown key 'song' (folder, album, artist, playlist, url, command, policy, name)",
                "line 6: card A3: plays one thing, found folder and album",
                "line 9: card A1 is already on line 1",
                "line 12: card A4: policy: expected continue or start, found 'later'",
                "line 14: card A5: plays one thing, found folder and artist",
                "line 18: card A6: folder: expected a string, found an integer",
                "line 19: card A7: expected what it plays (folder, album, artist, playlist, url, command)",
                "line 25: other.x: unknown key (each card is a table [card.ID])",
            ])
        #expect(
            parsed.cards == [
                TagCard(id: "A1", content: .source(.folder(path: "Kids"))),
                TagCard(id: "A8", content: .source(.album(artist: "Julia", album: "Zog")), policy: .start),
            ])
    }

    /// `name` goes out when a card has one and comes back; left out, the stored name stays
    /// (nil); a bad one is named with its line and imports nothing of that card.
    @Test func namesRoundTripAndABadOneIsNamed() {
        let cards = [
            TagCard(id: "04A1", content: .source(.folder(path: "Kids")), name: "yellow \"car\""),
            TagCard(id: "04A2", content: .command("stop")),
        ]
        let text = TagCardFile.toml(cards)
        #expect(
            text.hasSuffix(
                "[card.04A1]\nfolder = \"Kids\"\nname = \"yellow \\\"car\\\"\"\n\n[card.04A2]\ncommand = \"stop\"\n"),
            "\(text)")
        #expect(TagCardFile.parseTOML(text).cards == cards)
        let bad = TagCardFile.parseTOML(
            "[card.A1]\nfolder = \"K\"\nname = \"a\\u0007b\"\n[card.A2]\nfolder = \"K\"\nname = 3\n")
        #expect(
            bad.problems == [
                "line 3: card A1: card: name: control characters (a newline, a tab) are not allowed in a name",
                "line 6: card A2: name: expected a string, found an integer",
            ])
        #expect(bad.cards == [])
    }

    @Test func aSyntaxErrorIsOneMessageWithItsLine() {
        let parsed = TagCardFile.parseTOML("[card.A1]\nfolder = \"Kids\"\n[card.A2]\nfolder = \"open\n")
        #expect(parsed.cards == [])
        #expect(parsed.problems.count == 1)
        #expect(parsed.problems.first?.hasPrefix("line 4: ") == true, "\(parsed.problems)")
    }
}

@Suite struct TagCardConfigTests {
    @Test func theCardsSection() throws {
        let text = """
            music_dir = "/m"
            [cards]
            mode = "swipe"
            swipe_again = "skip"
            removal_debounce_ms = 600
            continue_over_minutes = 7.5
            """
        let document = try TOMLParser.parse(text, fileName: "j.toml").get()
        let result = ConfigValidator.validate(document) { _ in nil }
        #expect(result.diagnostics.isEmpty)
        let cards = try #require(result.config).cards
        #expect(cards.mode == .swipe)
        #expect(cards.swipeAgain == .skip)
        #expect(cards.removalDebounceMs == 600)
        #expect(cards.continueOverMs == 450_000)
        #expect(JukeboxConfig.Cards() == JukeboxConfig(musicDir: "/m").cards)
        #expect(JukeboxConfig.Cards().removalDebounceMs == 1000)
    }

    @Test func aTypoIsOneLine() throws {
        let text = "music_dir = \"/m\"\n[cards]\nmode = \"tap\"\nremoval_debounce_ms = 20000\n"
        let document = try TOMLParser.parse(text, fileName: "j.toml").get()
        #expect(
            ConfigValidator.validate(document) { _ in nil }.diagnostics.map(\.description) == [
                "j.toml:3: cards.mode: must be one of place or swipe, found 'tap'",
                "j.toml:4: cards.removal_debounce_ms: must be between 0 and 10000, found 20000",
            ])
    }
}
