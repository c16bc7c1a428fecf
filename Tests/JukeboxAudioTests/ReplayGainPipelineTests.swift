import Foundation
import JukeboxAudio
import JukeboxCore
import JukeboxTestSupport
import Testing

/// ReplayGain from Vorbis comments: each Xiph format played once with ReplayGain off and once
/// in track mode through ALSA's file PCM; the second is the first at half amplitude.
@Suite struct ReplayGainPipelineTests {
    @Test(arguments: XiphFormat.allCases)
    func vorbisCommentGainHalvesTheSamples(format: XiphFormat) throws {
        let directory = try TemporaryDirectory(prefix: "jb-rg-\(format)")
        defer { directory.remove() }
        let media = EncodedMedia(directory: directory.path)
        let file = try media.encode(
            try media.wav("gain.wav", seconds: 1), as: format,
            tags: [("REPLAYGAIN_TRACK_GAIN", "-6.02 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.71")])
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
        let worst = zip(plain, gained).map { abs((Double($0) * 0.50003).rounded() - Double($1)) }.max() ?? 99
        #expect(worst <= 1, "largest difference from half of the ungained output: \(worst)")
    }
}
