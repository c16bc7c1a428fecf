import JukeboxCore

/// How a console line is answered, in the order the daemon tries (`Daemon.handleConsoleLine`):
/// a few lines the daemon answers itself, the console's own words (`CommandParser`), then a
/// command of the MPD table, which holds the box's words too. `problem(in:)` reads a line
/// that way without running it: the tests hold the reference's examples and the user guide
/// to it.
public enum ConsoleLanguage {
    /// A line the daemon answers itself, before any parser.
    public enum DaemonLine: Sendable, Equatable {
        case rescan, help, clearCache
    }

    /// The daemon's own line `trimmed` is, if any (case ignored).
    public static func daemonLine(_ trimmed: String) -> DaemonLine? {
        switch trimmed.lowercased() {
        case "update", "rescan": .rescan
        case "help", "?": .help
        case "clear cache": .clearCache
        default: nil
        }
    }

    /// The daemon's own lines in the reference.
    static let daemonCommands: [CommandReferenceEntry] = [
        CommandReferenceEntry(
            .library, "update",
            "rescan the music folder (also: rescan; an MPD client's `update` rescans too)",
            examples: ["update", "rescan"])
    ]

    /// Why `line` is no command a console takes (its message); nil when it is one.
    public static func problem(in line: String) -> String? {
        let trimmed = line.trimmedSpaces
        if daemonLine(trimmed) != nil { return nil }
        switch CommandParser.parse(trimmed) {
        case .success: return nil
        case .failure(.unknownCommand): break
        case .failure(let error): return error.message
        }
        let request: MPDProtocol.Request
        switch MPDProtocol.tokenize(trimmed) {
        case .success(let tokenized): request = tokenized
        case .failure(let error): return error.message
        }
        let name = request.command.lowercased()
        guard let spec = MPDCommands.table[name] else { return "unknown command '\(request.command)'" }
        let count = request.arguments.count
        if spec.min >= 0, count < spec.min || (spec.max >= 0 && count > spec.max) {
            return "wrong number of arguments for \"\(name)\""
        }
        let box = (MPDCommands.boxCommands + MPDCommands.systemCommands).first { $0.name == name }
        return box?.check?(request.arguments)
    }
}

/// docs/COMMANDS.md, made from the command tables (`CommandParser.commands`, the box's
/// commands, the MPD table); `CommandReferenceTests` fails when the file differs.
public enum CommandReference {
    /// Who may use a command of the MPD table, in the reference's words.
    static func who(_ command: MPDCommands.BoxCommand) -> String {
        var words: [String] = []
        let permission = command.spec.permission
        if permission.contains(.admin) { words.append("admin") }
        if permission.contains(.control) { words.append("control") }
        if permission.contains(.add) { words.append("add") }
        if permission.contains(.read) { words.append(command.controlToChange ? "read (control to change)" : "read") }
        if words.isEmpty { words.append("anyone") }
        if permission.contains(.local) { words.append("on the box only") }
        return "all: " + words.joined(separator: ", ")
    }

    /// Every entry with who may use it, in the tables' order.
    static var entries: [(entry: CommandReferenceEntry, who: String)] {
        CommandParser.commands.map { ($0, "consoles") } + ConsoleLanguage.daemonCommands.map { ($0, "consoles") }
            + (MPDCommands.boxCommands + MPDCommands.systemCommands).flatMap { command in
                command.reference.map { ($0, who(command)) }
            }
    }

    /// The number of documented command forms.
    public static var entryCount: Int { entries.count }

    /// Every example line of the reference.
    public static var examples: [String] { entries.flatMap(\.entry.examples) }

    /// The box commands' names that have no entry in the reference (their table says nothing).
    public static var undocumentedBoxCommands: [String] {
        (MPDCommands.boxCommands + MPDCommands.systemCommands).filter { command in
            !entries.contains { entry in
                entry.entry.examples.contains { $0.split(separator: " ").first.map(String.init) == command.name }
            }
        }.map(\.name)
    }

    /// The words a document's inline code may start a console command with.
    public static var consoleWords: Set<String> {
        Set(examples.compactMap { $0.split(separator: " ").first.map { $0.lowercased() } })
    }

