import JukeboxCore
import TOML

/// A config file's text after TOML parsing.
public enum ParsedConfigFile {
    case document(ConfigDocument)
    case syntaxError(ConfigDiagnostic)
}

/// Turns the text of a TOML config file into the core's `ConfigDocument`, with the line of
/// every key and table (the core's `TOMLParser`, TOML 1.0).
public enum ConfigFile {
    /// Parses `text`; a syntax error comes back as one diagnostic with its line.
    public static func document(text: String, fileName: String) -> ParsedConfigFile {
        switch TOMLParser.parse(text, fileName: fileName) {
        case .success(let document): .document(document)
        case .failure(let error): .syntaxError(error.diagnostic(fileName: fileName))
        }
    }
}
