/// A full-duplex SPI transfer: the bytes clocked out and, as many, the bytes clocked in.
/// The spidev adapter and the tests' MFRC522 simulator both implement it.
public protocol SPITransfer: AnyObject {
    func transfer(_ bytes: [UInt8]) throws -> [UInt8]
}

/// MFRC522 registers over SPI (NXP MFRC522 datasheet, 8.1.2.3): an address byte
/// `0 A5..A0 0` to write, `1 A5..A0 0` to read; reading N bytes sends N addresses and a 0.
public struct MFRC522Registers<Bus: SPITransfer> {
    public let bus: Bus

    public init(bus: Bus) { self.bus = bus }

    public func read(_ register: MFRC522Register) throws -> UInt8 {
        try bus.transfer([0x80 | register.rawValue << 1, 0])[1]
    }

    /// `count` bytes of one register (the FIFO), in one transfer.
    public func read(_ register: MFRC522Register, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        let address = 0x80 | register.rawValue << 1
        return Array(try bus.transfer([UInt8](repeating: address, count: count) + [0]).dropFirst())
    }

    public func write(_ register: MFRC522Register, _ values: UInt8...) throws {
        try write(register, values)
    }

    public func write(_ register: MFRC522Register, _ values: [UInt8]) throws {
        _ = try bus.transfer([register.rawValue << 1] + values)
    }
}

/// The registers this driver uses (datasheet section 9).
public enum MFRC522Register: UInt8, Sendable {
    case command = 0x01
    case comIrq = 0x04
    case divIrq = 0x05
    case error = 0x06
    case fifoData = 0x09
    case fifoLevel = 0x0A
    case bitFraming = 0x0D
    case coll = 0x0E
    case mode = 0x11
    case txMode = 0x12
    case rxMode = 0x13
    case txControl = 0x14
    case txASK = 0x15
    case crcResultHigh = 0x21
    case crcResultLow = 0x22
    case modWidth = 0x24
    case tMode = 0x2A
    case tPrescaler = 0x2B
    case tReloadHigh = 0x2C
    case tReloadLow = 0x2D
    case version = 0x37
}

/// The chip's commands (CommandReg).
public enum MFRC522Command: UInt8, Sendable {
    case idle = 0x00
    case calcCRC = 0x03
    case transceive = 0x0C
    case softReset = 0x0F
}

/// An MFRC522 polled for ISO 14443A cards (MIFARE, NTAG), register by register.
///
/// Each poll: the version register (0x00 or 0xFF means the chip does not answer: a loose
/// wire, a board without power), WUPA (which also wakes the card the last poll halted), the
/// anticollision loop and SELECT at each cascade level (4-, 7- and 10-byte UIDs; on a bit
/// collision the 1 branch is taken, so of two cards the same one wins every time), BCC and
/// the SAK's CRC_A checked (the chip's CRC coprocessor computes them), then HLTA. A card that
/// answers badly (a broken frame, a wrong BCC or CRC) is "no card" for that poll.
///
/// A poll runs in one go (a few SPI transfers and at most one chip timeout of 5 ms, the
/// chip's own timer bounding the wait for a card); the host gives a command at most
/// `maximumWaitReads` reads of the interrupt register before the chip counts as not
/// answering. A failing chip is reset and set up again after `ReaderRecovery`'s backoff.
public struct MFRC522Session: Sendable {
    public enum Action: Sendable, Equatable {
        case event(CardEvent)
        case log(String)
    }

    /// A chip that does not do what it is told.
    struct ChipFailure: Error {
        var reason: String
    }

    /// What a card's answer to a Transceive was.
    enum Reply: Equatable {
        /// The chip's timer ran out: no card answered.
        case none
        case data([UInt8])
        /// A bit collision at `position` (1-based, from the first bit in the FIFO); `data`
        /// holds the bits before it.
        case collision(position: Int, data: [UInt8])
        /// A parity, protocol or buffer error.
        case broken
    }

    public static let maximumWaitReads = 2000
    /// The chip timer's reload value: 200 ticks of 25 µs (TPrescaler 0xA9) = 5 ms.
    static let timerReload: UInt16 = 200

    public let pollMs: Int64
    private var configured = false
    private var nextPoll = Instant.zero
    private var presence = CardPresence()
    public private(set) var recovery = ReaderRecovery()

