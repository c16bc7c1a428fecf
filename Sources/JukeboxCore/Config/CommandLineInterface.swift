/// jukeboxd's command line: its subcommands, their options and positional arguments, the
/// generated help, and the parse of `argv`.
///
/// Why not swift-argument-parser: it built every command's argument set by reflection on
/// each start (conformance lookups, mangled-name demangling, its completion-script check),
/// about 9 M instructions of the daemon's 28 M start-up, a third of its fixed CPU cost, and
/// it linked FoundationEssentials into the daemon. The command line here is small and fixed
/// (see docs/ARCHITECTURE.md), so a declarative table parsed in a single pass does it.
/// jukebox-bench, which no one starts at boot, still uses ArgumentParser.
public struct CommandLineInterface: Sendable {
    public var program: String
    public var version: String
    public var abstract: String
    public var discussion: String
    public var commands: [CommandLineCommand]
    /// The command run when the first argument names none (`jukeboxd --config F` = `run`).
    public var defaultCommand: String

    public init(
        program: String, version: String, abstract: String, discussion: String, commands: [CommandLineCommand],
        defaultCommand: String
    ) {
        self.program = program
        self.version = version
        self.abstract = abstract
        self.discussion = discussion
        self.commands = commands
        self.defaultCommand = defaultCommand
    }

    /// What to do with an `argv`.
    public enum Outcome: Equatable, Sendable {
        /// Run `command` with these arguments.
        case run(command: String, ParsedArguments)
        /// Print this text on stdout and exit 0 (`--help`, `help CMD`, `--version`).
        case show(String)
        /// Print the problem and the usage on stderr, exit 64 (EX_USAGE).
        case usageError(UsageError, command: String)
    }

    /// Parses `arguments` (without the program name).
    public func parse(_ arguments: [String]) -> Outcome {
        var rest = arguments[...]
        if rest.first == "help" {
            rest.removeFirst()
            guard let name = rest.first else { return .show(help(command: defaultCommand, root: true)) }
            guard command(named: name) != nil else {
                return .usageError(UsageError("Unknown subcommand '\(name)'"), command: defaultCommand)
            }
            return .show(help(command: name, root: false))
        }
        var isRoot = true
        var name = defaultCommand
        if let first = rest.first, command(named: first) != nil {
            name = first
            isRoot = false
            rest.removeFirst()
        }
        let spec = command(named: name)!
        var parsed = ParsedArguments(defaults: spec.defaults)
        var onlyPositionals = false
        while let argument = rest.popFirst() {
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") || Self.isNumber(argument) {
                parsed.arguments.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "--help" || argument == "-h" { return .show(help(command: name, root: isRoot)) }
            if argument == "--version" && isRoot { return .show(version + "\n") }
            // `--name value`, `--name=value`, `-o value`, `-ovalue`
            let option: CommandLineOption
            var inlineValue: String?
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let key = body.firstIndex(of: "=").map { String(body[..<$0]) } ?? String(body)
                if let equals = body.firstIndex(of: "=") { inlineValue = String(body[body.index(after: equals)...]) }
                guard let found = spec.options.first(where: { $0.name == key }) else {
                    return .usageError(UsageError("Unknown option '--\(key)'"), command: name)
                }
                option = found
            } else {
                let letter = argument.dropFirst().first!
                guard let found = spec.options.first(where: { $0.short == letter }) else {
                    return .usageError(UsageError("Unknown option '-\(letter)'"), command: name)
                }
                option = found
                let attached = argument.dropFirst(2)
                if !attached.isEmpty { inlineValue = String(attached.hasPrefix("=") ? attached.dropFirst() : attached) }
            }
            guard option.takesValue else {
                if inlineValue != nil {
                    return .usageError(UsageError("'--\(option.name)' takes no value"), command: name)
                }
                parsed.flags.insert(option.name)
                continue
            }
            if let inlineValue {
                parsed.values[option.name] = inlineValue
            } else if let next = rest.first, !next.hasPrefix("--") {
                parsed.values[option.name] = next
                rest.removeFirst()
            } else {
                return .usageError(UsageError("Missing value for '\(option.synopsis)'"), command: name)
            }
        }
        if parsed.arguments.count < spec.arguments.count {
            let missing = spec.arguments[parsed.arguments.count]
            return .usageError(UsageError("Missing expected argument '<\(missing.name)>'"), command: name)
        }
        if parsed.arguments.count > spec.arguments.count {
            return .usageError(
                UsageError("Unexpected argument '\(parsed.arguments[spec.arguments.count])'"), command: name)
        }
        return .run(command: name, parsed)
    }

    public func command(named name: String) -> CommandLineCommand? { commands.first { $0.name == name } }

    /// `USAGE: jukeboxd scan [--config <config>] [--log-level <log-level>]`.
    public func usage(command name: String, root: Bool = false) -> String {
        guard let spec = command(named: name) else { return "" }
        var words = [program]
        words.append(root ? "[<subcommand>]" : name)
        for option in spec.options where !option.isHidden {
            words.append(option.takesValue ? "[\(option.synopsis)]" : "[--\(option.name)]")
        }
        for argument in spec.arguments { words.append("<\(argument.name)>") }
        return "USAGE: " + words.joined(separator: " ")
    }

    /// The help page of a command; the root's (`jukeboxd --help`) also lists the subcommands.
    public func help(command name: String, root: Bool) -> String {
        guard let spec = command(named: name) else { return "" }
        var text = "OVERVIEW: \(root ? abstract : spec.abstract)\n\n"
        let discussion = root ? self.discussion : spec.discussion
        if !discussion.isEmpty { text += discussion + "\n\n" }
        text += usage(command: name, root: root) + "\n\n"
        var rows: [(String, String)] = []
        for argument in spec.arguments { rows.append(("<\(argument.name)>", argument.help)) }
        if !rows.isEmpty { text += "ARGUMENTS:\n" + Self.table(rows) + "\n" }
        rows = spec.options.filter { !$0.isHidden }.map { option in
            let names = (option.short.map { "-\($0), " } ?? "") + option.synopsis
            let fallback = option.defaultValue.map { " (default: \($0))" } ?? ""
            return (names, option.help + fallback)
        }
        if root { rows.append(("--version", "Show the version.")) }
        rows.append(("-h, --help", "Show help information."))
        text += "OPTIONS:\n" + Self.table(rows)
        if root {
            let subcommands = commands.map { ($0.name + ($0.name == defaultCommand ? " (default)" : ""), $0.abstract) }
            text += "\nSUBCOMMANDS:\n" + Self.table(subcommands)
            text += "\n  See '\(program) help <subcommand>' for detailed help.\n"
        }
        return text
    }

    private static func table(_ rows: [(String, String)]) -> String {
        let width = min(28, (rows.map { $0.0.count }.max() ?? 0) + 2)
        return rows.map { name, help in
            let gap =
                name.count < width
                ? String(repeating: " ", count: width - name.count) : "\n" + String(repeating: " ", count: width + 2)
            return "  " + name + gap + help + "\n"
        }.joined()
    }

    /// `-500` and `-1.5` are values (a lyric offset, a seek), not options.
    private static func isNumber(_ text: String) -> Bool {
        let body = text.dropFirst()
        return text.hasPrefix("-") && !body.isEmpty && body.allSatisfy { $0.isNumber || $0 == "." }
    }
}

