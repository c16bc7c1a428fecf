import Foundation
import JukeboxAudio
import JukeboxTestSupport
import Testing

/// MPD's `crossfade`: the end of an item overlaps the start of its follow-up, mixed linearly,
/// through a paced virtual DAC (8x real time). Two 4 s tracks, A on the left channel only and
/// B on the right only, so each channel tells how much of each track a frame holds.
@Suite struct CrossfadeTests {
    static let rate = 44100
    static let level: Int16 = 8000

    /// A track of `seconds` holding `left` and `right` in every frame.
    static func track(_ path: String, seconds: Int, left: Int16, right: Int16) {
        writeWAV(path, rate: rate, channels: 2, samples: Array([left, right].repeated(seconds * rate)))
    }

    /// Plays A with B (both at `level`) as its follow-up, with `crossfade` seconds; what the
    /// device got.
    static func playPair(crossfade: Int, bSeconds: Int = 4, level: Int16 = Self.level, expectedSeconds: Int) throws -> (
        events: [PipelineEvent], samples: [Int16]
    ) {
        let directory = try TemporaryDirectory(prefix: "jb-xfade")
        defer { directory.remove() }
        track(directory.file("a.wav"), seconds: 4, left: level, right: 0)
        track(directory.file("b.wav"), seconds: bSeconds, left: 0, right: level)
        let sink = try PacedFifoSink(bytesPerSecond: rate * 4, speed: 8)
        let h = Harness(device: sink.alsaDevice, periodMs: 10, bufferMs: 40)
        h.pipeline.setCrossfade(seconds: crossfade)
        h.pipeline.play(
            PlaybackItem(token: 1, path: directory.file("a.wav")), fromMs: 0,
            next: PlaybackItem(token: 2, path: directory.file("b.wav")))
        #expect(h.waitForEnd())
        sink.waitForBytes(expectedSeconds * rate * 4, timeoutSeconds: 3)
        h.pipeline.shutdown()
        sink.stop()
        return (h.events, sink.samples)
    }

    /// Compares without a diff of the whole arrays (which takes minutes).
    static func expectSame(_ got: [Int16], _ expected: [Int16], sourceLocation: SourceLocation = #_sourceLocation) {
        let first = (0..<min(got.count, expected.count)).first { got[$0] != expected[$0] }
        #expect(
            got.count == expected.count && first == nil,
            "\(got.count) samples for \(expected.count), first difference at \(first ?? -1)",
            sourceLocation: sourceLocation)
    }

    /// Mixed in S16 with TPDF dither, as MPD mixes: within an LSB plus rounding of the exact mix.
    @Test func twoSecondsOverlapBothTracksLinearly() throws {
        let played = try Self.playPair(crossfade: 2, expectedSeconds: 6)
        #expect(played.events == [.started(1), .finished(1), .started(2), .finished(2), .endOfStream])
        let fade = 2 * Self.rate
        // 2 s shorter than the two tracks back to back.
        #expect(played.samples.count == 6 * Self.rate * 2)
        guard played.samples.count == 6 * Self.rate * 2 else { return }
        var wrong: [Int] = []
        for frame in 0..<(6 * Self.rate) {
            let expected: (Double, Double)
            if frame < fade {
                expected = (Double(Self.level), 0)
            } else if frame < 2 * fade {
                let share = Double(frame - fade) / Double(fade)
                expected = (Double(Self.level) * (1 - share), Double(Self.level) * share)
            } else {
                expected = (0, Double(Self.level))
            }
            if abs(Double(played.samples[2 * frame]) - expected.0) >= 1.5
                || abs(Double(played.samples[2 * frame + 1]) - expected.1) >= 1.5
            {
                wrong.append(frame)
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) frames differ, the first at \(wrong.first ?? -1)")
        // Both tracks sound in every 100 ms of the 2 s.
        let window = Self.rate / 10
        let silent = stride(from: fade, to: 2 * fade, by: window).filter { start in
            let frames = start..<(start + window)
            return frames.allSatisfy { played.samples[2 * $0] == 0 }
                || frames.allSatisfy { played.samples[2 * $0 + 1] == 0 }
        }
        #expect(silent.isEmpty, "windows with one track silent: \(silent)")
    }

    /// A crossfade of two tracks one LSB loud is dithered, not rounded: over every 100 ms each
    /// channel averages the exact mix (rounded, A stayed at 1 for the first half of the fade
    /// and dropped to 0 at once: up to half an LSB off).
    @Test func aQuietCrossfadeFadesOnAverage() throws {
        let played = try Self.playPair(crossfade: 2, level: 1, expectedSeconds: 6)
        let fade = 2 * Self.rate
        try #require(played.samples.count == 6 * Self.rate * 2)
        let window = Self.rate / 10
        for start in stride(from: fade, to: 2 * fade, by: window) {
            let frames = start..<(start + window)
            let share = (Double(start - fade) + Double(window - 1) / 2) / Double(fade)
            let left = Double(frames.map { Int(played.samples[2 * $0]) }.reduce(0, +)) / Double(window)
            let right = Double(frames.map { Int(played.samples[2 * $0 + 1]) }.reduce(0, +)) / Double(window)
            #expect(abs(left - (1 - share)) < 0.05, "A at \(left) for \(1 - share) at frame \(start)")
            #expect(abs(right - share) < 0.05, "B at \(right) for \(share) at frame \(start)")
        }
    }

    @Test func noCrossfadeIsGapless() throws {
        let played = try Self.playPair(crossfade: 0, expectedSeconds: 8)
        #expect(played.events == [.started(1), .finished(1), .started(2), .finished(2), .endOfStream])
        let expected = Array([Self.level, 0].repeated(4 * Self.rate)) + Array([0, Self.level].repeated(4 * Self.rate))
        Self.expectSame(played.samples, expected)
    }

    /// As MPD: a follow-up no longer than the fade is joined gaplessly.
    @Test func aFollowUpShorterThanTheFadeIsNotFaded() throws {
        let played = try Self.playPair(crossfade: 2, bSeconds: 2, expectedSeconds: 6)
        let expected = Array([Self.level, 0].repeated(4 * Self.rate)) + Array([0, Self.level].repeated(2 * Self.rate))
        Self.expectSame(played.samples, expected)
    }
}

extension Array {
    /// The elements `count` times over.
    fileprivate func repeated(_ count: Int) -> [Element] {
        Array((0..<count).map { _ in self }.joined())
    }
}
