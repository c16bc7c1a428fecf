import JukeboxCore

/// What jb-output is asked to mix in: a feedback sound, or speech.
enum CueSource {
    case sound(FeedbackSound)
    case speech(SpeechSamples)
}

/// The feedback sound or the speech jb-output mixes in after the gain, with no device: the
/// sounds at the device's rate, and the one sounding, whose samples start at `offset` of
/// `tones` (or of the speech) and lie over the `written` frames (see `OutputTimeline`)
/// `start..<end`. A re-render of those frames mixes it again where it was. Speech ducks the
/// music under it: lowered to `speech.duck` over its silent lead-in, back up over its tail.
struct FeedbackCue: ~Copyable {
    var tones = FeedbackTones()
    var sound: FeedbackSound?
    /// The speech sounding (a view of memory the control side keeps until jb-output lets go).
    var speech: SpeechSamples?
    /// The request jb-output took last (`SharedState.cueSerial`; 0: none yet).
    var serial: UInt32 = 0
    var offset = 0
    var start: Int64 = 0
    var end: Int64 = 0
    var level: Float = 0

    init() { tones.render(rate: 44100) }

    /// Starts `source` at frame `frame`.
    mutating func begin(_ source: CueSource, level: Float, at frame: Int64) {
        switch source {
        case .sound(let sound):
            self.sound = sound
            speech = nil
        case .speech(let samples):
            sound = nil
            speech = samples
        }
        self.level = level
        start = frame
        place()
    }

    /// Where the sound lies in the tones and in frames (again after the tones were rendered
    /// at another rate). Speech made for another rate than the device's is not heard: it is
    /// over where it starts.
    mutating func place() {
        if let speech {
            offset = 0
            end = start + (speech.rate == tones.rate ? Int64(speech.frames) : 0)
            return
        }
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

    /// Lets go of the speech (its memory may be freed after this): nothing of it is mixed again.
    mutating func dropSpeech() {
        guard speech != nil else { return }
        speech = nil
        end = min(end, start)
    }

    /// Whether the sound falls on the `frames` frames at `first`.
    func sounds(frames: Int, at first: Int64) -> Bool { start < end && first < end && first + Int64(frames) > start }

    /// Adds the sound's samples that fall on the `frames` frames at `first` to `samples` (S16,
    /// `channels` each), clipped.
    func mix(into samples: UnsafeMutablePointer<Int16>, frames: Int, channels: Int, at first: Int64) {
        guard case let (tone, at, count)? = overlap(frames: frames, at: first) else { return }
        let out = samples + at * channels
        let into = Int(max(first, start) - start)
        for f in 0..<count {
            let t = Float(tone[f]) * level
            let duck = duckGain(into + f)
            for c in f * channels..<(f + 1) * channels {
                out[c] = Int16(max(-32768, min(32767, (Float(out[c]) * duck + t).rounded())))
            }
        }
    }

    /// As `mix`, into 32-bit samples (the value in the top bits).
    func mix(wide samples: UnsafeMutablePointer<Int32>, frames: Int, channels: Int, at first: Int64) {
        guard case let (tone, at, count)? = overlap(frames: frames, at: first) else { return }
        let out = samples + at * channels
        let level = Double(level) * 65536
        let into = Int(max(first, start) - start)
        for f in 0..<count {
            let t = Double(tone[f]) * level
            let duck = Double(duckGain(into + f))
            for c in f * channels..<(f + 1) * channels {
                out[c] = Int32(clamping: Int64((Double(out[c]) * duck + t).rounded()))
            }
        }
    }

    /// The sound's samples on the `frames` frames at `first`: from the first one, at which of
    /// those frames, and how many. Nil when it does not sound there.
    private func overlap(frames: Int, at first: Int64) -> (tone: UnsafePointer<Int16>, offset: Int, count: Int)? {
        let from = max(first, start)
        let to = min(first + Int64(frames), end)
        guard from < to else { return nil }
        let source = speech.map(\.samples) ?? UnsafePointer(tones.samples)
        return (source + offset + Int(from - start), Int(from - first), Int(to - from))
    }

    /// The music's gain under frame `index` of the cue: 1 under a sound; under speech its
    /// duck level, reached linearly over the speech's lead-in and left over its tail.
    func duckGain(_ index: Int) -> Float {
        guard let speech, speech.duck < 1 else { return 1 }
        let edge = min(index, Int(end - start) - 1 - index)
        guard edge < speech.rampFrames else { return speech.duck }
        return 1 - (1 - speech.duck) * Float(max(edge, 0)) / Float(speech.rampFrames)
    }
}
