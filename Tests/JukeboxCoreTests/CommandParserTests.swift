import Testing

@testable import JukeboxCore

@Suite struct CommandParserTests {
    @Test(arguments: [
        ("play", Command.play(index: nil)),
        ("play 1", .play(index: 0)),
        ("PLAY   12", .play(index: 11)),
        ("  play\t3\r", .play(index: 2)),
        ("pause", .pause),
        ("pause 1", .pause),
        ("pause 0", .resume),
        ("resume", .resume),
        ("Toggle", .toggle),
        ("stop\r\n", .stop),
        ("next", .next),
        ("previous", .previous),
        ("prev", .previous),
        ("seek +10", .seek(.relative(ms: 10_000))),
        ("seek -5", .seek(.relative(ms: -5000))),
        ("seek 83", .seek(.absolute(ms: 83_000))),
        ("seek 1:23", .seek(.absolute(ms: 83_000))),
        ("seek 1:02:03", .seek(.absolute(ms: 3_723_000))),
        ("seek 83.5", .seek(.absolute(ms: 83_500))),
        ("seek -1:00", .seek(.relative(ms: -60_000))),
        ("seek 0", .seek(.absolute(ms: 0))),
        ("seekcur +5", .seek(.relative(ms: 5000))),
        ("seekcur 30", .seek(.absolute(ms: 30_000))),
        ("skip +10", .seek(.relative(ms: 10_000))),
        ("skip -30", .seek(.relative(ms: -30_000))),
        ("Skip +1:00", .seek(.relative(ms: 60_000))),
        ("volume +5", .changeVolume(5)),
        ("volume -5", .changeVolume(-5)),
        ("volume 40", .setVolume(40)),
        ("volume 0", .setVolume(0)),
        ("vol 100", .setVolume(100)),
        ("setvol 55", .setVolume(55)),
        ("mode repeat-all", .setMode(.repeatAll)),
        ("mode in-order", .setMode(.inOrder)),
        ("mode repeat-one", .setMode(.repeatOne)),
        ("MODE Shuffle", .setMode(.shuffle)),
        ("mode repeat_one", .setMode(.repeatOne)),
        ("mode random", .setMode(.shuffle)),
        ("mode", .cycleMode),
        ("status", .status),
        ("help", .help),
        ("?", .help),
        ("nxet\u{8}\u{8}\u{8}ext", .next),
        ("stopp\u{7F}", .stop),
    ])
    func validLines(line: String, command: Command) {
        #expect(CommandParser.parse(line) == .success(command))
    }

    @Test(arguments: [
        ("", CommandError.emptyLine),
        ("   \t \r", .emptyLine),
        ("paws", .unknownCommand("paws")),
        ("Paws now", .unknownCommand("Paws")),
        ("play 0", .badArgument(command: "play", problem: "expected an entry number from 1, found '0'")),
        ("play -2", .badArgument(command: "play", problem: "expected an entry number from 1, found '-2'")),
        ("play x", .badArgument(command: "play", problem: "expected an entry number from 1, found 'x'")),
        ("play 1 2", .badArgument(command: "play", problem: "expected at most one entry number, like play 3")),
        (
            "play 99999999999999999999999",
            .badArgument(command: "play", problem: "expected an entry number from 1, found '99999999999999999999999'")
        ),
        ("next please", .badArgument(command: "next", problem: "takes no arguments")),
        ("volume", .badArgument(command: "volume", problem: "expected a number like 40, +5 or -5")),
        ("volume loud", .badArgument(command: "volume", problem: "expected a number like 40, +5 or -5")),
        ("volume 250", .badArgument(command: "volume", problem: "must be between 0 and 100, found 250")),
        ("volume +", .badArgument(command: "volume", problem: "expected a number like 40, +5 or -5")),
        ("setvol +5", .badArgument(command: "setvol", problem: "expected a number from 0 to 100")),
        ("seek", .badArgument(command: "seek", problem: "expected seconds or m:ss like 83, 1:23, +10 or -5")),
        ("seek 1:75", .badArgument(command: "seek", problem: "expected seconds or m:ss like 83, 1:23, +10 or -5")),
        ("seek 1::2", .badArgument(command: "seek", problem: "expected seconds or m:ss like 83, 1:23, +10 or -5")),
        ("seek abc", .badArgument(command: "seek", problem: "expected seconds or m:ss like 83, 1:23, +10 or -5")),
        ("seek 1.2345", .badArgument(command: "seek", problem: "expected seconds or m:ss like 83, 1:23, +10 or -5")),
        ("seek +-3", .badArgument(command: "seek", problem: "expected seconds or m:ss like 83, 1:23, +10 or -5")),
        ("seek 1:2:3:4", .badArgument(command: "seek", problem: "expected seconds or m:ss like 83, 1:23, +10 or -5")),
        ("skip 10", .badArgument(command: "skip", problem: "expected seconds with a sign, like +10, -30 or +1:00")),
        ("skip", .badArgument(command: "skip", problem: "expected seconds with a sign, like +10, -30 or +1:00")),
        (
            "mode loop",
            .badArgument(command: "mode", problem: "expected in-order, repeat-all, repeat-one or shuffle, found 'loop'")
        ),
        ("play\u{1B}[A", .controlCharacters),
        ("stop\u{0}", .controlCharacters),
        (String(repeating: "x", count: 300), .lineTooLong(limit: 256)),
        (String(repeating: " ", count: 5000) + "play", .lineTooLong(limit: 256)),
    ])
    func invalidLines(line: String, error: CommandError) {
        #expect(CommandParser.parse(line) == .failure(error))
    }

