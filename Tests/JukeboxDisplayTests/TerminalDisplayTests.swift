import Glibc
import JukeboxCore
import LinuxSupport
import Testing

@testable import JukeboxDisplay

@Suite struct TerminalDisplayTests {
    @Test func onlyChangedRowsAreRewrittenBetweenCursorSaveAndRestore() {
        let first = ScreenFrame(rows: ["Song – Band     ", "First line      "])
        let all = TerminalDisplay.update(from: nil, to: first)
        #expect(
            all
                == "\u{1B}7\u{1B}[2;2H\(TerminalDisplay.lcd)Song – Band     \u{1B}[0m\u{1B}[3;2H\(TerminalDisplay.lcd)First line      \u{1B}[0m\u{1B}8"
        )
        let second = ScreenFrame(rows: ["Song – Band     ", "irst line       "])
        #expect(
            TerminalDisplay.update(from: first, to: second)
                == "\u{1B}7\u{1B}[3;2H\(TerminalDisplay.lcd)irst line       \u{1B}[0m\u{1B}8")
        #expect(TerminalDisplay.update(from: second, to: second) == "")
    }

    @Test func sungCellsAreHighlighted() {
        let frame = ScreenFrame(rows: ["x", "Hello world     "], highlight: .init(row: 1, cells: 6))
        let text = TerminalDisplay.update(from: ScreenFrame(rows: ["x", "Hello world     "]), to: frame)
        #expect(text.contains("\(TerminalDisplay.sung)Hello \(TerminalDisplay.lcd)world     "))
    }

    @Test func plainOutputWhenNotATerminal() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        do {
            let display = TerminalDisplay(output: FileDescriptor(owning: fds[1]), columns: 16, rows: 2)
            display.show(ScreenFrame(rows: ["Song            ", "Line one        "]), now: .milliseconds(0))
            display.show(ScreenFrame(rows: ["Song            ", "ine one         "]), now: .milliseconds(500))
            display.show(ScreenFrame(rows: ["Song            ", "Line two        "]), now: .milliseconds(1000))
            display.close()
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fds[0], &buffer, buffer.count)
        #expect(
            String(decoding: buffer[0..<max(0, n)], as: UTF8.self) == "lcd| Song | Line one\nlcd| Song | Line two\n")
    }
}
