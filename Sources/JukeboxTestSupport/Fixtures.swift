import Foundation
import Glibc
import LinuxSupport

/// Paths of the repository's test media, demo library and built products, found from this
/// source file's location (`#filePath`), so tests work from any current directory.
public enum Fixtures {
    /// A product of this package's build, debug first, then release (the helpers beside the
    /// daemon: jukebox-web, jukebox-mqtt); the debug path when neither is built yet.
    public static func builtProduct(_ name: String) -> String {
        for candidate in [".build/debug/\(name)", ".build/release/\(name)"] {
            let path = "\(repoRoot)/\(candidate)"
            if access(path, X_OK) == 0 { return path }
        }
        return "\(repoRoot)/.build/debug/\(name)"
    }

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

    /// Writes the tag library of `Tests/Fixtures/make-tag-library.sh` into `directory`: nine
    /// files with tags in every ID3 version and text encoding (One/, Bee/, Misc/);
    /// `withPictures`: also a FLAC and three MP4 files with embedded pictures and tags
    /// (make-pictures.sh).
    public static func makeTagLibrary(in directory: String, withPictures: Bool = false) throws {
        let pictures = withPictures ? ["make-pictures.sh"] : []
        for script in ["make-tag-library.sh"] + pictures {
            let result = try run(["/bin/sh", path("Tests/Fixtures/" + script), directory])
            guard result.status == 0 else { throw Errno(code: EIO, call: script, path: result.stderrText) }
        }
    }

    /// A 2-minute VBR (LAME -V 2) MP3 with a LAME header, made with sox and lame on first use
    /// and kept in the temporary folder (renamed into place whole, so a crashed run leaves
    /// none): long enough that where a resume starts reading matters. nil when sox or lame
    /// fails.
    public static let longMP3: String? = {
        let mp3 = NSTemporaryDirectory() + "jukebox-test-120s-v2.mp3"
        if access(mp3, R_OK) == 0 { return mp3 }
        let wav = mp3 + ".\(getpid()).wav"
        let partial = mp3 + ".\(getpid())"
        defer { unlink(wav) }
        let sox = try? run([
            "sox", "-n", "-r", "44100", "-c", "2", wav, "synth", "120", "sine", "200-2000", "sine", "330",
        ])
        let lame = try? run(["lame", "--quiet", "-V", "2", wav, partial])
        guard sox?.status == 0, lame?.status == 0, rename(partial, mp3) == 0 else {
            unlink(partial)
            return nil
        }
        return mp3
    }()

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
