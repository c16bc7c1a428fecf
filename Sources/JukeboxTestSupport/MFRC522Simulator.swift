import JukeboxCore

/// An MFRC522 at register level behind the SPI bytes the spidev adapter sends (address byte
/// `1 A5..A0 0` to read, `0 A5..A0 0` to write), with ISO 14443A cards in its field: REQA
/// and WUPA, bit-oriented anticollision at each cascade level (collisions where the cards'
/// bits differ, reported in ErrorReg and CollReg as the chip does), SELECT with CRC_A, HLTA,
/// the CRC coprocessor and the timer's "no answer". A test double: what it models is what the
/// datasheet and ISO 14443-3 say the chip and the cards do.
public final class MFRC522Simulator: SPITransfer {
    public final class Card {
        public let uid: [UInt8]
        /// Whether the card is in the field (a card that flickers is taken out and put back).
        public var present = true
        /// Answers with a wrong BCC (a damaged or counterfeit card).
        public var wrongBCC = false
        enum State { case idle, ready(level: Int), active, halted }
        var state = State.idle

        public init(uid: [UInt8]) {
            precondition([4, 7, 10].contains(uid.count))
            self.uid = uid
        }

        /// The five bytes of cascade level `level` (0-based): UID bytes or CT + three, then BCC.
        func levelBytes(_ level: Int) -> [UInt8] {
            let levels = uid.count == 4 ? 1 : uid.count == 7 ? 2 : 3
            var bytes: [UInt8]
            if level == levels - 1 {
                bytes = Array(uid[(uid.count - 4)...])
            } else {
                bytes = [0x88] + Array(uid[(level * 3)..<(level * 3 + 3)])
            }
            bytes.append(bytes.reduce(0, ^) ^ (wrongBCC ? 0x01 : 0))
            return bytes
        }

        var levels: Int { uid.count == 4 ? 1 : uid.count == 7 ? 2 : 3 }
    }

    public var cards: [Card] = []
    /// False: the chip does not answer (MISO floats high: every read is 0xFF).
    public var answering = true
    /// Register reads before a command's interrupt bits show (the chip takes time).
    public var latencyReads = 2
    /// Every SPI transfer, for tests that look at the bytes.
    public private(set) var transfers = 0
    /// Frames sent to the cards, in order (first byte of each), for tests.
    public private(set) var sentFrames: [[UInt8]] = []

    private var registers = [UInt8](repeating: 0, count: 64)
    private var fifo: [UInt8] = []
    private var pendingComIrq: UInt8 = 0
    private var readsUntilIrq = 0

    public init() { reset() }

    public func transfer(_ bytes: [UInt8]) throws -> [UInt8] {
        transfers += 1
        guard answering else { return [UInt8](repeating: 0xFF, count: bytes.count) }
        guard let first = bytes.first else { return [] }
        var reply = [UInt8](repeating: 0, count: bytes.count)
        if first & 0x80 != 0 {
            for index in 0..<(bytes.count - 1) {
                reply[index + 1] = read(register: Int((bytes[index] >> 1) & 0x3F))
            }
        } else {
            let register = Int((first >> 1) & 0x3F)
            for value in bytes.dropFirst() { write(register: register, value) }
        }
        return reply
    }

    // MARK: registers

    private enum R {
        static let command = 0x01
        static let comIrq = 0x04
        static let divIrq = 0x05
        static let error = 0x06
        static let fifoData = 0x09
        static let fifoLevel = 0x0A
        static let control = 0x0C
        static let bitFraming = 0x0D
        static let coll = 0x0E
        static let crcHigh = 0x21
        static let crcLow = 0x22
        static let version = 0x37
    }

    private func reset() {
        registers = [UInt8](repeating: 0, count: 64)
        registers[R.command] = 0x20
        registers[R.version] = 0x92
        fifo = []
        pendingComIrq = 0
    }

    private func read(register: Int) -> UInt8 {
        switch register {
        case R.fifoData: return fifo.isEmpty ? 0 : fifo.removeFirst()
        case R.fifoLevel: return UInt8(fifo.count)
        case R.comIrq:
            if pendingComIrq != 0 {
                if readsUntilIrq > 0 {
                    readsUntilIrq -= 1
                } else {
                    registers[R.comIrq] |= pendingComIrq
                    pendingComIrq = 0
                }
            }
            return registers[R.comIrq]
        default: return registers[register]
        }
    }

    private func write(register: Int, _ value: UInt8) {
        switch register {
        case R.command:
            registers[R.command] = value & 0x3F
            switch value & 0x0F {
            case 0x0F: reset()
            case 0x03:
                let crc = Self.crcA(fifo)
                fifo = []
                registers[R.crcLow] = crc[0]
                registers[R.crcHigh] = crc[1]
                registers[R.divIrq] |= 0x04
            default: break
            }
        case R.comIrq, R.divIrq:
            if value & 0x80 != 0 { registers[register] |= value & 0x7F } else { registers[register] &= ~value }
        case R.fifoLevel:
            if value & 0x80 != 0 { fifo = [] }
        case R.fifoData:
            if fifo.count < 64 { fifo.append(value) }
        case R.bitFraming:
            registers[R.bitFraming] = value & 0x7F
            if value & 0x80 != 0, registers[R.command] & 0x0F == 0x0C { transceive(framing: value) }
        default:
            registers[register] = value
        }
    }

