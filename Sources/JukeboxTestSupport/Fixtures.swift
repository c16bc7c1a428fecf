import Foundation
import Glibc

/// Paths of the repository's test media, demo library and built products, found from this
/// source file's location (`#filePath`), so tests work from any current directory.
public enum Fixtures {
    /// The repository root: the nearest folder above this file that holds `Package.swift`.
    public static let repoRoot: String = findRepoRoot()

    /// `Tests/Fixtures/media`, made by `Tests/Fixtures/make-fixtures.sh`.
    public static var mediaDirectory: String { repoRoot + "/Tests/Fixtures/media" }

    /// A file of the test media: `Fixtures.media("gapless/part1.mp3")`.
    public static func media(_ relativePath: String) -> String { mediaDirectory + "/" + relativePath }

    /// `config/demo-music`: three short songs with `.lrc` lyrics (config/demo-music/make-demo.sh).
    public static var demoMusic: String { repoRoot + "/config/demo-music" }

    /// `config`: `demo.toml` and the commented default `jukebox.toml`.
    public static var configDirectory: String { repoRoot + "/config" }

    /// Any path inside the repository: `Fixtures.path("Tests/Fixtures/config/good.toml")`.
    public static func path(_ relativeToRoot: String) -> String { repoRoot + "/" + relativeToRoot }

    /// A product SwiftPM built next to the running test binary (e.g. `jukeboxd`), else in
    /// `.build/debug`; nil when it has not been built.
    public static func builtProduct(_ name: String) -> String? {
        var candidates: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var dir = (exe as NSString).deletingLastPathComponent
            // an .xctest bundle directory (not on Linux, but harmless) sits in the products folder
            if dir.hasSuffix(".xctest") { dir = (dir as NSString).deletingLastPathComponent }
            candidates.append(dir + "/" + name)
        }
        candidates.append(repoRoot + "/.build/debug/" + name)
        return candidates.first { access($0, X_OK) == 0 }
    }

    private static func findRepoRoot(file: String = #filePath) -> String {
        var dir = (file as NSString).deletingLastPathComponent
        while dir != "/" && !dir.isEmpty {
            if access(dir + "/Package.swift", F_OK) == 0 { return dir }
            dir = (dir as NSString).deletingLastPathComponent
        }
        // The sources moved after the build: fall back to the current directory and above.
        dir = FileManager.default.currentDirectoryPath
        while dir != "/" && !dir.isEmpty {
            if access(dir + "/Package.swift", F_OK) == 0 { return dir }
            dir = (dir as NSString).deletingLastPathComponent
        }
        fatalError("JukeboxTestSupport: no Package.swift above \(file) or the current directory")
    }
}
