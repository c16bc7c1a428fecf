import JukeboxCore

/// The feedback sound jb-output mixes in after the gain, with no device: the sounds at the
/// device's rate, and the one sounding, whose samples start at `offset` of `tones` and lie
/// over the `written` frames (see `OutputTimeline`) `start..<end`. A re-render of those
/// frames mixes it again where it was.
struct FeedbackCue: ~Copyable {
    var tones = FeedbackTones()
    var sound: FeedbackSound?
    /// The request jb-output took last (`SharedState.cueSerial`; 0: none yet).
    var serial: UInt32 = 0
    var offset = 0
    var start: Int64 = 0
    var end: Int64 = 0
    var level: Float = 0

    init() { tones.render(rate: 44100) }

    /// Starts `sound` at frame `frame`.
    mutating func begin(_ sound: FeedbackSound, level: Float, at frame: Int64) {
        self.sound = sound
        self.level = level
        start = frame
        place()
    }

    /// Where the sound lies in the tones and in frames (again after the tones were rendered
    /// at another rate).
    mutating func place() {
        guard let sound else { return }
        let range = tones.range(sound)
        offset = range.lowerBound
        end = start + Int64(range.count)
    }

    /// The device opened again (the tones rendered at its rate), its frames counted from 0
    /// where `shift` was: the sound moves with them. One that is over stays over: at another
    /// rate its length changes, and a higher rate would bring back its end.
    mutating func reopened(shift: Int64) {
        if end <= shift { sound = nil }
        start -= shift
        end -= shift
        place()
    }

    /// Whether the sound falls on the `frames` frames at `first`.
    func sounds(frames: Int, at first: Int64) -> Bool { first < end && first + Int64(frames) > start }

    /// Adds the sound's samples that fall on the `frames` frames at `first` to `samples` (S16,
    /// `channels` each), clipped.
    func mix(into samples: UnsafeMutablePointer<Int16>, frames: Int, channels: Int, at first: Int64) {
        guard case let (tone, at, count)? = overlap(frames: frames, at: first) else { return }
        let out = samples + at * channels
        for f in 0..<count {
            let t = Float(tone[f]) * level
            for c in f * channels..<(f + 1) * channels {
                out[c] = Int16(max(-32768, min(32767, (Float(out[c]) + t).rounded())))
            }
        }
    }

    /// As `mix`, into 32-bit samples (the value in the top bits).
    func mix(wide samples: UnsafeMutablePointer<Int32>, frames: Int, channels: Int, at first: Int64) {
        guard case let (tone, at, count)? = overlap(frames: frames, at: first) else { return }
        let out = samples + at * channels
        let level = Double(level) * 65536
        for f in 0..<count {
            let t = Double(tone[f]) * level
            for c in f * channels..<(f + 1) * channels {
                out[c] = Int32(clamping: Int64((Double(out[c]) + t).rounded()))
            }
        }
    }

    /// The sound's samples on the `frames` frames at `first`: from the first one, at which of
    /// those frames, and how many. Nil when it does not sound there.
    private func overlap(frames: Int, at first: Int64) -> (tone: UnsafePointer<Int16>, offset: Int, count: Int)? {
        let from = max(first, start)
        let to = min(first + Int64(frames), end)
        guard from < to else { return nil }
        return (UnsafePointer(tones.samples + offset + Int(from - start)), Int(from - first), Int(to - from))
    }
}