    @Test(arguments: [
        (CommandError.unknownCommand("paws"), "unknown command 'paws' (type 'help')"),
        (
            .badArgument(command: "volume", problem: "expected a number like 40, +5 or -5"),
            "volume: expected a number like 40, +5 or -5"
        ),
        (.lineTooLong(limit: 256), "line too long (at most 256 characters)"),
    ])
    func errorMessages(error: CommandError, message: String) {
        #expect(error.message == message)
        #expect(!message.contains("\n"))
    }

    @Test func longUnknownWordsAreShortenedInTheMessage() {
        guard case .failure(let error) = CommandParser.parse(String(repeating: "z", count: 200)) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.message.count < 80)
    }

    @Test func helpTextHasOneLinePerCommandAndEveryCommandParses() {
        let lines = CommandParser.helpText.split(separator: "\n")
        #expect(lines.count == 14)  // speed is the box table's (MPDCommands.boxHelp)
        for line in lines {
            let word = String(line.split(separator: " ")[0])
            if case .failure(.unknownCommand) = CommandParser.parse(word) { Issue.record("help names '\(word)'") }
        }
    }

    @Test func garbageNeverCrashes() {
        var generator = SplitMix64(seed: 1234)
        let alphabet = Array("playsekvomdtu0123456789+-:. \t\r\u{8}\u{7F}\u{1B}éß😀")
        for _ in 0..<3000 {
            let length = generator.next(below: 40)
            let line = String((0..<length).map { _ in alphabet[generator.next(below: alphabet.count)] })
            switch CommandParser.parse(line) {
            case .success: break
            case .failure(let error): #expect(!error.message.isEmpty)
            }
        }
    }

    /// The console splits words as MPD does, so a line means the same on every front end.
    @Test func wordsAreQuotedAsMPDQuotesThem() {
        func split(_ line: String, limit: Int = .max) -> Result<[String], CommandWords.Problem> {
            CommandWords.split(Array(line.utf8), limit: limit)
        }
        #expect(
            split(#"podcast add "https://x.org/a b.xml""#) == .success(["podcast", "add", "https://x.org/a b.xml"]))
        #expect(
            split(#"card assign 04A1B2 folder "Name With Spaces""#)
                == .success(["card", "assign", "04A1B2", "folder", "Name With Spaces"]))
        #expect(split(#"a  "say \"hi\"\\" "" b"#) == .success(["a", #"say "hi"\"#, "", "b"]))
        #expect(split(#"a "open"#) == .failure(.missingClosingQuote))
        #expect(split(#"a "x"y"#) == .failure(.spaceExpectedAfterClosingQuote))
        #expect(split("a don't") == .failure(.invalidUnquotedCharacter))
        #expect(split("a b c", limit: 2) == .failure(.tooManyWords))
        #expect(CommandParser.parse(#"mode "repeat-one""#) == .success(.setMode(.repeatOne)))
        #expect(CommandParser.parse(#"volume "+5""#) == .success(.changeVolume(5)))
        #expect(
            CommandParser.parse(#"play "3"#) == .failure(.badArgument(command: "line", problem: "Missing closing '\"'"))
        )
    }
}
