/// Narrows wide samples (24 or 32 bits) to 16 with TPDF dither, as sox and MPD's pcm_dither
/// do instead of truncating: triangular noise of up to ±1 output LSB (the difference of two
/// uniform draws) is added before rounding, so the error has no mean and does not follow the
/// signal (no distortion; a sine below one LSB survives in the noise). The noise comes from a
/// 64-bit LCG (Knuth's MMIX constants), whose top 32 bits give the two draws: deterministic, no
/// allocation, two instructions a sample (SplitMix64 cost as much as the rest of the loop).
/// Gains on 16-bit samples (software volume, ReplayGain, a crossfade) are rounded the same way.
public struct TPDFDither: Sendable {
    private var state: UInt64

    public init(seed: UInt64 = 0x6A75_6B65_626F_7864) {
        state = seed
    }

    /// The LCG stepped once: its top 32 bits as two uniform 16-bit draws.
    @inline(__always)
    private static func draws(_ state: inout UInt64) -> (Int64, Int64) {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (Int64(truncatingIfNeeded: state >> 48), Int64(truncatingIfNeeded: state >> 32 & 0xFFFF))
    }

    /// `count` samples of `bits` bits (17...32, right-justified in Int32) narrowed to 16 bits,
    /// rounded after the dither and clipped.
    public mutating func narrow(
        _ source: UnsafePointer<Int32>, bits: Int, into target: UnsafeMutablePointer<Int16>, count: Int
    ) {
        precondition((17...32).contains(bits))
        let shift = Int64(bits - 16)
        let half = Int64(1) << (shift - 1)
        // Each 16-bit draw cut to `shift` bits is uniform in 0..<2^shift (one output LSB).
        let noiseShift = 16 - min(shift, 16)
        var state = self.state
        for i in 0..<count {
            let (a, b) = Self.draws(&state)
            let noise = (a >> noiseShift) &- (b >> noiseShift)
            target[i] = Int16(clamping: (Int64(source[i]) &+ noise &+ half) >> shift)
        }
        self.state = state
    }

    /// One 32-bit sample narrowed to 16 bits, as `narrow(_:bits: 32, ...)` does.
    public mutating func narrow(_ sample: Int32) -> Int16 {
        let (a, b) = Self.draws(&state)
        return Int16(clamping: (Int64(sample) &+ a &- b &+ 0x8000) >> 16)
    }

    /// A gain (0 ≤ gain < 65536) as a factor with 32 fraction bits: a 16-bit sample times it
    /// is exact to 2^-33 LSB, so the product differs from the real one by far less than the dither.
    private static func fixed(_ gain: Double) -> Int64 { Int64((gain * 0x1_0000_0000).rounded()) }

    /// `product` (32 bits below the 16-bit LSB) rounded after the dither and clipped; one with
    /// nothing below the LSB is exact, no noise added: silence stays digital silence, a gain of
    /// 0 gives zeros and one of 1 the samples bit for bit.
    @inline(__always)
    private static func round(_ product: Int64, _ state: inout UInt64) -> Int16 {
        let (a, b) = draws(&state)
        let offset = product & 0xFFFF_FFFF == 0 ? 0 : (a &- b) << 16 &+ 0x8000_0000
        return Int16(clamping: (product &+ offset) >> 32)
    }

    /// `count` 16-bit samples times `gain`, in place, rounded to 16 bits after the dither.
    public mutating func scale(_ samples: UnsafeMutablePointer<Int16>, count: Int, by gain: Double) {
        let factor = Self.fixed(gain)
        var state = self.state
        for i in 0..<count { samples[i] = Self.round(Int64(samples[i]) &* factor, &state) }
        self.state = state
    }

    /// `count` samples of `a` times `gainA` plus `b` times `gainB` into `target`, rounded to 16
    /// bits after the dither (a crossfade).
    public mutating func mix(
        _ a: UnsafePointer<Int16>, _ gainA: Double, _ b: UnsafePointer<Int16>, _ gainB: Double,
        into target: UnsafeMutablePointer<Int16>, count: Int
    ) {
        let factorA = Self.fixed(gainA)
        let factorB = Self.fixed(gainB)
        var state = self.state
        for i in 0..<count { target[i] = Self.round(Int64(a[i]) &* factorA &+ Int64(b[i]) &* factorB, &state) }
        self.state = state
    }
}
