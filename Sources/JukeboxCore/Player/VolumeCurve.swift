/// Maps the user's volume percent to a linear sample gain.
///
/// The curve is cubic, `gain = (percent / 100)³`: 100 % is exactly 1.0 (so unity volume passes
/// samples through bit-exact), 50 % is −18 dB, 20 % −42 dB, 10 % −60 dB, and 0 % is silence.
/// A cube is close to how loudness is perceived (equal steps sound like equal changes), and
/// unlike a dB curve it needs no `pow`/`exp`, which the pure core cannot import.
public enum VolumeCurve {
    /// The gain for `percent` (clamped to 0...100): 0 → 0.0, 100 → 1.0, monotonic in between.
    public static func gain(percent: Int) -> Float {
        let clamped = min(max(percent, 0), 100)
        if clamped == 100 { return 1.0 }
        let fraction = Double(clamped) / 100
        return Float(fraction * fraction * fraction)
    }
}
