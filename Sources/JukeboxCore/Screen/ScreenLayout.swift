/// What the display shows about the player; the daemon fills it from the player machine and
/// the audio clock.
public struct NowPlaying: Sendable, Equatable {
    /// Transport state as drawn.
    public enum State: Sendable, Equatable { case playing, paused, stopped }

    public var title: String
    public var artist: String
    public var state: State
    /// Position from the audio clock, ms.
    public var positionMs: Int64
    public var durationMs: Int64?
    /// The track is in the `Favourites` playlist: row 1 ends in `ScreenLayout.favouriteGlyph`.
    public var favourite: Bool
    /// What is left of the sleep timer (nil: none); the status row shows it instead of the duration.
    public var sleepLeftMs: Int64?
    /// The chapter playing (of a file with chapters): row 1 leads with its title, and the
    /// times and the progress bar are the chapter's.
    public var chapter: ChapterMoment?
    /// While the knob scrubs: the time the player will jump to, shown in place of the lyrics.
    public var scrubTargetMs: Int64?

    /// What is playing.
    public init(
        title: String, artist: String = "", state: State = .playing, positionMs: Int64 = 0, durationMs: Int64? = nil,
        favourite: Bool = false, sleepLeftMs: Int64? = nil, chapter: ChapterMoment? = nil, scrubTargetMs: Int64? = nil
    ) {
        self.chapter = chapter
        self.scrubTargetMs = scrubTargetMs
        self.sleepLeftMs = sleepLeftMs
        self.title = title
        self.artist = artist
        self.state = state
        self.positionMs = positionMs
        self.durationMs = durationMs
        self.favourite = favourite
    }

    /// Row 1's text: `title – artist`; in a file with chapters `chapter – title`.
    public var heading: String {
        if let chapter { return "\(chapter.title) – \(title)" }
        return artist.isEmpty ? title : "\(title) – \(artist)"
    }

    /// The first line of a display with room for two: the chapter's title, else the title.
    public var topLine: String { chapter?.title ?? title }

    /// The second line: `title – artist` under a chapter's title, else the artist.
    public var secondLine: String {
        guard chapter != nil else { return artist }
        return artist.isEmpty ? title : "\(title) – \(artist)"
    }

    /// The time shown: in the chapter, else in the track.
    public var shownPositionMs: Int64 { chapter?.elapsedMs ?? positionMs }

    /// The length shown: the chapter's, else the track's.
    public var shownDurationMs: Int64? { chapter.map(\.lengthMs) ?? durationMs }

    /// `Ch 3/12` for a file with chapters.
    public var chapterNumber: String? { chapter.map { "Ch \($0.index + 1)/\($0.count)" } }
}

/// Something that shows a brief overlay.
public enum ScreenEvent: Sendable, Equatable {
    case volume(Int)
    case mode(PlayOptions)
    case paused
    case resumed
    case message(String)
}

/// One rendered screen: exactly `rows` strings of exactly `columns` cells each.
public struct ScreenFrame: Sendable, Equatable {
    public var rows: [String]
    /// The sung part of a word-timed lyric line: its row and the number of visible cells sung.
    public var highlight: Highlight?

    /// The sung part of a row.
    public struct Highlight: Sendable, Equatable {
        public var row: Int
        public var cells: Int

        /// `cells` sung cells on `row`.
        public init(row: Int, cells: Int) {
            self.row = row
            self.cells = cells
        }
    }

    /// A frame.
    public init(rows: [String], highlight: Highlight? = nil) {
        self.rows = rows
        self.highlight = highlight
    }
}

/// The layout of a W×H character screen (also used by pixel displays with a fixed-width
/// font): row 1 title – artist (a looping marquee when too long), row 2 the current lyric
/// line (a `LyricMarquee`), brief overlays on row 2; 3+ rows add the next line, 4+ rows a
/// progress bar with times. A value type: events and time come in, rows go out.
public struct ScreenLayout: Sendable, Equatable {
    public let columns: Int
    public let rows: Int
    /// How long an overlay stays.
    public var overlayMs: Int64 = 1500
    /// The overlay text and when it goes.
    public private(set) var overlay: (text: String, until: Instant)?

    /// Play and pause glyphs (character LCD drivers map them to custom characters).
    public static let playGlyph: Character = "▶"
    public static let pauseGlyph: Character = "‖"
    public static let stopGlyph: Character = "■"
    /// Shown in instrumental gaps.
    public static let noteGlyph: Character = "♪"
    /// The last cell of row 1 while the playing track is a favourite.
    public static let favouriteGlyph: Character = "♥"

