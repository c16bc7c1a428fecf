import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

@testable import JukeboxDisplay

/// A pseudo-terminal pair: the driver opens the slave like a USB serial adapter, the test
/// reads what reached the "LCD" on the master.
final class PtyPair {
    private let pty: PseudoTerminal
    var master: Int32 { pty.master }
    var slavePath: String { pty.slavePath }

    init() throws { pty = try PseudoTerminal() }

    /// Everything written so far (waits up to 200 ms for the first byte, then drains).
    func read() -> [UInt8] {
        var result: [UInt8] = []
        var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        var timeout: Int32 = 200
        while poll(&fds, 1, timeout) > 0 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = Glibc.read(master, &buffer, buffer.count)
            if n <= 0 { break }
            result += buffer[0..<n]
            timeout = 20
        }
        return result
    }
}

@Suite struct SerialLCDTests {
    private static let customDefinitions: [UInt8] = LCDCharset.customCharacters.enumerated().flatMap {
        [0xFE, 0x40 | UInt8($0.offset) << 3] + $0.element
    }

    @Test func exactByteStreamForAKnownScreenThenOnlyChangedCells() throws {
        let pty = try PtyPair()
        let lcd = try SerialCharacterLCD(device: pty.slavePath, baud: 9600, columns: 16, rows: 2, protocol: .serlcd)
        lcd.show(ScreenFrame(rows: ["Song – Band     ", "▶ Café 1:23     "]), now: .zero)
        let expected: [UInt8] =
            [0xFE, 0x01] + Self.customDefinitions
            + [0xFE, 0x80] + Array("Song - Band".utf8)  // after the clear, trailing blanks are already there
            + [0xFE, 0xC0, 0x00, 0x20] + Array("Cafe 1:23".utf8)
        #expect(pty.read() == expected)

        lcd.show(ScreenFrame(rows: ["Song – Band     ", "▶ Café 1:24     "]), now: .zero)
        #expect(pty.read() == [0xFE, 0xCA, 0x34])

        lcd.show(ScreenFrame(rows: ["Song – Band     ", "‖ Café 1:24     "]), now: .zero)
        #expect(pty.read() == [0xFE, 0xC0, 0x01])

        lcd.show(ScreenFrame(rows: ["Song – Band     ", "‖ Café 1:24     "]), now: .zero)
        #expect(pty.read() == [])
        #expect(lcd.bytesWritten == expected.count + 3 + 3)
    }

    @Test func matrixOrbitalCommandSet() throws {
        let pty = try PtyPair()
        let lcd = try SerialCharacterLCD(
            device: pty.slavePath, baud: 19200, columns: 20, rows: 4, protocol: .matrixOrbital)
        lcd.show(ScreenFrame(rows: ["a", "b", "c", "d"]), now: .zero)
        let bytes = pty.read()
        var expected: [UInt8] = [0xFE, 0x58]
        for (slot, rows) in LCDCharset.customCharacters.enumerated() { expected += [0xFE, 0x4E, UInt8(slot)] + rows }
        for row in 0..<4 {
            expected += [0xFE, 0x47, 1, UInt8(row + 1), UInt8(0x61 + row)]
        }
        #expect(bytes == expected)
        lcd.show(ScreenFrame(rows: ["a", "b", "c", "dx"]), now: .zero)
        #expect(pty.read() == [0xFE, 0x47, 2, 4, 0x78])
    }

