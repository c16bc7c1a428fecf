import Glibc
import JukeboxCore
import JukeboxTestSupport
import Testing

@testable import JukeboxDisplay

/// The menu on every display, as snapshots (the README and docs/GUIDE.md show some of them).
@Suite struct MenuScreenTests {
    /// A small library with accents, a leading "The", numbers and CJK names.
    static let catalog = MenuCatalog(tracks: MenuLibrary.albums)

    /// The menu opened on Artists with the fourth artist highlighted.
    static func artistsMenu() -> Menu {
        var menu = Menu(catalog: catalog)
        _ = menu.handle(.open, now: .zero)
        _ = menu.handle(.move(1), now: .zero)
        _ = menu.handle(.press, now: .zero)
        _ = menu.handle(.move(3), now: .zero)
        return menu
    }

    private func temporaryFile(_ name: String) -> String { "/tmp/jukebox-menu-\(getpid())-\(name)" }

    @Test func artistsInNaturalOrder() {
        let names = Self.catalog.artists.map(\.name)
        #expect(
            names == [
                "2Pac", "10cc", "ABBA", "The Beatles", "Björk", "Daft Punk", "Édith Piaf", "Miles Davis", "Nina Simone",
                "Queen", "Sigur Rós", "Zaz", "邓丽君",
            ])
    }

    @Test func framebuffer320x240() throws {
        let file = temporaryFile("a")
        defer { unlink(file) }
        let canvas = try ScreenPicture.framebuffer(
            Self.artistsMenu(), now: .zero, geometry: .rgb565(width: 320, height: 240), font: BitmapFont.builtin(),
            file: file)
        try expectSnapshot(canvas, named: "menu-320x240")
    }

    @Test(.enabled(if: unifontInstalled, "needs GNU Unifont (Debian package unifont)"))
    func framebuffer480x320JumpingByLetter() throws {
        // Letter jumps need a long list: Albums A–Z of 64 albums, spun fast.
        var menu = Menu(catalog: MenuCatalog(tracks: MenuLibrary.letters))
        var now = Instant.zero
        _ = menu.handle(.open, now: now)
        _ = menu.handle(.move(2), now: now)
        _ = menu.handle(.press, now: now)  // Albums A–Z: 64
        for _ in 0..<4 {
            now = now + 15
            _ = menu.handle(.turn(1), now: now)
        }
        #expect(menu.page(rows: 1, now: now)?.letter == "D")
        let file = temporaryFile("b")
        defer { unlink(file) }
        let canvas = try ScreenPicture.framebuffer(
            menu, now: now, geometry: .xrgb8888(width: 480, height: 320),
            font: try BitmapFont.load(path: BitmapFont.unifontPath), file: file)
        try expectSnapshot(canvas, named: "menu-480x320-letter")
    }

    @Test func characterLCDs() throws {
        let menu = Self.artistsMenu()
        let small = try #require(menu.page(rows: 1, now: .zero)).frame(columns: 16, rows: 2)
        #expect(small.rows == ["Artists     4/13", "▶The Beatles    "])
        try expectSnapshot(
            ScreenPicture.characterLCD(small, columns: 16, rows: 2, font: BitmapFont.builtin()), named: "menu-lcd-16x2")
        let large = try #require(menu.page(rows: 3, now: .zero)).frame(columns: 20, rows: 4)
        #expect(
            large.rows == [
                "Artists         4/13", " ABBA               ", "▶The Beatles        ", " Björk              ",
            ])
        try expectSnapshot(
            ScreenPicture.characterLCD(large, columns: 20, rows: 4, font: BitmapFont.builtin()), named: "menu-lcd-20x4")
    }

    @Test func theMenuReplacesWhatPlaysAndGoesWhenItCloses() throws {
        let file = temporaryFile("c")
        defer { unlink(file) }
        let framebuffer = try Framebuffer(file: file, geometry: .rgb565(width: 320, height: 240))
        let screen = FramebufferScreen(framebuffer: framebuffer, font: BitmapFont.builtin())
        let playing = NowPlaying(title: "Morning Light", artist: "Jukebox Demo", positionMs: 8_000, durationMs: 21_000)
        screen.refresh(playing, lyrics: nil, now: .zero)
        let nowPlaying = framebuffer.readCanvas()
        var menu = Self.artistsMenu()
        screen.show(menu, now: .zero)
        #expect(screen.lastWritten == 320 * 240)
        screen.show(menu, now: .zero)
        #expect(screen.lastWritten == 0, "an unchanged page is not drawn again")
        _ = menu.handle(.move(1), now: .zero)
        screen.show(menu, now: .zero)
        #expect(framebuffer.readCanvas() != nowPlaying)
        screen.refresh(playing, lyrics: nil, now: .zero)
        #expect(framebuffer.readCanvas() == nowPlaying, "what plays is drawn whole again")
    }
}
