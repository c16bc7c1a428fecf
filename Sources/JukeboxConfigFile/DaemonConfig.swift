import Glibc
import JukeboxCore
import LinuxSupport
import TOML

/// What is wrong with a config file: one `file:line: key: problem` line each.
public struct ConfigProblems: Error, Sendable {
    public var lines: [String]
    init(_ lines: [String]) { self.lines = lines }
}

/// A validated config with its paths made absolute.
public struct LoadedConfig: Sendable {
    public var config: JukeboxConfig
    /// The config file, as given.
    public var path: String
    /// `--console stdin` was given: read stdin even when it is not a terminal.
    public var forceStdinConsole = false
}

/// Reads, parses and validates the config file. Relative paths in it (music_dir, database,
/// lyrics_dir, playlist_dir) are taken relative to the folder the config file is in.
public enum DaemonConfig {
    public static func load(path: String) -> Result<LoadedConfig, ConfigProblems> {
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(path, limit: 1 << 20)
        } catch {
            return .failure(ConfigProblems(["\(path): cannot read the config file: \(error.message)"]))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(ConfigProblems(["\(path):?: file: not UTF-8 text"]))
        }
        let document: ConfigDocument
        switch ConfigFile.document(text: text, fileName: path) {
        case .syntaxError(let diagnostic): return .failure(ConfigProblems([diagnostic.description]))
        case .document(let parsed): document = parsed
        }
        let base = directory(of: path)
        let result = ConfigValidator.validate(document) { raw in
            directoryProblem(resolve(raw, against: base))
        }
        guard var config = result.config, result.diagnostics.isEmpty else {
            return .failure(ConfigProblems(result.diagnostics.map(\.description)))
        }
        config.musicDir = resolve(config.musicDir, against: base)
        config.database = resolve(config.database, against: base)
        if let lyrics = config.lyricsDir { config.lyricsDir = resolve(lyrics, against: base) }
        if let playlists = config.playlistDir { config.playlistDir = resolve(playlists, against: base) }
        if !config.snapcast.fifo.isEmpty { config.snapcast.fifo = resolve(config.snapcast.fifo, against: base) }
        if let cache = config.podcasts.cacheDir { config.podcasts.cacheDir = resolve(cache, against: base) }
        return .success(LoadedConfig(config: config, path: path))
    }

    /// The config file's folder, made absolute so that logs and the database name real paths.
    public static func directory(of path: String) -> String {
        let folder: String
        if let slash = path.lastIndex(of: "/") {
            folder = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            folder = "."
        }
        guard let resolved = realpath(folder, nil) else { return folder }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    public static func resolve(_ path: String, against base: String) -> String {
        if path.hasPrefix("/") { return path }
        if path.hasPrefix("~/"), let home = getenv("HOME") { return String(cString: home) + path.dropFirst(1) }
        return base == "." ? path : "\(base)/\(path)"
    }

    /// Why `path` cannot serve as the music folder, or nil.
    public static func directoryProblem(_ path: String) -> String? {
        let info: stat
        do {
            info = try FileSystem.status(path)
        } catch {
            return "cannot open \(path): \(error.message)"
        }
        if info.st_mode & S_IFMT != S_IFDIR { return "\(path) is not a folder" }
        do {
            try FileSystem.checkAccess(path, R_OK | X_OK)
        } catch {
            return "cannot read \(path): \(error.message)"
        }
        return nil
    }
}
