import Testing

@testable import JukeboxDevices

@Test(arguments: [
    (["play\n"], [ConsoleLineBuffer.Line.text("play")]),
    (["pa", "use\r\n", "next\r"], [.text("pause"), .text("next")]),
    (["vol\u{7F}\u{7F}\u{7F}volume 5\n"], [.text("volume 5")]),
    (["\u{0}\u{1}st\u{1B}op\n"], [.text("stop")]),
    (["a\r\n\r\nb\n"], [.text("a"), .text(""), .text("b")]),
])
func linesAreCutAndCleaned(chunks: [String], expected: [ConsoleLineBuffer.Line]) {
    var buffer = ConsoleLineBuffer()
    var lines: [ConsoleLineBuffer.Line] = []
    for chunk in chunks { lines += buffer.feed(Array(chunk.utf8)) }
    #expect(lines == expected)
}

@Test func overlongLinesAreDroppedWholeAndTheNextLineWorks() {
    var buffer = ConsoleLineBuffer(maxLineBytes: 16)
    let lines = buffer.feed(Array(String(repeating: "x", count: 100).utf8) + Array("\nstatus\n".utf8))
    #expect(lines == [.tooLong(bytes: 100), .text("status")])
}

@Test func invalidUTF8IsRepaired() {
    var buffer = ConsoleLineBuffer()
    let lines = buffer.feed([0x70, 0xFF, 0xC3, 0x0A])
    #expect(lines == [.text("p\u{FFFD}\u{FFFD}")])
}
