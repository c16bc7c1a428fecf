import JukeboxCore
import Testing

@Suite struct TPDFDitherTests {
    static func narrow(_ source: [Int32], bits: Int, seed: UInt64 = 1) -> [Int16] {
        var dither = TPDFDither(seed: seed)
        var out = [Int16](repeating: 0, count: source.count)
        source.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer {
                dither.narrow(s.baseAddress!, bits: bits, into: $0.baseAddress!, count: s.count)
            }
        }
        return out
    }

    /// Every output lies within one LSB plus rounding of the wide value, the error has no mean,
    /// and its spread is TPDF's (variance 1/6 LSB² from the noise plus 1/12 from rounding).
    @Test(arguments: [24, 32])
    func errorIsBoundedUnbiasedAndTriangular(bits: Int) {
        let lsb = Double(1 << (bits - 16))
        var values = SplitMix64(seed: 7)
        let source = (0..<200_000).map { _ in
            Int32(truncatingIfNeeded: Int64(values.next() % UInt64(1 << (bits - 1)))) - Int32(1 << (bits - 2))
        }
        let out = Self.narrow(source, bits: bits)
        let errors = zip(out, source).map { Double($0) - Double($1) / lsb }
        #expect(errors.allSatisfy { abs($0) < 1.5 })
        let mean = errors.reduce(0, +) / Double(errors.count)
        let variance = errors.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(errors.count)
        #expect(abs(mean) < 0.01)
        #expect(abs(variance - 0.25) < 0.01)
    }

    /// A constant a quarter LSB above zero comes out as 0 and ±1 averaging a quarter (truncation
    /// gives 0, rounding 0); clipped at full scale; the same seed gives the same output.
    @Test func subLSBLevelSurvivesOnAverageAndFullScaleClips() {
        let quarter = Self.narrow([Int32](repeating: 64, count: 100_000), bits: 24)
        #expect(Set(quarter).isSubset(of: [-1, 0, 1]))
        #expect(abs(Double(quarter.reduce(0) { $0 + Int($1) }) / 100_000 - 0.25) < 0.01)
        let full = Self.narrow(
            [Int32](repeating: (1 << 23) - 1, count: 1000) + [Int32](repeating: -(1 << 23), count: 1000), bits: 24)
        #expect(
            full.prefix(1000).allSatisfy { $0 >= 32766 }
                && full.suffix(1000).allSatisfy { $0 >= -32768 && $0 <= -32767 })
        #expect(Self.narrow(Array(0..<1000), bits: 24, seed: 5) == Self.narrow(Array(0..<1000), bits: 24, seed: 5))
    }

    /// A sample at a time (jb-output narrowing for the Snapcast fifo) is the block narrowing of
    /// 32 bits, noise for noise, full scale included.
    @Test func oneSampleAtATimeIsTheBlockNarrowing() {
        var values = SplitMix64(seed: 3)
        let source = (0..<10_000).map { _ in Int32(truncatingIfNeeded: values.next()) } + [.max, .min, 0, -1]
        var dither = TPDFDither(seed: 1)
        #expect(source.map { dither.narrow($0) } == Self.narrow(source, bits: 32))
    }

    static func scaled(_ source: [Int16], by gain: Double) -> [Int16] {
        var dither = TPDFDither(seed: 1)
        var out = source
        out.withUnsafeMutableBufferPointer { dither.scale($0.baseAddress!, count: $0.count, by: gain) }
        return out
    }

    /// A gain on 16-bit samples is rounded as wide samples are narrowed: within an LSB plus
    /// rounding of the exact product, no mean, TPDF's spread; a gain of 1 or 0 is exact (no
    /// noise on what needs no rounding), full scale clips, and a mix with a silent partner is
    /// the gain alone, noise for noise.
    @Test func scaledSamplesAreDitheredWhereTheProductIsNotExact() {
        var values = SplitMix64(seed: 11)
        let source = (0..<200_000).map { _ in Int16(truncatingIfNeeded: values.next()) }
        #expect(Self.scaled(source, by: 1) == source)
        #expect(Self.scaled(source, by: 0).allSatisfy { $0 == 0 })
        let gain = 0.501187
        let out = Self.scaled(source, by: gain)
        let errors = zip(out, source).map { Double($0) - Double($1) * gain }
        #expect(errors.allSatisfy { abs($0) < 1.5 })
        let mean = errors.reduce(0, +) / Double(errors.count)
        let variance = errors.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(errors.count)
        #expect(abs(mean) < 0.01)
        #expect(abs(variance - 0.25) < 0.01)
        #expect(Self.scaled([30_000, -30_000], by: 2) == [32767, -32768])
        var dither = TPDFDither(seed: 1)
        var mixed = [Int16](repeating: 0, count: source.count)
        let silence = [Int16](repeating: 0, count: source.count)
        mixed.withUnsafeMutableBufferPointer { target in
            dither.mix(source, gain, silence, 0.7, into: target.baseAddress!, count: target.count)
        }
        #expect(mixed == out)
    }
}
