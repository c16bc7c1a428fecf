/// What a display shows of the open menu: where you are (the title), the entries around the
/// highlighted one, and the scroll position. Character displays lay it out with `frame`;
/// the framebuffer draws it with the same texts.
public struct MenuPage: Sendable, Equatable {
    /// One visible entry.
    public struct Row: Sendable, Equatable {
        public var label: String
        public var highlighted: Bool
        /// Choosing it opens a list (rather than playing or setting something).
        public var opens: Bool

        public init(label: String, highlighted: Bool, opens: Bool) {
            self.label = label
            self.highlighted = highlighted
            self.opens = opens
        }
    }

    /// The list's name: "Artists", an artist, an album.
    public var title: String
    /// The visible entries, in order.
    public var rows: [Row]
    /// The index of the first visible entry, and how many the list has.
    public var first: Int
    public var total: Int
    /// Nil when the list is empty.
    public var highlighted: Int?
    /// The initial letter being jumped by, while the knob is spun fast.
    public var letter: String?

    public init(title: String, rows: [Row], first: Int, total: Int, highlighted: Int?, letter: String?) {
        self.title = title
        self.rows = rows
        self.first = first
        self.total = total
        self.highlighted = highlighted
        self.letter = letter
    }

    /// Shown in place of entries when a list has none.
    public static let emptyText = "(empty)"
    /// Marks the highlighted entry on character displays.
    public static let marker: Character = "▶"

    /// `3/120`, or `[M]` while jumping by letter.
    public var position: String {
        if let letter { return "[\(letter)]" }
        return highlighted.map { "\($0 + 1)/\(total)" } ?? "0/0"
    }

    /// The menu on a `columns` × `rows` character screen: the title with the position at its
    /// right on row 1, then the entries around the highlighted one, marked with `▶`. A
    /// 16x2 display shows the highlighted entry alone.
    public func frame(columns: Int, rows screenRows: Int) -> ScreenFrame {
        let position = self.position
        let positionWidth = TextCells.width(of: position)
        var out: [String] = []
        if columns > positionWidth + 2 {
            out.append(TextCells.fit(title, columns: columns - positionWidth - 1) + " " + position)
        } else {
            out.append(TextCells.fit(title, columns: columns))
        }
        if rows.isEmpty && screenRows > 1 { out.append(TextCells.fit("  " + Self.emptyText, columns: columns)) }
        for row in rows where out.count < screenRows {
            let marker = row.highlighted ? String(Self.marker) : " "
            out.append(TextCells.fit(marker + row.label, columns: columns))
        }
        while out.count < screenRows { out.append(String(repeating: " ", count: columns)) }
        return ScreenFrame(rows: Array(out.prefix(screenRows)))
    }
}
