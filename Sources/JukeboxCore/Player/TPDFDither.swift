/// Narrows wide samples (24 or 32 bits) to 16 with TPDF dither, as sox and MPD's pcm_dither
/// do instead of truncating: triangular noise of up to ±1 output LSB (the difference of two
/// uniform draws) is added before rounding, so the error has no mean and does not follow the
/// signal (no distortion; a sine below one LSB survives in the noise). The noise comes from
/// SplitMix64, one draw per sample: deterministic, no allocation.
public struct TPDFDither: Sendable {
    private var random: SplitMix64

    public init(seed: UInt64 = 0x6A75_6B65_626F_7864) {
        random = SplitMix64(seed: seed)
    }

    /// `count` samples of `bits` bits (17...32, right-justified in Int32) narrowed to 16 bits,
    /// rounded after the dither and clipped.
    public mutating func narrow(
        _ source: UnsafePointer<Int32>, bits: Int, into target: UnsafeMutablePointer<Int16>, count: Int
    ) {
        precondition((17...32).contains(bits))
        let shift = Int64(bits - 16)
        let half = Int64(1) << (shift - 1)
        // Each half of a draw, cut to `shift` bits: uniform in 0..<2^shift (one output LSB).
        let noiseShift = UInt32(32 - shift)
        for i in 0..<count {
            let r = random.next()
            let noise =
                Int64(UInt32(truncatingIfNeeded: r) >> noiseShift)
                - Int64(UInt32(truncatingIfNeeded: r >> 32) >> noiseShift)
            target[i] = Int16(clamping: (Int64(source[i]) + noise + half) >> shift)
        }
    }
}
