/// A PN532 polled for ISO 14443A cards (MIFARE, NTAG), as a state machine: bytes from the
/// reader and the time go in, bytes to write and card events come out. The same machine
/// serves UART (HSU) and I2C; only the wake-up differs.
///
/// Start (and every restart after a failure): on HSU the wake-up (0x55 0x55 and zeros: the
/// PN532 sleeps after power-on until it sees them), then SAMConfiguration (normal mode) and
/// RFConfiguration MaxRetries (one passive activation, so that InListPassiveTarget answers
/// "no card" at once instead of waiting for one). Then InListPassiveTarget (one target, 106
/// kbps type A) every `pollMs`. Each command must be ACKed within `timeoutMs` and answered
/// within `timeoutMs` after the ACK; a response with a bad checksum is asked for again with
/// a NACK, once. Anything else (no ACK, no answer, the error frame) is a failure: the card
/// counts as gone and the machine starts again after `ReaderRecovery`'s backoff.
public struct PN532Session: Sendable {
    public enum Transport: Sendable, Equatable {
        case uart
        case i2c
    }

    public enum Action: Sendable, Equatable {
        case write([UInt8])
        case event(CardEvent)
        /// One line for the log (a reader that stops answering, or is back).
        case log(String)
    }

    /// What the machine waits for from the reader; the I2C adapter reads that many bytes.
    public enum Awaiting: Sendable, Equatable {
        case nothing
        case ack
        case response
    }

    enum Command: UInt8, Sendable {
        case samConfiguration = 0x14
        case rfConfiguration = 0x32
        case inListPassiveTarget = 0x4A

        var frame: [UInt8] {
            switch self {
            case .samConfiguration: PN532Frame.encode([rawValue, 0x01, 0x14, 0x01])
            // CfgItem 5 (MaxRetries): MxRtyATR 0xFF (the default), MxRtyPSL 1, MxRtyPassiveActivation 1.
            case .rfConfiguration: PN532Frame.encode([rawValue, 0x05, 0xFF, 0x01, 0x01])
            case .inListPassiveTarget: PN532Frame.encode([rawValue, 0x01, 0x00])
            }
        }
    }

    enum Phase: Sendable, Equatable {
        case resting(until: Instant)
        case awaitingAck(Command, since: Instant)
        case awaitingResponse(Command, since: Instant, nacked: Bool)
    }

    /// The HSU wake-up: 0x55 0x55 and enough zeros for the PN532 to be up (libnfc sends these 16 bytes).
    public static let uartWakeUp: [UInt8] = [0x55, 0x55] + [UInt8](repeating: 0, count: 14)

    public let transport: Transport
    public let pollMs: Int64
    public let timeoutMs: Int64
    private var phase = Phase.resting(until: .zero)
    private var configured = false
    private var lastPoll: Instant?
    private var decoder = PN532FrameDecoder()
    private var presence = CardPresence()
    public private(set) var recovery = ReaderRecovery()

    public init(transport: Transport, pollMs: Int, timeoutMs: Int) {
        self.transport = transport
        self.pollMs = Int64(pollMs)
        self.timeoutMs = Int64(timeoutMs)
    }

    /// The card the last poll saw.
    public var card: String? { presence.current }

    public var awaiting: Awaiting {
        switch phase {
        case .resting: .nothing
        case .awaitingAck: .ack
        case .awaitingResponse: .response
        }
    }

    /// When `tick` has something to do (a timeout or the next poll).
    public var deadline: Instant {
        switch phase {
        case .resting(let until): until
        case .awaitingAck(_, let since), .awaitingResponse(_, let since, _): since.adding(milliseconds: timeoutMs)
        }
    }

