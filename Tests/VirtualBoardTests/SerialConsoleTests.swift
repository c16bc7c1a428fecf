import JukeboxTestSupport
import Testing

/// The daemon's serial console on a real 8250 UART (the board's ttyS1, wired to a host pty):
/// what `MPDDaemonTests.serialConsoleOnAPseudoTerminal` expects of a pty, through the kernel's
/// serial driver and line discipline.
extension BoardDeviceTests {
    @Test func theSerialConsoleOnAn8250() throws {
        let rig = try Self.rig.get()
        let daemon = try BoardJukebox(
            board: rig.board, uart: rig.uart, name: "uart", config: BoardRig.config(name: "uart"))
        let pty = rig.uart
        // The daemon set the UART's line: 115200 baud, raw.
        let line = try rig.board.check("stty -F /dev/ttyS1")
        #expect(line.contains("speed 115200 baud"), "\(line)")

        pty.write("status\r")
        let status = pty.waitFor("OK\r\n") ?? ""
        #expect(status.hasPrefix("status\r\n"), "echo: \(status)")
        #expect(status.contains("state: stop\r\n"))

        // Backspace editing: "setvoxx" minus two characters plus "l".
        pty.write("setvoxx\u{7F}\u{7F}l 25\r")
        #expect(pty.waitFor("OK\r\n") != nil, "\(daemon.log)")
        pty.write("getvol\r")
        #expect(pty.waitFor("volume: 25\r\nOK\r\n") != nil)

        // Noise, invalid UTF-8 and a long line get an ACK; the console keeps going.
        pty.writeBytes([0xFF, 0xFE, 0x01, 0x1B] + Array("play \u{00}\"x".utf8) + [0x0D])
        #expect(pty.waitFor("ACK [") != nil)
        pty.write(String(repeating: "y", count: 5000) + "\r")
        #expect(pty.waitFor("line too long", timeout: .seconds(20)) != nil)
        pty.write("help\r")
        #expect(pty.waitFor("play [POS]") != nil)
        pty.discard()
        pty.write("ping\r")
        #expect(pty.waitFor("OK\r\n") != nil)
    }
}
