import Foundation
import JukeboxTestSupport
import Testing
import Vorbis

@Suite struct VorbisDecoderTests {
    /// An Ogg Vorbis file (oggenc -q 4) of `seconds` of sox's tone and noise, tagged with
    /// non-ASCII text, and oggdec's raw S16LE decode of it.
    static func encoded(_ media: Media, rate: Int, bits: Int = 16, seconds: Double, extra: [String] = [])
        throws -> (ogg: String, reference: [Int16])
    {
        let wav = try media.wav("\(rate).wav", rate: rate, bits: bits, seconds: seconds)
        let ogg = media.dir.file("\(rate).ogg")
        try media.tool(
            ["oggenc", "-Q", "-q", "4", "-t", Tags.title, "-a", Tags.artist, "-l", Tags.album, "-N", "3"] + extra + [
                "-o", ogg, wav,
            ])
        let raw = media.dir.file("\(rate).raw")
        try media.tool(["oggdec", "-Q", "-R", "-b", "16", "-e", "0", "-s", "1", "-o", raw, ogg])
        return (ogg, try Raw.int16(raw))
    }

    static func decodeS16(_ decoder: VorbisDecoder) throws -> [Int16] {
        try readAll(chunkSamples: 4096, channels: 2) { try decoder.read(into: $0) }
    }

    /// libvorbisfile's ov_read rounds and clips exactly as oggdec does (oggdec calls it), so
    /// 16-bit output is compared for equality.
    @Test(arguments: [44100, 48000])
    func lengthAndSamplesMatchOggdec(rate: Int) throws {
        let media = try Media()
        let (ogg, reference) = try Self.encoded(media, rate: rate, seconds: 3)
        let decoder = try VorbisDecoder(path: ogg)
        #expect(decoder.format == VorbisFormat(rate: rate, channels: 2))
        #expect(decoder.totalFrames == Int64(rate * 3), "the last granule position is the source's length")
        let decoded = try Self.decodeS16(decoder)
        #expect(reference.count == rate * 3 * 2)
        #expect(decoded.count == reference.count)
        #expect(largestDifference(decoded, reference).difference == 0)
        #expect(decoder.holes == 0)
    }

    /// Float output is what ov_read rounds: scaled by 32768 it lies within half a step of
    /// oggdec's sample, or beyond full scale where oggdec clipped.
    @Test func floatOutputRoundsToOggdecsSamples() throws {
        let media = try Media()
        let (ogg, reference) = try Self.encoded(media, rate: 44100, seconds: 2)
        let decoder = try VorbisDecoder(path: ogg)
        let decoded: [Float] = try readAll(chunkSamples: 4096, channels: 2) { try decoder.read(into: $0) }
        #expect(decoded.count == reference.count)
        let misses = zip(decoded, reference).filter { sample, reference in
            let scaled = Double(sample) * 32768
            let clipped = scaled >= 32767 || scaled <= -32768
            return !clipped && abs(scaled - Double(reference)) > 0.5
        }
        #expect(misses.isEmpty)
    }

    @Test(arguments: [0, 1, 1023, 50_001, 88_199])
    func seekLandsOnTheExactSample(frame: Int) throws {
        let media = try Media()
        let (ogg, reference) = try Self.encoded(media, rate: 44100, seconds: 2)
        let decoder = try VorbisDecoder(path: ogg)
        _ = try Self.decodeS16(decoder)
        try decoder.seek(toFrame: Int64(frame))
        #expect(decoder.positionFrames == Int64(frame))
        let rest = try Self.decodeS16(decoder)
        #expect(rest.count == reference.count - frame * 2)
        #expect(largestDifference(rest, Array(reference[(frame * 2)...])).difference == 0)
    }

