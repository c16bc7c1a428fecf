import Testing

@testable import JukeboxCore

@Suite struct BasicsTests {
    @Test(arguments: [
        (PlayMode.inOrder, "in-order", PlayMode.repeatAll),
        (.repeatAll, "repeat-all", .repeatOne),
        (.repeatOne, "repeat-one", .shuffle),
        (.shuffle, "shuffle", .inOrder),
    ])
    func playModeRawValuesAndCycle(mode: PlayMode, raw: String, cycled: PlayMode) {
        #expect(mode.rawValue == raw)
        #expect(PlayMode(rawValue: raw) == mode)
        #expect(mode.cycled == cycled)
    }

    @Test func instantArithmetic() {
        let start = Instant.milliseconds(1500)
        #expect(start.nanoseconds == 1_500_000_000)
        #expect((start + 250).milliseconds(since: start) == 250)
        #expect(start.adding(milliseconds: -500) == .milliseconds(1000))
        #expect(Instant.zero < start)
    }

    @Test func splitMixIsDeterministicAndMatchesReference() {
        var generator = SplitMix64(seed: 0)
        // Reference values of SplitMix64 seeded with 0.
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        for _ in 0..<100 { #expect(a.next(below: 7) == b.next(below: 7)) }
    }

    @Test(arguments: [1, 2, 3, 10, 1000])
    func boundedValuesStayInRange(bound: Int) {
        var generator = SplitMix64(seed: UInt64(bound))
        for _ in 0..<500 {
            let value = generator.next(below: bound)
            #expect((0..<bound).contains(value))
        }
    }

    @Test func shuffleIsAPermutation() {
        var generator = SplitMix64(seed: 7)
        var values = Array(0..<50)
        generator.shuffle(&values)
        #expect(values.sorted() == Array(0..<50))
        #expect(values != Array(0..<50))
    }

    @Test(arguments: [(0, Float(0)), (100, Float(1)), (-5, Float(0)), (250, Float(1)), (50, Float(0.125))])
    func volumeCurveFixedPoints(percent: Int, gain: Float) {
        #expect(VolumeCurve.gain(percent: percent) == gain)
    }

    @Test func volumeCurveIsStrictlyMonotonic() {
        for percent in 1...100 {
            #expect(VolumeCurve.gain(percent: percent) > VolumeCurve.gain(percent: percent - 1))
        }
        #expect(VolumeCurve.gain(percent: 100).bitPattern == Float(1.0).bitPattern)
    }

    @Test(arguments: [(Int64(0), "0.000"), (5, "0.005"), (83_045, "83.045"), (-3, "0.000"), (3_600_120, "3600.120")])
    func replySecondsFormatting(ms: Int64, text: String) {
        #expect(ReplyLine.seconds(ms) == text)
    }

    @Test func replyValuesStayOnOneLine() {
        #expect(ReplyLine.oneLine("a\nb\r\nc\rd") == "a b c d")
        #expect(ReplyLine.oneLine("plain") == "plain")
    }
}
