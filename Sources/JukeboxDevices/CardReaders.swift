// Card readers for the control loop: a USB reader that types the card's number (evdev,
// grabbed), PN532 boards on a serial line or I2C, MFRC522 boards on spidev. Each offers fds
// to poll and a deadline for its next poll; the protocols are the core's state machines
// (KeyboardCardLine, PN532Session, MFRC522Session), these classes only move bytes. Used on
// jb-control only. An I2C or SPI exchange blocks for its transfer (a PN532 answer is
// under 64 bytes at 100 kHz, an MFRC522 poll a few transfers at 1 MHz and at most its 5 ms
// timer), so readers are polled every `poll_ms`, not continuously.

import Glibc
import JukeboxCore
import LinuxSupport
import Logging

/// A card reader the control loop polls.
protocol CardReaderDevice: AnyObject {
    var name: String { get }
    /// The fds to poll for reading (none for readers polled on a timer).
    var fds: [Int32] { get }
    /// When `advance` has work: the next poll, a timeout, opening the device again.
    var nextDeadline: Instant? { get }
    func read(fd: Int32, now: Instant) -> [CardEvent]
    func advance(to now: Instant) -> [CardEvent]
}

/// The configured card readers, for the control loop.
public final class CardReaders {
    private let readers: [any CardReaderDevice]

    public init(configs: [CardReaderConfig], logger: Logger, now: Instant) {
        readers = configs.map { config -> any CardReaderDevice in
            switch (config.kind, config.effectiveBus) {
            case (.keyboard, _): KeyboardCardReader(config: config, logger: logger, now: now)
            case (.pn532, .i2c): PN532I2CReader(config: config, logger: logger, now: now)
            case (.pn532, _): PN532SerialReader(config: config, logger: logger, now: now)
            case (.mfrc522, _): MFRC522Reader(config: config, logger: logger, now: now)
            }
        }
    }

    public var fds: [Int32] { readers.flatMap(\.fds) }

    public func owns(_ fd: Int32) -> Bool { readers.contains { $0.fds.contains(fd) } }

    public var nextDeadline: Instant? { readers.compactMap(\.nextDeadline).min() }

    /// What the reader owning `fd` read.
    public func read(fd: Int32, now: Instant) -> [(reader: String, event: CardEvent)] {
        readers.filter { $0.fds.contains(fd) }.flatMap { reader in
            reader.read(fd: fd, now: now).map { (reader.name, $0) }
        }
    }

    /// Polls and timeouts that are due.
    public func advance(to now: Instant) -> [(reader: String, event: CardEvent)] {
        readers.flatMap { reader in reader.advance(to: now).map { (reader.name, $0) } }
    }
}

/// Opening a reader's device, and again every second after it failed or went away (a USB
/// reader unplugged, a board not powered yet), with one log line until it opens.
struct DeviceOpening {
    static let intervalMs: Int64 = 1000
    let reader: String
    let path: String
    let logger: Logger
    private(set) var nextAttempt: Instant?
    private var reported = false

    init(reader: String, path: String, logger: Logger) {
        self.reader = reader
        self.path = path
        self.logger = logger
    }

    /// Opens with `open` when due; nil when it failed or is not due.
    mutating func attempt<T>(now: Instant, _ open: () throws -> T) -> T? {
        if let nextAttempt, now < nextAttempt { return nil }
        do {
            let opened = try open()
            nextAttempt = nil
            if reported { logger.info("card reader \(reader): \(path) is back") }
            reported = false
            return opened
        } catch {
            nextAttempt = now.adding(milliseconds: Self.intervalMs)
            if !reported { logger.warning("card reader \(reader): \(error); trying again every second") }
            reported = true
            return nil
        }
    }

    /// The device failed while in use.
    mutating func lost(_ problem: String, now: Instant) {
        logger.warning("card reader \(reader): \(path): \(problem); opening it again when it comes back")
        reported = true
        nextAttempt = now.adding(milliseconds: Self.intervalMs)
    }
}

/// A USB reader that types each card's number and Enter, as a keyboard. The device is
/// grabbed (EVIOCGRAB) so the digits reach neither a console nor any other reader of it.
/// It reports reads only: such a reader does not see a card leave.
final class KeyboardCardReader: CardReaderDevice {
    let name: String
    private let logger: Logger
    private var opening: DeviceOpening
    private var device: FileDescriptor?
    private var pending: [UInt8] = []
    private var line = KeyboardCardLine()

    init(config: CardReaderConfig, logger: Logger, now: Instant) {
        name = config.name
        self.logger = logger
        opening = DeviceOpening(reader: config.name, path: config.device, logger: logger)
        open(now: now)
    }

    var fds: [Int32] { device.map { [$0.rawValue] } ?? [] }
    var nextDeadline: Instant? { device == nil ? opening.nextAttempt : nil }