    /// Time passed: starts the next command when due, or gives up on one that timed out.
    public mutating func tick(now: Instant) -> [Action] {
        switch phase {
        case .resting(let until):
            guard now >= until else { return [] }
            if configured {
                lastPoll = now
                return send(.inListPassiveTarget, now: now)
            }
            decoder.reset()
            let wake = transport == .uart ? Self.uartWakeUp : []
            phase = .awaitingAck(.samConfiguration, since: now)
            return [.write(wake + Command.samConfiguration.frame)]
        case .awaitingAck(_, let since):
            guard now.milliseconds(since: since) >= timeoutMs else { return [] }
            return fail("no ACK within \(timeoutMs) ms", now: now)
        case .awaitingResponse(let command, let since, _):
            guard now.milliseconds(since: since) >= timeoutMs else { return [] }
            return fail("no answer to command 0x\(cardID(uid: [command.rawValue])) within \(timeoutMs) ms", now: now)
        }
    }

    /// Bytes read from the reader.
    public mutating func received(_ bytes: some Sequence<UInt8>, now: Instant) -> [Action] {
        var actions: [Action] = []
        for item in decoder.feed(bytes) {
            actions += handle(item, now: now)
        }
        return actions
    }

    private mutating func handle(_ item: PN532FrameDecoder.Item, now: Instant) -> [Action] {
        switch (phase, item) {
        case (.awaitingAck(let command, _), .frame(.ack)):
            phase = .awaitingResponse(command, since: now, nacked: false)
            return []
        case (.awaitingResponse(let command, _, false), .badChecksum):
            phase = .awaitingResponse(command, since: now, nacked: true)
            return [.write(PN532Frame.nackBytes)]
        case (.awaitingResponse(let command, _, _), .frame(.information(PN532Frame.pn532ToHost, let data)))
        where data.first == command.rawValue + 1:
            return answered(command, data: Array(data.dropFirst()), now: now)
        case (.awaitingAck, .frame(.error)), (.awaitingResponse, .frame(.error)):
            return fail("it reported a syntax error in our frame", now: now)
        case (.awaitingResponse, .badChecksum):
            return fail("bad checksums in its answer, twice", now: now)
        default:
            // A frame from before a restart, an ACK out of turn, a stray checksum error
            // between commands: nothing waits for it.
            return []
        }
    }

    private mutating func answered(_ command: Command, data: [UInt8], now: Instant) -> [Action] {
        switch command {
        case .samConfiguration:
            return send(.rfConfiguration, now: now)
        case .rfConfiguration:
            configured = true
            phase = .resting(until: now)
            return recovery.answered().map { [.log($0)] } ?? []
        case .inListPassiveTarget:
            var actions: [Action] = []
            if let line = recovery.answered() { actions.append(.log(line)) }
            if let event = presence.poll(sees: Self.targetID(data)) { actions.append(.event(event)) }
            phase = .resting(until: max(now, (lastPoll ?? now).adding(milliseconds: pollMs)))
            return actions
        }
    }

    /// The UID in an InListPassiveTarget answer for 106 kbps type A: NbTg, then Tg,
    /// SENS_RES (2), SEL_RES, NFCIDLength, NFCID1, [ATS]. Nil for no target or a short answer.
    static func targetID(_ data: [UInt8]) -> String? {
        guard data.count >= 6, data[0] >= 1 else { return nil }
        let length = Int(data[5])
        guard [4, 7, 10].contains(length), data.count >= 6 + length else { return nil }
        return cardID(uid: data[6..<(6 + length)])
    }

    private mutating func send(_ command: Command, now: Instant) -> [Action] {
        decoder.reset()  // what came before this command answers nothing now
        phase = .awaitingAck(command, since: now)
        return [.write(command.frame)]
    }

    private mutating func fail(_ reason: String, now: Instant) -> [Action] {
        configured = false
        decoder.reset()
        var actions: [Action] = []
        if let line = recovery.failed(reason, now: now) { actions.append(.log(line)) }
        if let event = presence.poll(sees: nil) { actions.append(.event(event)) }
        phase = .resting(until: recovery.retryAt ?? now)
        return actions
    }
}
