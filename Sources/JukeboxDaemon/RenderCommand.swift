import Glibc
import JukeboxAudio
import JukeboxConfigFile
import JukeboxCore
import JukeboxDisplay
import JukeboxStore
import LinuxSupport
import Logging

/// `jukeboxd render`: draws the screen for a track at a position, or a page of the menu, to a
/// PNG, for a pixel display (`--size 320x240`, through a file-backed framebuffer) or a
/// character LCD drawn as a picture (`--size 16x2`).
struct RenderCommand {
    static let command = CommandLineCommand(
        name: "render", abstract: "Render the display for a track and position, or a menu page, to a PNG.",
        options: [
            .option(
                "menu",
                help: "Draw the menu instead: the entries to go through from its top, separated by '>' "
                    + "('Artists > The Beatles': Artists entered, The Beatles highlighted; '' is the top), "
                    + "over the library of --config's database (run 'jukeboxd scan' first)."),
            Jukeboxd.configOption,
            .flag(
                "spin",
                help: "With --menu: reach the last entry by spinning the knob fast, as a hand does (a list of "
                    + "50 or more jumps by initial letter, and the letter is shown)."),
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
            .option(
                "font",
                help: "A .hex font, or 'builtin' (default: GNU Unifont when installed, else the built-in font)."),
            .option("output", short: "o", help: "The PNG to write."),
            .option(
                "benchmark-seconds",
                help: "Instead of a picture: measure the display's CPU for this many seconds of playback."),
        ])

    var menu: String?
    var config: String
    var spin: Bool
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
        menu = parsed.value("menu")
        config = parsed.defaulted("config")
        spin = parsed.flag("spin")
        if spin && menu == nil { throw UsageError("--spin needs --menu") }
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
        if font == "builtin" {
            bitmapFont = BitmapFont.builtin()
        } else if let font {
            bitmapFont = try BitmapFont.load(path: font)
        } else {
            bitmapFont = BitmapFont.system()
        }
        if let menu {
            try write(try Self.menuPicture(menu, config: config, spin: spin, size: parts, bpp: bpp, font: bitmapFont))
            return
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
        try write(canvas)
    }

    private func write(_ canvas: PixelCanvas) throws {
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

    /// The menu page at `path` over the library of `config`'s database, drawn as the display
    /// of `size` draws it.
    static func menuPicture(
        _ path: String, config: String, spin: Bool, size: [Int], bpp: Int, font: BitmapFont
    ) throws -> PixelCanvas {
        let loaded: LoadedConfig
        switch DaemonConfig.load(path: config) {
        case .failure(let problems):
            for problem in problems.lines { writeStderr("\(problem)\n") }
            throw CommandExit(78)
        case .success(let value): loaded = value
        }
        let settings = loaded.config
        guard access(settings.database, F_OK) == 0 else {
            throw UsageError("--menu: no database at \(settings.database); run 'jukeboxd scan' first")
        }
        var catalog: MenuCatalog
        do {
            let store = try LibraryStore.open(path: settings.database, logger: Logger(label: "jukeboxd")).store
            catalog = MenuCatalog(tracks: try store.playableTracks().map(\.info))
            catalog.recent = PlayHistory(entries: try store.recentlyPlayed().entries).recent
            // The daemon makes the playlists' folder at its first start.
            if access(settings.playlistFolder, F_OK) == 0 {
                let playlists = PlaylistFolder(path: settings.playlistFolder, musicDir: settings.musicDir)
                catalog.setPlaylists(try playlists.list().map(\.name))
                catalog.setFavourites(try playlists.entries(of: Favourites.playlistName) ?? [])
            }
        } catch {
            writeStderr("jukeboxd render: \(settings.database): \(error)\n")
            throw CommandExit(1)
        }
        let steps = path.split(separator: ">").map { step in
            String(step.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        }.filter { !$0.isEmpty }
        let (menu, now) = try walk(Menu(catalog: catalog), to: steps, spin: spin)
        if size[0] <= 40 && size[1] <= 8 {
            guard size[1] >= 2, let page = menu.page(rows: size[1] - 1, now: now) else {
                throw UsageError("--size: the menu needs at least 2 rows")
            }
            return ScreenPicture.characterLCD(
                page.frame(columns: size[0], rows: size[1]), columns: size[0], rows: size[1], font: font)
        }
        let geometry: Framebuffer.Geometry =
            bpp == 32 ? .xrgb8888(width: size[0], height: size[1]) : .rgb565(width: size[0], height: size[1])
        let scratch = "/tmp/jukeboxd-render-\(getpid()).fb"
        defer { unlink(scratch) }
        return try ScreenPicture.framebuffer(menu, now: now, geometry: geometry, font: font, file: scratch)
    }

    /// Opens `menu` and goes through `steps` (entry labels): each but the last entered, the last
    /// highlighted, by typed moves or, with `spin`, the last by knob clicks 15 ms apart. The time
    /// the menu reached (zero at the opening).
    static func walk(_ start: Menu, to steps: [String], spin: Bool) throws(UsageError) -> (Menu, Instant) {
        var menu = start
        var now = Instant.zero
        _ = menu.handle(.open, now: now)
        for (depth, step) in steps.enumerated() {
            guard let place = menu.place else { break }
            let highlighted = menu.highlighted ?? 0
            let labels = (0..<menu.count(place)).map { menu.label(place, $0) }
            guard let index = labels.firstIndex(where: { sameLabel($0, step) }) else {
                let shown = labels.prefix(12).map { "'\($0)'" }.joined(separator: ", ")
                throw UsageError(
                    "--menu: no '\(step)' in \(menu.title(place)) (\(labels.isEmpty ? "empty" : shown)"
                        + "\(labels.count > 12 ? ", ..." : ""))")
            }
            let last = depth == steps.count - 1
            if last && spin {
                while menu.highlighted != index {
                    let before = menu.highlighted ?? 0
                    now = now + 15
                    _ = menu.handle(.turn(index > before ? 1 : -1), now: now)
                    let after = menu.highlighted ?? 0
                    if after == before || (after - index).signum() != (before - index).signum() && after != index {
                        throw UsageError(
                            "--menu --spin: a spin does not stop at '\(step)' (it stops at the first entry of each "
                                + "letter in a long list); leave out --spin")
                    }
                }
            } else {
                _ = menu.handle(.move(index - highlighted), now: now)
            }
            if !last {
                guard case .open = menu.entry(place, index) else {
                    throw UsageError("--menu: '\(step)' in \(menu.title(place)) is no list to enter")
                }
                _ = menu.handle(.press, now: now)
            }
        }
        return (menu, now)
    }

    /// A label as typed: case aside, a folder's trailing '/' optional, '-' for '–'.
    static func sameLabel(_ label: String, _ typed: String) -> Bool {
        func plain(_ text: String) -> String {
            var text = text.lowercased().replacing("–", with: "-")
            if text.hasSuffix("/") { text.removeLast() }
            return text
        }
        return plain(label) == plain(typed)
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