    func read(fd: Int32, now: Instant) -> [CardEvent] {
        guard let device else { return [] }
        let bytes: [UInt8]
        do {
            guard let read = try device.readIfReady(upTo: 64 * InputEventRecord.size) else { return [] }
            bytes = read
        } catch {
            return lose(error.summary, now: now)
        }
        if bytes.isEmpty { return lose("end of file", now: now) }
        pending += bytes
        var events: [CardEvent] = []
        for record in InputEventRecord.decode(&pending) where record.type == InputEventRecord.key && record.value == 1 {
            switch line.press(code: record.code, at: now) {
            case .card(let id)?: events.append(.read(id))
            case .rejected(let reason)?: logger.info("card reader \(name): ignored a line: \(reason)")
            case nil: break
            }
        }
        return events
    }

    func advance(to now: Instant) -> [CardEvent] {
        if device == nil { open(now: now) }
        return []
    }

    private func open(now: Instant) {
        let path = opening.path
        guard
            let opened = opening.attempt(
                now: now,
                { () throws(Errno) in
                    try FileDescriptor(path: path, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                })
        else { return }
        do {
            try opened.grabInputDevice()
        } catch {
            logger.warning(
                "card reader \(name): cannot grab \(path) (\(error.summary)); its digits reach other readers too")
        }
        device = opened
        pending = []
        line = KeyboardCardLine()
    }

    private func lose(_ problem: String, now: Instant) -> [CardEvent] {
        device = nil
        opening.lost(problem, now: now)
        return []
    }
}

/// Performs a PN532 session's actions on a device: writes, log lines, events.
private func perform(
    _ actions: [PN532Session.Action], reader: String, logger: Logger, write: ([UInt8]) -> Void
) -> [CardEvent] {
    var events: [CardEvent] = []
    for action in actions {
        switch action {
        case .write(let bytes): write(bytes)
        case .log(let line): logger.warning("card reader \(reader): \(line)")
        case .event(let event): events.append(event)
        }
    }
    return events
}

/// A PN532 on a serial line (HSU: 115200 8N1, raw).
final class PN532SerialReader: CardReaderDevice {
    static let baud = 115_200
    let name: String
    private let logger: Logger
    private var opening: DeviceOpening
    private var device: FileDescriptor?
    private var session: PN532Session

    init(config: CardReaderConfig, logger: Logger, now: Instant) {
        name = config.name
        self.logger = logger
        opening = DeviceOpening(reader: config.name, path: config.device, logger: logger)
        session = PN532Session(transport: .uart, pollMs: config.pollMs, timeoutMs: config.timeoutMs)
        open(now: now)
    }

    var fds: [Int32] { device.map { [$0.rawValue] } ?? [] }
    var nextDeadline: Instant? { device == nil ? opening.nextAttempt : session.deadline }

    func read(fd: Int32, now: Instant) -> [CardEvent] {
        guard let device else { return [] }
        do {
            guard let bytes = try device.readIfReady(upTo: 512) else { return [] }
            if bytes.isEmpty { return lose("end of file", now: now) }
            return run(session.received(bytes, now: now))
        } catch {
            return lose(error.summary, now: now)
        }
    }

    func advance(to now: Instant) -> [CardEvent] {
        if device == nil { open(now: now) }
        guard device != nil else { return [] }
        return run(session.tick(now: now))
    }

    private func run(_ actions: [PN532Session.Action]) -> [CardEvent] {
        perform(actions, reader: name, logger: logger) { bytes in
            guard let device else { return }
            // A tty takes a few dozen bytes at once; what it refuses is a command that times out.
            _ = bytes.withUnsafeBytes { try? device.writeIfReady($0) }
        }
    }

    private func open(now: Instant) {
        let path = opening.path
        device = opening.attempt(now: now) { () throws(Errno) in
            let opened = try FileDescriptor(path: path, flags: O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            if opened.isTerminal { try opened.configureSerialLine(baud: Self.baud) }
            return opened
        }
    }

    /// The device went away (a USB serial adapter pulled out): the card with it, and the
    /// PN532 starts from its wake-up when the device is back.
    private func lose(_ problem: String, now: Instant) -> [CardEvent] {
        device = nil
        opening.lost(problem, now: now)
        let events: [CardEvent] = session.card == nil ? [] : [.removed]
        session = PN532Session(transport: .uart, pollMs: Int(session.pollMs), timeoutMs: Int(session.timeoutMs))
        return events
    }
}

/// An I2C device at one address: each read and write is one I2C transaction.
protocol I2CTransfer: AnyObject {
    func read(count: Int) throws -> [UInt8]
    func write(_ bytes: [UInt8]) throws
}

/// `/dev/i2c-N` addressed to one device (ioctl I2C_SLAVE), then plain read(2) and write(2).
final class I2CDevice: I2CTransfer {
    private let device: FileDescriptor

    init(path: String, address: Int) throws(Errno) {
        device = try FileDescriptor(path: path, flags: O_RDWR | O_CLOEXEC)
        try device.setI2CAddress(address)
    }

