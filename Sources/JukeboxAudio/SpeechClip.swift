import Soxr

/// Spoken text as jb-output mixes it: mono S16 at the device's rate, with a lead-in and a tail
/// of silence over which the music ducks and comes back. Made off the audio thread (the
/// daemon's jb-speech), then handed to `AudioPipeline.speak`, which keeps it until jb-output
/// has let go of it: the memory is allocated and freed on the control side only.
public final class SpeechClip: @unchecked Sendable {
    let samples: UnsafeMutablePointer<Int16>
    public let frames: Int
    public let rate: Int
    /// Frames of silence before and after the voice (the duck's ramps).
    public let rampFrames: Int
    /// The voice's own frames (without the silence around it).
    public var voiceFrames: Int { frames - 2 * rampFrames }
    /// `AudioPipeline.speak`'s serial for it (0: not handed over yet).
    var serial: UInt32 = 0

    /// `voice` (mono, at `rate`) between `rampMs` of silence on each side.
    public init(voice: [Int16], rate: Int, rampMs: Int) {
        self.rate = rate
        rampFrames = max(1, rampMs * rate / 1000)
        frames = voice.count + 2 * rampFrames
        samples = .allocate(capacity: frames)
        samples.initialize(repeating: 0, count: frames)
        voice.withUnsafeBufferPointer { (samples + rampFrames).update(from: $0.baseAddress!, count: voice.count) }
    }

    deinit { samples.deallocate() }

    /// `voice` as espeak-ng made it (mono at `inputRate`), its silence trimmed and resampled
    /// with libsoxr to `rate` when they differ.
    public static func speaking(_ voice: [Int16], at inputRate: Int, rate: Int, rampMs: Int) throws -> SpeechClip {
        let spoken = trimmed(voice)
        guard inputRate != rate, !spoken.isEmpty else {
            return SpeechClip(voice: spoken, rate: rate, rampMs: rampMs)
        }
        let resampler = try Resampler(inputRate: inputRate, outputRate: rate, channels: 1)
        let capacity = spoken.count * rate / inputRate + 4096
        var out = [Int16](repeating: 0, count: capacity)
        var made = 0
        try spoken.withUnsafeBufferPointer { input in
            try out.withUnsafeMutableBufferPointer { output in
                var read = 0
                while read < input.count {
                    let step = try resampler.process(
                        input.baseAddress! + read, inputFrames: input.count - read, into: output.baseAddress! + made,
                        outputCapacity: capacity - made)
                    read += step.consumed
                    made += step.produced
                    if step.consumed == 0 && step.produced == 0 { break }
                }
                while made < capacity {
                    let step = try resampler.process(
                        nil, inputFrames: 0, into: output.baseAddress! + made, outputCapacity: capacity - made)
                    if step.produced == 0 { break }
                    made += step.produced
                }
            }
        }
        return SpeechClip(voice: Array(out[..<made]), rate: rate, rampMs: rampMs)
    }

    /// `samples` without the near-silence espeak-ng puts before and after the voice: the
    /// clip's own silence is where the music ducks.
    static func trimmed(_ samples: [Int16]) -> [Int16] {
        let audible = { (sample: Int16) in abs(Int(sample)) > 16 }
        guard let first = samples.firstIndex(where: audible), let last = samples.lastIndex(where: audible) else {
            return []
        }
        return Array(samples[first...last])
    }

    /// The view jb-output reads: plain values, nothing for it to retain.
    func view(duck: Float) -> SpeechSamples {
        SpeechSamples(
            samples: UnsafePointer(samples), frames: frames, rate: rate, duck: min(max(duck, 0), 1),
            rampFrames: rampFrames)
    }
}

/// A `SpeechClip`'s samples as jb-output mixes them, and the music's level under them.
struct SpeechSamples: @unchecked Sendable {
    let samples: UnsafePointer<Int16>
    let frames: Int
    let rate: Int
    /// The music's gain while the voice speaks (1: not lowered).
    let duck: Float
    let rampFrames: Int
}
