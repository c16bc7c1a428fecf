import ArgumentParser
import Glibc
import JukeboxCore
import JukeboxStore
import Logging

/// `jukeboxd`: the daemon's command line. Exit status 0 on a clean stop, 78 (EX_CONFIG)
/// on a config error, 1 when it cannot start at all.
public struct JukeboxdCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "jukeboxd",
        abstract: "A headless music box: plays a music folder, resumes where it stopped.",
        discussion: """
            Reads one TOML config file (see config/jukebox.toml for every key and its default).
            Commands typed on the console (stdin or a serial line): play, pause, toggle, next,
            previous, seek ±s, volume ±n, mode NAME, status, update, help.
            """,
        version: JukeboxVersion.string,
        subcommands: [RunCommand.self, ScanCommand.self, InputReplayCommand.self],
        defaultSubcommand: RunCommand.self)

    public init() {}
}

/// Options every subcommand shares.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: "The config file.")
    var config: String = "/etc/jukebox/jukebox.toml"

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    /// Sets up logging to stderr (journald adds its own timestamps) and loads the config;
    /// a bad config prints its problems and exits 78.
    func load() throws -> (LoadedConfig, Logger) {
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        switch DaemonConfig.load(path: config) {
        case .failure(let problems):
            for problem in problems.lines { writeStderr("\(problem)\n") }
            throw ExitCode(78)
        case .success(let value):
            return (value, Logger(label: "jukeboxd"))
        }
    }
}

/// `jukeboxd [run]`: the daemon itself.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the jukebox (the default).")

    @OptionGroup var options: CommonOptions

    @Flag(name: .long, help: "Validate the config file and exit: 0 when good, 78 with one line per problem.")
    var checkConfig = false

    @Option(name: .long, help: "Use this ALSA device instead of the config's [audio] device (e.g. null, hw:1,0).")
    var audioDevice: String?

    @Option(name: .long, help: "Read commands from 'stdin', a tty path, or 'none'; overrides [console] device.")
    var console: String?

    @Option(name: .long, help: ArgumentHelp("Also read edge lines (input-replay formats) from this FIFO.", visibility: .hidden))
    var inputReplayFifo: String?

    func run() throws {
        var (loaded, logger) = try options.load()
        if checkConfig {
            writeStderr("\(options.config): ok\n")
            return
        }
        if let audioDevice { loaded.config.audio.device = audioDevice }
        if let console {
            loaded.config.console.device = console
            loaded.forceStdinConsole = console == "stdin"
        }
        let status = Daemon.run(settings: loaded, logger: logger, inputReplayFifo: inputReplayFifo)
        if status != 0 { throw ExitCode(status) }
    }
}

/// `jukeboxd scan`: scan the music folder into the database, report, exit.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan the music folder into the database, list what cannot be played, and exit.")

    @OptionGroup var options: CommonOptions

    func run() throws {
        let (loaded, logger) = try options.load()
        let config = loaded.config
        do {
            _ = try LibraryStore.open(path: config.database, logger: logger)
            let scanner = LibraryScanner(
                databasePath: config.database, musicDirectory: config.musicDir, lyricsDirectory: config.lyricsDir,
                probe: Daemon.probe, logger: logger)
            let report = try scanner.scan()
            for skipped in report.skipped { writeStdout("not playable: \(skipped.path): \(skipped.reason)\n") }
            let files = report.added + report.updated + report.unchanged + report.skipped.count
            let (seconds, attoseconds) = report.duration.components
            let ms = Double(seconds) * 1000 + Double(attoseconds) / 1e15
            writeStdout(
                "scan: \(files) files, \(report.added) added, \(report.updated) updated, \(report.removed) removed, \(report.skipped.count) not playable, \(Int(ms.rounded())) ms\n"
            )
        } catch {
            writeStderr("jukeboxd scan: \(error)\n")
            throw ExitCode(1)
        }
    }
}

/// The daemon's version, shown by `--version` and the console greeting.
public enum JukeboxVersion {
    public static let string = "0.1.0"
}

func writeStderr(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

func writeStdout(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
}