/// One subcommand: its options and its required positional arguments, in order.
public struct CommandLineCommand: Sendable {
    public var name: String
    public var abstract: String
    public var discussion: String
    public var options: [CommandLineOption]
    public var arguments: [CommandLineArgument]

    public init(
        name: String, abstract: String, discussion: String = "", options: [CommandLineOption],
        arguments: [CommandLineArgument] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
    }

    var defaults: [String: String] {
        var result: [String: String] = [:]
        for option in options { if let value = option.defaultValue { result[option.name] = value } }
        return result
    }
}

/// `--name <value>` or a flag `--name`.
public struct CommandLineOption: Sendable {
    /// The long name without its dashes: `config`, `log-level`.
    public var name: String
    public var short: Character?
    public var takesValue: Bool
    public var defaultValue: String?
    public var help: String
    /// Left out of help and usage (test hooks).
    public var isHidden: Bool

    /// An option with a value; `defaultValue` is what `value(_:)` returns when it is not given.
    public static func option(
        _ name: String, short: Character? = nil, default defaultValue: String? = nil, help: String,
        hidden: Bool = false
    ) -> CommandLineOption {
        CommandLineOption(
            name: name, short: short, takesValue: true, defaultValue: defaultValue, help: help, isHidden: hidden)
    }

    public static func flag(_ name: String, help: String) -> CommandLineOption {
        CommandLineOption(name: name, short: nil, takesValue: false, defaultValue: nil, help: help, isHidden: false)
    }

    /// `--log-level <log-level>`.
    var synopsis: String { takesValue ? "--\(name) <\(name)>" : "--\(name)" }
}

/// A required positional argument.
public struct CommandLineArgument: Sendable {
    public var name: String
    public var help: String

    public init(_ name: String, help: String) {
        self.name = name
        self.help = help
    }
}

/// The options and arguments given to one command.
public struct ParsedArguments: Equatable, Sendable {
    /// Option values by long name, given or defaulted.
    public var values: [String: String]
    public var flags: Set<String> = []
    public var arguments: [String] = []

    public init(defaults: [String: String] = [:]) { values = defaults }

    public func value(_ name: String) -> String? { values[name] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// An integer option's value; text that is not an integer is a usage error.
    public func integer(_ name: String) throws(UsageError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text) else { throw UsageError("--\(name) must be an integer, not '\(text)'") }
        return number
    }

    /// The value of an option declared with a default, which the parse always fills in.
    public func defaulted(_ name: String) -> String {
        guard let value = values[name] else { preconditionFailure("--\(name) is declared without a default") }
        return value
    }

    /// `defaulted(_:)` for an integer option.
    public func defaultedInteger(_ name: String) throws(UsageError) -> Int {
        guard let number = try integer(name) else { preconditionFailure("--\(name) is declared without a default") }
        return number
    }
}

/// A command line the program cannot run: printed with the usage, exit 64.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
