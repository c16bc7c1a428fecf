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

    /// A muted output (MPD's `disableoutput`) writes silence for the whole track: as many
    /// frames as unmuted, so the clock and the track's end come as before, and not one
    /// sample sounds, not even a ramp at the start; unmuted again, it plays the music.
    @Test func aMutedOutputPlaysSilenceForTheTracksLength() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("out.raw")
        let h = Harness(device: "file:'\(out)',raw")
        h.pipeline.setMuted(true)
        h.pipeline.play(PlaybackItem(token: 1, path: Fixtures.media("mp3/cbr128.mp3")), fromMs: 0)
        #expect(h.waitForEnd())
        let muted = samples(ofFile: out)
        h.pipeline.setMuted(false)
        h.pipeline.play(PlaybackItem(token: 2, path: Fixtures.media("mp3/cbr128.mp3")), fromMs: 0)
        #expect(h.pump { $0.filter { $0 == .endOfStream }.count == 2 })
        h.pipeline.shutdown()
        let reference = try referenceDecode([Fixtures.media("mp3/cbr128.mp3")])
        #expect(h.events == [.started(1), .finished(1), .endOfStream, .started(2), .finished(2), .endOfStream])
        #expect(muted.count == reference.count)
        #expect(muted.allSatisfy { $0 == 0 })
        let unmuted = Array(samples(ofFile: out).dropFirst(muted.count))
        #expect(unmuted.count == reference.count)
        // The play came with the unmute: its first 5 ms ramp up from silence.
        let ramp = 2 * 44_100 / 200
        #expect(maxDifference(Array(unmuted.dropFirst(ramp)), Array(reference.dropFirst(ramp))) <= 2)
    }
}
