import Glibc
import JukeboxCore
import LinuxSupport

/// `jukeboxd input-replay FILE`: the wiring check. Runs recorded edges through the same
/// debouncer, gesture and encoder logic as the daemon, with the config's pin map, and prints
/// what the box makes of them.
struct InputReplayCommand {
    static let command = CommandLineCommand(
        name: "input-replay",
        abstract: "Show the gestures and commands the box makes of recorded button and encoder edges.",
        discussion: """
            FILE holds one edge per line, as printed by libgpiod's gpiomon (1.6: 'event:  RISING EDGE \
            offset: 17 timestamp: [  1234.567890123]'; 2.x: '1234.567890123 rising gpiochip0 17') or \
            as 'seconds line value' (e.g. '0.0125 17 0'). Values are the physical levels (run gpiomon \
            without -l); the config's [buttons]/[encoder] active setting says which level is pressed. \
            Record a button with: gpiomon gpiochip0 17 27 22 5 6 13 > edges.txt
            Use '-' to read standard input.
            """,
        options: [Jukeboxd.configOption, Jukeboxd.logLevelOption],
        arguments: [CommandLineArgument("file", help: "The recorded edges ('-' for standard input).")])

    var options: CommonOptions
    var file: String

    init(_ parsed: ParsedArguments) {
        options = CommonOptions(parsed)
        file = parsed.arguments[0]
    }

    func run() throws {
        let (loaded, _) = try options.load()
        let bytes: [UInt8]
        do {
            bytes =
                file == "-" ? try FileDescriptor.standardInput.readToEnd() : try readWholeFile(file, limit: 64 << 20)
        } catch {
            writeStderr("jukeboxd input-replay: \(file): \(error.message)\n")
            throw CommandExit(66)
        }
        let edges: [RecordedEdge]
        switch EdgeStreamParser.parse(String(decoding: bytes, as: UTF8.self)) {
        case .success(let parsed): edges = parsed
        case .failure(let problem):
            writeStderr("\(file):\(problem.line): \(problem.message)\n")
            throw CommandExit(65)
        }
        writeStdout(Self.report(config: loaded.config, edges: edges))
    }

    /// The whole output for `edges`: the pin map, one line per gesture, detent and command,
    /// warnings for lines not in the pin map, and a summary.
    static func report(config: JukeboxConfig, edges: [RecordedEdge]) -> String {
        var replay = EdgeReplay(config: config)
        var text = "# pin map:"
        for (line, pin) in replay.pins.sorted(by: { $0.key < $1.key }) {
            text += " \(line)=\(pin.signal)\(pin.activeLow ? "" : "(active-high)")"
        }
        if replay.pins.isEmpty { text += " none (set the lines in [buttons] and [encoder])" }
        text += "\n"
        let (outputs, unknown) = replay.run(edges)
        for line in unknown {
            text += "# warning: line \(line) is not in the pin map; its edges are ignored\n"
        }
        for output in outputs { text += EdgeReplay.format(output) + "\n" }
        let gestures = outputs.filter { if case .gesture = $0 { true } else { false } }.count
        let detents = outputs.filter { if case .detent = $0 { true } else { false } }.count
        let actions = outputs.filter { if case .action = $0 { true } else { false } }.count
        text += "# \(edges.count) edges: \(gestures) gestures, \(detents) detents, \(actions) commands\n"
        return text
    }
}
