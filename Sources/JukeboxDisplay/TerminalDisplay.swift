import JukeboxCore
import LinuxSupport

/// The demo's display: a character LCD drawn in the terminal with ANSI escapes. On a tty it
/// keeps a box at the top of the screen and confines everything else (console replies,
/// logs, typing) to a scroll region below it, so the console stays usable; each frame
/// rewrites only the rows that changed, between a cursor save and restore. On anything else
/// (a pipe, a log file) it prints `lcd| row | row` lines, at most one a second.
public final class TerminalDisplay: TextDisplay {
    public let columns: Int
    public let rows: Int
    private let output: FileDescriptor
    private let fancy: Bool
    private var shown: ScreenFrame?
    private var lastPlainLine = ""
    private var lastPlainAt = Instant(nanoseconds: .min / 2)
    private var started = false

    /// A `columns` × `rows` display on `output`; `fancy` (default: `output` is a tty) draws the box.
    public init(output: FileDescriptor, columns: Int, rows: Int, fancy: Bool? = nil) {
        self.output = output
        self.columns = columns
        self.rows = rows
        self.fancy = fancy ?? output.isTerminal
    }

    /// Text colours of the LCD: dark on yellow-green, the sung part of a word-timed line in amber.
    static let lcd = "\u{1B}[38;5;232;48;5;149m"
    static let sung = "\u{1B}[38;5;232;48;5;214m"
    static let reset = "\u{1B}[0m"

    public func show(_ frame: ScreenFrame, now: Instant) {
        if !fancy {
            let line = "lcd| " + frame.rows.map { $0.trimmedTrailingSpaces }.joined(separator: " | ")
            if line != lastPlainLine && now.milliseconds(since: lastPlainAt) >= 1000 {
                lastPlainLine = line
                lastPlainAt = now
                write(line + "\n")
            }
            return
        }
        var out = ""
        if !started {
            started = true
            out += "\u{1B}[H\u{1B}[2J" + Self.border(top: true, columns: columns, label: " Jukebox \(columns)x\(rows) ")
            for row in 0..<rows { out += "\u{1B}[\(row + 2);1H│\u{1B}[\(row + 2);\(columns + 2)H│" }
            out += "\u{1B}[\(rows + 2);1H" + Self.border(top: false, columns: columns, label: "")
            // Scroll region below the box; the cursor goes to its last line.
            out += "\u{1B}[\(rows + 3);r\u{1B}[999;1H"
        }
        out += Self.update(from: shown, to: frame)
        shown = frame
        if !out.isEmpty { write(out) }
    }

    /// The escapes that turn `old` into `new`: changed rows only, cursor saved and restored.
    public static func update(from old: ScreenFrame?, to new: ScreenFrame) -> String {
        var body = ""
        for (index, row) in new.rows.enumerated() {
            let highlight = new.highlight?.row == index ? new.highlight : nil
            let oldHighlight = old?.highlight?.row == index ? old?.highlight : nil
            if let old, index < old.rows.count, old.rows[index] == row, highlight == oldHighlight { continue }
            body += "\u{1B}[\(index + 2);2H"
            if let highlight, highlight.cells > 0 {
                body += sung + TextCells.window(row, offset: 0, columns: highlight.cells)
                body +=
                    lcd
                    + TextCells.window(
                        row, offset: highlight.cells, columns: TextCells.width(of: row) - highlight.cells)
            } else {
                body += lcd + row
            }
            body += reset
        }
        return body.isEmpty ? "" : "\u{1B}7" + body + "\u{1B}8"
    }

    static func border(top: Bool, columns: Int, label: String) -> String {
        let labelCells = min(columns, label.count)
        let fill = String(repeating: "─", count: columns - labelCells)
        return top ? "┌" + label.prefix(labelCells) + fill + "┐" : "└" + fill + "┘"
    }

    public func close() {
        if fancy && started { write("\u{1B}7\u{1B}[r\u{1B}8\n") }
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { try? output.writeIfReady($0) }
            guard let n = written ?? nil, n > 0 else { return }  // a terminal that went away must not stop the player
            offset += n
        }
        bytes.removeAll()
    }
}
