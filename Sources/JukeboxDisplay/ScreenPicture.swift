import JukeboxCore

/// Pictures of the screen for people (docs/GUIDE.md, `jukeboxd render`) and for snapshot tests.
public enum ScreenPicture {
    /// A character LCD (`columns` × `rows`) drawn as a picture: yellow-green glass, dark
    /// pixels, each cell a 16x32 box (the 8x16 font doubled).
    public static func characterLCD(_ frame: ScreenFrame, columns: Int, rows: Int, font: BitmapFont) -> PixelCanvas {
        let cellWidth = 16
        let cellHeight = 32
        let gap = 3
        let margin = 18
        let width = margin * 2 + columns * (cellWidth + gap) - gap
        let height = margin * 2 + rows * (cellHeight + gap) - gap
        var canvas = PixelCanvas(width: width, height: height, color: 0x7A_A3_2E)
        for row in 0..<rows {
            var cell = 0
            for character in frame.rows[row] {
                let cells = TextCells.width(of: character)
                if cells == 0 { continue }
                for k in 0..<cells where cell + k < columns {
                    canvas.fill(
                        x: margin + (cell + k) * (cellWidth + gap), y: margin + row * (cellHeight + gap),
                        width: cellWidth,
                        height: cellHeight, color: 0x86_B0_36)
                }
                let x = margin + cell * (cellWidth + gap)
                let sung = frame.highlight.map { $0.row == row && cell < $0.cells } ?? false
                canvas.draw(String(character), x: x, y: margin + row * (cellHeight + gap), scale: 2, font: font) { _ in
                    sung ? 0x00_00_00 : 0x1C_28_0C
                }
                cell += cells
            }
        }
        return canvas
    }

    /// The pixel screen (`PixelScreen`) through a file-backed framebuffer of `geometry`,
    /// read back as the panel would show it (RGB565 loses low bits).
    public static func framebuffer(
        _ playing: NowPlaying?, lyrics: LyricTimeline?, now: Instant, geometry: Framebuffer.Geometry, font: BitmapFont,
        file: String
    ) throws -> PixelCanvas {
        let framebuffer = try Framebuffer(file: file, geometry: geometry)
        let screen = FramebufferScreen(framebuffer: framebuffer, font: font)
        screen.refresh(playing, lyrics: lyrics, now: now)
        return framebuffer.readCanvas()
    }

    /// The open menu on the pixel screen, through a file-backed framebuffer of `geometry`.
    public static func framebuffer(
        _ menu: Menu, now: Instant, geometry: Framebuffer.Geometry, font: BitmapFont, file: String
    ) throws -> PixelCanvas {
        let framebuffer = try Framebuffer(file: file, geometry: geometry)
        FramebufferScreen(framebuffer: framebuffer, font: font).show(menu, now: now)
        return framebuffer.readCanvas()
    }
}
