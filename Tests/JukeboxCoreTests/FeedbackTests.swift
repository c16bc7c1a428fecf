import JukeboxCore
import Testing

/// Feedback without a screen: which event makes which sound, and the status LED's patterns,
/// on a manual clock.
@Suite struct FeedbackCuesTests {
    @Test func eachEventHasItsSound() {
        var cues = FeedbackCues(enabled: true)
        let rows: [(FeedbackCues.Event, FeedbackSound)] = [
            (.cardRead, .cardRead), (.unknownCard, .unknownCard), (.nothingToPlay, .unknownCard),
            (.limit(.maximum), .limit),
        ]
        var now = Instant.zero
        for (event, sound) in rows {
            #expect(cues.sound(for: event, now: now) == sound, "\(event)")
            now = now + 1000
        }
        // The other limits beep the same.
        #expect(cues.sound(for: .limit(.minimum), now: now) == .limit)
        #expect(cues.sound(for: .limit(.lockedAtRest), now: now + 1000) == .limit)
    }

    @Test func soundsOffMakeNone() {
        var cues = FeedbackCues(enabled: false)
        #expect(cues.sound(for: .cardRead, now: .zero) == nil)
        #expect(cues.sound(for: .limit(.maximum), now: .zero) == nil)
    }

    @Test func theSameSoundDoesNotStartAgainWhileItSounds() {
        var cues = FeedbackCues(enabled: true)
        let length = Int64(FeedbackSound.limit.lengthMs)
        #expect(cues.sound(for: .limit(.maximum), now: .zero) == .limit)
        // Knob clicks against the maximum every 20 ms: one beep per beep's length.
        var beeps = 1
        var now = Instant.zero
        while now.milliseconds(since: .zero) < 3 * length {
            now = now + 20
            if cues.sound(for: .limit(.maximum), now: now) != nil { beeps += 1 }
        }
        #expect(beeps == 3, "\(beeps) beeps in \(3 * length) ms")
        // Another sound is not held back by it.
        #expect(cues.sound(for: .limit(.maximum), now: now) == nil)
        #expect(cues.sound(for: .cardRead, now: now) == .cardRead)
    }

    @Test func theSoundsAreShortNotesWithRoomForTheirFades() {
        for sound in FeedbackSound.allCases {
            #expect(sound.lengthMs <= 300, "\(sound)")
            for note in sound.notes where note.hz > 0 { #expect(note.ms >= 4 * FeedbackSound.fadeMs) }
        }
        #expect(FeedbackSound.cardRead.frames(rate: 48000) == 90 * 48)
        #expect(FeedbackSound.unknownCard.frames(rate: 44100) == 4410 + 2646 + 4410)
    }
}

@Suite struct StatusLightTests {
    /// The level every 10 ms from `start` for `ms`, as runs of (lit, length in ms).
    static func runs(_ light: StatusLight, from start: Instant, ms: Int64) -> [(Bool, Int64)] {
        var runs: [(Bool, Int64)] = []
        var t: Int64 = 0
        while t < ms {
            let lit = light.isOn(at: start + t)
            if let last = runs.last, last.0 == lit {
                runs[runs.count - 1].1 += 10
            } else {
                runs.append((lit, 10))
            }
            t += 10
        }
        return runs
    }

    @Test func steadyWhilePlayingOffOtherwise() {
        var light = StatusLight()
        #expect(!light.isOn(at: .zero))
        light.handle(.playing(true), now: .zero)
        #expect(light.isOn(at: .zero + 5000))
        #expect(light.nextChange(after: .zero + 5000) == nil)
        light.handle(.playing(false), now: .zero + 6000)
        #expect(!light.isOn(at: .zero + 6000))
    }

    @Test func aCardReadBlinksOnceWhateverTheSteadyLevel() {
        var light = StatusLight()
        let read = Instant.zero + 1000
        light.handle(.cardRead, now: read)
        // Stopped: lit, then dark (and dark it stays).
        #expect(Self.runs(light, from: read, ms: 500).map { "\($0.0):\($0.1)" } == ["true:150", "false:350"])
        #expect(light.nextChange(after: read + 50) == read + 150)
        #expect(light.nextChange(after: read + 150) == read + 300)
        #expect(light.nextChange(after: read + 300) == nil)
        // Playing: lit, dark, lit again; also when the music starts with the read.
        light.handle(.cardRead, now: read + 1000)
        light.handle(.playing(true), now: read + 1000)
        #expect(
            Self.runs(light, from: read + 1000, ms: 500).map { "\($0.0):\($0.1)" } == [
                "true:150", "false:150", "true:200",
            ])
    }

    @Test func anErrorBlinksFastAndACardDoesNotCutItShort() {
        var light = StatusLight()
        light.handle(.playing(true), now: .zero)
        let failed = Instant.zero + 2000
        light.handle(.error, now: failed)
        light.handle(.cardRead, now: failed + 100)
        let expected = Array(repeating: ["true:80", "false:80"], count: StatusLight.errorBlinks).flatMap { $0 }
        var seen = Self.runs(light, from: failed, ms: 1200).map { "\($0.0):\($0.1)" }
        // After the pattern, the steady level (playing: lit) joins the last run or follows it.
        #expect(seen.removeLast() == "true:400")
        #expect(seen == expected)
        #expect(light.nextChange(after: failed + 10) == failed + 80)
        #expect(light.nextChange(after: failed + 90) == failed + 160)
        #expect(light.nextChange(after: failed + 800) == nil)
    }
}
