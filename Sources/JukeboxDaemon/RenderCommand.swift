import Glibc
import JukeboxAudio
import JukeboxCore
import JukeboxDisplay
import LinuxSupport

/// `jukeboxd render`: draws the screen for a track at a position to a PNG, for a pixel
/// display (`--size 320x240`, through a file-backed framebuffer) or a character LCD drawn
/// as a picture (`--size 16x2`).
struct RenderCommand {
    static let command = CommandLineCommand(
        name: "render", abstract: "Render the display for a track and position to a PNG.",
        options: [
            .option("track", help: "An audio file: its tags, and the .lrc/.ksc beside it (or its ID3 lyrics)."),
            .option("lyrics", help: "A lyric file (instead of the one beside the track)."),
            .option("title", help: "Title (instead of the track's tag)."),
            .option("artist", help: "Artist (instead of the track's tag)."),
            .option("position", default: "0", help: "Position in the track: seconds (83.5) or m:ss(.x)."),
            .option(
                "size", default: "320x240",
                help: "WIDTHxHEIGHT: pixels (320x240) or, up to 40x8, an LCD's characters (16x2, 20x4)."),
            .option(
                "bpp", default: "16", help: "Framebuffer pixel size for pixel displays: 16 (RGB565) or 32 (XRGB8888)."),
            .flag("paused", help: "Draw the paused state."),
            .option("font", help: "A .hex font (default: GNU Unifont when installed, else the built-in font)."),
            .option("output", short: "o", help: "The PNG to write."),
            .option(
                "benchmark-seconds",
                help: "Instead of a picture: measure the display's CPU for this many seconds of playback."),
        ])

    var track: String?
    var lyrics: String?
    var title: String?
    var artist: String?
    var position: String
    var size: String
    var bpp: Int
    var paused: Bool
    var font: String?
    var output: String
    var benchmarkSeconds: Int?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        track = parsed.value("track")
        lyrics = parsed.value("lyrics")
        title = parsed.value("title")
        artist = parsed.value("artist")
        position = parsed.defaulted("position")
        size = parsed.defaulted("size")
        bpp = try parsed.defaultedInteger("bpp")
        paused = parsed.flag("paused")
        font = parsed.value("font")
        output = parsed.value("output") ?? ""
        benchmarkSeconds = try parsed.integer("benchmark-seconds")
        if output.isEmpty && benchmarkSeconds == nil { throw UsageError("--output is required") }
        guard bpp == 16 || bpp == 32 else { throw UsageError("--bpp must be 16 or 32, not \(bpp)") }
    }

    func run() throws {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] <= 4096, parts[1] <= 4096 else {
            throw UsageError("--size must be WIDTHxHEIGHT, e.g. 320x240 or 16x2")
        }
        guard let positionMs = Self.parsePosition(position) else {
            throw UsageError("--position must be seconds or m:ss, e.g. 83.5 or 1:23.5")
        }
        var playing = NowPlaying(
            title: title ?? "", artist: artist ?? "", state: paused ? .paused : .playing, positionMs: positionMs)
        var lyricFile = lyrics
        var timeline: LyricTimeline?
        if let track {
            if let media = try? MediaProbe.probe(path: track) {
                if title == nil { playing.title = media.title ?? TrackInfo.fileStem(track) }
                if artist == nil { playing.artist = media.artist ?? "" }
                playing.durationMs = media.durationMs
            } else if title == nil {
                playing.title = TrackInfo.fileStem(track)
            }
            if lyricFile == nil {
                let stem = track.lastIndex(of: ".").map { String(track[..<$0]) } ?? track
                lyricFile = [".lrc", ".LRC", ".ksc", ".KSC"].map { stem + $0 }.first { access($0, R_OK) == 0 }
            }
            if lyricFile == nil, let (embedded, _) = EmbeddedLyrics.read(path: track) {
                timeline = LyricTimeline(lyrics: embedded)
            }
        }
        if let lyricFile {
            do {
                timeline = LyricTimeline(lyrics: Lyrics.parse(bytes: try readWholeFile(lyricFile), fileName: lyricFile))
            } catch {
                throw UsageError("\(lyricFile): \(error)")
            }
        }
        if playing.title.isEmpty { playing.title = timeline?.lyrics.tags["ti"] ?? "Untitled" }
        if playing.artist.isEmpty { playing.artist = timeline?.lyrics.tags["ar"] ?? "" }
        let bitmapFont: BitmapFont
        if let font {
            bitmapFont = try BitmapFont.load(path: font)
        } else {
            bitmapFont = BitmapFont.system()
        }
        if let benchmarkSeconds {
            let geometry: Framebuffer.Geometry =
                bpp == 32 ? .xrgb8888(width: parts[0], height: parts[1]) : .rgb565(width: parts[0], height: parts[1])
            let scratch = "/tmp/jukeboxd-bench-\(getpid()).fb"
            defer { unlink(scratch) }
            let result = try DisplayBenchmark.run(
                geometry: geometry, seconds: max(1, benchmarkSeconds), font: bitmapFont, file: scratch)
            let perMinute = (result.cpuMsPerMinute * 10).rounded() / 10
            print(
                "display \(parts[0])x\(parts[1]) \(geometry.bitsPerPixel) bpp: \(perMinute) ms CPU per minute of playback "
                    + "(\(result.frames) frames at 20 Hz, \(result.pixelsWritten / max(1, result.frames)) pixels written per frame)"
            )
            return
        }
        let canvas: PixelCanvas
        if parts[0] <= 40 && parts[1] <= 8 {
            let frame = ScreenLayout(columns: parts[0], rows: parts[1]).frame(playing, lyrics: timeline, now: .zero)
            canvas = ScreenPicture.characterLCD(frame, columns: parts[0], rows: parts[1], font: bitmapFont)
        } else {
            let geometry: Framebuffer.Geometry =
                bpp == 32 ? .xrgb8888(width: parts[0], height: parts[1]) : .rgb565(width: parts[0], height: parts[1])
            let scratch = "/tmp/jukeboxd-render-\(getpid()).fb"
            defer { unlink(scratch) }
            canvas = try ScreenPicture.framebuffer(
                playing, lyrics: timeline, now: .zero, geometry: geometry, font: bitmapFont, file: scratch)
        }
        let png = PNG.encode(canvas)
        do {
            let fd = try FileDescriptor(path: output, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)
            try fd.writeAll(png)
        } catch {
            writeStderr("\(output): \(error)\n")
            throw CommandExit(1)
        }
        print("\(output): \(canvas.width)x\(canvas.height), \(png.count) bytes")
    }

    /// `83`, `83.5`, `1:23`, `1:23.5` → ms.
    static func parsePosition(_ text: String) -> Int64? {
        let parts = text.split(separator: ":")
        guard parts.count <= 2, let seconds = Double(parts.last!), seconds >= 0 else { return nil }
        var total = seconds
        if parts.count == 2 {
            guard let minutes = Int(parts[0]), minutes >= 0 else { return nil }
            total += Double(minutes * 60)
        }
        return Int64(total * 1000)
    }
}
