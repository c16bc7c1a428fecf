import Foundation
import JukeboxCore
import JukeboxTestSupport
import Testing

/// The I2C LCD through the kernel's I2C core: i2c-stub answers at the PCF8574's address 0x27
/// and /dev/i2c-N is i2c-dev's. The stub does SMBus only (a plain write gets EOPNOTSUPP, as on
/// SMBus-only controllers), so the daemon sends each expander byte as an SMBus "send byte";
/// the kernel's `smbus_write` tracepoint records them in order, and an HD44780 model decodes
/// that stream into what the glass shows.
extension BoardDeviceTests {
    @Test func theI2CLCDOnAnSMBusOnlyAdapterShowsTheScreen() throws {
        let rig = try Self.rig.get()
        let board = rig.board
        let tracing = "/sys/kernel/tracing"
        try board.check("grep -q '^i2c_stub ' /proc/modules || vboard-load i2c-stub chip_addr=0x27")
        let bus = try board.check(
            "for d in /sys/class/i2c-dev/*; do grep -q 'SMBus stub' $d/name && basename $d; done"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(bus.hasPrefix("i2c-"), "no i2c-stub bus: \(bus)")
        try board.check(
            "mountpoint -q \(tracing) || mount -t tracefs nodev \(tracing); echo 0 > \(tracing)/tracing_on;"
                + " echo > \(tracing)/trace; echo 1 > \(tracing)/events/smbus/smbus_write/enable;"
                + " echo 1 > \(tracing)/tracing_on")
        defer { _ = try? board.run("echo 0 > \(tracing)/events/smbus/smbus_write/enable") }

        var config = BoardRig.config(name: "lcd")
        config.extra = """

            [display]
            kind = "i2c-lcd"
            device = "/dev/\(bus)"
            i2c_address = 0x27
            columns = 16
            rows = 2
            """
        let daemon = try BoardJukebox(board: board, uart: rig.uart, name: "lcd", config: config)
        var controller = HD44780Simulator()
        var traced = 0
        /// Whether the glass shows `rows`, after the expander bytes traced since the last look.
        /// Only the lines not read yet cross the serial console: the whole trace grows with
        /// every byte sent, and sending it all at each look took longer than the deadline on
        /// a loaded machine (the screen "never" showed what it had shown).
        func shows(_ rows: [String]) throws -> Bool {
            let lines = try board.check("grep smbus_write: \(tracing)/trace | tail -n +\(traced + 1)")
                .split(separator: "\n").filter { $0.contains("smbus_write:") }
            for line in lines {
                let byte = try #require(Self.sentByte(line, address: 0x27), "not a send byte to 0x27: \(line)")
                controller.receive(byte)
            }
            traced += lines.count
            return controller.rows(columns: 16, rows: 2) == rows.map { LCDCharset.encode($0, columns: 16) }
        }
        func glass() -> String {
            controller.rows(columns: 16, rows: 2).map { String(decoding: $0, as: UTF8.self) }.joined(separator: "|")
        }

        #expect(daemon.command("clear").hasSuffix("OK\r\n"))
        let empty = try waitUntil(timeout: .seconds(60), pollingEvery: .milliseconds(200)) {
            try shows(["Jukebox", "Nothing queued"])
        }
        #expect(empty, "the LCD shows \(glass()); \(daemon.log)")
        #expect(controller.fourBit && controller.displayOn && controller.unknownInstructions.isEmpty)
        #expect((0..<6).map { controller.customCharacter($0) } == LCDCharset.customCharacters)

        // Paused one second in (once the pause's overlay is gone): only the changed cells go out.
        for line in ["add \"sine1k.wav\"", "play", "pause", "seekcur 1"] {
            #expect(daemon.command(line).hasSuffix("OK\r\n"), "\(line)")
        }
        let paused = try waitUntil(timeout: .seconds(60), pollingEvery: .milliseconds(200)) {
            try shows(["sine1k", "‖ 0:01 / 0:03"])
        }
        #expect(paused, "the LCD shows \(glass()); \(daemon.log)")
        #expect(!daemon.log.contains("without a display"), "\(daemon.log)")
    }

    /// The byte of a traced SMBus "send byte" to `address`
    /// (`smbus_write: i2c-0 a=027 f=0000 c=3c BYTE l=0 []`), else nil.
    static func sentByte(_ line: Substring, address: Int) -> UInt8? {
        let fields = line.split(separator: " ")
        guard fields.contains("a=" + String(format: "%03x", address)), fields.contains("BYTE"),
            let command = fields.first(where: { $0.hasPrefix("c=") })
        else { return nil }
        return UInt8(command.dropFirst(2), radix: 16)
    }
}
