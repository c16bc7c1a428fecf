/// A run of sound in a stereo S16 stream (the feedback sounds' tests): where it starts, its
/// length in frames, its frequency by zero crossings, its peak, and whether both channels are
/// the same.
public struct ToneBurst: Sendable, CustomStringConvertible {
    public var first: Int
    public var frames: Int
    public var hz: Double
    public var peak: Int
    public var channelsEqual: Bool

    public var description: String { "\(frames) frames at \(first), \(Int(hz)) Hz, peak \(peak)" }

    /// The runs of non-zero samples in `samples` separated by at least 10 ms of zeros.
    public static func find(in samples: [Int16], rate: Int) -> [ToneBurst] {
        var bursts: [ToneBurst] = []
        var start: Int?
        var lastSound = -1
        func close() {
            guard let s = start else { return }
            var crossings = 0
            var previous: Int16 = 0
            var peak = 0
            var equal = true
            for f in s...lastSound {
                let v = samples[2 * f]
                if v != samples[2 * f + 1] { equal = false }
                peak = max(peak, abs(Int(v)))
                if v != 0 {
                    if previous != 0, (v > 0) != (previous > 0) { crossings += 1 }
                    previous = v
                }
            }
            let length = lastSound - s + 1
            bursts.append(
                ToneBurst(
                    first: s, frames: length, hz: Double(crossings) / 2 / (Double(length) / Double(rate)), peak: peak,
                    channelsEqual: equal))
            start = nil
        }
        for f in 0..<(samples.count / 2) where samples[2 * f] != 0 || samples[2 * f + 1] != 0 {
            if start != nil, f - lastSound > rate / 100 { close() }
            if start == nil { start = f }
            lastSound = f
        }
        close()
        return bursts
    }

    /// Whether `burst` is one note of `hz` lasting `ms` (within a millisecond; the fades leave
    /// its ends at zero) on both channels alike.
    public static func isNote(_ burst: ToneBurst, hz: Double, ms: Int, rate: Int) -> Bool {
        abs(burst.frames - ms * rate / 1000) <= rate / 1000 && abs(burst.hz - hz) / hz < 0.03 && burst.channelsEqual
    }
}
