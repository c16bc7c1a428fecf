import Glibc
import JukeboxAudio
import JukeboxConfigFile
import JukeboxCore
import JukeboxStore
import LinuxSupport
import Logging

/// `jukeboxd`: the daemon's command line. Exit status 0 on a clean stop, 64 (EX_USAGE) on a
/// bad command line, 78 (EX_CONFIG) on a config error, 65 (EX_DATAERR) when the database is a
/// newer jukeboxd's, 1 when it cannot start at all.
public enum Jukeboxd {
    static let configOption = CommandLineOption.option(
        "config", default: "/etc/jukebox/jukebox.toml", help: "The config file.")
    static let logLevelOption = CommandLineOption.option(
        "log-level", default: "info", help: "Log level: trace, debug, info, notice, warning, error or critical.")

    /// `commit 7af7f62c1a2b 2026-12-07`, or `development build`.
    static let build = BuildInfo.commit.map { "commit \($0)" } ?? "development build"

    /// The exit status that asks for a start again (EX_TEMPFAIL): `restart` under systemd,
    /// whose unit restarts on it (Board/jukeboxd.service, RestartForceExitStatus=75).
    static let restartStatus: Int32 = 75

    public static let interface = CommandLineInterface(
        program: "jukeboxd",
        version: "jukeboxd \(JukeboxVersion.string) (\(build))",
        abstract: "A headless music box: plays a music folder, resumes where it stopped.",
        discussion: """
            Reads one TOML config file (see config/jukebox.toml for every key and its default).
            Commands typed on the console (stdin or a serial line): play, pause, toggle, next,
            previous, seek ±s, volume ±n, mode NAME, status, update, help.
            """,
        commands: [
            CommandLineCommand(
                name: "run", abstract: "Run the jukebox (the default).",
                options: [
                    configOption, logLevelOption,
                    .flag(
                        "check-config",
                        help: "Validate the config file and exit: 0 when good, 78 with one line per problem."),
                    .option(
                        "audio-device",
                        help: "Use this ALSA device instead of the config's [audio] device (e.g. null, hw:1,0)."),
                    .option(
                        "console",
                        help: "Read commands from 'stdin', a tty path, or 'none'; overrides [console] device."),
                    .option(
                        "input-replay-fifo", help: "Also read edge lines (input-replay formats) from this FIFO.",
                        hidden: true),
                    .option(
                        "led-record", help: "Write the status LED's changes as edge lines to this file (tests).",
                        hidden: true),
                    .option(
                        "library-load-gate",
                        help: "After each scan, wait for a byte on this FIFO before reading the library (tests).",
                        hidden: true),
                ]),
            CommandLineCommand(
                name: "scan",
                abstract: "Scan the music folder into the database, list what cannot be played, and exit.",
                options: [configOption, logLevelOption]),
            InputReplayCommand.command,
            LyricsCommand.command,
            RenderCommand.command,
        ],
        defaultCommand: "run")

    /// Parses `arguments` (without the program name), runs the command, and exits. With only
    /// `--speech-helper`, it is the daemon's speech helper (`SpeechHelperChild`).
    public static func main(arguments: [String]) -> Never {
        if arguments == [SpeechHelperChild.argument] { exit(SpeechHelperChild.run()) }
        let status: Int32
        switch interface.parse(arguments) {
        case .show(let text):
            writeStdout(text)
            status = 0
        case .usageError(let problem, let command):
            status = usageError(problem, command: command)
        case .run(let command, let parsed):
            do {
                switch command {
                case "scan": try ScanCommand(parsed).run()
                case "input-replay": try InputReplayCommand(parsed).run()
                case "lyrics": try LyricsCommand(parsed).run()
                case "render": try RenderCommand(parsed).run()
                default: try RunCommand(parsed).run()
                }
                status = 0
            } catch let exit as CommandExit {
                status = exit.status
            } catch let problem as UsageError {
                status = usageError(problem, command: command)
            } catch {
                writeStderr("jukeboxd \(command): \(error)\n")
                status = 1
            }
        }
        exit(status)
    }

    private static func usageError(_ problem: UsageError, command: String) -> Int32 {
        let root = command == interface.defaultCommand
        writeStderr(
            "Error: \(problem.message)\n\(interface.usage(command: command, root: root))\n"
                + "  See '\(interface.program) \(root ? "" : command + " ")--help' for more information.\n")
        return 64
    }
}

