/// An HD44780 character LCD behind a PCF8574 backpack (P0 = RS, P2 = E, P4-P7 = D4-D7), fed
/// the expander's bytes as they reach it: the controller latches D4-D7 when E falls, starts in
/// 8-bit mode (so the three `0x3` nibbles of the initialisation are whole instructions) and
/// takes two nibbles per byte once a function set says 4-bit. What tests read back is the
/// display RAM and the custom characters, i.e. what the glass shows.
public struct HD44780Simulator: Sendable {
    /// Display data RAM (80 cells: 0x00-0x27 is line 1, 0x40-0x67 line 2).
    public private(set) var ddram = [UInt8](repeating: 0x20, count: 0x80)
    /// Character generator RAM: eight custom characters, eight rows each.
    public private(set) var cgram = [UInt8](repeating: 0, count: 64)
    /// Instructions it does not model (shifts, reads): none from a driver that writes only.
    public private(set) var unknownInstructions: [UInt8] = []
    public private(set) var fourBit = false
    public private(set) var displayOn = false
    private var address = 0
    private var addressingCGRAM = false
    private var increment = true
    private var enableWasHigh = false
    private var highNibble: (value: UInt8, rs: Bool)?

    public init() {}

    /// Takes expander bytes in the order they were written.
    public mutating func receive(_ bytes: [UInt8]) {
        for byte in bytes { receive(byte) }
    }

    public mutating func receive(_ byte: UInt8) {
        let enableHigh = byte & 0x04 != 0
        defer { enableWasHigh = enableHigh }
        guard enableWasHigh, !enableHigh, byte & 0x02 == 0 else { return }
        let nibble = byte >> 4
        let rs = byte & 0x01 != 0
        guard fourBit else {
            // 8-bit mode on a 4-bit bus: D0-D3 are not wired (read as 0).
            execute(nibble << 4, rs: rs)
            return
        }
        if let high = highNibble {
            highNibble = nil
            execute(high.value << 4 | nibble, rs: rs)
        } else {
            highNibble = (nibble, rs)
        }
    }

    /// The ROM codes in the cells of a `columns` × `rows` display (rows 2 and 3 continue
    /// lines 1 and 2, as on a 20x4).
    public func rows(columns: Int, rows: Int) -> [[UInt8]] {
        (0..<rows).map { row in
            let base = [0x00, 0x40, columns, 0x40 + columns][min(row, 3)]
            return Array(ddram[base..<base + columns])
        }
    }

    /// Custom character `slot`'s eight rows.
    public func customCharacter(_ slot: Int) -> [UInt8] { Array(cgram[slot * 8..<slot * 8 + 8]) }

    private mutating func execute(_ value: UInt8, rs: Bool) {
        if rs {
            if addressingCGRAM {
                cgram[address & 0x3F] = value & 0x1F
                address = (address + (increment ? 1 : -1)) & 0x3F
            } else {
                ddram[address & 0x7F] = value
                address = (address + (increment ? 1 : -1)) & 0x7F
            }
            return
        }
        switch value {
        case 0x80...: (address, addressingCGRAM) = (Int(value & 0x7F), false)
        case 0x40...: (address, addressingCGRAM) = (Int(value & 0x3F), true)
        case 0x20...: fourBit = value & 0x10 == 0
        case 0x10...: unknownInstructions.append(value)
        case 0x08...: displayOn = value & 0x04 != 0
        case 0x04...: increment = value & 0x02 != 0
        case 0x02...: (address, addressingCGRAM) = (0, false)
        case 0x01:
            ddram = [UInt8](repeating: 0x20, count: 0x80)
            (address, addressingCGRAM, increment) = (0, false, true)
        default: unknownInstructions.append(value)
        }
    }
}
