import ALSA
import Foundation
import JukeboxAudio
import JukeboxTestSupport
import Testing

@Suite struct ResampleTests {
    /// Three gapless 44.1 kHz parts on a 48 kHz-only device: resampled by libsoxr in
    /// jb-decode, one device open, the ideal length within a frame, and no click at the joins.
    /// The device is paced (as a real DAC), so the third part is set while the second plays,
    /// as the daemon sets it.
    @Test func gaplessPartsAreResampledForA48kDevice() throws {
        let parts = (1...3).map { Fixtures.media("gapless/part\($0).mp3") }
        let reference = try referenceDecode(parts)
        let directory = try TemporaryDirectory(prefix: "jb-resample")
        defer { directory.remove() }
        let ideal = reference.count / 2 * 48000 / 44100
        let played = try playAsQueue(parts, rate: 48000, expectedFrames: ideal) { $0.rate = 48000 }
        #expect(played.ended)
        #expect(played.events == QueuePlayback.expectedEvents(parts: 3), "\(played.events)")
        #expect(played.segmentOffsets == [0], "reopened: the joins were not gapless")
        let got = played.samples
        try #require(abs(got.count / 2 - ideal) <= 1, "\(got.count / 2) frames, ideal \(ideal)")

        // The largest step between neighbouring samples at a join against the largest anywhere
        // else: a click is a step the music does not have.
        let joins = (1...2).map { reference.count / 2 / 3 * $0 * 48000 / 44100 }
        func step(_ frame: Int) -> Int {
            (0..<2).map { abs(Int(got[(frame + 1) * 2 + $0]) - Int(got[frame * 2 + $0])) }.max()!
        }
        let atJoins = joins.flatMap { ($0 - 32)..<($0 + 32) }.map(step).max()!
        let elsewhere = (0..<(got.count / 2 - 1)).filter { f in joins.allSatisfy { abs(f - $0) >= 32 } }.map(step)
            .max()!
        // And against sox resampling the whole decoded stream in one go (libsoxr's code, no
        // dither): near the joins as close as anywhere else.
        let joined = directory.file("joined.raw")
        #expect(FileManager.default.createFile(atPath: joined, contents: reference.withUnsafeBytes { Data($0) }))
        let raw = ["-t", "raw", "-e", "signed", "-b", "16", "-c", "2"]
        let whole = samples(
            of: try run(["sox", "-D"] + raw + ["-r", "44100", joined] + raw + ["-r", "48000", "-", "rate", "-h"]).stdout
        )
        func apart(_ range: Range<Int>) -> Int {
            range.map { abs(Int(got[$0]) - Int(whole[$0])) }.max()!
        }
        let nearJoins = joins.map { apart(($0 - 2048) * 2..<($0 + 2048) * 2) }.max()!
        let overall = apart(0..<min(got.count, whole.count))
        print(
            "resampled joins: largest step \(atJoins) at the joins, \(elsewhere) elsewhere; "
                + "from sox's one-go resampling \(nearJoins) near the joins, \(overall) overall")
        #expect(atJoins <= elsewhere)
        #expect(nearJoins <= 2 && overall <= 2)
    }

    /// Starting 1 s into a 44.1 kHz file on the 48 kHz-only device: the decoder seeks to
    /// source frame 44100 (not 48000) and the rest comes out as sox resamples the same stretch.
    @Test func startingPastTheBeginningSeeksInSourceFrames() throws {
        // A WAV of the MP3's decode: its seek is exact, so what differs is the resampling.
        let reference = try referenceDecode([Fixtures.media("mp3/cbr128.mp3")])
        let directory = try TemporaryDirectory(prefix: "jb-resample-seek")
        defer { directory.remove() }
        let file = directory.file("source.wav")
        writeWAV(file, rate: 44100, channels: 2, samples: reference)
        let output = directory.file("out.raw")
        let h = Harness(device: "file:'\(output)',raw", sink: RestrictedSink { $0.rate = 48000 })
        h.pipeline.play(PlaybackItem(token: 1, path: file), fromMs: 1000)
        #expect(h.waitForEnd())
        h.pipeline.shutdown()
        let got = samples(ofFile: output)
        let rest = directory.file("rest.raw")
        #expect(
            FileManager.default.createFile(
                atPath: rest, contents: reference.dropFirst(44100 * 2).withUnsafeBytes { Data($0) }))
        let raw = ["-t", "raw", "-e", "signed", "-b", "16", "-c", "2"]
        let expected = samples(
            of: try run(["sox", "-D"] + raw + ["-r", "44100", rest] + raw + ["-r", "48000", "-", "rate", "-h"]).stdout)
        #expect(abs(got.count - expected.count) <= 2, "\(got.count / 2) frames, sox \(expected.count / 2)")
        // The first samples differ a little (7 LSB): sox's rate effect starts the stream its
        // own way; after 32 frames both are libsoxr on the same samples.
        let differences = zip(got, expected).map { abs(Int($0) - Int($1)) }
        #expect((differences.dropFirst(64).max() ?? 99) <= 2)
        #expect((differences.max() ?? 99) <= 16)
    }
}
