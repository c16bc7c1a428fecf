import Foundation
import JukeboxTestSupport
import Opus
import Testing

@Suite struct OpusDecoderTests {
    /// An Opus file (opusenc, 96 kbit/s) of `seconds` of sox's tone and noise, tagged with
    /// non-ASCII text and an R128 track gain, and opusdec's raw 48 kHz decodes of it:
    /// S16LE undithered and 32-bit float.
    static func encoded(_ media: Media, rate: Int, bits: Int, seconds: Double)
        throws -> (opus: String, s16: [Int16], float: [Float])
    {
        let name = "\(rate)_\(bits)"
        let wav = try media.wav(name + ".wav", rate: rate, bits: bits, seconds: seconds)
        let opus = media.dir.file(name + ".opus")
        try media.tool([
            "opusenc", "--quiet", "--bitrate", "96", "--title", Tags.title, "--artist", Tags.artist, "--album",
            Tags.album, "--comment", "R128_TRACK_GAIN=-1234", "--comment", "EQ=a=b", wav, opus,
        ])
        let s16 = media.dir.file(name + ".s16")
        let float = media.dir.file(name + ".f32")
        try media.tool(["opusdec", "--quiet", "--rate", "48000", "--no-dither", opus, s16])
        try media.tool(["opusdec", "--quiet", "--rate", "48000", "--float", opus, float])
        return (opus, try Raw.int16(s16), try Raw.float(float))
    }

    static func decodeS16(_ decoder: OpusDecoder) throws -> [Int16] {
        decoder.setDither(false)
        return try readAll(chunkSamples: 4096, channels: 2) { try decoder.read(into: $0) }
    }

