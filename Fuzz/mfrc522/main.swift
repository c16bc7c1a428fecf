import JukeboxCore

// What an MFRC522 card reader answers over SPI, driven through the session: every byte
// clocked in comes from the input; once it is used up the bus fails (as the spidev ioctl
// can), and the session polls until then.
final class InputBus: SPITransfer {
    struct UsedUp: Error {}
    let bytes: [UInt8]
    var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var exhausted: Bool { index >= bytes.count }

    func transfer(_ sent: [UInt8]) throws -> [UInt8] {
        guard index + sent.count <= bytes.count else {
            index = bytes.count
            throw UsedUp()
        }
        defer { index += sent.count }
        return Array(bytes[index..<index + sent.count])
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bus = InputBus(fuzzBytes(data, size))
    let registers = MFRC522Registers(bus: bus)
    var session = MFRC522Session(pollMs: 100)
    var now = Instant.zero
    for _ in 0..<64 where !bus.exhausted {
        _ = session.tick(now: now, registers: registers)
        now = max(now.adding(milliseconds: 100), session.deadline)
    }
    return 0
}