    /// A layout for `columns` × `rows` cells (at least 1×1).
    public init(columns: Int, rows: Int) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
    }

    public static func == (a: ScreenLayout, b: ScreenLayout) -> Bool {
        a.columns == b.columns && a.rows == b.rows && a.overlay?.text == b.overlay?.text
            && a.overlay?.until == b.overlay?.until
    }

    /// Notes a change that gets a brief overlay.
    public mutating func handle(_ event: ScreenEvent, now: Instant) {
        let text: String
        switch event {
        case .volume(let percent):
            let label = "Vol \(percent)"
            let barCells = max(0, columns - TextCells.width(of: label) - 1)
            let filled = barCells * max(0, min(100, percent)) / 100
            text =
                label + " " + String(repeating: "█", count: filled) + String(repeating: "·", count: barCells - filled)
        case .mode(let options): text = "Mode: \(options)"
        case .paused: text = "\(Self.pauseGlyph) Paused"
        case .resumed: text = "\(Self.playGlyph) Playing"
        case .message(let message): text = message
        }
        overlay = (text, now + overlayMs)
    }

    /// When the overlay goes, if one is showing at `now`.
    public func overlayEnds(after now: Instant) -> Instant? {
        guard let overlay, overlay.until > now else { return nil }
        return overlay.until
    }

    /// The screen at `now` for `playing` (nil = nothing queued) and its lyrics.
    public func frame(_ playing: NowPlaying?, lyrics: LyricTimeline?, now: Instant) -> ScreenFrame {
        var out: [String] = []
        var highlight: ScreenFrame.Highlight?
        guard let playing else {
            out.append(TextCells.fit("Jukebox", columns: columns))
            if rows > 1 { out.append(TextCells.fit(overlayText(now) ?? "Nothing queued", columns: columns)) }
            while out.count < rows { out.append(blank) }
            return ScreenFrame(rows: out)
        }
        let position = playing.positionMs
        out.append(headingRow(playing.heading, positionMs: position, favourite: playing.favourite))
        if rows == 1 { return ScreenFrame(rows: out) }

        let moment = lyrics?.moment(at: position)
        if let text = overlayText(now) {
            out.append(TextCells.fit(text, columns: columns))
        } else if let target = playing.scrubTargetMs {
            // The target matters more than the length: without room for both, the target alone.
            var text = Self.scrubText(target, durationMs: playing.durationMs)
            if TextCells.width(of: text) > columns { text = Self.scrubText(target, durationMs: nil) }
            out.append(TextCells.fit(text, columns: columns))
        } else if let lyrics, let moment, !lyrics.lines.isEmpty {
            let (row, sung) = lyricRow(moment, positionMs: position)
            out.append(row)
            if let sung { highlight = ScreenFrame.Highlight(row: 1, cells: sung) }
        } else {
            out.append(TextCells.fit(statusText(playing), columns: columns))
        }
        if rows >= 3 {
            var next = moment?.next.map { $0.text.isEmpty ? String(Self.noteGlyph) : $0.text } ?? ""
            if next.isEmpty, let number = playing.chapterNumber {
                // The chapter's number and where in the book: `Ch 3/12  1:02:03 / 10:00:00`,
                // without the book's length when there is no room for it.
                next = "\(number)  \(Self.clock(position))"
                if let duration = playing.durationMs,
                    TextCells.width(of: next) + 3 + Self.clock(duration).count <= columns
                {
                    next += " / \(Self.clock(duration))"
                }
            }
            out.append(TextCells.fit(next, columns: columns))
        }
        if rows >= 4 {
            while out.count < rows - 1 { out.append(blank) }
            out.append(progressRow(playing))
        }
        return ScreenFrame(rows: out, highlight: highlight)
    }

    private var blank: String { String(repeating: " ", count: columns) }

    private func overlayText(_ now: Instant) -> String? {
        guard let overlay, now < overlay.until else { return nil }
        return overlay.text
    }

    private func glyph(_ state: NowPlaying.State) -> Character {
        switch state {
        case .playing: return Self.playGlyph
        case .paused: return Self.pauseGlyph
        case .stopped: return Self.stopGlyph
        }
    }

    private func statusText(_ playing: NowPlaying) -> String {
        var text = "\(glyph(playing.state)) \(Self.clock(playing.shownPositionMs))"
        if let left = playing.sleepLeftMs {
            // Rounded up: the last second shows 0:01, not 0:00.
            text += " Zz\(Self.clock((left + 999) / 1000 * 1000))"
        } else if let duration = playing.shownDurationMs {
            text += " / \(Self.clock(duration))"
        }
        return text
    }

    /// The scrub row: `» 1:23:45 / 9:59:00`, the track time the player will jump to.
    public static func scrubText(_ targetMs: Int64, durationMs: Int64?) -> String {
        "» \(clock(targetMs))" + (durationMs.map { " / \(clock($0))" } ?? "")
    }

    /// Row 1: still when it fits; else holds 2 s, then loops at 4 cells/s. A favourite keeps
    /// its last cell for the mark (and a space before it), so the mark never scrolls away.
    public func headingRow(_ heading: String, positionMs: Int64, favourite: Bool = false) -> String {
        if favourite, columns >= 3 {
            let text = ScreenLayout(columns: columns - 2, rows: 1).headingRow(heading, positionMs: positionMs)
            return text + " " + String(Self.favouriteGlyph)
        }
        let width = TextCells.width(of: heading)
        if width <= columns { return TextCells.window(heading, offset: 0, columns: columns) }
        let gap = "   "
        let loop = width + gap.count
        let moving = max(0, positionMs - 2000)
        let offset = Int((moving * 4 / 1000) % Int64(loop))
        return TextCells.window(heading + gap + heading, offset: offset, columns: columns)
    }

    /// The lyric row and the sung cells (word-timed lines).
    func lyricRow(_ moment: LyricMoment, positionMs: Int64) -> (String, Int?) {
        guard let line = moment.current else {
            return (TextCells.window("", offset: 0, columns: columns), nil)
        }
        if line.text.isEmpty {
            return (TextCells.window(String(Self.noteGlyph), offset: 0, columns: columns), nil)
        }
        let width = TextCells.width(of: line.text)
        let end =
            moment.lineEndMs ?? line.endMs.map { $0 + (moment.lineStartMs - line.timeMs) }
            ?? moment.lineStartMs + max(4000, Int64(max(0, width - columns)) * 300 + 2400)
        let marquee = LyricMarquee(textWidth: width, columns: columns, startMs: moment.lineStartMs, endMs: end)
        let offset = marquee.offset(at: positionMs)
        var sung: Int?
        if let wordIndex = moment.wordIndex {
            var cells = 0
            for word in line.words[..<wordIndex] { cells += TextCells.width(of: word.text) }
            let current = TextCells.width(of: line.words[wordIndex].text.trimmedTrailingSpaces)
            cells += Int(Double(current) * moment.wordFraction)
            // The first word's untimed lead-in (text before it) counts as sung.
            cells += max(0, width - TextCells.width(of: line.words.map(\.text).joined().trimmedTrailingSpaces))
            sung = max(0, min(columns, cells - offset))
        }
        return (TextCells.window(line.text, offset: offset, columns: columns), sung)
    }

    /// `▶ 1:23 ━━━━──── 3:45` (in a file with chapters: the chapter's).
    func progressRow(_ playing: NowPlaying) -> String {
        let position = playing.shownPositionMs
        let left = "\(glyph(playing.state)) \(Self.clock(position)) "
        let right = playing.shownDurationMs.map { " \(Self.clock($0))" } ?? ""
        let barCells = columns - TextCells.width(of: left) - TextCells.width(of: right)
        guard barCells >= 3 else { return TextCells.fit(left + right, columns: columns) }
        var filled = 0
        if let duration = playing.shownDurationMs, duration > 0 {
            filled = Int(Int64(barCells) * min(max(0, position), duration) / duration)
        }
        return TextCells.fit(
            left + String(repeating: "━", count: filled) + String(repeating: "─", count: barCells - filled) + right,
            columns: columns)
    }

    /// `m:ss`, `h:mm:ss` from an hour (an audiobook's).
    public static func clock(_ ms: Int64) -> String {
        let seconds = max(0, ms) / 1000
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if seconds >= 3600 { return "\(seconds / 3600):\(two(seconds / 60 % 60)):\(two(seconds % 60))" }
        return "\(seconds / 60):\(two(seconds % 60))"
    }
}
