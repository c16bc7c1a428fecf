/// The one command model every front end produces (console, MPD protocol, buttons, encoder).
public enum Command: Sendable, Equatable {
    /// Start or continue playing; with an index (0-based), play that queue entry.
    case play(index: Int?)
    case pause
    case resume
    /// Pause when playing, otherwise play.
    case toggle
    case stop
    case next
    /// Back a track, or to the start of this one when it is past 3 s (the box's button).
    case previous
    /// Back a track whatever the position, as MPD's `previous` (a client asked for the song
    /// before).
    case previousSong
    case seek(SeekTarget)
    /// Go to queue entry `index` (0-based) at `ms`, as MPD's `seek`/`seekid`: a paused player
    /// stays paused there, a stopped or playing one plays from there.
    case seekEntry(index: Int, ms: Int64)
    /// Set the volume (0...100; the machine clamps to `max_volume`).
    case setVolume(Int)
    /// Change the volume by a signed number of percent.
    case changeVolume(Int)
    /// Set the play options to a preset's.
    case setMode(PlayMode)
    /// Set MPD's play flags (repeat, random, single, consume).
    case setOptions(PlayOptions)
    /// Switch to the next preset (in-order from flags that are no preset).
    case cycleMode
    /// Play at this speed, the pitch kept (a long track remembers it; see `PlayerMachine`).
    case setSpeed(PlaybackSpeed)
    /// Change the speed by a signed number of hundredths (`speed +0.25`).
    case changeSpeed(Int)
    /// The next speed of `PlaybackSpeed.cycle` (one button or card for all of them).
    case cycleSpeed
    case status
    case help
    /// Change the queue's entries (MPD add, delete, move, clear, shuffle).
    case editQueue(QueueEdit)
}

/// Where a seek goes: a position in the track, or a distance from the current position.
public enum SeekTarget: Sendable, Equatable {
    case absolute(ms: Int64)
    case relative(ms: Int64)
}

/// Why a console line is not a command. `message` is a one-line explanation for the user.
public enum CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A blank line; front ends usually ignore it.
    case emptyLine
    case unknownCommand(String)
    /// A known command with a bad argument: `command: what was expected`.
    case badArgument(command: String, problem: String)
    case lineTooLong(limit: Int)
    case controlCharacters

    /// One line for the user.
    public var message: String {
        switch self {
        case .emptyLine: "empty line (type 'help')"
        case .unknownCommand(let word): "unknown command '\(word)' (type 'help')"
        case .badArgument(let command, let problem): "\(command): \(problem)"
        case .lineTooLong(let limit): "line too long (at most \(limit) characters)"
        case .controlCharacters: "the line contains control characters"
        }
    }

    /// The same as `message`.
    public var description: String { message }
}

/// Parses the human console language (`play 3`, `volume +5`, `seek 1:23`, `mode shuffle`, ...).
public enum CommandParser {
    /// The longest line accepted, in characters.
    public static let maximumLineLength = 256

    /// The console's own words, one entry per help line: `help` lists them, and
    /// docs/COMMANDS.md shows them with their examples (`CommandReference`).
    public static let commands: [CommandReferenceEntry] = [
        CommandReferenceEntry(
            .playing, "play [N]", "play, or play entry N of the queue (1 is the first)", examples: ["play", "play 3"]),
        CommandReferenceEntry(.playing, "pause", "pause", examples: ["pause"]),
        CommandReferenceEntry(.playing, "resume", "continue after a pause", examples: ["resume"]),
        CommandReferenceEntry(.playing, "toggle", "pause or continue", examples: ["toggle"]),
        CommandReferenceEntry(.playing, "stop", "stop", examples: ["stop"]),
        CommandReferenceEntry(.playing, "next", "go to the next track", examples: ["next"]),
        CommandReferenceEntry(
            .playing, "previous", "go back; restarts the track when past 3 seconds (also: prev)",
            examples: ["previous", "prev"],
            details:
                "go back a track, or to the start of this one when it is past 3 s (also: prev); an MPD client's `previous` always goes to the song before"
        ),
        CommandReferenceEntry(
            .playing, "seek S", "go to S seconds or m:ss into the track; seek +10 or seek -5 moves from here",
            examples: ["seek 83", "seek 1:23", "seek +10", "seek -5"]),
        CommandReferenceEntry(
            .playing, "skip ±S", "move S seconds from here: skip +10, skip -30 (also m:ss)",
            examples: ["skip +10", "skip -30"]),
        CommandReferenceEntry(
            .playing, "volume V", "set the volume from 0 to 100; volume +5 or volume -5 changes it",
            examples: ["volume 40", "volume +5", "volume -5"],
            details: "set the volume from 0 to 100, or change it; kept within `[audio] min_volume` and `max_volume`"),
        CommandReferenceEntry(
            .playing, "mode M", "set the mode: in-order, repeat-all, repeat-one or shuffle",
            examples: ["mode in-order", "mode repeat-all", "mode repeat-one", "mode shuffle"]),
        CommandReferenceEntry(
            .playing, "mode", "switch to the next mode", examples: ["mode"],
            details: "switch to the next mode (from MPD play flags that are no mode: to in-order)"),
        CommandReferenceEntry(.playing, "status", "show what is playing", examples: ["status"]),
        CommandReferenceEntry(.box, "help", "show this list", examples: ["help", "?"]),
    ]