    /// docs/COMMANDS.md.
    public static func markdown() -> String {
        var text = header
        let all = entries
        for topic in CommandReferenceEntry.Topic.allCases {
            let rows = all.filter { $0.entry.topic == topic }
            guard !rows.isEmpty else { continue }
            text += "\n## \(topic.rawValue)\n\n| command | does | examples | who |\n|---|---|---|---|\n"
            for (entry, who) in rows {
                let examples = entry.examples.map { "`\($0)`" }.joined(separator: ", ")
                text +=
                    "| `\(entry.syntax)` | \(entry.details ?? entry.text) | \(examples) | \(who) |\n"
                    .replacingBarsInCode
            }
        }
        text += mpdSection + footer
        return text
    }

    /// MPD's commands, by the permission each needs.
    static var mpdSection: String {
        var text = """

            ## MPD's commands

            Every console also takes MPD's commands (docs/MPD.md), as any MPD client sends them
            (`currentsong`, `playlistinfo`, `add "Album/03 Song.mp3"`, `search any "night"`);
            where a word is both (`play`, `seek`, `volume`, `status`), a console reads it as
            above and an MPD client as MPD does (`play 0` is the first entry there).


            """
        let groups: [(String, (MPDCommands.Permission) -> Bool)] = [
            ("anyone", { $0.isEmpty }), ("read", { $0 == .read }), ("add", { $0.contains(.add) }),
            ("control", { $0.contains(.control) }), ("admin", { $0.contains(.admin) && !$0.contains(.local) }),
        ]
        let boxNames = Set((MPDCommands.boxCommands + MPDCommands.systemCommands).map(\.name))
        let names = MPDCommands.mpdTable.keys.filter { !boxNames.contains($0) }.sorted()
        for (label, matches) in groups {
            let inGroup = names.filter { matches(MPDCommands.mpdTable[$0]!.permission) }
            guard !inGroup.isEmpty else { continue }
            text += "- **\(label)**: " + inGroup.map { "`\($0)`" }.joined(separator: ", ") + "\n"
        }
        return text
    }

    static let header = """
        # Console commands

        <!-- Generated by `./dev docs` from the command tables (CommandParser.commands, the
        box's commands in MPDBox.swift, the MPD table); edit those, not this file. -->

        What you can type on the box's consoles (standard input, the serial console) and send
        as an MPD client (TCP or the Unix socket, e.g. `printf 'sleep 30\\nclose\\n' | nc
        127.0.0.1 6600`). `help` lists them. "who" says which front ends take a command and
        the MPD permission it needs there: **consoles** are the stdin and serial consoles
        only; **all** is the consoles and every MPD client (`[network] password` grants
        read, add, control and admin; "on the box only" is the Unix socket, a loopback
        client and the consoles). A console does not ask for permissions.

        Every console splits words as MPD does: an argument with spaces goes in double quotes
        (`podcast add "URL"`, `card assign ID folder "Name With Spaces"`), a backslash in
        quotes escapes the next character. Standard input is read when it is a terminal or a
        pipe (or with `--console stdin`). MPD clients get `key: line` replies
        (`podcast: 1. The Show (3 episodes, 1 downloaded)`).

        """

    static let footer = """

        ## `restart` and `system`

        They are for a client on the box itself only: the stdin and serial consoles, the Unix
        socket (`[network] socket`) and TCP clients on a loopback address (the web page, `mpc`
        on the box). A client elsewhere on the network gets `ACK [4@0] {restart} you don't
        have permission for "restart"`, with or without `[network] password` (a password a
        phone's MPD app keeps in plain text should not let it restart the box); with a
        password set, a local client needs it too. MPD has no such commands (its `config` is
        likewise for local clients only). Under systemd (`$NOTIFY_SOCKET` set, as
        `Board/jukeboxd.service` does) the daemon exits with status 75 after the stop and the
        unit, which has `RestartForceExitStatus=75`, starts it again (after `RestartSec`, 2
        s): a new process that runs the `--check-config` step first and the installed binary
        (after an upgrade, the new one). Anywhere else (`./dev demo`, a shell, the tests)
        nobody would start it again, so it runs itself again in the same process (`execv` of
        `/proc/self/exe` with the same arguments): the same pid, so the terminal or test that
        started it keeps it, with its standard streams and console; every other descriptor is
        closed first. A line typed on the console while it restarts waits in the terminal
        until the new start reads it.

        """
}

extension String {
    /// A table row with the `|` inside code spans escaped (`mode in-order|shuffle`).
    fileprivate var replacingBarsInCode: String {
        var out = ""
        var inCode = false
        for character in self {
            if character == "`" { inCode.toggle() }
            out += inCode && character == "|" ? "\\|" : String(character)
        }
        return out
    }
}
