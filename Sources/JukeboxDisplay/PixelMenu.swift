import JukeboxCore

/// The menu on a pixel display: the list's name and the position at the top, a row per
/// entry (the highlighted one on a bar), a scroll bar at the right, and, while the knob is
/// spun through a long list, the initial letter large in the middle.
public struct PixelMenu {
    public let width: Int
    public let height: Int

    public static let highlightColor: UInt32 = 0x24_4A_6E
    static let top = 28
    static let rowHeight = 20

    /// A layout for `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// How many entries fit.
    public var rows: Int { max(1, (height - Self.top - 4) / Self.rowHeight) }

    /// Text cells per entry row (left of the scroll bar).
    var columns: Int { max(1, (width - 24) / 8) }

    /// Draws the whole page into `canvas` (`width` × `height`).
    public func render(_ page: MenuPage, font: BitmapFont, into canvas: inout PixelCanvas) {
        canvas.fill(x: 0, y: 0, width: width, height: height, color: PixelScreen.background)
        let position = page.position
        let positionWidth = TextCells.width(of: position) * 8
        let titleColumns = max(1, (width - 24 - positionWidth) / 8)
        canvas.draw(TextCells.fit(page.title, columns: titleColumns), x: 8, y: 5, font: font) { _ in
            PixelScreen.titleColor
        }
        canvas.draw(position, x: width - 8 - positionWidth, y: 5, font: font) { _ in PixelScreen.artistColor }
        canvas.fill(x: 0, y: Self.top - 4, width: width, height: 1, color: PixelScreen.barColor)
        if page.rows.isEmpty {
            canvas.draw(MenuPage.emptyText, x: 16, y: Self.top + 2, font: font) { _ in PixelScreen.nextColor }
        }
        for (i, row) in page.rows.enumerated() {
            let y = Self.top + i * Self.rowHeight
            if row.highlighted {
                canvas.fill(x: 0, y: y, width: width - 12, height: Self.rowHeight, color: Self.highlightColor)
            }
            let text = TextCells.fit(row.label, columns: columns - (row.opens ? 2 : 0))
            canvas.draw(text, x: 8, y: y + 2, font: font) { _ in
                row.highlighted ? PixelScreen.titleColor : PixelScreen.lyricColor
            }
            if row.opens { drawChevron(x: width - 24, y: y + 5, into: &canvas) }
        }
        drawScrollBar(page, into: &canvas)
        if let letter = page.letter {
            let size = 72
            let x = (width - size) / 2
            let y = Self.top + (height - Self.top - size) / 2
            canvas.fill(x: x, y: y, width: size, height: size, color: Self.highlightColor)
            let glyphWidth = TextCells.width(of: letter) * 8 * 3
            canvas.draw(letter, x: x + (size - glyphWidth) / 2, y: y + (size - 48) / 2, scale: 3, font: font) { _ in
                PixelScreen.sungColor
            }
        }
    }

    /// "›": a list opens from this entry (drawn, as not every font has the character).
    private func drawChevron(x: Int, y: Int, into canvas: inout PixelCanvas) {
        for (dx, dy) in [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (3, 5), (2, 6), (1, 7), (0, 8)] {
            canvas.fill(x: x + dx, y: y + dy, width: 2, height: 1, color: PixelScreen.artistColor)
        }
    }

    private func drawScrollBar(_ page: MenuPage, into canvas: inout PixelCanvas) {
        guard page.total > page.rows.count else { return }
        let trackTop = Self.top
        let trackHeight = rows * Self.rowHeight
        canvas.fill(x: width - 7, y: trackTop, width: 3, height: trackHeight, color: PixelScreen.barColor)
        let thumb = max(6, trackHeight * page.rows.count / page.total)
        let offset = (trackHeight - thumb) * page.first / max(1, page.total - page.rows.count)
        canvas.fill(x: width - 7, y: trackTop + offset, width: 3, height: thumb, color: PixelScreen.sungColor)
    }
}