    /// The help text: one command per line.
    public static let helpText = commands.map(\.helpLine).joined(separator: "\n")

    /// Parses one console line. Case, extra spaces, tabs and a trailing CR are ignored;
    /// backspace and DEL erase the character before them. Words are quoted as MPD quotes them
    /// (`CommandWords`).
    public static func parse(_ line: String) -> Result<Command, CommandError> {
        guard line.unicodeScalars.count <= maximumLineLength * 4 else {
            return .failure(.lineTooLong(limit: maximumLineLength))
        }
        var text: [Unicode.Scalar] = []
        for scalar in line.unicodeScalars {
            switch scalar.value {
            case 0x08, 0x7F:
                if !text.isEmpty { text.removeLast() }
            case 0x09, 0x0A, 0x0D:
                text.append(" ")
            case 0x00..<0x20, 0x80..<0xA0:
                return .failure(.controlCharacters)
            default:
                text.append(scalar)
            }
        }
        guard text.count <= maximumLineLength else { return .failure(.lineTooLong(limit: maximumLineLength)) }
        var cleaned = String.UnicodeScalarView()
        cleaned.append(contentsOf: text)
        let words: [String]
        switch CommandWords.split(Array(String(cleaned).utf8)) {
        case .success(let split): words = split
        case .failure(let problem): return .failure(.badArgument(command: "line", problem: problem.message))
        }
        guard let first = words.first else { return .failure(.emptyLine) }
        let name = first.lowercased()
        let arguments = Array(words.dropFirst())

        switch name {
        case "play":
            guard arguments.count <= 1 else { return bad("play", "expected at most one entry number, like play 3") }
            guard let argument = arguments.first else { return .success(.play(index: nil)) }
            guard let number = Int(argument), number >= 1 else {
                return bad("play", "expected an entry number from 1, found '\(argument)'")
            }
            return .success(.play(index: number - 1))
        case "pause":
            if arguments == ["1"] { return .success(.pause) }
            if arguments == ["0"] { return .success(.resume) }
            return noArguments(name, arguments, .pause)
        case "resume", "continue":
            return noArguments(name, arguments, .resume)
        case "toggle":
            return noArguments(name, arguments, .toggle)
        case "stop":
            return noArguments(name, arguments, .stop)
        case "next":
            return noArguments(name, arguments, .next)
        case "previous", "prev":
            return noArguments(name, arguments, .previous)
        case "status":
            return noArguments(name, arguments, .status)
        case "help", "?":
            return noArguments(name, arguments, .help)
        case "seek", "seekcur":
            guard arguments.count == 1, let target = parseSeek(arguments[0]) else {
                return bad(name, "expected seconds or m:ss like 83, 1:23, +10 or -5")
            }
            return .success(.seek(target))
        case "skip":
            guard arguments.count == 1, arguments[0].hasPrefix("+") || arguments[0].hasPrefix("-"),
                let target = parseSeek(arguments[0])
            else {
                return bad(name, "expected seconds with a sign, like +10, -30 or +1:00")
            }
            return .success(.seek(target))
        case "volume", "vol", "setvol":
            let expected = name == "setvol" ? "expected a number from 0 to 100" : "expected a number like 40, +5 or -5"
            guard arguments.count == 1 else { return bad(name, expected) }
            let argument = arguments[0]
            let isRelative = argument.hasPrefix("+") || argument.hasPrefix("-")
            guard let value = Int(argument) else { return bad(name, expected) }
            if isRelative {
                guard name != "setvol" else { return bad(name, expected) }
                return .success(.changeVolume(value))
            }
            guard (0...100).contains(value) else { return bad(name, "must be between 0 and 100, found \(value)") }
            return .success(.setVolume(value))
        case "mode":
            guard let argument = arguments.first else { return .success(.cycleMode) }
            guard arguments.count == 1, let mode = parseMode(argument) else {
                return bad(
                    "mode",
                    "expected in-order, repeat-all, repeat-one or shuffle, found '\(arguments.joined(separator: " "))'")
            }
            return .success(.setMode(mode))
        case "speed":
            let expected = "expected a speed from 0.5 to 2 like 1.5, a step like +0.25, or cycle"
            guard arguments.count == 1 else { return bad(name, expected) }
            let argument = arguments[0].lowercased()
            if argument == "cycle" { return .success(.cycleSpeed) }
            if let step = PlaybackSpeed.parseStep(argument) { return .success(.changeSpeed(step)) }
            guard let speed = PlaybackSpeed.parse(argument) else { return bad(name, expected) }
            return .success(.setSpeed(speed))
        default:
            return .failure(.unknownCommand(shortened(first)))
        }
    }

