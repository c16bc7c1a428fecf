import Foundation
import JukeboxConfigFile
import JukeboxCore
import JukeboxTestSupport
import Testing

@testable import JukeboxDaemon

/// `jukeboxd --check-config` on real files, through the real binary; the shipped configs in
/// process.
@Suite struct CheckConfigTests {
    /// A shipped config, parsed and validated (its paths are the box's, so not checked here).
    static func validatedShippedConfig(_ path: String) throws -> JukeboxConfig? {
        let text = try String(contentsOfFile: Fixtures.path(path), encoding: .utf8)
        guard case .document(let document) = ConfigFile.document(text: text, fileName: path) else {
            Issue.record("\(path) does not parse")
            return nil
        }
        let result = ConfigValidator.validate(document) { _ in nil }
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return result.config
    }

    @Test func demoConfigValidates() throws {
        #expect(try Self.validatedShippedConfig("config/demo.toml") != nil)
    }

    /// A box upgraded from an earlier version keeps its config file: the annotated configs
    /// shipped before (Tests/Fixtures/config/history, the first and a later one) still load
    /// without a single problem.
    @Test func earlierShippedConfigsStillLoad() throws {
        let folder = "Tests/Fixtures/config/history"
        let files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path(folder)).sorted()
        #expect(files.count >= 2)
        for file in files { #expect(try Self.validatedShippedConfig("\(folder)/\(file)") != nil, "\(file)") }
    }

    /// A relative playlist_dir is taken from the config file's folder; without one the
    /// playlists go beside the database. An empty one is reported with its line.
    @Test func playlistFolderPaths() throws {
        let dir = try TemporaryDirectory(prefix: "jukebox-config")
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.file("music"), withIntermediateDirectories: true)
        let path = dir.file("j.toml")
        func load(_ extra: String) throws -> Result<LoadedConfig, ConfigProblems> {
            try "music_dir = \"music\"\ndatabase = \"state/j.sqlite\"\n\(extra)\n".write(
                toFile: path, atomically: true, encoding: .utf8)
            return DaemonConfig.load(path: path)
        }
        let base = (try load("").get().config.musicDir as NSString).deletingLastPathComponent
        #expect(try load("").get().config.playlistFolder == base + "/state/playlists")
        #expect(try load("playlist_dir = \"lists\"").get().config.playlistFolder == base + "/lists")
        guard case .failure(let problems) = try load("playlist_dir = \"\"") else {
            Issue.record("an empty playlist_dir was accepted")
            return
        }
        #expect(problems.lines == ["\(path):3: playlist_dir: must not be empty"])
    }

    @Test func goodConfigExitsZero() throws {
        let result = try Jukeboxd.run(["--config", Fixtures.config("good.toml"), "--check-config"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func everyProblemIsReportedWithFileLineAndKey() throws {
        let path = Fixtures.config("bad.toml")
        let result = try Jukeboxd.run(["--config", path, "--check-config"])
        #expect(result.status == 78)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let expected: [(line: Int, key: String, says: String)] = [
            (1, "music_dir", "no-such-folder"),
            (5, "audio.perod_ms", "period_ms"),
            (6, "audio.buffer_ms", "integer"),
            (7, "audio.max_volume", "250"),
            (10, "queue.mode", "shufle"),
            (12, "resum", "resume"),
        ]
        for item in expected {
            let prefix = "\(path):\(item.line): \(item.key)"
            let match = lines.first { $0.hasPrefix(prefix) }
            #expect(match != nil, "no line starting with '\(prefix)' in:\n\(result.stderr)")
            if let match { #expect(match.contains(item.says), "\(match)") }
        }
    }

    @Test func syntaxErrorsHaveTheirLine() throws {
        let path = Fixtures.config("syntax.toml")
        let result = try Jukeboxd.run(["--config", path, "--check-config"])
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("\(path):4: syntax:"), "\(result.stderr)")
    }

    @Test func missingMusicDirIsRequired() throws {
        let path = Fixtures.config("missing-music-dir.toml")
        let result = try Jukeboxd.run(["--config", path, "--check-config"])
        #expect(result.status == 78)
        #expect(result.stderr.contains(": music_dir: "), "\(result.stderr)")
    }

    @Test func unreadableConfigFileIsAClearError() throws {
        let result = try Jukeboxd.run(["--config", "/nonexistent/jukebox.toml", "--check-config"])
        #expect(result.status == 78)
        #expect(
            result.stderr.contains("/nonexistent/jukebox.toml: cannot read the config file: No such file or directory"))
    }
}

/// A downgrade: the database of a newer jukeboxd stops the start with what to do and exit 65,
/// which the unit does not restart into; the database stays as it was.
@Suite struct NewerDatabaseTests {
    @Test func aNewerDatabaseStopsTheStartAndIsKept() throws {
        let dir = try TemporaryDirectory(prefix: "jukebox-newer")
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.file("music"), withIntermediateDirectories: true)
        let database = dir.file("j.sqlite")
        let sql =
            "CREATE TABLE tag_cards (id TEXT PRIMARY KEY); INSERT INTO tag_cards VALUES ('04A1'); PRAGMA user_version=999;"
        #expect(try run(["sqlite3", database, sql]).status == 0)
        let config = dir.file("j.toml")
        try "music_dir = \"music\"\ndatabase = \"j.sqlite\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        // A box that started anyway would play on: stopped after a minute, it fails.
        let result = try run(
            [Jukeboxd.binary, "--config", config, "--audio-device", "null", "--console", "none"], timeout: .seconds(60))
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(
            result.stderrText.contains("was written by a newer jukeboxd (schema version 999"), "\(result.stderrText)")
        #expect(
            try run(["sqlite3", database, "PRAGMA user_version; SELECT id FROM tag_cards"]).stdoutText == "999\n04A1\n")
        #expect(!FileManager.default.fileExists(atPath: database + ".damaged-1"))
        let unit = try String(contentsOfFile: Fixtures.path("Board/jukeboxd.service"), encoding: .utf8)
        #expect(unit.contains("RestartPreventExitStatus=65"))
    }
}
