/// PN532 frames (NXP PN532 User Manual UM0701-02, section 6.2): normal information frames
/// `00 00 FF LEN LCS TFI PD... DCS 00` with LEN + LCS = 0 and TFI + PD... + DCS = 0 (mod 256),
/// the ACK `00 00 FF 00 FF 00`, the NACK `00 00 FF FF 00 00` and the error frame
/// `00 00 FF 01 FF 7F 81 00`.
public enum PN532Frame: Sendable, Equatable {
    case ack
    case nack
    /// The PN532's "syntax error" frame (it could not read the host's frame).
    case error
    /// A frame's TFI and data.
    case information(tfi: UInt8, data: [UInt8])

    /// TFI of frames from the host to the PN532, and back.
    public static let hostToPN532: UInt8 = 0xD4
    public static let pn532ToHost: UInt8 = 0xD5

    public static let ackBytes: [UInt8] = [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00]
    public static let nackBytes: [UInt8] = [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00]

    /// The bytes of a normal information frame (data up to 254 bytes with the TFI).
    public static func encode(tfi: UInt8 = hostToPN532, _ data: [UInt8]) -> [UInt8] {
        precondition(data.count < 254, "a normal PN532 frame holds at most 254 bytes")
        let length = UInt8(data.count + 1)
        var sum = tfi
        for byte in data { sum &+= byte }
        return [0x00, 0x00, 0xFF, length, 0 &- length, tfi] + data + [0 &- sum, 0x00]
    }

    public var bytes: [UInt8] {
        switch self {
        case .ack: Self.ackBytes
        case .nack: Self.nackBytes
        case .error: [0x00, 0x00, 0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00]
        case .information(let tfi, let data): Self.encode(tfi: tfi, data)
        }
    }
}

/// Finds frames in a byte stream that may hold anything between them (line noise, the
/// wake-up's 0x55s, a half frame from before a reset): it looks for the start code
/// `00 FF` followed by a LEN and LCS that add up (anything else is noise and skipped), then
/// checks the data checksum.
public struct PN532FrameDecoder: Sendable, Equatable {
    public enum Item: Sendable, Equatable {
        case frame(PN532Frame)
        /// A frame whose data checksum is wrong (the host asks for it again with a NACK).
        case badChecksum
    }

    private var buffer: [UInt8] = []

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Item] {
        buffer.append(contentsOf: bytes)
        var items: [Item] = []
        while let item = next() { items.append(item) }
        return items
    }

    /// Drops what is buffered (after a reset or a timeout).
    public mutating func reset() { buffer.removeAll() }

    private mutating func next() -> Item? {
        while true {
            // The start code 00 FF; the preamble 00 before it is optional on the wire.
            guard let start = startCode() else {
                // Keep a trailing 00 that may begin a start code.
                buffer = buffer.last == 0x00 ? [0x00] : []
                return nil
            }
            buffer.removeFirst(start)
            // buffer: 00 FF LEN LCS ...
            guard buffer.count >= 4 else { return nil }
            let length = buffer[2]
            let lcs = buffer[3]
            if length == 0x00, lcs == 0xFF {
                buffer.removeFirst(4)
                return .frame(.ack)
            }
            if length == 0xFF, lcs == 0x00 {
                buffer.removeFirst(4)
                return .frame(.nack)
            }
            guard length &+ lcs == 0, length > 0 else {
                buffer.removeFirst(2)  // no frame starts here: a 00 FF in line noise
                continue
            }
            let total = 4 + Int(length) + 1
            guard buffer.count >= total else { return nil }
            let body = Array(buffer[4..<(4 + Int(length))])
            var sum = buffer[4 + Int(length)]
            for byte in body { sum &+= byte }
            guard sum == 0 else {
                buffer.removeFirst(2)
                return .badChecksum
            }
            buffer.removeFirst(total)
            if body == [0x7F] { return .frame(.error) }
            return .frame(.information(tfi: body[0], data: Array(body.dropFirst())))
        }
    }

    private func startCode() -> Int? {
        var index = 0
        while index + 1 < buffer.count {
            if buffer[index] == 0x00, buffer[index + 1] == 0xFF { return index }
            index += 1
        }
        return nil
    }
}
