import TOML
import Testing

@testable import JukeboxCore

@Suite struct DisplayConfigTests {
    typealias Entry = ConfigDocument.Entry

    @Test func displayKeys() throws {
        let document = ConfigValidatorTests.document([
            Entry(table: "display", key: "kind", value: .string("serial-lcd"), line: 3),
            Entry(table: "display", key: "columns", value: .integer(20), line: 4),
            Entry(table: "display", key: "rows", value: .integer(4), line: 5),
            Entry(table: "display", key: "baud", value: .integer(19200), line: 6),
            Entry(table: "display", key: "serial_protocol", value: .string("matrix-orbital"), line: 7),
            Entry(table: "display", key: "i2c_address", value: .integer(0x3F), line: 8),
            Entry(table: "display", key: "font", value: .string(""), line: 9),
        ])
        let (config, diagnostics) = ConfigValidatorTests.validate(document)
        #expect(diagnostics == [])
        let display = try #require(config?.display)
        #expect(display.kind == .serialLCD)
        #expect(display.columns == 20 && display.rows == 4 && display.baud == 19200)
        #expect(display.serialProtocol == .matrixOrbital)
        #expect(display.i2cAddress == 0x3F)
    }

    @Test func displayDefaults() throws {
        let display = try #require(ConfigValidatorTests.validate(ConfigValidatorTests.document([])).0?.display)
        #expect(display.kind == .none && display.columns == 16 && display.rows == 2)
        #expect(display.i2cAddress == 0x27 && display.serialProtocol == .serlcd && display.baud == 9600)
    }

    @Test func badDisplayValues() {
        let document = ConfigValidatorTests.document([
            Entry(table: "display", key: "i2c_address", value: .integer(0x80), line: 3),
            Entry(table: "display", key: "serial_protocol", value: .string("hitachi"), line: 4),
        ])
        let (config, diagnostics) = ConfigValidatorTests.validate(document)
        #expect(config == nil)
        #expect(diagnostics.map(\.key) == ["display.i2c_address", "display.serial_protocol"])
    }
}
