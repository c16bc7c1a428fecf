import Glibc
import JukeboxCore
import LinuxSupport

/// What a character LCD is told: the operations common to every backpack.
public enum LCDOperation: Equatable, Sendable {
    case clear
    /// Define custom character `slot` (0-7) from 8 rows of 5 bits.
    case define(slot: UInt8, rows: [UInt8])
    /// Move the cursor (0-based).
    case cursor(column: Int, row: Int)
    /// ROM codes at the cursor.
    case text([UInt8])
}

/// The HD44780 model behind every backpack: start-up operations, and for a new frame the
/// operations that change only the cells that differ (runs of changed cells, joined when
/// the unchanged cells between them cost less than a cursor move).
public struct LCDScreenDiff {
    public let columns: Int
    public let rows: Int
    /// What the LCD shows now (nil: unknown, so everything is sent).
    public private(set) var shown: [[UInt8]]?

    /// A diff for `columns` × `rows`.
    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// Clear and define the custom characters.
    public mutating func start() -> [LCDOperation] {
        shown = Array(repeating: Array(repeating: 0x20, count: columns), count: rows)
        return [.clear]
            + LCDCharset.customCharacters.enumerated().map { .define(slot: UInt8($0.offset), rows: $0.element) }
    }

    /// The LCD's state is unknown (a write was dropped): the next frame is sent whole.
    public mutating func invalidate() { shown = nil }

    /// Operations that turn what is shown into `frame`.
    public mutating func update(to frame: ScreenFrame) -> [LCDOperation] {
        let codes = (0..<rows).map { LCDCharset.encode($0 < frame.rows.count ? frame.rows[$0] : "", columns: columns) }
        var operations: [LCDOperation] = []
        for row in 0..<rows {
            let new = codes[row]
            guard let old = shown?[row] else {
                operations += [.cursor(column: 0, row: row), .text(new)]
                continue
            }
            var column = 0
            while column < columns {
                if new[column] == old[column] {
                    column += 1
                    continue
                }
                var end = column + 1  // one past the last changed cell of this run
                var probe = end
                while probe < columns {
                    if new[probe] != old[probe] {
                        end = probe + 1
                        probe = end
                    } else if probe - end < 2 {
                        probe += 1
                    } else {
                        break
                    }
                }
                operations += [.cursor(column: column, row: row), .text(Array(new[column..<end]))]
                column = end
            }
        }
        shown = codes
        return operations
    }

    /// DDRAM address of a cell (rows 2 and 3 continue rows 0 and 1).
    public static func address(column: Int, row: Int, columns: Int) -> UInt8 {
        let base = [0x00, 0x40, columns, 0x40 + columns][min(row, 3)]
        return UInt8(truncatingIfNeeded: base + column)
    }
}

/// Serial character LCD backpacks: the bytes for each operation.
public enum SerialLCDEncoding {
    /// SparkFun SerLCD (v2.5, OpenLCD) and the many 0xFE-prefix backpacks.
    public static func serlcd(_ operation: LCDOperation, columns: Int) -> [UInt8] {
        switch operation {
        case .clear: return [0xFE, 0x01]
        case .define(let slot, let rows): return [0xFE, 0x40 | slot << 3] + rows
        case .cursor(let column, let row):
            return [0xFE, 0x80 | LCDScreenDiff.address(column: column, row: row, columns: columns)]
        case .text(let codes):
            // 0x7C starts a SerLCD setting and 0xFE a command: never send them as text.
            return codes.map { $0 == 0x7C ? 0x21 : $0 == 0xFE ? 0x3F : $0 }
        }
    }

    /// Matrix Orbital (LK/VK and compatibles).
    public static func matrixOrbital(_ operation: LCDOperation, columns: Int) -> [UInt8] {
        switch operation {
        case .clear: return [0xFE, 0x58]
        case .define(let slot, let rows): return [0xFE, 0x4E, slot] + rows
        case .cursor(let column, let row): return [0xFE, 0x47, UInt8(column + 1), UInt8(row + 1)]
        case .text(let codes): return codes.map { $0 == 0xFE ? 0x3F : $0 }
        }
    }
}

/// A character LCD on a serial port (`/dev/ttyUSB0`, `/dev/serial0`): raw 8N1, non-blocking.
/// A write that would block drops the frame and marks the screen unknown, so the control
/// loop never waits for a slow UART; the next frame is sent whole.
public final class SerialCharacterLCD: TextDisplay {
    public let columns: Int
    public let rows: Int
    private let fd: FileDescriptor
    private let encode: (LCDOperation, Int) -> [UInt8]
    private var diff: LCDScreenDiff
    private var started = false
    /// Bytes written so far (for tests and the benchmark).
    public private(set) var bytesWritten = 0

    /// Opens `device` at `baud` with the given command set.
    public init(
        device: String, baud: Int, columns: Int, rows: Int, protocol kind: JukeboxConfig.SerialLCDProtocol
    ) throws(Errno) {
        fd = try FileDescriptor(path: device, flags: O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        if fd.isTerminal { try fd.configureSerialLine(baud: baud) }
        self.columns = columns
        self.rows = rows
        if kind == .serlcd {
            encode = { operation, columns in SerialLCDEncoding.serlcd(operation, columns: columns) }
        } else {
            encode = { operation, columns in SerialLCDEncoding.matrixOrbital(operation, columns: columns) }
        }
        diff = LCDScreenDiff(columns: columns, rows: rows)
    }

    public func show(_ frame: ScreenFrame, now: Instant) {
        var operations: [LCDOperation] = []
        if !started {
            started = true
            operations += diff.start()
        }
        operations += diff.update(to: frame)
        let bytes = operations.flatMap { encode($0, columns) }
        if !send(bytes) { diff.invalidate() }
    }

    public func close() {}

    private func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { try? fd.writeIfReady($0) }
            guard let n = written ?? nil, n > 0 else { return false }
            offset += n
            bytesWritten += n
        }
        return true
    }
}

