import Foundation
import JukeboxAudio
import JukeboxTestSupport
import Testing

/// Sources of more than two channels play mixed down to stereo: through the whole pipeline
/// into ALSA's `file` PCM, compared with sox's `remix` of the same matrix applied to the
/// reference decoder's output (the source WAV itself for WAV and FLAC; `oggdec`, `opusdec`
/// and `ffmpeg` writing WAVE-ordered WAV for Vorbis, Opus and AAC), at the exact length.
@Suite struct DownmixTests {
    enum Source: String, CaseIterable {
        case wav6, flac6, vorbis3, opus6, aac6
        var channels: Int { self == .vorbis3 ? 3 : 6 }
        /// Opus always decodes at 48 kHz.
        var rate: Int { self == .opus6 ? 48000 : 44100 }
    }

    /// sox's `remix` arguments for BS.775's matrix in WAVE order, normalised as
    /// `StereoDownmix` is: 5.1 (L R C LFE Ls Rs), 3.0 (L R C).
    static func remix(channels: Int) -> [String] {
        let half = 0.5.squareRoot()
        if channels == 3 {
            let n = 1 + half
            return ["remix", "1v\(1 / n),3v\(half / n)", "2v\(1 / n),3v\(half / n)"]
        }
        let n = 1 + 2 * half
        return ["remix", "1v\(1 / n),3v\(half / n),5v\(half / n)", "2v\(1 / n),3v\(half / n),6v\(half / n)"]
    }

    @Test(arguments: Source.allCases)
    func playsMixedDownToStereo(_ source: Source) throws {
        let dir = try TemporaryDirectory()
        let media = EncodedMedia(directory: dir.path)
        // A tone of its own on every channel (a channel in the wrong place shows), loud enough
        // that the mix would clip without the normalisation.
        let wav = dir.file("source.wav")
        let tones = [300, 500, 700, 900, 1100, 1300].prefix(source.channels).flatMap { ["sine", "\($0)"] }
        try EncodedMedia.tool(
            ["sox", "-R", "-n", "-r", "\(source.rate)", "-b", "16", "-c", "\(source.channels)", wav, "synth", "1.5"]
                + tones
                + ["gain", "-0.5"])
        let file: String
        let decoded: String
        switch source {
        case .wav6:
            file = wav
            decoded = wav
        case .flac6:
            file = try media.encode(wav, as: .flac)
            decoded = wav
        case .vorbis3:
            file = try media.encode(wav, as: .vorbis)
            decoded = dir.file("oggdec.wav")
            try EncodedMedia.tool(["oggdec", "-Q", "-o", decoded, file])
        case .opus6:
            file = try media.encode(wav, as: .opus)
            decoded = dir.file("opusdec.wav")
            try EncodedMedia.tool(["opusdec", "--quiet", "--no-dither", file, decoded])
        case .aac6:
            file = dir.file("source.m4a")
            try EncodedMedia.tool(["ffmpeg", "-nostdin", "-v", "error", "-i", wav, "-c:a", "aac", "-b:a", "256k", file])
            decoded = dir.file("ffmpeg.wav")
            try EncodedMedia.tool(["ffmpeg", "-nostdin", "-v", "error", "-i", file, decoded])
        }
        let reference = dir.file("reference.raw")
        try EncodedMedia.tool(
            ["sox", "-D", decoded, "-t", "raw", "-e", "signed", "-b", "16", reference]
                + Self.remix(channels: source.channels))
        // ffmpeg plays AAC's end padding: the exact length is the source's.
        let expected = Array(samples(ofFile: reference).prefix(source.rate * 3 / 2 * 2))
        let (got, events, status) = DecodeThroughALSATests.pipelineDecode(file, dir: dir)
        #expect(events == [.started(7), .finished(7), .endOfStream])
        #expect(status.format == AudioFormat(rate: source.rate, channels: 2))
        #expect(expected.count == source.rate * 3 / 2 * 2)
        #expect(got.count == expected.count, "\(source): \(got.count) vs \(expected.count) samples")
        #expect(maxDifference(got, expected) <= 1, "\(source)")
        #expect((got.map { abs(Int($0)) }.max() ?? 0) > 16000, "\(source): the mix is there")
    }
}
