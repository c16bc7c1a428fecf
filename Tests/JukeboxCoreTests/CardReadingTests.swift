import Testing

@testable import JukeboxCore

@Suite struct KeyboardCardLineTests {
    /// KEY_* codes of "0123456789".
    static let digitKeys: [Character: UInt16] = [
        "1": 2, "2": 3, "3": 4, "4": 5, "5": 6, "6": 7, "7": 8, "8": 9, "9": 10, "0": 11,
    ]

    static func type(_ keys: [UInt16], into line: inout KeyboardCardLine, from start: Int64 = 0, stepMs: Int64 = 2)
        -> [KeyboardCardLine.Outcome]
    {
        var outcomes: [KeyboardCardLine.Outcome] = []
        for (index, key) in keys.enumerated() {
            if let outcome = line.press(code: key, at: .milliseconds(start + Int64(index) * stepMs)) {
                outcomes.append(outcome)
            }
        }
        return outcomes
    }

    static func keys(_ digits: String) -> [UInt16] { digits.map { digitKeys[$0]! } }

    @Test func aNumberThenEnterIsACard() {
        var line = KeyboardCardLine()
        #expect(Self.type(Self.keys("0012345678") + [28], into: &line) == [.card("0012345678")])
        #expect(Self.type(Self.keys("0087654321") + [96], into: &line, from: 100) == [.card("0087654321")])
    }

    @Test func keypadDigitsHexLettersAndShiftAreRead() {
        var line = KeyboardCardLine()
        // KP1 KP2 KP0, Shift, A, B, C, D, E, F, Enter
        let keys: [UInt16] = [79, 80, 82, 42, 30, 48, 46, 32, 18, 33, 28]
        #expect(Self.type(keys, into: &line) == [.card("120ABCDEF")])
    }

    @Test func garbageSpoilsOnlyItsLine() {
        var line = KeyboardCardLine()
        // "12", KEY_Q (16), "34", Enter; then a good line.
        let outcomes = Self.type(
            Self.keys("12") + [16] + Self.keys("34") + [28] + Self.keys("5678") + [28], into: &line)
        #expect(outcomes == [.rejected("keys that are no digits (codes 16) in '1234'"), .card("5678")])
    }

    @Test func aStalePartialLineIsDropped() {
        var line = KeyboardCardLine()
        #expect(Self.type(Self.keys("99"), into: &line) == [])
        // A second later a reader types a whole number: the stray "99" is not part of it.
        #expect(Self.type(Self.keys("12345678") + [28], into: &line, from: 1000) == [.card("12345678")])
    }

    @Test func emptyShortAndOverlongLines() {
        var line = KeyboardCardLine()
        #expect(Self.type([28], into: &line) == [])
        #expect(
            Self.type(Self.keys("12") + [28], into: &line, from: 10) == [.rejected("'12' is shorter than 4 characters")]
        )
        let long = String(repeating: "7", count: 40)
        #expect(Self.type(Self.keys(long) + [28], into: &line, from: 100) == [.rejected("33 characters, at most 32")])
        #expect(Self.type(Self.keys("4321") + [28], into: &line, from: 300) == [.card("4321")])
    }
}

@Suite struct CardPresenceTests {
    @Test func edgesNotPollsAndTheFirstMissIsARemoval() {
        var presence = CardPresence()
        let polls: [String?] = [nil, "04A1", "04A1", nil, "04A1", "0B0C", "0B0C", nil, nil]
        let events = polls.map { presence.poll(sees: $0) }
        #expect(events == [nil, .read("04A1"), nil, .removed, .read("04A1"), .read("0B0C"), nil, .removed, nil])
    }

    @Test func cardIDsAreUpperCaseHex() {
        #expect(cardID(uid: [0x04, 0xA1, 0x0F, 0xFF]) == "04A10FFF")
    }
}

@Suite struct ReaderRecoveryTests {
    @Test func oneLineWhenItStopsOneWhenItIsBackAndADoublingBackoff() {
        var recovery = ReaderRecovery()
        var lines: [String] = []
        var delays: [Int64] = []
        var now = Instant.zero
        for _ in 0..<8 {
            if let line = recovery.failed("no ACK within 100 ms", now: now) { lines.append(line) }
            let retry = recovery.retryAt!
            delays.append(retry.milliseconds(since: now))
            now = retry
        }
        #expect(delays == [250, 500, 1000, 2000, 4000, 8000, 8000, 8000])
        #expect(lines == ["not answering (no ACK within 100 ms); trying again, every 8 s at most"])
        #expect(recovery.answered() == "answering again after 8 failed attempts")
        #expect(recovery.answered() == nil)
        #expect(recovery.retryAt == nil)
    }
}