/// An HD44780 behind a PCF8574 I2C expander (the usual "I2C LCD backpack"): P0 = RS,
/// P1 = RW, P2 = E, P3 = backlight, P4-P7 = D4-D7, 4-bit mode. Each nibble is two expander
/// bytes (E high, E low), written to the `/dev/i2c-N` fd after `ioctl(I2C_SLAVE, address)`:
/// one plain write per operation, or on an adapter that does only SMBus (no I2C_FUNC_I2C:
/// i2c-stub, some SoC and PC controllers refuse plain writes with EOPNOTSUPP) one SMBus
/// "send byte" per expander byte, which the PCF8574 (it has no registers) takes the same way.
public final class I2CCharacterLCD: TextDisplay {
    public let columns: Int
    public let rows: Int
    private let fd: FileDescriptor
    private let smbusOnly: Bool
    private var diff: LCDScreenDiff
    private var started = false
    private let pause: (Int) -> Void

    /// Opens bus `device` (e.g. `/dev/i2c-1`) at `address` (e.g. 0x27).
    public convenience init(device: String, address: Int, columns: Int, rows: Int) throws(Errno) {
        let fd = try FileDescriptor(path: device, flags: O_RDWR | O_CLOEXEC)
        try fd.setI2CAddress(address)
        let functions = try fd.i2cFunctions()
        guard functions.plainTransfers || functions.smbusSendByte else {
            throw Errno(
                code: EOPNOTSUPP, call: "ioctl(I2C_FUNCS): neither I2C writes nor SMBus send byte", path: device)
        }
        self.init(fd: fd, columns: columns, rows: rows, smbusOnly: !functions.plainTransfers) {
            usleep(useconds_t($0))
        }
    }

    /// On an open fd (tests pass a file or pipe); `pause(µs)` waits for slow instructions.
    public convenience init(fd: FileDescriptor, columns: Int, rows: Int, pause: @escaping (Int) -> Void) {
        self.init(fd: fd, columns: columns, rows: rows, smbusOnly: false, pause: pause)
    }

    private init(fd: FileDescriptor, columns: Int, rows: Int, smbusOnly: Bool, pause: @escaping (Int) -> Void) {
        self.fd = fd
        self.columns = columns
        self.rows = rows
        self.smbusOnly = smbusOnly
        self.pause = pause
        diff = LCDScreenDiff(columns: columns, rows: rows)
    }

    static let rs: UInt8 = 0x01
    static let enable: UInt8 = 0x04
    static let backlight: UInt8 = 0x08

    /// The expander bytes for one 4-bit transfer.
    static func nibble(_ value: UInt8, rs: Bool) -> [UInt8] {
        let bits = (value & 0x0F) << 4 | backlight | (rs ? Self.rs : 0)
        return [bits | enable, bits]
    }

    /// The expander bytes for a byte (high nibble first).
    static func byte(_ value: UInt8, rs: Bool) -> [UInt8] { nibble(value >> 4, rs: rs) + nibble(value, rs: rs) }

    /// The HD44780 instructions and data for an operation.
    static func bytes(_ operation: LCDOperation, columns: Int) -> [UInt8] {
        switch operation {
        case .clear: return byte(0x01, rs: false)
        case .define(let slot, let rows): return byte(0x40 | slot << 3, rs: false) + rows.flatMap { byte($0, rs: true) }
        case .cursor(let column, let row):
            return byte(0x80 | LCDScreenDiff.address(column: column, row: row, columns: columns), rs: false)
        case .text(let codes): return codes.flatMap { byte($0, rs: true) }
        }
    }

    /// The 4-bit initialisation (HD44780 datasheet, figure 24), then display on, entry mode.
    func initialise() {
        pause(50_000)
        for wait in [4500, 150, 150] {
            send(Self.nibble(0x03, rs: false))
            pause(wait)
        }
        send(Self.nibble(0x02, rs: false))
        send(Self.byte(0x28, rs: false))  // 4-bit, 2 lines, 5x8
        send(Self.byte(0x0C, rs: false))  // display on, no cursor
        send(Self.byte(0x06, rs: false))  // entry mode: increment
    }

    public func show(_ frame: ScreenFrame, now: Instant) {
        if !started {
            started = true
            initialise()
            for operation in diff.start() {
                send(Self.bytes(operation, columns: columns))
                if operation == .clear { pause(2000) }
            }
        }
        for operation in diff.update(to: frame) { send(Self.bytes(operation, columns: columns)) }
    }

    public func close() {}

    private func send(_ bytes: [UInt8]) {
        do {
            if smbusOnly {
                for byte in bytes { try fd.smbusSendByte(byte) }
            } else {
                try fd.writeAll(bytes)
            }
        } catch {
            diff.invalidate()
        }
    }
}
