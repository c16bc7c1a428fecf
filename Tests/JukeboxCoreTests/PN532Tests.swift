import Testing

@testable import JukeboxCore

@Suite struct PN532FrameTests {
    /// Frames from the PN532 user manual (UM0701-02) and libnfc traces.
    @Test func encodesAsTheManualShows() {
        // GetFirmwareVersion.
        #expect(PN532Frame.encode([0x02]) == [0x00, 0x00, 0xFF, 0x02, 0xFE, 0xD4, 0x02, 0x2A, 0x00])
        // SAMConfiguration, normal mode.
        #expect(
            PN532Frame.encode([0x14, 0x01, 0x14, 0x01])
                == [0x00, 0x00, 0xFF, 0x05, 0xFB, 0xD4, 0x14, 0x01, 0x14, 0x01, 0x02, 0x00])
        #expect(PN532Frame.ack.bytes == [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00])
    }

    @Test func decodesAcrossChunksAndSkipsGarbageAndBadChecksums() {
        var decoder = PN532FrameDecoder()
        let answer = PN532Frame.encode(tfi: 0xD5, [0x03, 0x32, 0x01, 0x06, 0x07])
        var broken = PN532Frame.encode(tfi: 0xD5, [0x15])
        broken[broken.count - 2] &+= 1  // DCS
        var badLength = PN532Frame.encode(tfi: 0xD5, [0x15])
        badLength[4] &+= 1  // LCS
        let stream: [UInt8] =
            [0x55, 0xFF, 0x13] + PN532Frame.ackBytes + [0x00, 0x42] + answer + broken + badLength
            + PN532Frame.nackBytes + PN532Frame.error.bytes
        var items: [PN532FrameDecoder.Item] = []
        for byte in stream { items += decoder.feed([byte]) }
        #expect(
            items == [
                .frame(.ack), .frame(.information(tfi: 0xD5, data: [0x03, 0x32, 0x01, 0x06, 0x07])), .badChecksum,
                .frame(.nack), .frame(.error),
            ])
        var whole = PN532FrameDecoder()
        #expect(whole.feed(stream) == items)
    }
}

/// The session against a scripted PN532: what it writes, and what it makes of the answers.
@Suite struct PN532SessionTests {
    static let sam = PN532Frame.encode([0x14, 0x01, 0x14, 0x01])
    static let retries = PN532Frame.encode([0x32, 0x05, 0xFF, 0x01, 0x01])
    static let list = PN532Frame.encode([0x4A, 0x01, 0x00])

    static func answer(_ data: [UInt8]) -> [UInt8] { PN532Frame.ackBytes + PN532Frame.encode(tfi: 0xD5, data) }
    static func target(_ uid: [UInt8]) -> [UInt8] {
        answer([0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, UInt8(uid.count)] + uid)
    }

    /// Brings a session up: wake-up, SAMConfiguration, RFConfiguration.
    static func start(_ session: inout PN532Session) -> [PN532Session.Action] {
        var actions = session.tick(now: .zero)
        actions += session.received(answer([0x15]), now: .milliseconds(2))
        actions += session.received(answer([0x33]), now: .milliseconds(3))
        return actions
    }

    @Test func wakesConfiguresThenPolls() {
        var session = PN532Session(transport: .uart, pollMs: 100, timeoutMs: 50)
        #expect(Self.start(&session) == [.write(PN532Session.uartWakeUp + Self.sam), .write(Self.retries)])
        #expect(session.tick(now: .milliseconds(3)) == [.write(Self.list)])
        #expect(session.awaiting == .ack)
        #expect(
            session.received(Self.target([0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]), now: .milliseconds(20))
                == [.event(.read("04112233445566"))])
        // The next poll is 100 ms after the last one started, not after its answer.
        #expect(session.deadline == .milliseconds(103))
        #expect(session.tick(now: .milliseconds(102)) == [])
        #expect(session.tick(now: .milliseconds(103)) == [.write(Self.list)])
        #expect(session.received(Self.answer([0x4B, 0x00]), now: .milliseconds(110)) == [.event(.removed)])
    }

    @Test func overI2CThereIsNoWakeUp() {
        var session = PN532Session(transport: .i2c, pollMs: 100, timeoutMs: 50)
        #expect(session.tick(now: .zero) == [.write(Self.sam)])
    }

    @Test func aBadChecksumIsAskedForAgainOnce() {
        var session = PN532Session(transport: .uart, pollMs: 100, timeoutMs: 50)
        _ = Self.start(&session)
        _ = session.tick(now: .milliseconds(10))
        var broken = Self.target([0x01, 0x02, 0x03, 0x04])
        broken[broken.count - 2] ^= 0x01
        #expect(session.received(broken, now: .milliseconds(12)) == [.write(PN532Frame.nackBytes)])
        // The PN532 sends its answer again (no ACK before a repeat).
        #expect(
            session.received(Array(Self.target([0x01, 0x02, 0x03, 0x04]).dropFirst(6)), now: .milliseconds(14))
                == [.event(.read("01020304"))])
    }

    @Test func aReaderThatStopsAnsweringIsRestartedWithBackoffAndOneLogLine() {
        var session = PN532Session(transport: .uart, pollMs: 100, timeoutMs: 50)
        _ = Self.start(&session)
        _ = session.tick(now: .milliseconds(10))
        _ = session.received(Self.target([0x01, 0x02, 0x03, 0x04]), now: .milliseconds(12))
        var now = Instant.milliseconds(110)
        var logs: [String] = []
        var events: [CardEvent] = []
        var restarts = 0
        // Ten seconds of silence.
        while now < .milliseconds(10_000) {
            for action in session.tick(now: now) {
                switch action {
                case .log(let line): logs.append(line)
                case .event(let event): events.append(event)
                case .write(let bytes): if bytes.starts(with: PN532Session.uartWakeUp) { restarts += 1 }
                }
            }
            now = now.adding(milliseconds: 5)
        }
        #expect(logs == ["not answering (no ACK within 50 ms); trying again, every 8 s at most"])
        #expect(events == [.removed])
        // 0.25, 0.5, 1, 2, 4 s apart (and the timeouts), not every poll.
        #expect(restarts == 5)
        // It comes back: the pending restart is answered.
        now = session.deadline
        var back = session.tick(now: now)
        if case .write(let bytes)? = back.first, !bytes.starts(with: PN532Session.uartWakeUp) {
            Issue.record("expected a restart, got \(back)")
        }
        back = session.received(Self.answer([0x15]), now: now)
        back += session.received(Self.answer([0x33]), now: now)
        #expect(back == [.write(Self.retries), .log("answering again after 6 failed attempts")])
        #expect(session.tick(now: now) == [.write(Self.list)])
        #expect(session.received(Self.target([0x01, 0x02, 0x03, 0x04]), now: now) == [.event(.read("01020304"))])
    }

    @Test func theErrorFrameIsAFailure() {
        var session = PN532Session(transport: .uart, pollMs: 100, timeoutMs: 50)
        _ = Self.start(&session)
        _ = session.tick(now: .milliseconds(10))
        #expect(
            session.received(PN532Frame.error.bytes, now: .milliseconds(11)) == [
                .log("not answering (it reported a syntax error in our frame); trying again, every 8 s at most")
            ])
        #expect(session.deadline == .milliseconds(261))
    }
}