    public init(pollMs: Int) {
        self.pollMs = Int64(pollMs)
    }

    /// When `tick` has something to do.
    public var deadline: Instant { max(nextPoll, recovery.retryAt ?? nextPoll) }

    /// Polls when due. `bus` errors (the spidev ioctl) count as a chip that does not answer.
    public mutating func tick<Bus: SPITransfer>(now: Instant, registers: MFRC522Registers<Bus>) -> [Action] {
        guard now >= deadline else { return [] }
        nextPoll = now.adding(milliseconds: pollMs)
        var actions: [Action] = []
        do {
            if !configured {
                try Self.setUp(registers)
                configured = true
            }
            let id = try Self.poll(registers)
            if let line = recovery.answered() { actions.append(.log(line)) }
            if let event = presence.poll(sees: id) { actions.append(.event(event)) }
        } catch {
            configured = false
            let reason = (error as? ChipFailure)?.reason ?? "\(error)"
            if let line = recovery.failed(reason, now: now) { actions.append(.log(line)) }
            if let event = presence.poll(sees: nil) { actions.append(.event(event)) }
        }
        return actions
    }

    // MARK: the chip

    static func setUp<Bus>(_ chip: MFRC522Registers<Bus>) throws {
        try chip.write(.command, MFRC522Command.softReset.rawValue)
        try waitUntil("the soft reset to end") { try chip.read(.command) & 0x10 == 0 }  // PowerDown
        try checkVersion(chip)
        try chip.write(.txMode, 0x00)
        try chip.write(.rxMode, 0x00)
        try chip.write(.modWidth, 0x26)
        try chip.write(.tMode, 0x80)  // TAuto: the timer starts at the end of each transmission
        try chip.write(.tPrescaler, 0xA9)  // 13.56 MHz / (2 * 169 + 1): 25 µs ticks
        try chip.write(.tReloadHigh, UInt8(timerReload >> 8))
        try chip.write(.tReloadLow, UInt8(timerReload & 0xFF))
        try chip.write(.txASK, 0x40)  // 100 % ASK
        try chip.write(.mode, 0x3D)  // CRC preset 0x6363 (ISO 14443-3 CRC_A)
        try chip.write(.txControl, try chip.read(.txControl) | 0x03)  // antenna on
    }

    static func checkVersion<Bus>(_ chip: MFRC522Registers<Bus>) throws {
        let version = try chip.read(.version)
        if version == 0x00 || version == 0xFF {
            throw ChipFailure(reason: "its version register reads 0x\(cardID(uid: [version]))")
        }
    }

    /// One poll: the UID of the card in the field, or nil.
    static func poll<Bus>(_ chip: MFRC522Registers<Bus>) throws -> String? {
        try checkVersion(chip)
        // WUPA: 7 bits.
        switch try transceive(chip, [0x52], txLastBits: 7) {
        case .none, .broken: return nil
        case .data, .collision: break  // two cards' ATQAs may collide: anticollision sorts them out
        }
        guard let uid = try select(chip) else { return nil }
        _ = try transceive(chip, try withCRC(chip, [0x50, 0x00]))  // HLTA: a card does not answer it
        return cardID(uid: uid)
    }

