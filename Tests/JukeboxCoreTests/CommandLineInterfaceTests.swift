import Testing

@testable import JukeboxCore

@Suite struct CommandLineInterfaceTests {
    static let config = CommandLineOption.option(
        "config", default: "/etc/jukebox/jukebox.toml", help: "The config file.")
    static let cli = CommandLineInterface(
        program: "jukeboxd", version: "9.9.9", abstract: "A music box.", discussion: "Plays a folder.",
        commands: [
            CommandLineCommand(
                name: "run", abstract: "Run it.",
                options: [
                    config, .flag("check-config", help: "Check."), .option("console", help: "Console."),
                    .option("input-replay-fifo", help: "Test hook.", hidden: true),
                ]),
            CommandLineCommand(name: "scan", abstract: "Scan.", options: [config]),
            CommandLineCommand(
                name: "lyrics", abstract: "Lyrics.", options: [.option("offset", default: "0", help: "Sooner.")],
                arguments: [CommandLineArgument("file", help: "The file.")]),
            CommandLineCommand(
                name: "render", abstract: "Render.",
                options: [.option("output", short: "o", help: "PNG."), .option("bpp", default: "16", help: "Bits.")]),
        ],
        defaultCommand: "run")

    static func run(_ arguments: [String]) -> (String, ParsedArguments)? {
        if case .run(let command, let parsed) = cli.parse(arguments) { return (command, parsed) }
        return nil
    }

    static func problem(_ arguments: [String]) -> String? {
        if case .usageError(let problem, _) = cli.parse(arguments) { return problem.message }
        return nil
    }

    @Test func noArgumentsRunTheDefaultCommandWithDefaults() throws {
        let (command, parsed) = try #require(Self.run([]))
        #expect(command == "run")
        #expect(parsed.value("config") == "/etc/jukebox/jukebox.toml")
        #expect(parsed.defaulted("config") == "/etc/jukebox/jukebox.toml")
        #expect(parsed.value("console") == nil)
        #expect(!parsed.flag("check-config"))
    }

    @Test(arguments: [
        ["--config", "/tmp/j.toml", "--check-config"],
        ["--check-config", "--config=/tmp/j.toml"],
        ["run", "--config", "/tmp/j.toml", "--check-config"],
        ["--config", "/etc/x.toml", "--check-config", "--config", "/tmp/j.toml"],
    ])
    func optionsInAnyOrderAndBothSpellings(arguments: [String]) throws {
        let (command, parsed) = try #require(Self.run(arguments))
        #expect(command == "run")
        #expect(parsed.value("config") == "/tmp/j.toml")
        #expect(parsed.flag("check-config"))
    }

    @Test func aSubcommandIsTheFirstArgument() throws {
        let (command, parsed) = try #require(Self.run(["scan", "--config", "c.toml"]))
        #expect(command == "scan")
        #expect(parsed.value("config") == "c.toml")
        // not as a later word: `scan` there is an unexpected positional of `run`
        #expect(Self.problem(["--config", "c.toml", "scan"]) == "Unexpected argument 'scan'")
    }

    @Test func positionalsNegativeNumbersAndTheDashForStdin() throws {
        let (_, parsed) = try #require(Self.run(["lyrics", "--offset", "-500", "song.lrc"]))
        #expect(parsed.arguments == ["song.lrc"])
        #expect(try parsed.integer("offset") == -500)
        #expect(try #require(Self.run(["lyrics", "-"])).1.arguments == ["-"])
        #expect(try #require(Self.run(["lyrics", "--", "--odd name.lrc"])).1.arguments == ["--odd name.lrc"])
        // a file name that looks like a short option needs `--`, as with any Unix tool
        #expect(Self.problem(["lyrics", "-12.lrc"]) == "Unknown option '-1'")
    }

    @Test func shortOptions() throws {
        #expect(try #require(Self.run(["render", "-o", "a.png"])).1.value("output") == "a.png")
        #expect(try #require(Self.run(["render", "-ob.png"])).1.value("output") == "b.png")
        #expect(try #require(Self.run(["render", "-o=c.png"])).1.value("output") == "c.png")
    }

    @Test(arguments: [
        (["--bogus"], "Unknown option '--bogus'"),
        (["-x"], "Unknown option '-x'"),
        (["scan", "--console", "stdin"], "Unknown option '--console'"),
        (["--config"], "Missing value for '--config <config>'"),
        (["--config", "--check-config"], "Missing value for '--config <config>'"),
        (["--check-config=yes"], "'--check-config' takes no value"),
        (["lyrics"], "Missing expected argument '<file>'"),
        (["lyrics", "a.lrc", "b.lrc"], "Unexpected argument 'b.lrc'"),
        (["help", "frobnicate"], "Unknown subcommand 'frobnicate'"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(Self.problem(arguments) == message)
    }

    @Test func anIntegerOptionRejectsText() throws {
        let (_, parsed) = try #require(Self.run(["render", "--bpp", "sixteen"]))
        #expect(throws: UsageError("--bpp must be an integer, not 'sixteen'")) { try parsed.integer("bpp") }
        #expect(try Self.run(["render"])?.1.integer("bpp") == 16)
        #expect(try Self.run(["render"])?.1.defaultedInteger("bpp") == 16)
    }

    @Test func helpAndVersion() {
        guard case .show(let root) = Self.cli.parse(["--help"]) else { Issue.record("no help"); return }
        #expect(
            root.hasPrefix(
                "OVERVIEW: A music box.\n\nPlays a folder.\n\nUSAGE: jukeboxd [<subcommand>] [--config <config>]"))
        #expect(
            root.contains(
                "  --config <config>    The config file. (default: /etc/jukebox/jukebox.toml)\n  --check-config       Check.\n"
            ))
        #expect(root.contains("SUBCOMMANDS:\n  run (default)  Run it.\n  scan           Scan.\n"))
        #expect(!root.contains("input-replay-fifo"), "hidden options stay out of the help")
        #expect(Self.cli.parse(["-h"]) == .show(root))
        #expect(Self.cli.parse(["help"]) == .show(root))
        #expect(Self.cli.parse(["--version"]) == .show("9.9.9\n"))
        guard case .show(let lyrics) = Self.cli.parse(["lyrics", "--help"]) else { Issue.record("no help"); return }
        #expect(lyrics.contains("USAGE: jukeboxd lyrics [--offset <offset>] <file>\n"))
        #expect(lyrics.contains("ARGUMENTS:\n  <file>  The file.\n"))
        #expect(!lyrics.contains("SUBCOMMANDS"))
        #expect(Self.cli.parse(["help", "lyrics"]) == .show(lyrics))
        #expect(Self.problem(["scan", "--version"]) == "Unknown option '--version'")
    }

    @Test func aHiddenOptionStillParses() throws {
        #expect(try #require(Self.run(["--input-replay-fifo", "/tmp/f"])).1.value("input-replay-fifo") == "/tmp/f")
    }
}