/// Ends a command with this exit status (its message is already printed).
struct CommandExit: Error {
    var status: Int32
    init(_ status: Int32) { self.status = status }
}

/// Options every subcommand shares.
struct CommonOptions {
    var config: String
    var logLevel: String

    init(_ parsed: ParsedArguments) {
        config = parsed.defaulted("config")
        logLevel = parsed.defaulted("log-level")
    }

    /// Sets up logging to stderr (journald adds its own timestamps) and loads the config;
    /// a bad config prints its problems and exits 78.
    func load() throws -> (LoadedConfig, Logger) {
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            // The last errors are kept for `system` (the web page's /system) as well.
            return MultiplexLogHandler([handler, ProblemRecorder()])
        }
        switch DaemonConfig.load(path: config) {
        case .failure(let problems):
            for problem in problems.lines { writeStderr("\(problem)\n") }
            throw CommandExit(78)
        case .success(let value):
            return (value, Logger(label: "jukeboxd"))
        }
    }
}

/// `jukeboxd [run]`: the daemon itself.
struct RunCommand {
    var options: CommonOptions
    var checkConfig: Bool
    var audioDevice: String?
    var console: String?
    var inputReplayFifo: String?
    var ledRecord: String?
    var libraryLoadGate: String?

    init(_ parsed: ParsedArguments) {
        options = CommonOptions(parsed)
        checkConfig = parsed.flag("check-config")
        audioDevice = parsed.value("audio-device")
        console = parsed.value("console")
        inputReplayFifo = parsed.value("input-replay-fifo")
        ledRecord = parsed.value("led-record")
        libraryLoadGate = parsed.value("library-load-gate")
    }

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
        let status = Daemon.run(
            settings: loaded, logger: logger, inputReplayFifo: inputReplayFifo, ledRecord: ledRecord,
            libraryLoadGate: libraryLoadGate)
        if status == Jukeboxd.restartStatus { Self.startAgain(logger: logger, supervised: Daemon.isSupervised) }
        if status != 0 { throw CommandExit(status) }
    }

    /// After `restart` and a clean stop (the place saved and synced). Under systemd the
    /// daemon exits 75 and the unit starts it again: a fresh process in a fresh cgroup, with
    /// the ExecStartPre checks and the installed binary (after an upgrade, the new one).
    /// Without a service manager (`./dev demo`, the tests, a shell) nobody would start it
    /// again, so it runs itself again in this process (execv of /proc/self/exe, the same
    /// arguments): the same pid, so the shell or test that started it keeps it, its standard
    /// streams and console stay, and every other descriptor is closed. If that fails it
    /// exits 75 as under systemd, saying why.
    static func startAgain(logger: Logger, supervised: Bool) {
        if supervised {
            logger.notice("restart: exiting with status \(Jukeboxd.restartStatus) for systemd to start jukeboxd again")
            return
        }
        logger.notice("restart: running jukeboxd again in this process (pid \(getpid()))")
        fflush(nil)
        let failure = ProcessSettings.executeSelfAgain(arguments: CommandLine.arguments)
        logger.critical("restart: cannot run jukeboxd again: \(failure); exiting \(Jukeboxd.restartStatus)")
    }
}

/// `jukeboxd scan`: scan the music folder into the database, report, exit.
struct ScanCommand {
    var options: CommonOptions

    init(_ parsed: ParsedArguments) { options = CommonOptions(parsed) }

    func run() throws {
        let (loaded, logger) = try options.load()
        let config = loaded.config
        do {
            _ = try LibraryStore.open(path: config.database, logger: logger)
            // Its own record beside the daemon's, which may be running.
            let inFlight = InFlightFiles.open(path: config.database + ".scan-in-flight", logger: logger)
            defer { inFlight?.markStopped() }
            let scanner = LibraryScanner(
                databasePath: config.database, musicDirectory: config.musicDir, lyricsDirectory: config.lyricsDir,
                audioExtensions: AudioFileKind.extensions, probe: ScanRunner.probe(noting: inFlight), logger: logger,
                cueSheets: config.chapters.cueSheets, cueChaptersMs: config.chapters.cueChaptersMs)
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
            throw CommandExit(1)
        }
    }
}

func writeStderr(_ text: String) {
    try? FileDescriptor.standardError.writeAll(Array(text.utf8))
}

func writeStdout(_ text: String) {
    try? FileDescriptor.standardOutput.writeAll(Array(text.utf8))
}