    /// Parses `83`, `83.5`, `1:23`, `1:02:03`, each optionally signed (`+10`, `-1:00`).
    static func parseSeek(_ text: String) -> SeekTarget? {
        var body = Substring(text)
        var sign: Int64 = 1
        var relative = false
        if body.hasPrefix("+") || body.hasPrefix("-") {
            relative = true
            sign = body.hasPrefix("-") ? -1 : 1
            body = body.dropFirst()
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var totalMs: Int64 = 0
        for (offset, part) in parts.enumerated() {
            let isLast = offset == parts.count - 1
            let value: Int64
            if isLast {
                guard let ms = parseSecondsMs(part) else { return nil }
                if parts.count > 1, ms >= 60_000 { return nil }
                value = ms
            } else {
                guard let number = parseDigits(part), number < 100_000 else { return nil }
                if offset > 0, number >= 60 { return nil }
                value = number * (parts.count - offset == 3 ? 3_600_000 : 60_000)
            }
            totalMs += value
        }
        return relative ? .relative(ms: sign * totalMs) : .absolute(ms: totalMs)
    }

    private static func parseDigits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }

    /// `12` or `12.5` (up to three decimals) as milliseconds.
    private static func parseSecondsMs(_ text: Substring) -> Int64? {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard let whole = parseDigits(pieces[0]) else { return nil }
        var ms = whole * 1000
        if pieces.count == 2 {
            let fraction = pieces[1]
            guard let digits = parseDigits(fraction), fraction.count <= 3 else { return nil }
            var scaled = digits
            for _ in fraction.count..<3 { scaled *= 10 }
            ms += scaled
        } else if pieces.count > 2 {
            return nil
        }
        return ms
    }

    private static func parseMode(_ text: String) -> PlayMode? {
        let normalized = text.lowercased().replacingUnderscores()
        if let mode = PlayMode(rawValue: normalized) { return mode }
        switch normalized {
        case "inorder", "order", "normal": return .inOrder
        case "repeatall", "repeat", "all": return .repeatAll
        case "repeatone", "single", "one": return .repeatOne
        case "random", "shuffled": return .shuffle
        default: return nil
        }
    }

    private static func noArguments(_ name: String, _ arguments: [String], _ command: Command) -> Result<
        Command, CommandError
    > {
        arguments.isEmpty ? .success(command) : bad(name, "takes no arguments")
    }

    private static func bad(_ command: String, _ problem: String) -> Result<Command, CommandError> {
        .failure(.badArgument(command: command, problem: problem))
    }

    private static func shortened(_ word: String) -> String {
        word.count > 32 ? String(word.prefix(32)) + "…" : word
    }
}

extension Command {
    /// The command in the console language (what `CommandParser.parse` reads back).
    public var consoleText: String {
        switch self {
        case .play(let index): index.map { "play \($0 + 1)" } ?? "play"
        case .pause: "pause"
        case .resume: "resume"
        case .toggle: "toggle"
        case .stop: "stop"
        case .next: "next"
        case .previous: "previous"
        case .seek(.absolute(let ms)): "seek \(Self.seconds(ms))"
        case .seek(.relative(let ms)): "seek \(ms < 0 ? "-" : "+")\(Self.seconds(abs(ms)))"
        case .setVolume(let value): "volume \(value)"
        case .changeVolume(let delta): "volume \(delta < 0 ? "-" : "+")\(abs(delta))"
        case .setMode(let mode): "mode \(mode.rawValue)"
        case .cycleMode: "mode"
        case .setSpeed(let speed): "speed \(speed)"
        case .changeSpeed(let step): "speed \(step < 0 ? "-" : "+")\(PlaybackSpeed.decimal(abs(step)))"
        case .cycleSpeed: "speed cycle"
        case .status: "status"
        case .help: "help"
        // These come from MPD clients only; the console language has no words for them.
        case .editQueue(let edit): "queue edit \(edit)"
        case .seekEntry(let index, let ms): "seek entry \(index + 1) to \(Self.seconds(ms))"
        case .previousSong: "previous song"
        case .setOptions(let options): "options \(options)"
        }
    }

    private static func seconds(_ ms: Int64) -> String {
        ms % 1000 == 0 ? "\(ms / 1000)" : "\(ms / 1000).\(String(String(ms % 1000 + 1000).dropFirst()))"
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