    // MARK: the RF side

    private func transceive(framing: UInt8) {
        let txLastBits = Int(framing & 0x07)
        let rxAlign = Int((framing >> 4) & 0x07)
        let frame = fifo
        fifo = []
        sentFrames.append(frame)
        registers[R.error] = 0
        registers[R.coll] = 0x80
        let answers = answer(frame, lastBits: txLastBits == 0 ? 8 : txLastBits)
        guard !answers.isEmpty else {
            pendingComIrq = 0x01  // TimerIRq: nobody answered
            readsUntilIrq = latencyReads
            return
        }
        // Bits on the air: where the cards agree they are clear; the first place they differ is a collision.
        let length = answers.map(\.count).max()!
        var bits: [Bool] = []
        var collision: Int?
        for index in 0..<length {
            let values = Set(answers.compactMap { index < $0.count ? $0[index] : nil })
            if values.count > 1, collision == nil { collision = index }
            bits.append(values.contains(true))
        }
        var bytes = [UInt8](repeating: 0, count: (rxAlign + bits.count + 7) / 8)
        for (index, bit) in bits.enumerated() where bit {
            let position = rxAlign + index
            bytes[position / 8] |= 1 << UInt8(position % 8)
        }
        fifo = bytes
        registers[R.control] = UInt8((rxAlign + bits.count) % 8)
        if let collision {
            registers[R.error] |= 0x08
            let position = rxAlign + collision + 1
            registers[R.coll] = UInt8(position == 32 ? 0 : position & 0x1F)
        }
        pendingComIrq = 0x30  // RxIRq, IdleIRq
        readsUntilIrq = latencyReads
    }

    /// Each answering card's bits.
    private func answer(_ frame: [UInt8], lastBits: Int) -> [[Bool]] {
        var answers: [[Bool]] = []
        for card in cards {
            guard card.present else {
                card.state = .idle  // out of the field: powered down
                continue
            }
            if let bits = respond(card, frame, lastBits: lastBits) { answers.append(bits) }
        }
        return answers
    }

    private func respond(_ card: Card, _ frame: [UInt8], lastBits: Int) -> [Bool]? {
        let atqa: [UInt8] = card.uid.count == 4 ? [0x04, 0x00] : [0x44, 0x00]
        if frame.count == 1, lastBits == 7 {
            switch (frame[0], card.state) {
            case (0x26, .idle), (0x52, .idle), (0x52, .halted):
                card.state = .ready(level: 0)
                return Self.bits(atqa)
            default:
                return nil
            }
        }
        if frame.count == 4, frame[0] == 0x50, frame[1] == 0x00, Self.crcA(Array(frame[0..<2])) == Array(frame[2...]) {
            if case .active = card.state { card.state = .halted }
            return nil
        }
        guard case .ready(let level) = card.state, frame.count >= 2, frame[0] == [0x93, 0x95, 0x97][min(level, 2)]
        else {
            if case .ready = card.state { card.state = .idle }
            return nil
        }
        let mine = card.levelBytes(level)
        let nvb = frame[1]
        if nvb == 0x70 {
            guard frame.count == 9, Self.crcA(Array(frame[0..<7])) == Array(frame[7...]),
                Array(frame[2..<7]) == mine
            else {
                card.state = .idle
                return nil
            }
            let more = level + 1 < card.levels
            let sak: UInt8 = more ? 0x04 : 0x08
            card.state = more ? .ready(level: level + 1) : .active
            return Self.bits([sak] + Self.crcA([sak]))
        }
        let known = Int(nvb >> 4 - 2) * 8 + Int(nvb & 0x0F)
        let sentBits = Self.bits(Array(frame.dropFirst(2))).prefix(known)
        let myBits = Self.bits(mine)
        guard known <= 40, Array(myBits.prefix(known)) == Array(sentBits) else { return nil }
        return Array(myBits[known...])
    }

    static func bits(_ bytes: [UInt8]) -> [Bool] {
        bytes.flatMap { byte in (0..<8).map { byte & (1 << UInt8($0)) != 0 } }
    }

    /// CRC_A of ISO 14443-3 (preset 0x6363, reflected), low byte first.
    public static func crcA(_ data: [UInt8]) -> [UInt8] {
        var crc: UInt16 = 0x6363
        for byte in data {
            var value = byte ^ UInt8(crc & 0xFF)
            value ^= value << 4
            crc = (crc >> 8) ^ (UInt16(value) << 8) ^ (UInt16(value) << 3) ^ (UInt16(value) >> 4)
        }
        return [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }
}
