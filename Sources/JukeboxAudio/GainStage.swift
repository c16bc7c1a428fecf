import JukeboxCore

/// jb-output's gain stage, with no device: the software volume with its ~5 ms ramps, times
/// the item's ReplayGain, applied to a period in place; and the crossfade of an item into its
/// follow-up. Frames are `written` indices (see `OutputTimeline`). It does not allocate.
struct GainStage {
    /// The gain asked for (the volume; 0 while muted).
    var target: Float = 1
    /// The gain applied now: `target`, or a step of the ramp towards `rampTo`.
    var gain: Float = 1
    /// The ReplayGain factor of the item being written (every frame of a period comes from
    /// one chunk, and a re-render never reaches back past the item's first frame).
    var itemGain: Float = 1
    var rampStep: Float = 0
    var rampLeft = 0
    /// Where the ramp ends: the gain target, or 0 for the fade-out before a speed change.
    var rampTo: Float = 1
    /// The frame from which every frame was rendered at `gain` (where the last ramp ended): a
    /// new gain's re-render may reach back to here and no further, as frames before were
    /// rendered at other gains and starting them at `gain` would be a step.
    var steadyFrom: Int64 = 0
    /// A speed change faded the device out: the next anchored chunk fades in.
    var fadeInAtAnchor = false
    /// Rounds the products of the gain stage (on a device open in S16) and of crossfades to 16 bits.
    var dither = TPDFDither()

    /// Whether a period passes unchanged (a steady product of exactly 1.0).
    var isUnity: Bool { rampLeft == 0 && gain == 1.0 && itemGain == 1.0 }

    /// Ramps linearly from `gain` to `end` over `frames` frames.
    mutating func ramp(to end: Float, over frames: Int) {
        rampTo = end
        rampLeft = frames
        rampStep = (end - gain) / Float(frames)
    }

    /// Nothing sounds: the next audio starts at `target` with no ramp to hear (a start with
    /// the output muted must not begin with 5 ms at full volume). `frame`: the next one written.
    mutating func jump(to target: Float, at frame: Int64) {
        self.target = target
        rampTo = target
        gain = target
        rampLeft = 0
        steadyFrom = frame
    }

    /// A new item is anchored: after a speed change's fade-out, it fades in over `frames`.
    mutating func fadeInIfAsked(over frames: Int) {
        guard fadeInAtAnchor else { return }
        fadeInAtAnchor = false
        gain = 0
        ramp(to: target, over: frames)
    }

    /// One frame (`frame`) further along the ramp.
    mutating func stepRamp(frame: Int64) {
        guard rampLeft > 0 else { return }
        gain += rampStep
        rampLeft -= 1
        if rampLeft == 0 {
            gain = rampTo
            steadyFrom = frame + 1
        }
    }

    /// Applies the gain (with its ramp) times the item's ReplayGain in place to `frames` S16
    /// frames of `channels` samples starting at frame `first`, rounded back to 16 bits with
    /// TPDF dither, as the other narrowing stages (rounding alone makes the error follow the
    /// signal: distortion of quiet passages). A steady product of exactly 1.0 leaves them as they are.
    mutating func apply(_ samples: UnsafeMutablePointer<Int16>, frames: Int, channels: Int, first: Int64) {
        if isUnity { return }
        guard rampLeft > 0 else {
            dither.scale(samples, count: frames * channels, by: Double(gain) * Double(itemGain))
            return
        }
        for frame in 0..<frames {
            stepRamp(frame: first + Int64(frame))
            dither.scale(samples + frame * channels, count: channels, by: Double(gain) * Double(itemGain))
        }
    }

    /// As `apply`, to 32-bit samples, in Double: a Float has too few bits for them.
    mutating func apply(wide samples: UnsafeMutablePointer<Int32>, frames: Int, channels: Int, first: Int64) {
        if isUnity { return }
        var i = 0
        for frame in 0..<frames {
            stepRamp(frame: first + Int64(frame))
            let factor = Double(gain) * Double(itemGain)
            for _ in 0..<channels {
                samples[i] = Int32(clamping: Int64((Double(samples[i]) * factor).rounded()))
                i += 1
            }
        }
    }

    /// Mixes into `mixed` a crossfade of `frames` frames: `outgoing` fading out and `incoming`
    /// (scaled by `scale`, its ReplayGain over the outgoing one's, which `apply` applies)
    /// fading in, linearly over a fade of `length` frames from its frame `at` on, as MPD mixes
    /// them (in S16 with dither).
    mutating func crossfade(
        _ outgoing: UnsafePointer<Int16>, _ incoming: UnsafePointer<Int16>, frames: Int, channels: Int, at: Int,
        length: Int, scale: Float, into mixed: UnsafeMutablePointer<Int16>
    ) {
        for f in 0..<frames {
            let share = Double(at + f) / Double(length)
            dither.mix(
                outgoing + f * channels, 1 - share, incoming + f * channels, share * Double(scale),
                into: mixed + f * channels, count: channels)
        }
    }
}
