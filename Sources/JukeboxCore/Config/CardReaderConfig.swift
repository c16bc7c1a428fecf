import TOML

/// One card reader: a `[card_reader.NAME]` table.
public struct CardReaderConfig: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A USB reader that types the card's number as a keyboard (read through evdev).
        case keyboard
        /// An NXP PN532 board, over UART (HSU) or I2C.
        case pn532
        /// An NXP MFRC522 (RC522) board, over SPI.
        case mfrc522
    }

    public enum Bus: String, Sendable, Equatable, CaseIterable {
        case uart
        case i2c
        case spi
    }

    /// The table's name after `card_reader.`, for logs.
    public var name: String
    public var kind = Kind.keyboard
    /// `/dev/input/by-id/...-event-kbd`, `/dev/serial0`, `/dev/i2c-1`, `/dev/spidev0.0`.
    public var device = ""
    /// How a PN532 is wired; nil = the kind's usual bus (UART for a PN532, SPI for an MFRC522).
    public var bus: Bus?
    /// The PN532's I2C address (0x24 on every board seen).
    public var i2cAddress = 0x24
    /// How often a board reader looks for a card.
    public var pollMs = 100
    /// How long a PN532 may take to ACK a command, and then to answer it, before it counts as
    /// not answering.
    public var timeoutMs = 100

    public init(name: String) {
        self.name = name
    }

    /// The bus in use: `bus`, else the kind's usual one.
    public var effectiveBus: Bus? {
        switch kind {
        case .keyboard: return nil
        case .pn532: return bus ?? .uart
        case .mfrc522: return .spi
        }
    }
}

/// The `[card_reader.NAME]` tables' keys and checks, for `ConfigValidator`.
enum CardReaderSection {
    static let prefix = "card_reader."

    /// The key specs of `table` when it is a reader's table (`card_reader.NAME`), else nil.
    static func keys(for table: String) -> [ConfigValidator.KeySpec]? {
        guard table.hasPrefix(prefix) else { return nil }
        let name = String(table.dropFirst(prefix.count))
        guard !name.isEmpty, !name.contains(".") else { return nil }
        @Sendable func set(_ change: @escaping @Sendable (inout CardReaderConfig, ConfigValidator.CheckedValue) -> Void)
            -> @Sendable (inout JukeboxConfig, ConfigValidator.CheckedValue) -> Void
        {
            { config, value in
                if let index = config.cardReaders.firstIndex(where: { $0.name == name }) {
                    change(&config.cardReaders[index], value)
                } else {
                    var reader = CardReaderConfig(name: name)
                    change(&reader, value)
                    config.cardReaders.append(reader)
                }
            }
        }
        func choice<T: RawRepresentable & CaseIterable>(_ type: T.Type) -> ConfigValidator.Kind
        where T.RawValue == String { .choice(T.allCases.map(\.rawValue)) }
        return [
            .init(
                name: "type", kind: choice(CardReaderConfig.Kind.self),
                apply: set { $0.kind = CardReaderConfig.Kind(rawValue: $1.text ?? "") ?? .keyboard }),
            .init(name: "device", kind: .path(allowStdin: false), apply: set { $0.device = $1.text ?? "" }),
            .init(
                name: "bus", kind: choice(CardReaderConfig.Bus.self),
                apply: set { $0.bus = CardReaderConfig.Bus(rawValue: $1.text ?? "") }),
            .init(name: "i2c_address", kind: .integer(0x03...0x77), apply: set { $0.i2cAddress = $1.integer ?? 0x24 }),
            .init(name: "poll_ms", kind: .integer(10...5000), apply: set { $0.pollMs = $1.integer ?? 100 }),
            .init(name: "timeout_ms", kind: .integer(5...5000), apply: set { $0.timeoutMs = $1.integer ?? 100 }),
        ]
    }

    /// The checks across a reader's keys: what each kind needs and allows.
    static func diagnostics(_ config: JukeboxConfig, document: ConfigDocument) -> [ConfigDiagnostic] {
        var diagnostics: [ConfigDiagnostic] = []
        var devices: [String: String] = [:]
        for reader in config.cardReaders {
            let table = prefix + reader.name
            let entries = document.entries.filter { $0.table == table }
            func line(_ key: String) -> Int? {
                entries.first { $0.key == key }?.line ?? document.tables.first { $0.name == table }?.line ?? nil
            }
            func report(_ key: String, _ problem: String) {
                diagnostics.append(
                    .init(fileName: document.fileName, line: line(key), key: "\(table).\(key)", problem: problem))
            }
            let given = Set(entries.map(\.key))
            if !given.contains("type") {
                report(
                    "type", "required: one of \(ConfigValidator.list(CardReaderConfig.Kind.allCases.map(\.rawValue)))")
            }
            if !given.contains("device") {
                let example =
                    switch reader.kind {
                    case .keyboard: "/dev/input/by-id/usb-...-event-kbd"
                    case .pn532: reader.bus == .i2c ? "/dev/i2c-1" : "/dev/serial0"
                    case .mfrc522: "/dev/spidev0.0"
                    }
                report("device", "required: the reader's device, like \(example)")
            } else if let other = devices[reader.device] {
                report("device", "\(reader.device) is already used by [\(prefix)\(other)]")
            } else {
                devices[reader.device] = reader.name
            }
            if let bus = reader.bus {
                let allowed: [CardReaderConfig.Bus] =
                    switch reader.kind {
                    case .keyboard: []
                    case .pn532: [.uart, .i2c]
                    case .mfrc522: [.spi]
                    }
                if !allowed.contains(bus) {
                    let problem =
                        allowed.isEmpty
                        ? "a keyboard reader has no bus (it is a USB input device); remove it"
                        : "a \(reader.kind.rawValue) is read over \(ConfigValidator.list(allowed.map(\.rawValue))), found '\(bus.rawValue)'"
                    report("bus", problem)
                }
            }
            if given.contains("i2c_address"), reader.effectiveBus != .i2c {
                report("i2c_address", "only for a reader on bus = \"i2c\"")
            }
            if reader.kind == .keyboard {
                for key in ["poll_ms", "timeout_ms"] where given.contains(key) {
                    report(key, "only for board readers (pn532, mfrc522): a keyboard reader sends its cards itself")
                }
            }
            if reader.kind == .mfrc522, given.contains("timeout_ms") {
                report("timeout_ms", "only for a pn532: an mfrc522's own timer bounds each command (5 ms)")
            }
        }
        return diagnostics
    }
}
