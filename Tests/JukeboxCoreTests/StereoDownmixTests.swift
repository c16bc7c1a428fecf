import JukeboxCore
import Testing

@Suite struct StereoDownmixTests {
    static let half = 0.5.squareRoot()

    /// 5.1 in WAVE order: BS.775's weights (front 1, centre and surrounds 0.707, LFE 0),
    /// scaled by 1 / 2.414 so that neither side's weights add up to more than 1.
    @Test func fivePointOneIsBS775Normalised() {
        let mix = StereoDownmix(speakers: .standard(channels: 6))
        let n = 1 + 2 * Self.half
        let left = [1 / n, 0, Self.half / n, 0, Self.half / n, 0]
        let right = [0, 1 / n, Self.half / n, 0, 0, Self.half / n]
        #expect(zip(mix.left, left).allSatisfy { abs(Double($0) - $1) < 1e-6 })
        #expect(zip(mix.right, right).allSatisfy { abs(Double($0) - $1) < 1e-6 })
    }

    /// Each format's order puts the same speaker in another channel: Vorbis's 3.0 is L C R.
    @Test func theOrderDecidesTheWeights() {
        #expect([SpeakerPosition].vorbis(channels: 3) == [.frontLeft, .frontCenter, .frontRight])
        #expect([SpeakerPosition].vorbis(channels: 6).last == .lowFrequency)
        #expect(
            [SpeakerPosition].wave(mask: 0x60F, channels: 6) == [
                .frontLeft, .frontRight, .frontCenter, .lowFrequency, .sideLeft, .sideRight,
            ])
        #expect([SpeakerPosition].wave(mask: 0x3F, channels: 5) == nil)
        #expect([SpeakerPosition].wave(mask: 0, channels: 3) == nil)
        let mix = StereoDownmix(speakers: .vorbis(channels: 3))
        var source: [Int16] = [1000, 2000, -3000]
        var out: [Int16] = [0, 0]
        source.withUnsafeMutableBufferPointer { s in
            out.withUnsafeMutableBufferPointer { mix.mix(s.baseAddress!, frames: 1, into: $0.baseAddress!) }
        }
        let n = 1 + Self.half
        #expect(
            out == [
                Int16(((1000 + 2000 * Self.half) / n).rounded()), Int16(((-3000 + 2000 * Self.half) / n).rounded()),
            ])
    }

    /// Full scale on every channel reaches full scale at most: nothing clips.
    @Test(arguments: [3, 4, 5, 6, 7, 8])
    func fullScaleEverywhereDoesNotClip(channels: Int) {
        for speakers in [[SpeakerPosition].standard(channels: channels), .vorbis(channels: channels)] {
            let mix = StereoDownmix(speakers: speakers)
            #expect(mix.left.reduce(0, +) <= 1.000001 && mix.right.reduce(0, +) <= 1.000001)
            var source = [Int16](repeating: -32768, count: channels * 2)
            for c in 0..<channels { source[channels + c] = 32767 }
            var out = [Int16](repeating: 0, count: 4)
            source.withUnsafeMutableBufferPointer { s in
                out.withUnsafeMutableBufferPointer { mix.mix(s.baseAddress!, frames: 2, into: $0.baseAddress!) }
            }
            #expect(out[0] >= -32768 && out[0] < -32000 && out[2] > 32000, "\(speakers): \(out)")
        }
    }
}
