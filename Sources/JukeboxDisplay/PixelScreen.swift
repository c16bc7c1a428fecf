import JukeboxCore

/// The layout of a pixel display (a TFT on a framebuffer): title and artist at the top, the
/// current lyric line in double-size text in the middle (a `LyricMarquee`, the sung part of
/// word-timed lines in amber, overlays in its place), the next line below it, and a
/// progress bar with times at the bottom. Text uses an 8x16 `BitmapFont` (16x16 for wide
/// characters). Pure apart from the font cache: the same inputs give the same pixels.
public struct PixelScreen {
    public let width: Int
    public let height: Int
    private var lyricLayout: ScreenLayout
    private let lineLayout: ScreenLayout
    /// Lyric text scale: 2 from 240 px wide, 1 below.
    public let scale: Int

    public static let background: UInt32 = 0x10_14_18
    public static let titleColor: UInt32 = 0xFF_FF_FF
    public static let artistColor: UInt32 = 0x9A_A4_B0
    public static let lyricColor: UInt32 = 0xF2_F4_F7
    public static let sungColor: UInt32 = 0xF5_A6_23
    public static let nextColor: UInt32 = 0x6B_76_83
    public static let barColor: UInt32 = 0x3A_42_4C
    public static let overlayColor: UInt32 = 0x4F_C3_F7
    public static let favouriteColor: UInt32 = 0xE5_48_5A

