import Foundation
import JukeboxAudio
import JukeboxTestSupport
import Testing

/// Decodes through the whole pipeline into ALSA's `file` plugin (unpaced: its slave is `null`)
/// and compares with the real mpg123 binary.
@Suite struct DecodeThroughALSATests {
    static let mp3s = [
        "mp3/cbr128.mp3", "mp3/vbr_v2.mp3", "mp3/mpeg2_22k.mp3", "mp3/mpeg25_11k.mp3", "mp3/mono.mp3",
        "mp3/cbr_noxing.mp3", "gapless/part1.mp3", "gapless/part2.mp3", "gapless/part3.mp3",
        "tags/id3v1_latin1.mp3", "tags/id3v22.mp3", "tags/id3v23_utf16.mp3", "tags/id3v24_utf8_cjk.mp3",
        "tags/untagged.mp3", "bad/leading_junk.mp3", "bad/truncated.mp3",
    ]

    /// Plays the file at `path` to its end into ALSA's `file` PCM.
    static func pipelineDecode(_ path: String, dir: TemporaryDirectory) -> (
        samples: [Int16], events: [PipelineEvent], status: PipelineStatus
    ) {
        let out = dir.file("out.raw")
        let h = Harness(device: "file:'\(out)',raw")
        h.pipeline.setVolume(percent: 100, gain: 1.0)
        h.pipeline.play(PlaybackItem(token: 7, path: path), fromMs: 0)
        _ = h.waitForEnd()
        let status = h.pipeline.status()
        h.pipeline.shutdown()
        return (samples(ofFile: out), h.events, status)
    }

    @Test(arguments: mp3s)
    func matchesMpg123(_ file: String) throws {
        let dir = try TemporaryDirectory()
        let (got, events, status) = Self.pipelineDecode(Fixtures.media(file), dir: dir)
        let reference = try referenceDecode([Fixtures.media(file)])
        #expect(events == [.started(7), .finished(7), .endOfStream])
        #expect(got.count == reference.count, "\(file): \(got.count) vs mpg123 \(reference.count) samples")
        #expect(maxDifference(got, reference) <= 2)
        #expect(reference.count > 10000)
        print("\(file): \(got.count) samples, max diff \(maxDifference(got, reference))")
        #expect(status.state == .stopped)
    }
}
