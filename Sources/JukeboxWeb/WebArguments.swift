import JukeboxCore

/// The command line of jukebox-web and jukebox-mqtt: `--config FILE` (the daemon's own config
/// file).
public enum WebArguments {
    public static func usage(program: String = "jukebox-web") -> String { "usage: \(program) --config FILE" }

    /// The config file's path, or what is wrong with `arguments` (without the program name).
    public static func parse(_ arguments: [String], program: String = "jukebox-web") -> Result<String, CommandError> {
        let problem = { (text: String) in
            Result<String, CommandError>.failure(.badArgument(command: program, problem: text))
        }
        var path: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--config" || argument == "-c" {
                guard index + 1 < arguments.count else { return problem("--config needs a file") }
                path = arguments[index + 1]
                index += 2
            } else if argument.hasPrefix("--config=") {
                path = String(argument.dropFirst("--config=".count))
                index += 1
            } else {
                return problem("unknown argument '\(argument)'")
            }
        }
        guard let path, !path.isEmpty else { return problem("--config FILE is required") }
        return .success(path)
    }
}