    /// A layout for `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        scale = width >= 240 && height >= 120 ? 2 : 1
        lyricLayout = ScreenLayout(columns: max(1, (width - 16) / (8 * scale)), rows: 2)
        lineLayout = ScreenLayout(columns: max(1, (width - 16) / 8), rows: 4)
    }

    /// Notes an overlay event.
    public mutating func handle(_ event: ScreenEvent, now: Instant) { lyricLayout.handle(event, now: now) }

    /// When the overlay goes.
    public func overlayEnds(after now: Instant) -> Instant? { lyricLayout.overlayEnds(after: now) }

    /// The horizontal bands of the screen, top to bottom: title, artist, lyric line, next
    /// line, progress. Each is redrawn on its own when its content changes.
    public var bands: [Range<Int>] {
        let lyricBottom = lyricY + 16 * scale
        let nextTop = lyricBottom + 10
        let nextBottom = max(nextTop, min(height - 22, lyricBottom + 26))
        return [0..<22, 22..<42, lyricY..<lyricBottom, nextTop..<nextBottom, max(0, height - 22)..<max(0, height)]
    }

    /// Draws the whole screen into `canvas` (which must be `width` × `height`).
    public func render(
        _ playing: NowPlaying?, lyrics: LyricTimeline?, now: Instant, font: BitmapFont, into canvas: inout PixelCanvas
    ) {
        canvas.fill(x: 0, y: 0, width: width, height: height, color: Self.background)
        for band in bands.indices { renderBand(band, playing, lyrics: lyrics, now: now, font: font, into: &canvas) }
    }

    /// Clears band `band` and draws its content.
    public func renderBand(
        _ band: Int, _ playing: NowPlaying?, lyrics: LyricTimeline?, now: Instant, font: BitmapFont,
        into canvas: inout PixelCanvas
    ) {
        let range = bands[band]
        canvas.fill(x: 0, y: range.lowerBound, width: width, height: range.count, color: Self.background)
        let columns = lineLayout.columns
        guard let playing else {
            if band == 0 {
                canvas.draw(TextCells.fit("Jukebox", columns: columns), x: 8, y: 6, font: font) { _ in Self.titleColor }
            } else if band == 2 {
                let row = lyricLayout.frame(nil, lyrics: nil, now: now).rows[1]
                canvas.draw(row, x: 8, y: lyricY, scale: scale, font: font) { _ in Self.nextColor }
            }
            return
        }
        switch band {
        case 0:
            let title = lineLayout.headingRow(
                playing.topLine, positionMs: playing.positionMs, favourite: playing.favourite)
            let markCell = playing.favourite ? columns - 1 : -1
            canvas.draw(title, x: 8, y: 6, font: font) { $0 == markCell ? Self.favouriteColor : Self.titleColor }
        case 1:
            canvas.draw(TextCells.fit(playing.secondLine, columns: columns), x: 8, y: 24, font: font) { _ in
                Self.artistColor
            }
        case 2:
            let frame = lyricLayout.frame(playing, lyrics: lyrics, now: now)
            let overlay = lyricLayout.overlayEnds(after: now) != nil
            let sung = frame.highlight?.cells ?? 0
            canvas.draw(frame.rows[1], x: 8, y: lyricY, scale: scale, font: font) { cell in
                overlay ? Self.overlayColor : cell < sung ? Self.sungColor : Self.lyricColor
            }
        case 3:
            guard height >= 120 else { return }
            let next = lineLayout.frame(playing, lyrics: lyrics, now: now).rows[2]
            canvas.draw(next, x: 8, y: lyricY + 16 * scale + 10, font: font) { _ in Self.nextColor }
        default:
            drawProgress(playing, font: font, into: &canvas)
        }
    }

    private var lyricY: Int { max(44, height / 2 - 8 * scale) }

    /// What each band's pixels depend on, as text: a band whose key is unchanged is not
    /// redrawn (most 50 ms ticks change one band or none).
    public func bandKeys(_ playing: NowPlaying?, lyrics: LyricTimeline?, now: Instant) -> [[String]] {
        let frame = lyricLayout.frame(playing, lyrics: lyrics, now: now)
        let overlay = "\(lyricLayout.overlayEnds(after: now) != nil)"
        guard let playing else { return [["-"], [], [frame.rows[1], overlay], [], []] }
        var progress = ["\(playing.state)", ScreenLayout.clock(playing.shownPositionMs)]
        if let duration = playing.shownDurationMs, duration > 0 {
            progress.append(ScreenLayout.clock(duration))
            progress.append("\(Int64(width) * min(max(0, playing.shownPositionMs), duration) / duration)")
        }
        return [
            [lineLayout.headingRow(playing.topLine, positionMs: playing.positionMs, favourite: playing.favourite)],
            [playing.secondLine],
            [frame.rows[1], "\(frame.highlight?.cells ?? -1)", overlay],
            height >= 120 ? [lineLayout.frame(playing, lyrics: lyrics, now: now).rows[2]] : [], progress,
        ]
    }

    private func drawProgress(_ playing: NowPlaying, font: BitmapFont, into canvas: inout PixelCanvas) {
        let y = height - 22
        let glyph: Character =
            playing.state == .playing
            ? ScreenLayout.playGlyph : playing.state == .paused ? ScreenLayout.pauseGlyph : ScreenLayout.stopGlyph
        let position = playing.shownPositionMs
        let left = "\(glyph) \(ScreenLayout.clock(position))"
        let right = playing.shownDurationMs.map { ScreenLayout.clock($0) } ?? ""
        let leftWidth = canvas.draw(left, x: 8, y: y, font: font) { _ in Self.artistColor }
        let rightWidth = TextCells.width(of: right) * 8
        canvas.draw(right, x: width - 8 - rightWidth, y: y, font: font) { _ in Self.artistColor }
        let barX = 8 + leftWidth + 8
        let barWidth = width - 8 - rightWidth - 8 - barX
        guard barWidth > 4 else { return }
        canvas.fill(x: barX, y: y + 7, width: barWidth, height: 3, color: Self.barColor)
        if let duration = playing.shownDurationMs, duration > 0 {
            let filled = Int(Int64(barWidth) * min(max(0, position), duration) / duration)
            canvas.fill(x: barX, y: y + 7, width: filled, height: 3, color: Self.sungColor)
        }
    }
}
