import TOML

/// Why a config file cannot be used: the text to print.
public struct ConfigFileProblem: Error, Sendable, Equatable {
    public var message: String
}

extension ConfigValidator {
    /// The daemon's config file as a helper process beside it (jukebox-web, jukebox-mqtt)
    /// reads it, checked by the same validator as `jukeboxd --check-config`; the music folder
    /// is the daemon's business and is not looked at.
    public static func helperConfig(bytes: [UInt8], path: String) -> Result<JukeboxConfig, ConfigFileProblem> {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(ConfigFileProblem(message: "\(path): not UTF-8 text"))
        }
        let document: ConfigDocument
        switch TOMLParser.parse(text, fileName: path) {
        case .success(let parsed): document = parsed
        case .failure(let error):
            return .failure(ConfigFileProblem(message: error.diagnostic(fileName: path).description))
        }
        let result = validate(document) { _ in nil }
        guard let config = result.config else {
            return .failure(ConfigFileProblem(message: result.diagnostics.map(\.description).joined(separator: "\n")))
        }
        return .success(config)
    }
}
