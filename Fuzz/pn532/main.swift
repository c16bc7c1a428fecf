import JukeboxCore

// What a PN532 card reader sends back (UART or I2C), driven through the session: the input
// is a list of steps, each a kind byte and a length byte, then that many bytes: raw bytes
// received, the same wrapped in a well-formed frame (so the fuzzer gets past the checksums),
// or time passing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    var session = PN532Session(transport: first & 1 == 0 ? .uart : .i2c, pollMs: 100, timeoutMs: 500)
    var decoder = PN532FrameDecoder()
    var now = Instant.zero
    _ = session.tick(now: now)
    var index = 1
    while index + 2 <= bytes.count {
        let kind = bytes[index] % 3
        let count = min(Int(bytes[index + 1]), bytes.count - index - 2)
        let payload = Array(bytes[index + 2..<index + 2 + count])
        index += 2 + count
        switch kind {
        case 0:
            _ = decoder.feed(payload)
            _ = session.received(payload, now: now)
        case 1:
            // A normal frame holds at most 253 bytes after the TFI.
            let frame = PN532Frame.encode(tfi: PN532Frame.pn532ToHost, Array(payload.prefix(253)))
            _ = decoder.feed(frame)
            _ = session.received(frame, now: now)
        default:
            now = now.adding(milliseconds: Int64(count) * 10)
            _ = session.tick(now: now)
        }
    }
    return 0
}
