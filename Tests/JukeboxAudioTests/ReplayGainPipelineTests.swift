import Foundation
import JukeboxAudio
import JukeboxCore
import JukeboxTestSupport
import Testing

/// ReplayGain from Vorbis comments: each Xiph format played once with ReplayGain off and once
/// in track mode through ALSA's file PCM; the second is the first at half amplitude. Opus
/// takes R128_TRACK_GAIN (1/256 dB, +5 dB) as MPD does, not REPLAYGAIN_* (given +10 dB here,
/// which MPD ignores in Opus files).
@Suite struct ReplayGainPipelineTests {
    @Test(arguments: XiphFormat.allCases)
    func vorbisCommentGainHalvesTheSamples(format: XiphFormat) throws {
        let directory = try TemporaryDirectory(prefix: "jb-rg-\(format)")
        defer { directory.remove() }
        let media = EncodedMedia(directory: directory.path)
        let tags =
            format == .opus
            ? [("R128_TRACK_GAIN", "-2821"), ("REPLAYGAIN_TRACK_GAIN", "+10 dB")]
            : [("REPLAYGAIN_TRACK_GAIN", "-6.02 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.71")]
        // -2821 / 256 + 5 = -6.0195 dB.
        let scale = format == .opus ? 0.500_061_5 : 0.500_034_5
        let file = try media.encode(try media.wav("gain.wav", seconds: 1), as: format, tags: tags)
        func play(_ mode: ReplayGainMode) -> [Int16] {
            let output = directory.file("\(mode).raw")
            let h = Harness(device: "file:'\(output)',raw")
            h.pipeline.play(PlaybackItem(token: 1, path: file, replayGainMode: mode), fromMs: 0)
            #expect(h.waitForEnd())
            h.pipeline.shutdown()
            return samples(ofFile: output)
        }
        let plain = play(.off)
        let gained = play(.track)
        #expect(plain.count == gained.count && !plain.isEmpty)
        // Rounded with TPDF dither: within an LSB plus rounding of the exact product.
        let worst = zip(plain, gained).map { abs(Double($0) * scale - Double($1)) }.max() ?? 99
        #expect(worst < 1.5, "largest difference from half of the ungained output: \(worst)")
    }
}