    /// Two files one after the other make a chained stream; here the second link has
    /// another rate and channel count. oggdec refuses such a chain, so each link is compared
    /// with oggdec's decode of the file it came from. (libvorbisfile 1.3.7 skips a first link
    /// of under about 8 kB, e.g. 3 s of a pure sine: it starts decoding at the second.)
    @Test func chainedLinksChangeFormatBetweenReads() throws {
        let media = try Media()
        var links: [(file: String, reference: [Int16])] = []
        for (rate, channels, seconds) in [(22050, 2, 2.0), (44100, 1, 1.0)] {
            let wav = try media.wav("\(rate).wav", rate: rate, bits: 16, seconds: seconds, channels: channels)
            let ogg = media.dir.file("\(rate).ogg")
            let raw = media.dir.file("\(rate).raw")
            try media.tool(["oggenc", "-Q", "-o", ogg, wav])
            try media.tool(["oggdec", "-Q", "-R", "-o", raw, ogg])
            links.append((ogg, try Raw.int16(raw)))
        }
        let chain = media.dir.file("chain.ogg")
        try (Data(try Raw.bytes(links[0].file)) + Data(try Raw.bytes(links[1].file))).write(
            to: URL(fileURLWithPath: chain))

        let decoder = try VorbisDecoder(path: chain)
        #expect(decoder.format == VorbisFormat(rate: 22050, channels: 2))
        #expect(decoder.maxChannels == 2)
        #expect(decoder.totalFrames == Int64(44100 + 44100))
        var decoded: [VorbisFormat: [Int16]] = [:]
        var order: [VorbisFormat] = []
        var buffer = [Int16](repeating: 0, count: 4096)
        while true {
            let frames = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            if frames == 0 { break }
            if order.last != decoder.format { order.append(decoder.format) }
            decoded[decoder.format, default: []] += buffer[0..<frames * decoder.format.channels]
        }
        // A missing link fails the test, not the whole run (an index out of range would crash it).
        try #require(order == [VorbisFormat(rate: 22050, channels: 2), VorbisFormat(rate: 44100, channels: 1)])
        #expect(decoded[order[0]] == links[0].reference)
        #expect(decoded[order[1]] == links[1].reference)
    }

    /// A cover in the comment header (METADATA_BLOCK_PICTURE: a FLAC picture block in
    /// base64) is skipped by offset: libvorbisfile is fed the header pages without it.
    @Test func aLargePictureIsNotReadWhenOpening() throws {
        let media = try Media()
        let (plain, _) = try Self.encoded(media, rate: 44100, seconds: 3)
        let covered = try media.copy(plain, as: "covered.ogg")
        let jpeg = try Raw.bytes(try media.cover())
        func be32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
        let mime = Array("image/jpeg".utf8)
        let block =
            be32(3) + be32(mime.count) + mime + be32(0) + be32(600) + be32(600) + be32(24) + be32(0) + be32(jpeg.count)
            + jpeg
        let tags = media.dir.file("tags.txt")
        try ("METADATA_BLOCK_PICTURE=" + Data(block).base64EncodedString() + "\n").write(
            toFile: tags, atomically: true, encoding: .utf8)
        try media.tool(["vorbiscomment", "-a", "-c", tags, covered])
        let raw = media.dir.file("covered.raw")
        try media.tool(["oggdec", "-Q", "-R", "-o", raw, covered])
        let reference = try Raw.int16(raw)

        let (plainBytes, _) = try bytesRead { try VorbisDecoder(path: plain) }
        let (coveredBytes, decoder) = try bytesRead { try VorbisDecoder(path: covered) }
        print("opening read \(plainBytes) B without the cover, \(coveredBytes) B with it")
        #expect(coveredBytes < plainBytes + 65536, "opening reads the 7 MB comment")
        #expect(decoder.skippedComments == 1)
        #expect(decoder.comments.map(\.key) == ["title", "artist", "album", "tracknumber"])
        #expect(decoder.totalFrames == Int64(reference.count / 2))
        #expect(try Self.decodeS16(decoder) == reference)
        try decoder.seek(toFrame: 77_777)
        #expect(try Self.decodeS16(decoder) == Array(reference[(77_777 * 2)...]))
    }

    @Test func commentsKeepNonASCIIText() throws {
        let media = try Media()
        let (ogg, _) = try Self.encoded(media, rate: 44100, seconds: 0.5, extra: ["-c", "EQ=a=b"])
        let decoder = try VorbisDecoder(path: ogg)
        #expect(
            decoder.comments.map { "\($0.key)=\($0.value)" } == [
                "EQ=a=b", "title=\(Tags.title)", "artist=\(Tags.artist)", "album=\(Tags.album)", "tracknumber=3",
            ])
        #expect(decoder.vendor.hasPrefix("Xiph.Org libVorbis"))
    }

    @Test func badInputThrowsWithThePathAndTheLibrarysText() throws {
        let media = try Media()
        let (ogg, _) = try Self.encoded(media, rate: 44100, seconds: 1)
        let headersOnly = try media.truncated(ogg, to: 0.002, name: "headers-cut.ogg")
        for path in try media.impostors(ext: "ogg") + [headersOnly] {
            expectError(VorbisError.self, for: path) { _ = try VorbisDecoder(path: path) }
        }
        // Cut inside the audio: the length is what the last whole page says, and decoding
        // gives exactly that much.
        let cut = try media.truncated(ogg, to: 0.6, name: "cut.ogg")
        let decoder = try VorbisDecoder(path: cut)
        #expect((10001..<44100).contains(decoder.totalFrames ?? 0))
        #expect(Int64(try Self.decodeS16(decoder).count / 2) == decoder.totalFrames)
    }
}
