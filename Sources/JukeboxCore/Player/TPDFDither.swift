/// Narrows wide samples (24 or 32 bits) to 16 with TPDF dither, as sox and MPD's pcm_dither
/// do instead of truncating: triangular noise of up to ±1 output LSB (the difference of two
/// uniform draws) is added before rounding, so the error has no mean and does not follow the
/// signal (no distortion; a sine below one LSB survives in the noise). The noise comes from a
/// 64-bit LCG (Knuth's MMIX constants), whose top 32 bits give the two draws: deterministic, no
/// allocation, two instructions a sample (SplitMix64 cost as much as the rest of the loop).
public struct TPDFDither: Sendable {
    private var state: UInt64

    public init(seed: UInt64 = 0x6A75_6B65_626F_7864) {
        state = seed
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
        let noiseShift = UInt64(16 - min(shift, 16))
        var state = self.state
        for i in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise =
                Int64(truncatingIfNeeded: (state >> 48) >> noiseShift)
                &- Int64(truncatingIfNeeded: (state >> 32 & 0xFFFF) >> noiseShift)
            target[i] = Int16(clamping: (Int64(source[i]) &+ noise &+ half) >> shift)
        }
        self.state = state
    }
}
