import Glibc
import LinuxSupport

/// A PN532 on the far end of a pseudo-terminal, as the host sees one on a UART (HSU). A
/// test double, pumped by the test's loop.
public final class PN532Simulator {
    public let terminal: PseudoTerminal
    /// What the PN532 does with what the host sends.
    public let chip = PN532Responder(asleep: true)

    public init() throws(Errno) {
        terminal = try PseudoTerminal()
    }

    public var slavePath: String { terminal.slavePath }
    public var fd: Int32 { terminal.master }

    /// Reads what the host sent and answers it.
    public func pump() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            for frame in chip.receive(Array(chunk[0..<count])) { terminal.writeBytes(frame) }
        }
    }
}

/// A PN532's side of the host protocol, over any transport: asleep (on HSU) until the
/// wake-up (0x55), it ACKs each well-formed command frame and answers it, ignores frames
/// with a wrong checksum, repeats its last answer on a NACK, and answers
/// InListPassiveTarget with the card in its field. Faults a test can script: silence (a
/// reader that stops answering), garbage bytes before each frame, a bad checksum in the
/// next answer, a power cycle (asleep again).
public final class PN532Responder {
    /// The UID of the card in the field, or nil.
    public var card: [UInt8]?
    /// False: reads and drops everything, answers nothing.
    public var answering = true
    /// Bytes sent before every ACK and answer (line noise).
    public var garbage: [UInt8] = []
    /// The next answer goes out with a wrong data checksum.
    public var corruptNextAnswer = false
    /// Commands received (their command codes), in order.
    public private(set) var commands: [UInt8] = []
    /// NACKs received.
    public private(set) var nacks = 0
    /// Wake-ups seen (0x55 while asleep).
    public private(set) var wakeUps = 0

    private let sleepsAtPowerOn: Bool
    private var asleep: Bool
    private var input: [UInt8] = []
    private var lastAnswer: [UInt8] = []
    private var output: [[UInt8]] = []

    /// `asleep`: it needs the HSU wake-up after power-on (on I2C its address wakes it).
    public init(asleep: Bool) {
        sleepsAtPowerOn = asleep
        self.asleep = asleep
    }

    /// Asleep again (on HSU), as after power-on: frames are ignored until a wake-up.
    public func powerCycle() {
        asleep = sleepsAtPowerOn
        input = []
        output = []
    }

    /// Takes bytes from the host; returns what it sends back, frame by frame (an I2C read
    /// gets one at a time).
    public func receive(_ bytes: [UInt8]) -> [[UInt8]] {
        guard answering else { return [] }
        for byte in bytes {
            if asleep {
                if byte == 0x55 {
                    asleep = false
                    wakeUps += 1
                }
                continue
            }
            input.append(byte)
        }
        while let frame = nextFrame() { handle(frame) }
        defer { output = [] }
        return output
    }

    private enum Received {
        case command([UInt8])
        case nack
        case broken
    }

    /// The next frame from the host (`00 00 FF LEN LCS D4 ... DCS 00`, or a NACK).
    private func nextFrame() -> Received? {
        while true {
            guard let start = (0..<max(0, input.count - 1)).first(where: { input[$0] == 0 && input[$0 + 1] == 0xFF })
            else {
                if input.count > 1 { input = input.last == 0 ? [0] : [] }
                return nil
            }
            input.removeFirst(start)
            guard input.count >= 4 else { return nil }
            let length = Int(input[2])
            if input[2] == 0xFF, input[3] == 0x00 {
                input.removeFirst(4)
                return .nack
            }
            guard (input[2] &+ input[3]) == 0, length > 0 else {
                input.removeFirst(2)
                return .broken
            }
            guard input.count >= 4 + length + 1 else { return nil }
            let body = Array(input[4..<(4 + length)])
            let sum = body.reduce(input[4 + length], &+)
            input.removeFirst(4 + length + 1)
            guard sum == 0, body.first == 0xD4, body.count >= 2 else { return .broken }
            return .command(Array(body.dropFirst()))
        }
    }

    private func handle(_ received: Received) {
        switch received {
        case .broken:
            return  // the PN532 does not ACK a frame it could not read
        case .nack:
            nacks += 1
            send(lastAnswer)
        case .command(let data):
            commands.append(data[0])
            send(garbage + [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00])
            var answer = frame(respond(to: data))
            lastAnswer = answer
            if corruptNextAnswer {
                corruptNextAnswer = false
                answer[answer.count - 2] ^= 0x5A
            }
            send(garbage + answer)
        }
    }

    private func respond(to data: [UInt8]) -> [UInt8] {
        switch data[0] {
        case 0x02: return [0x03, 0x32, 0x01, 0x06, 0x07]  // GetFirmwareVersion: PN532 v1.6
        case 0x14, 0x32: return [data[0] + 1]
        case 0x4A:
            guard let card else { return [0x4B, 0x00] }
            let sensRes: [UInt8] = card.count == 4 ? [0x00, 0x04] : [0x00, 0x44]
            let selRes: UInt8 = card.count == 4 ? 0x08 : 0x00
            return [0x4B, 0x01, 0x01] + sensRes + [selRes, UInt8(card.count)] + card
        default: return [data[0] + 1]
        }
    }

    private func frame(_ data: [UInt8]) -> [UInt8] {
        let body = [0xD5] + data
        let length = UInt8(body.count)
        return [0x00, 0x00, 0xFF, length, 0 &- length] + body + [0 &- body.reduce(0, &+), 0x00]
    }

    private func send(_ bytes: [UInt8]) { output.append(bytes) }
}
