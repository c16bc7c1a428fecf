import Foundation
import JukeboxAudio
import JukeboxTestSupport
import Testing

/// AAC and ALAC in MP4 through the whole pipeline into ALSA's `file` plugin, against ffmpeg
/// on files ffmpeg makes from sox's tone and noise.
@Suite struct MP4PlaybackTests {
    static let codecs = ["alac": ["-c:a", "alac"], "aac": ["-c:a", "aac", "-b:a", "128k"]]

    static func encode(_ wav: String, _ codec: String, as path: String) throws -> String {
        try EncodedMedia.tool(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav] + codecs[codec]! + [path])
        return path
    }

    /// ffmpeg's S16 decode of `file`, cut at `frames` (ffmpeg plays AAC's end padding).
    static func ffmpegDecode(_ file: String, frames: Int) throws -> [Int16] {
        let result = try EncodedMedia.tool(["ffmpeg", "-nostdin", "-v", "error", "-i", file, "-f", "s16le", "-"])
        return Array(samples(of: result.stdout).prefix(frames * 2))
    }

    /// The exact length (the source's: 3 s) and ffmpeg's samples; ALAC is the source itself.
    @Test(arguments: ["alac", "aac"])
    func decodesAsFFmpegDoes(codec: String) throws {
        let dir = try TemporaryDirectory()
        let source = try EncodedMedia(directory: dir.path).wav("source.wav", seconds: 3)
        let m4a = try Self.encode(source, codec, as: dir.file("song.m4a"))
        let (got, events, status) = DecodeThroughALSATests.pipelineDecode(m4a, dir: dir)
        #expect(events == [.started(7), .finished(7), .endOfStream])
        #expect(status.state == .stopped)
        let reference = try Self.ffmpegDecode(m4a, frames: 132_300)
        #expect(got.count == 132_300 * 2)
        #expect(maxDifference(got, reference) == 0)
        if codec == "alac" { #expect(got == Array(samples(ofFile: source).suffix(132_300 * 2))) }
    }

    /// Three parts of one source, cut at frames that are no multiple of AAC's 1024, played
    /// as a queue through a paced virtual DAC: each part at its exact length with no gap;
    /// ALAC's joins give the source back bit for bit.
    @Test(arguments: ["alac", "aac"])
    func threePartsJoinSampleExactly(codec: String) throws {
        let dir = try TemporaryDirectory()
        let source = try EncodedMedia(directory: dir.path).wav("source.wav", seconds: 3)
        let cuts = [0, 57_330, 91_287, 132_300]
        var parts: [String] = []
        var reference: [Int16] = []
        for k in 0..<3 {
            let wav = dir.file("part\(k).wav")
            try EncodedMedia.tool(["sox", source, wav, "trim", "\(cuts[k])s", "\(cuts[k + 1] - cuts[k])s"])
            parts.append(try Self.encode(wav, codec, as: dir.file("part\(k).m4a")))
            reference += try Self.ffmpegDecode(parts[k], frames: cuts[k + 1] - cuts[k])
        }
        let played = try playAsQueue(parts, rate: 44100, expectedFrames: 132_300)
        #expect(played.ended)
        #expect(played.events == QueuePlayback.expectedEvents(parts: 3))
        let got = played.samples
        #expect(got.count == 132_300 * 2)
        #expect(maxDifference(got, reference) == 0)
        if codec == "alac" { #expect(got == Array(samples(ofFile: source).suffix(132_300 * 2))) }
        #expect(played.segmentOffsets == [0], "the PCM must stay open across gapless joins")
    }

    /// A seek lands on the exact frame (as a resume does): the rest equals ffmpeg's samples
    /// from there (ALAC; AAC within the noise a seek cannot restore, see MP4AudioDecoder).
    @Test func seekPlaysOnFromTheExactFrame() throws {
        let dir = try TemporaryDirectory()
        let source = try EncodedMedia(directory: dir.path).wav("source.wav", seconds: 3)
        let m4a = try Self.encode(source, "alac", as: dir.file("song.m4a"))
        let out = dir.file("out.raw")
        let h = Harness(device: "file:'\(out)',raw")
        h.pipeline.setVolume(percent: 100, gain: 1.0)
        h.pipeline.play(PlaybackItem(token: 7, path: m4a), fromMs: 1500)
        #expect(h.waitForEnd())
        h.pipeline.shutdown()
        let got = samples(ofFile: out)
        let reference = try Self.ffmpegDecode(m4a, frames: 132_300)
        #expect(got == Array(reference.suffix(from: 66_150 * 2)))
    }
}