    /// From 48 kHz the length is the source's exactly (pre-skip dropped, the end trimmed to
    /// the last granule position); from 44.1 kHz opusenc resamples, and the length is what
    /// opusdec gives. Both decode with libopus's float decoder: the float output equals
    /// opusdec's, and undithered 16-bit output rounds it the same way (lrintf of x·32768).
    @Test(arguments: [(48000, 24), (44100, 16)])
    func lengthAndSamplesMatchOpusdec(rate: Int, bits: Int) throws {
        let media = try Media()
        let (opus, s16, float) = try Self.encoded(media, rate: rate, bits: bits, seconds: 3)
        let decoder = try OpusDecoder(path: opus)
        #expect(decoder.channels == 2)
        #expect(decoder.totalFrames == Int64(s16.count / 2))
        if rate == 48000 { #expect(decoder.totalFrames == 144_000) }
        let decoded = try Self.decodeS16(decoder)
        #expect(decoded.count == s16.count)
        #expect(largestDifference(decoded, s16).difference == 0)

        let again = try OpusDecoder(path: opus)
        let floats: [Float] = try readAll(chunkSamples: 4096, channels: 2) { try again.read(into: $0) }
        #expect(floats == float)
    }

    /// Opus decodes each packet from the decoder state its predecessors left (CELT's band
    /// energies are predicted from the previous frame). libopusfile's seek pre-rolls 80 ms
    /// (RFC 7845, 4.6): the position is exact, but the first samples differ from a decode
    /// from the start until the state has converged: bit for bit after about 0.6 s here.
    @Test(arguments: [0, 1, 311, 960, 48_000, 77_777, 100_000])
    func seekLandsOnTheExactSample(frame: Int) throws {
        let media = try Media()
        let (opus, _, float) = try Self.encoded(media, rate: 48000, bits: 16, seconds: 4)
        let decoder = try OpusDecoder(path: opus)
        _ = try Self.decodeS16(decoder)
        try decoder.seek(toFrame: Int64(frame))
        #expect(decoder.positionFrames == Int64(frame))
        let rest: [Float] = try readAll(chunkSamples: 4096, channels: 2) { try decoder.read(into: $0) }
        let reference = Array(float[(frame * 2)...])
        #expect(rest.count == reference.count)
        let differences = zip(rest, reference).map { abs($0 - $1) }
        let converged = 2 * 48000  // 1 s of stereo samples
        let early = differences.prefix(converged).max() ?? 0
        let last = differences.lastIndex { $0 != 0 }.map { Double($0 / 2) / 48000 } ?? 0
        print(
            "seek to \(frame): largest difference \(early) (\(early * 32768) steps of 16 bits), the last \(last) s after it"
        )
        #expect(differences.suffix(from: converged).allSatisfy { $0 == 0 })
    }

    /// Two files one after the other make a chained stream; here the second link has
    /// another channel count. opusdec would mix the chain down to stereo, so each link is
    /// compared with opusdec's decode of the file it came from.
    @Test func chainedLinksChangeChannelsBetweenReads() throws {
        let media = try Media()
        var links: [(file: String, reference: [Int16])] = []
        for (channels, seconds) in [(1, 1.0), (2, 1.5)] {
            let wav = try media.wav("\(channels).wav", rate: 48000, bits: 16, seconds: seconds, channels: channels)
            let opus = media.dir.file("\(channels).opus")
            let raw = media.dir.file("\(channels).raw")
            try media.tool(["opusenc", "--quiet", wav, opus])
            try media.tool(["opusdec", "--quiet", "--rate", "48000", "--no-dither", opus, raw])
            links.append((opus, try Raw.int16(raw)))
        }
        let chain = media.dir.file("chain.opus")
        try (Data(try Raw.bytes(links[0].file)) + Data(try Raw.bytes(links[1].file))).write(
            to: URL(fileURLWithPath: chain))

        let decoder = try OpusDecoder(path: chain)
        decoder.setDither(false)
        #expect(decoder.channels == 1)
        #expect(decoder.totalFrames == Int64(48000 + 72000))
        var decoded: [[Int16]] = [[], []]
        var buffer = [Int16](repeating: 0, count: 4096)
        while true {
            let frames = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            if frames == 0 { break }
            decoded[decoder.channels - 1] += buffer[0..<frames * decoder.channels]
        }
        #expect(decoded[0] == links[0].reference)
        #expect(decoded[1] == links[1].reference)
    }

    /// A cover in OpusTags (opusenc --picture) is skipped by offset: libopusfile is fed the
    /// header pages without it.
    @Test func aLargePictureIsNotReadWhenOpening() throws {
        let media = try Media()
        let wav = try media.wav("48.wav", rate: 48000, bits: 16, seconds: 3)
        let (plain, covered) = (media.dir.file("plain.opus"), media.dir.file("covered.opus"))
        let tags = ["--title", Tags.title, "--comment", "R128_TRACK_GAIN=-1234"]
        try media.tool(["opusenc", "--quiet"] + tags + [wav, plain])
        try media.tool(
            ["opusenc", "--quiet", "--picture", "3|image/jpeg||600x600x24|\(try media.cover())"] + tags + [
                wav, covered,
            ])
        let raw = media.dir.file("covered.raw")
        try media.tool(["opusdec", "--quiet", "--rate", "48000", "--no-dither", covered, raw])
        let reference = try Raw.int16(raw)

        let (plainBytes, _) = try bytesRead { try OpusDecoder(path: plain) }
        let (coveredBytes, decoder) = try bytesRead { try OpusDecoder(path: covered) }
        print("opening read \(plainBytes) B without the cover, \(coveredBytes) B with it")
        #expect(coveredBytes < plainBytes + 65536, "opening reads the 7 MB comment")
        #expect(decoder.skippedComments == 1)
        #expect(decoder.comments.contains { $0.key == "title" && $0.value == Tags.title })
        #expect(decoder.gains.track == -1234.0 / 256)
        #expect(decoder.totalFrames == 144_000)
        #expect(try Self.decodeS16(decoder) == reference)
    }

    @Test func tagsAndGains() throws {
        let media = try Media()
        let (opus, _, _) = try Self.encoded(media, rate: 48000, bits: 16, seconds: 0.5)
        let decoder = try OpusDecoder(path: opus)
        let tags = decoder.comments.map { "\($0.key)=\($0.value)" }
        #expect(tags.contains("title=\(Tags.title)"))
        #expect(tags.contains("artist=\(Tags.artist)"))
        #expect(tags.contains("album=\(Tags.album)"))
        #expect(tags.contains("EQ=a=b"))
        #expect(decoder.vendor.hasPrefix("libopus"))
        #expect(decoder.gains == OpusGains(header: 0, track: -1234.0 / 256, album: nil))
    }

    @Test func badInputThrowsWithThePathAndTheLibrarysText() throws {
        let media = try Media()
        // opusenc puts up to 1 s in a page: 3 s leave whole pages when cut at 60 %.
        let (opus, _, _) = try Self.encoded(media, rate: 48000, bits: 16, seconds: 3)
        let headersOnly = try media.truncated(opus, to: 0.002, name: "headers-cut.opus")
        for path in try media.impostors(ext: "opus") + [headersOnly] {
            expectError(OpusError.self, for: path) { _ = try OpusDecoder(path: path) }
        }
        // Cut inside the audio: the length is what the last whole page says, and decoding
        // gives exactly that much.
        let cut = try media.truncated(opus, to: 0.6, name: "cut.opus")
        let decoder = try OpusDecoder(path: cut)
        #expect((20001..<144_000).contains(decoder.totalFrames ?? 0))
        #expect(Int64(try Self.decodeS16(decoder).count / 2) == decoder.totalFrames)
    }
}