    func read(count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let read = try buffer.withUnsafeMutableBytes { raw throws(Errno) in
            try device.read(into: raw.baseAddress!, count: count)
        }
        return Array(buffer.prefix(read))
    }

    func write(_ bytes: [UInt8]) throws { try device.writeAll(bytes) }
}

/// A PN532 on I2C (`/dev/i2c-N`, address 0x24). It has no interrupt line here, so while a
/// command is out the status byte is read every `statusIntervalMs` (bit 0: an answer is
/// ready); a read starts with that byte, then the frame.
final class PN532I2CReader: CardReaderDevice {
    static let statusIntervalMs: Int64 = 2
    let name: String
    private let logger: Logger
    private var opening: DeviceOpening
    private let openDevice: () throws -> any I2CTransfer
    private var device: (any I2CTransfer)?
    private var session: PN532Session
    private var nextStatus = Instant.zero

    /// `open` opens the bus (the tests give a simulated one).
    init(
        config: CardReaderConfig, logger: Logger, now: Instant,
        open: (() throws -> any I2CTransfer)? = nil
    ) {
        name = config.name
        self.logger = logger
        opening = DeviceOpening(reader: config.name, path: config.device, logger: logger)
        openDevice =
            open ?? { [path = config.device, address = config.i2cAddress] in
                try I2CDevice(path: path, address: address)
            }
        session = PN532Session(transport: .i2c, pollMs: config.pollMs, timeoutMs: config.timeoutMs)
        self.open(now: now)
    }

    let fds: [Int32] = []

    var nextDeadline: Instant? {
        if device == nil { return opening.nextAttempt }
        return session.awaiting == .nothing ? session.deadline : min(session.deadline, nextStatus)
    }

    func read(fd: Int32, now: Instant) -> [CardEvent] { [] }

    func advance(to now: Instant) -> [CardEvent] {
        if device == nil { open(now: now) }
        guard let device else { return [] }
        var events: [CardEvent] = []
        if session.awaiting != .nothing, now >= nextStatus {
            nextStatus = now.adding(milliseconds: Self.statusIntervalMs)
            let count = 1 + (session.awaiting == .ack ? PN532Frame.ackBytes.count : 64)
            // A PN532 that is busy or asleep NAKs its address (EREMOTEIO): no answer yet.
            if let bytes = try? device.read(count: count), bytes.count > 1, bytes[0] & 0x01 != 0 {
                events += run(session.received(bytes.dropFirst(), now: now))
            }
        }
        return events + run(session.tick(now: now))
    }

    private func run(_ actions: [PN532Session.Action]) -> [CardEvent] {
        perform(actions, reader: name, logger: logger) { bytes in
            // A NAK (the PN532 waking up) is a command that times out and is sent again.
            try? device?.write(bytes)
        }
    }

    private func open(now: Instant) {
        device = opening.attempt(now: now, openDevice)
    }
}

/// An spidev device as the MFRC522 driver's bus: mode 0, 1 MHz (the chip takes up to 10).
final class SPIDevice: SPITransfer {
    static let speedHz: UInt32 = 1_000_000
    private let device: FileDescriptor

    init(path: String) throws(Errno) {
        device = try FileDescriptor(path: path, flags: O_RDWR | O_CLOEXEC)
        try device.configureSPI(mode: 0, speedHz: Self.speedHz)
    }

    func transfer(_ bytes: [UInt8]) throws -> [UInt8] { try device.spiTransfer(bytes, speedHz: Self.speedHz) }
}

/// An MFRC522 on spidev (`/dev/spidev0.0`).
final class MFRC522Reader: CardReaderDevice {
    let name: String
    private let logger: Logger
    private var opening: DeviceOpening
    private var registers: MFRC522Registers<SPIDevice>?
    private var session: MFRC522Session

    init(config: CardReaderConfig, logger: Logger, now: Instant) {
        name = config.name
        self.logger = logger
        opening = DeviceOpening(reader: config.name, path: config.device, logger: logger)
        session = MFRC522Session(pollMs: config.pollMs)
        open(now: now)
    }

    let fds: [Int32] = []
    var nextDeadline: Instant? { registers == nil ? opening.nextAttempt : session.deadline }

    func read(fd: Int32, now: Instant) -> [CardEvent] { [] }

    func advance(to now: Instant) -> [CardEvent] {
        if registers == nil { open(now: now) }
        guard let registers else { return [] }
        var events: [CardEvent] = []
        for action in session.tick(now: now, registers: registers) {
            switch action {
            case .log(let line): logger.warning("card reader \(name): \(line)")
            case .event(let event): events.append(event)
            }
        }
        return events
    }

    private func open(now: Instant) {
        let path = opening.path
        registers = opening.attempt(now: now) { () throws(Errno) in MFRC522Registers(bus: try SPIDevice(path: path)) }
    }
}
