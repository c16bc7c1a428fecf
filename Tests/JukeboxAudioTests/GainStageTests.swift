import JukeboxCore
import Testing

@testable import JukeboxAudio

/// jb-output's gain stage and feedback sound without a device: ramps that end exactly on
/// their target, unity that leaves samples alone, crossfades and cues where they belong.
@Suite struct GainStageTests {
    @Test func aSteadyUnityGainLeavesEverySampleAlone() {
        var stage = GainStage()
        var samples: [Int16] = [1, -1, 32767, -32768, 12345, -321]
        let original = samples
        samples.withUnsafeMutableBufferPointer { stage.apply($0.baseAddress!, frames: 3, channels: 2, first: 0) }
        #expect(samples == original)
    }

    @Test func aRampEndsExactlyOnItsTargetAndMarksWhereTheGainIsSteady() {
        var stage = GainStage()
        stage.target = 0.5
        stage.ramp(to: 0.5, over: 4)
        var samples = [Int32](repeating: 1 << 30, count: 10)
        samples.withUnsafeMutableBufferPointer {
            stage.apply(wide: $0.baseAddress!, frames: 10, channels: 1, first: 100)
        }
        #expect(stage.gain == 0.5 && stage.rampLeft == 0)
        #expect(stage.steadyFrom == 104)
        // 7/8, 6/8, 5/8 over the ramp, then half from its last frame on.
        #expect(samples[..<3] == [7 << 27, 6 << 27, 5 << 27])
        #expect(samples[3...].allSatisfy { $0 == 1 << 29 })
    }

    @Test func aGainChangeWithNothingSoundingTakesEffectAtOnce() {
        var stage = GainStage()
        stage.ramp(to: 0.2, over: 100)
        stage.jump(to: 0, at: 77)
        #expect(stage.gain == 0 && stage.rampLeft == 0 && stage.steadyFrom == 77 && stage.isUnity == false)
    }

    @Test func theNextAnchorFadesInOnlyAfterASpeedChangeAskedForIt() {
        var stage = GainStage()
        stage.fadeInIfAsked(over: 10)
        #expect(stage.gain == 1 && stage.rampLeft == 0)
        stage.fadeInAtAnchor = true
        stage.fadeInIfAsked(over: 10)
        #expect(stage.gain == 0 && stage.rampLeft == 10 && stage.rampStep == 0.1 && !stage.fadeInAtAnchor)
    }

    @Test func aCrossfadeStartsOnTheOutgoingItemAndMovesLinearlyToTheIncomingOne() {
        var stage = GainStage()
        let outgoing = [Int16](repeating: 10000, count: 4)
        let incoming = [Int16](repeating: -10000, count: 4)
        var mixed = [Int16](repeating: 0, count: 4)
        mixed.withUnsafeMutableBufferPointer { out in
            stage.crossfade(
                outgoing, incoming, frames: 4, channels: 1, at: 0, length: 4, scale: 1, into: out.baseAddress!)
        }
        // Exact products, so no dither: half way the two cancel out.
        #expect(mixed == [10000, 5000, 0, -5000])
    }

    @Test func aCueIsMixedOverTheFramesItLiesOn() {
        var cue = FeedbackCue()
        cue.begin(.sound(.cardRead), level: 1, at: 100)
        let length = cue.tones.range(.cardRead).count
        #expect(cue.end == 100 + Int64(length))
        #expect(!cue.sounds(frames: 10, at: 90) && cue.sounds(frames: 11, at: 90))
        var samples = [Int16](repeating: 0, count: 2 * 40)
        samples.withUnsafeMutableBufferPointer { cue.mix(into: $0.baseAddress!, frames: 40, channels: 2, at: 80) }
        let tone = (0..<20).map { cue.tones.samples[cue.offset + $0] }
        #expect(samples[..<40].allSatisfy { $0 == 0 })
        #expect(stride(from: 40, to: 80, by: 2).map { samples[$0] } == tone)
        #expect(stride(from: 41, to: 80, by: 2).map { samples[$0] } == tone)
    }

    @Test func aCueThatIsOverStaysOverWhenTheDeviceOpensAgain() {
        var cue = FeedbackCue()
        cue.begin(.sound(.limit), level: 1, at: 0)
        let end = cue.end
        cue.reopened(shift: end)
        #expect(cue.sound == nil && cue.end == 0)
        cue.begin(.sound(.limit), level: 1, at: 500)
        cue.reopened(shift: 400)
        #expect(cue.sound == .limit && cue.start == 100 && cue.end == 100 + end)
    }

    /// Speech ducks the music under it: full level before its lead-in, the duck level under
    /// the voice, back to full after its tail, ramped linearly; the voice is added on top.
    @Test func speechDucksTheMusicUnderItAndLetsItBackAfter() {
        var cue = FeedbackCue()
        // 1 ms of silence each side (the ramps: 44 frames), 4 frames of voice at 1000.
        let voice = SpeechClip(voice: [Int16](repeating: 1000, count: 4), rate: 44100, rampMs: 1)
        let ramp = voice.rampFrames
        let framesIn = 2 * ramp + 4
        #expect(ramp == 44 && voice.frames == framesIn && voice.voiceFrames == 4)
        cue.begin(.speech(voice.view(duck: 0.25)), level: 0.5, at: 10)
        #expect(cue.end == 10 + Int64(framesIn))
        var music = [Int16](repeating: 8000, count: 120)
        music.withUnsafeMutableBufferPointer { cue.mix(into: $0.baseAddress!, frames: 120, channels: 1, at: 0) }
        #expect(music[..<10].allSatisfy { $0 == 8000 })
        #expect(music[(10 + framesIn)...].allSatisfy { $0 == 8000 })
        for i in 0..<framesIn {
            let edge = min(i, framesIn - 1 - i)
            let duck: Float = edge >= ramp ? 0.25 : 1 - 0.75 * Float(edge) / Float(ramp)
            let voiced = i >= ramp && i < ramp + 4
            let expected = Int16((8000 * duck + (voiced ? 500 : 0)).rounded())
            #expect(music[10 + i] == expected, "frame \(i)")
        }
        // Made for another rate than the device's: not heard at all.
        var other = FeedbackCue()
        let at48 = SpeechClip(voice: [1000], rate: 48000, rampMs: 10)
        other.begin(.speech(at48.view(duck: 0.25)), level: 1, at: 0)
        #expect(other.end == 0 && !other.sounds(frames: 100, at: 0))
        // Let go of: nothing of it is mixed again.
        cue.dropSpeech()
        #expect(cue.speech == nil && !cue.sounds(frames: 100, at: 0))
    }
}
