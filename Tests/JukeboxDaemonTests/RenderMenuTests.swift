import Foundation
import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import Logging
import SQLite
import Testing

/// `jukeboxd render --menu` over a database of the snapshots' library draws the README's
/// pictures: the same bytes as `MenuScreenTests`' golden PNGs.
@Suite struct RenderMenuTests {
    /// A config whose database holds `tracks` (as a scan would have stored their tags).
    static func box(_ tracks: [TrackInfo], in directory: TemporaryDirectory) throws -> String {
        try FileManager.default.createDirectory(atPath: directory.file("music"), withIntermediateDirectories: true)
        let database = directory.file("jukebox.sqlite")
        _ = try LibraryStore.open(path: database, logger: Logger(label: "test"))
        let connection = try Connection(path: database)
        let insert = try connection.prepare(
            "INSERT INTO tracks(path, size, mtime_ns, title, artist, album, track_no) VALUES (?, 1, 1, ?, ?, ?, ?)")
        for track in tracks {
            try insert.bind(track.path, at: 1)
            try insert.bind(track.title, at: 2)
            try insert.bind(track.artist, at: 3)
            try insert.bind(track.album, at: 4)
            try insert.bind(track.trackNumber, at: 5)
            try insert.run()
        }
        let config = directory.file("jukebox.toml")
        try "music_dir = \"music\"\ndatabase = \"jukebox.sqlite\"\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        return config
    }

    static func render(_ arguments: [String], snapshot: String, in directory: TemporaryDirectory) throws {
        let output = directory.file(snapshot + ".png")
        let result = try Jukeboxd.run(["render"] + arguments + ["--output", output])
        #expect(result.status == 0, "\(result.stderr)")
        let golden = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("docs/screens/\(snapshot).png")))
        let drawn = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(drawn == golden, "\(output) differs from docs/screens/\(snapshot).png")
    }

    @Test func theREADMEsMenuPicturesAtEveryDisplay() throws {
        let directory = try TemporaryDirectory(prefix: "jukebox-render-menu")
        defer { directory.remove() }
        let config = try Self.box(MenuLibrary.albums, in: directory)
        let beatles = ["--config", config, "--menu", "Artists > The Beatles", "--font", "builtin"]
        try Self.render(beatles + ["--size", "320x240"], snapshot: "menu-320x240", in: directory)
        try Self.render(beatles + ["--size", "16x2"], snapshot: "menu-lcd-16x2", in: directory)
        try Self.render(beatles + ["--size", "20x4"], snapshot: "menu-lcd-20x4", in: directory)

        let missing = try Jukeboxd.run(
            ["render", "--config", config, "--menu", "Artists > Nobody", "--output", directory.file("x.png")])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--menu: no 'Nobody' in Artists ('2Pac', '10cc', 'ABBA', "))
        let notAList = try Jukeboxd.run(
            ["render", "--config", config, "--menu", "Albums A-Z > Arrival – ABBA > 1. Track 1 > x", "-o", "x.png"])
        #expect(notAList.stderr.contains("--menu: '1. Track 1' in Arrival is no list to enter"), "\(notAList.stderr)")
    }

    @Test(.enabled(if: access(BitmapFontPath.unifont, R_OK) == 0, "needs GNU Unifont (Debian package unifont)"))
    func aSpinShowsTheLetterAt480x320() throws {
        let directory = try TemporaryDirectory(prefix: "jukebox-render-letter")
        defer { directory.remove() }
        let config = try Self.box(MenuLibrary.letters, in: directory)
        try Self.render(
            [
                "--config", config, "--menu", "Albums A–Z > Dusk 0 - Band 0", "--spin", "--font",
                BitmapFontPath.unifont,
                "--size", "480x320", "--bpp", "32",
            ], snapshot: "menu-480x320-letter", in: directory)
        let between = try Jukeboxd.run([
            "render", "--config", config, "--menu", "Albums A–Z > Dusk 3 - Band 3", "--spin", "-o",
            directory.file("x.png"),
        ])
        #expect(between.status == 64)
        #expect(between.stderr.contains("a spin does not stop at 'Dusk 3 - Band 3'"), "\(between.stderr)")
    }
}

/// Where Debian's `unifont` package puts the font the 480x320 snapshot uses.
enum BitmapFontPath {
    static let unifont = "/usr/share/unifont/unifont.hex"
}