    /// The anticollision loop and SELECT at each cascade level; nil when a card answers badly.
    static func select<Bus>(_ chip: MFRC522Registers<Bus>) throws -> [UInt8]? {
        var uid: [UInt8] = []
        for command: UInt8 in [0x93, 0x95, 0x97] {
            // The level's 5 bytes (4 of UID or cascade tag + UID, then BCC) as far as known.
            var level = [UInt8](repeating: 0, count: 5)
            var knownBits = 0
            while knownBits < 40 {
                let whole = knownBits / 8
                let extra = knownBits % 8
                let sent = Array(level[0..<(whole + (extra > 0 ? 1 : 0))])
                let nvb = UInt8(0x20 + whole << 4 + extra)
                let reply = try transceive(
                    chip, [command, nvb] + sent, txLastBits: UInt8(extra), rxAlign: UInt8(extra))
                let received: [UInt8]
                var collision: Int?
                switch reply {
                case .none, .broken: return nil
                case .data(let data): received = data
                case .collision(let position, let data):
                    received = data
                    collision = whole * 8 + position
                }
                for (offset, byte) in received.enumerated() where whole + offset < 5 {
                    let keep: UInt8 = offset == 0 ? (1 << UInt8(extra)) &- 1 : 0
                    level[whole + offset] = (level[whole + offset] & keep) | (byte & ~keep)
                }
                guard let bit = collision else {
                    knownBits = 40
                    break
                }
                // Bits up to the collision are known; take the 1 branch at it.
                guard bit > knownBits, bit <= 40 else { return nil }
                level[(bit - 1) / 8] |= 1 << UInt8((bit - 1) % 8)
                for index in ((bit - 1) / 8 + 1)..<5 { level[index] = 0 }
                level[(bit - 1) / 8] &= UInt8(truncatingIfNeeded: (1 << ((bit - 1) % 8 + 1)) - 1)
                knownBits = bit
            }
            guard level[0] ^ level[1] ^ level[2] ^ level[3] == level[4] else { return nil }  // BCC
            let selectReply = try transceive(chip, try withCRC(chip, [command, 0x70] + level))
            guard case .data(let sak) = selectReply, sak.count == 3,
                try withCRC(chip, [sak[0]]) == sak
            else { return nil }
            if sak[0] & 0x04 == 0 {
                uid += level[0..<4]
                return uid
            }
            guard level[0] == 0x88 else { return nil }  // the cascade tag
            uid += level[1..<4]
        }
        return nil
    }

    /// Runs Transceive: `data` out (its last byte's `txLastBits`, 0 = all 8), the answer in.
    static func transceive<Bus>(
        _ chip: MFRC522Registers<Bus>, _ data: [UInt8], txLastBits: UInt8 = 0, rxAlign: UInt8 = 0
    ) throws -> Reply {
        try chip.write(.command, MFRC522Command.idle.rawValue)
        try chip.write(.comIrq, 0x7F)
        try chip.write(.fifoLevel, 0x80)  // flush
        try chip.write(.fifoData, data)
        let framing = rxAlign << 4 | txLastBits
        try chip.write(.bitFraming, framing)
        try chip.write(.command, MFRC522Command.transceive.rawValue)
        try chip.write(.bitFraming, 0x80 | framing)  // StartSend
        var irq: UInt8 = 0
        try waitUntil("Transceive to end") {
            irq = try chip.read(.comIrq)
            return irq & 0x31 != 0  // RxIRq, IdleIRq or TimerIRq
        }
        if irq & 0x30 == 0 { return .none }
        let error = try chip.read(.error)
        if error & 0x13 != 0 { return .broken }  // BufferOvfl, ParityErr, ProtocolErr
        let count = Int(try chip.read(.fifoLevel) & 0x7F)
        let bytes = try chip.read(.fifoData, count: count)
        if error & 0x08 != 0 {  // CollErr
            let coll = try chip.read(.coll)
            guard coll & 0x20 == 0 else { return .broken }  // CollPosNotValid
            let position = Int(coll & 0x1F)
            return .collision(position: position == 0 ? 32 : position, data: bytes)
        }
        if bytes.isEmpty { return .none }
        return .data(bytes)
    }

    /// `data` followed by its CRC_A, computed by the chip's coprocessor.
    static func withCRC<Bus>(_ chip: MFRC522Registers<Bus>, _ data: [UInt8]) throws -> [UInt8] {
        try chip.write(.command, MFRC522Command.idle.rawValue)
        try chip.write(.divIrq, 0x04)  // clear CRCIRq
        try chip.write(.fifoLevel, 0x80)
        try chip.write(.fifoData, data)
        try chip.write(.command, MFRC522Command.calcCRC.rawValue)
        try waitUntil("the CRC coprocessor") { try chip.read(.divIrq) & 0x04 != 0 }
        try chip.write(.command, MFRC522Command.idle.rawValue)
        return data + [try chip.read(.crcResultLow), try chip.read(.crcResultHigh)]
    }

    private static func waitUntil(_ what: String, _ done: () throws -> Bool) throws {
        for _ in 0..<maximumWaitReads where try done() { return }
        throw ChipFailure(reason: "waited \(maximumWaitReads) register reads for \(what)")
    }
}
