import Testing

@testable import JukeboxDevices

/// The serial console's line editing: what a person types, what is echoed, what is run.
@Suite struct SerialLineEditorTests {
    static func feed(_ chunks: [[UInt8]]) -> (echo: String, lines: [SerialLineEditor.Line]) {
        var editor = SerialLineEditor()
        var echo: [UInt8] = []
        var lines: [SerialLineEditor.Line] = []
        for chunk in chunks {
            let result = editor.feed(chunk)
            echo += result.echo
            lines += result.lines
        }
        return (String(decoding: echo, as: UTF8.self), lines)
    }

    @Test(
        arguments: [
            (["ping\r"], "ping\r\n", [SerialLineEditor.Line.text("ping")]),
            (["pi", "ng\r\n", "status\n"], "ping\r\nstatus\r\n", [.text("ping"), .text("status")]),
            (["setvoxx\u{7F}\u{08}l 5\r"], "setvoxx\u{8} \u{8}\u{8} \u{8}l 5\r\n", [.text("setvol 5")]),
            (["add \"é\u{7F}e\"\r"], "add \"é\u{8} \u{8}e\"\r\n", [.text("add \"e\"")]),
            (["\u{7F}\u{7F}x\r"], "x\r\n", [.text("x")]),
            (["junk\u{15}ping\r"], "junk\u{8}\u{8}\u{8}\u{8}    \u{8}\u{8}\u{8}\u{8}ping\r\n", [.text("ping")]),
            (["junk\u{3}ping\r"], "junk^C\r\nping\r\n", [.text("ping")]),
            (["\u{0}\u{1B}[Ast\u{7}op\r"], "[Astop\r\n", [.text("[Astop")]),
            (["\r\n\r"], "\r\n\r\n", [.text(""), .text("")]),
        ] as [([String], String, [SerialLineEditor.Line])])
    func editing(chunks: [String], echo: String, lines: [SerialLineEditor.Line]) {
        let result = Self.feed(chunks.map { Array($0.utf8) })
        #expect(result.echo == echo)
        #expect(result.lines == lines)
    }

    @Test func invalidUTF8IsPassedOnRepaired() {
        let result = Self.feed([[0x61, 0xFF, 0xC3, 0x0D]])
        #expect(result.lines == [.text("a\u{FFFD}\u{FFFD}")])
    }

    @Test func anOverlongLineIsRefusedWholeAndTheNextOneWorks() {
        let long = [UInt8](repeating: 0x78, count: SerialLineEditor.maximumLineBytes + 10)
        let result = Self.feed([long, [0x0D], Array("ping\r".utf8)])
        #expect(result.lines == [.tooLong(bytes: SerialLineEditor.maximumLineBytes + 10), .text("ping")])
        #expect(result.echo.utf8.count < SerialLineEditor.maximumLineBytes + 20)
    }
}