    @Test func runsAreJoinedWhenCheaperThanACursorMove() {
        var diff = LCDScreenDiff(columns: 8, rows: 1)
        _ = diff.start()
        _ = diff.update(to: ScreenFrame(rows: ["abcdefgh"]))
        #expect(
            diff.update(to: ScreenFrame(rows: ["aXcXefgh"])) == [.cursor(column: 1, row: 0), .text(Array("XcX".utf8))])
        #expect(
            diff.update(to: ScreenFrame(rows: ["aYcXefgY"]))
                == [
                    .cursor(column: 1, row: 0), .text(Array("Y".utf8)), .cursor(column: 7, row: 0),
                    .text(Array("Y".utf8)),
                ])
    }

    @Test func ddramAddresses() {
        #expect(LCDScreenDiff.address(column: 0, row: 1, columns: 16) == 0x40)
        #expect(LCDScreenDiff.address(column: 3, row: 2, columns: 20) == 0x17)
        #expect(LCDScreenDiff.address(column: 0, row: 3, columns: 20) == 0x54)
    }

    @Test func serlcdNeverSendsItsCommandBytesAsText() {
        #expect(SerialLCDEncoding.serlcd(.text([0x41, 0x7C, 0xFE]), columns: 16) == [0x41, 0x21, 0x3F])
    }
}

@Suite struct I2CLCDTests {
    @Test func pcf8574NibbleStream() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        var pauses: [Int] = []
        let lcd = I2CCharacterLCD(fd: FileDescriptor(owning: fds[1]), columns: 16, rows: 2) { pauses.append($0) }
        lcd.show(ScreenFrame(rows: ["A", ""]), now: .zero)
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = read(fds[0], &buffer, buffer.count)
        let bytes = Array(buffer[0..<n])
        // Three 0x3 nibbles, then 0x2 (4-bit mode), each strobed E high then low, backlight on.
        #expect(Array(bytes.prefix(8)) == [0x3C, 0x38, 0x3C, 0x38, 0x3C, 0x38, 0x2C, 0x28])
        // Function set 0x28, display on 0x0C, entry mode 0x06, clear 0x01.
        #expect(
            Array(bytes[8..<24]) == [
                0x2C, 0x28, 0x8C, 0x88, 0x0C, 0x08, 0xCC, 0xC8, 0x0C, 0x08, 0x6C, 0x68, 0x0C, 0x08, 0x1C, 0x18,
            ])
        #expect(pauses == [50_000, 4500, 150, 150, 2000])
        // 'A' as data (RS = 1) right after the cursor at 0x80.
        let cursorThenA: [UInt8] = [0x8C, 0x88, 0x0C, 0x08, 0x4D, 0x49, 0x1D, 0x19]
        #expect(bytes.indices.contains { Array(bytes[$0..<min(bytes.count, $0 + 8)]) == cursorThenA })
        #expect(I2CCharacterLCD.byte(0x41, rs: true) == [0x4D, 0x49, 0x1D, 0x19])
    }

    /// The stream decoded by an HD44780 model (E edges, 4-bit pairing, DDRAM and CGRAM): the
    /// glass shows the frame, the custom characters are defined, and a changed frame is right
    /// after only its changed cells were sent.
    @Test func theDecodedStreamShowsTheFrame() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let lcd = I2CCharacterLCD(fd: FileDescriptor(owning: fds[1]), columns: 16, rows: 2) { _ in }
        var controller = HD44780Simulator()
        func shows(_ rows: [String]) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = read(fds[0], &buffer, buffer.count)
            controller.receive(Array(buffer[0..<max(0, n)]))
            return controller.rows(columns: 16, rows: 2) == rows.map { LCDCharset.encode($0, columns: 16) }
        }
        lcd.show(ScreenFrame(rows: ["Song – Band", "▶ Café 1:23 / 3:45"]), now: .zero)
        #expect(shows(["Song - Band", "▶ Cafe 1:23 / 3:45"]))
        #expect(controller.fourBit && controller.displayOn && controller.unknownInstructions.isEmpty)
        #expect((0..<6).map { controller.customCharacter($0) } == LCDCharset.customCharacters)
        lcd.show(ScreenFrame(rows: ["Song – Band", "‖ Café 1:24 / 3:45"]), now: .zero)
        #expect(shows(["Song - Band", "‖ Cafe 1:24 / 3:45"]))
    }
}
