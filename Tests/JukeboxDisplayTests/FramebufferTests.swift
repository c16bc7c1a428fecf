import Glibc
import JukeboxCore
import JukeboxTestSupport
import Testing

@testable import JukeboxDisplay

/// Snapshots live in Tests/JukeboxDisplayTests/Snapshots; a missing one is written (and the
/// test fails so that it is looked at and committed). `JUKEBOX_UPDATE_SNAPSHOTS=1` rewrites all.
func expectSnapshot(_ canvas: PixelCanvas, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws
{
    let path = Fixtures.path("Tests/JukeboxDisplayTests/Snapshots/\(name).png")
    let png = PNG.encode(canvas)
    let existing = try? readWholeFileForTest(path)
    if existing == nil || getenv("JUKEBOX_UPDATE_SNAPSHOTS") != nil {
        try writeFileForTest(path, png)
        if existing == nil {
            Issue.record("snapshot \(name) was missing; written to \(path)", sourceLocation: sourceLocation)
        }
        return
    }
    if existing != png {
        let actual = "/tmp/\(name)-actual.png"
        try writeFileForTest(actual, png)
        Issue.record("\(name) differs from its snapshot; see \(actual)", sourceLocation: sourceLocation)
    }
}

func readWholeFileForTest(_ path: String) throws -> [UInt8] {
    guard let file = fopen(path, "rb") else { throw CocoaLikeError() }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return bytes
}

func writeFileForTest(_ path: String, _ bytes: [UInt8]) throws {
    guard let file = fopen(path, "wb") else { throw CocoaLikeError() }
    defer { fclose(file) }
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
}

struct CocoaLikeError: Error {}

let demoLyrics = LyricTimeline(
    lyrics: LRCParser.parse(
        """
        [ti:Morning Light]
        [00:02.50]Open the window, let the morning in
        [00:07.50]Golden light is pouring on the kitchen floor and the day begins again
        [00:12.50]
        [00:15.00]Morning light, stay a little longer
        """))

let cjkLyrics = LyricTimeline(
    lyrics: LRCParser.parse(
        """
        [00:10.00]<00:10.00>你问<00:10.80>我爱<00:11.60>你有<00:12.40>多深
        [00:14.00]我爱你有几分 Café
        """))

let unifontInstalled = access(BitmapFont.unifontPath, R_OK) == 0

@Suite struct FramebufferTests {
    private func temporaryFile(_ name: String) -> String { "/tmp/jukebox-fb-\(getpid())-\(name)" }

    @Test func rgb565At320x240MatchesTheSnapshot() throws {
        let file = temporaryFile("a")
        defer { unlink(file) }
        let canvas = try ScreenPicture.framebuffer(
            NowPlaying(title: "Morning Light", artist: "Jukebox Demo", positionMs: 9_800, durationMs: 21_000),
            lyrics: demoLyrics, now: .zero, geometry: .rgb565(width: 320, height: 240), font: BitmapFont.builtin(),
            file: file)
        try expectSnapshot(canvas, named: "fb-320x240-rgb565")
    }

    /// An audiobook: the chapter's title on top, the book and author under it, the times and
    /// the bar the chapter's, `Ch 3/12` and the place in the book on the next-line row.
    @Test func aChapterOfAnAudiobookMatchesTheSnapshot() throws {
        let file = temporaryFile("c")
        defer { unlink(file) }
        let chapter = ChapterMoment(index: 2, count: 12, title: "The Storm", elapsedMs: 283_000, lengthMs: 754_000)
        let canvas = try ScreenPicture.framebuffer(
            NowPlaying(
                title: "Moby Dick", artist: "Herman Melville", positionMs: 3_723_000, durationMs: 36_000_000,
                chapter: chapter),
            lyrics: nil, now: .zero, geometry: .rgb565(width: 320, height: 240), font: BitmapFont.builtin(), file: file)
        try expectSnapshot(canvas, named: "fb-320x240-chapter")
    }

    @Test(.enabled(if: unifontInstalled, "needs GNU Unifont (Debian package unifont)"))
    func xrgb8888At480x320WithCJKAndWordHighlightMatchesTheSnapshot() throws {
        let file = temporaryFile("b")
        defer { unlink(file) }
        let canvas = try ScreenPicture.framebuffer(
            NowPlaying(title: "月亮代表我的心", artist: "邓丽君", state: .paused, positionMs: 11_000, durationMs: 200_000),
            lyrics: cjkLyrics, now: .zero, geometry: .xrgb8888(width: 480, height: 320),
            font: try BitmapFont.load(path: BitmapFont.unifontPath), file: file)
        try expectSnapshot(canvas, named: "fb-480x320-xrgb8888-cjk")
    }

    @Test func characterLCDPicture() throws {
        let layout = ScreenLayout(columns: 16, rows: 2)
        let frame = layout.frame(
            NowPlaying(title: "Morning Light", artist: "Jukebox Demo", positionMs: 9_800), lyrics: demoLyrics,
            now: .zero)
        try expectSnapshot(
            ScreenPicture.characterLCD(frame, columns: 16, rows: 2, font: BitmapFont.builtin()), named: "lcd-16x2")
    }

    /// The favourite's mark: the heart in row 1's last cell, on the framebuffer (in its own
    /// colour) and on a 20x4 LCD (custom character 5 on the device; the picture draws the font).
    @Test func aFavouriteIsMarked() throws {
        let file = temporaryFile("fav")
        defer { unlink(file) }
        let playing = NowPlaying(
            title: "Morning Light", artist: "Jukebox Demo", positionMs: 9_800, durationMs: 21_000, favourite: true)
        let canvas = try ScreenPicture.framebuffer(
            playing, lyrics: demoLyrics, now: .zero, geometry: .rgb565(width: 320, height: 240),
            font: BitmapFont.builtin(), file: file)
        // Through RGB565 the heart's red comes back rounded: a red pixel is the mark.
        let marked = canvas.pixels.contains { $0 >> 16 & 0xFF > 0xC0 && $0 >> 8 & 0xFF < 0x60 }
        #expect(marked, "no heart-coloured pixel")
        try expectSnapshot(canvas, named: "fb-320x240-favourite")
        let frame = ScreenLayout(columns: 20, rows: 4).frame(playing, lyrics: demoLyrics, now: .zero)
        #expect(frame.rows[0].hasSuffix(" ♥"))
        try expectSnapshot(
            ScreenPicture.characterLCD(frame, columns: 20, rows: 4, font: BitmapFont.builtin()),
            named: "lcd-20x4-favourite")
    }

    @Test func pixelFormats() throws {
        let file = temporaryFile("c")
        defer { unlink(file) }
        let fb565 = try Framebuffer(file: file, geometry: .rgb565(width: 4, height: 2))
        #expect(fb565.pixel(0xFF_00_00) == 0xF800)
        #expect(fb565.pixel(0x00_FF_00) == 0x07E0)
        #expect(fb565.pixel(0x00_00_FF) == 0x001F)
        let fb32 = try Framebuffer(file: file + "32", geometry: .xrgb8888(width: 4, height: 2))
        defer { unlink(file + "32") }
        #expect(fb32.pixel(0x12_34_56) == 0x12_34_56)
        var canvas = PixelCanvas(width: 4, height: 2, color: 0xFF_FF_FF)
        canvas.pixels[5] = 0x00_FF_00
        fb565.write(canvas)
        #expect(fb565.readCanvas() == canvas)
    }

    @Test func onlyChangedPixelsAreWritten() throws {
        let file = temporaryFile("d")
        defer { unlink(file) }
        let framebuffer = try Framebuffer(file: file, geometry: .rgb565(width: 320, height: 240))
        let screen = FramebufferScreen(framebuffer: framebuffer, font: BitmapFont.builtin())
        let playing = NowPlaying(title: "Morning Light", artist: "Jukebox Demo", positionMs: 8_000, durationMs: 21_000)
        screen.refresh(playing, lyrics: demoLyrics, now: .zero)
        let bands = PixelScreen(width: 320, height: 240).bands
        #expect(screen.lastWritten == bands.map(\.count).reduce(0, +) * 320)
        screen.refresh(playing, lyrics: demoLyrics, now: .zero)
        #expect(screen.lastWritten == 0)
        var later = playing
        later.positionMs = 8_050  // the bar grows a pixel; the lyric is still in its start hold
        screen.refresh(later, lyrics: demoLyrics, now: .zero)
        #expect(screen.lastWritten == bands[4].count * 320)
        later.positionMs = 10_000  // the lyric line scrolls, the clock and the bar move
        screen.refresh(later, lyrics: demoLyrics, now: .zero)
        #expect(screen.lastWritten == (bands[2].count + bands[4].count) * 320)
    }

    @Test func fontsCoverWhatTheLayoutDraws() {
        let font = BitmapFont.builtin()
        for scalar in "▶‖■♪…–━─█·éÀüß€".unicodeScalars { #expect(font.glyph(scalar) != nil, "\(scalar)") }
        #expect(font.glyph("A")?.width == 8)
    }

    @Test(.enabled(if: unifontInstalled)) func unifontHasWideGlyphs() throws {
        let font = try BitmapFont.load(path: BitmapFont.unifontPath)
        #expect(font.count > 50_000)
        #expect(font.glyph("你")?.width == 16)
        #expect(font.glyph("A")?.width == 8)
    }
}

@Suite struct PNGTests {
    @Test func encodesAValidFile() {
        var canvas = PixelCanvas(width: 3, height: 2, color: 0x11_22_33)
        canvas.pixels[4] = 0xFF_00_00
        let png = PNG.encode(canvas)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(PNG.crc32(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(PNG.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
    }
}

@Suite struct DisplayBenchmarkTests {
    @Test func measuresAMinuteOfRefreshes() throws {
        let file = "/tmp/jukebox-fb-bench-\(getpid())"
        defer { unlink(file) }
        let result = try DisplayBenchmark.run(
            geometry: .rgb565(width: 320, height: 240), seconds: 5, font: BitmapFont.builtin(), file: file)
        #expect(result.frames == 100)
        #expect(result.cpuMilliseconds > 0)
        // Scrolling text changes a band of the screen, not all of it.
        #expect(result.pixelsWritten / result.frames < 320 * 240 / 4)
    }
}
