import FLAC
import Foundation
import JukeboxTestSupport
import Testing

@Suite struct FLACDecoderTests {
    /// A FLAC file of `seconds` of sox's tone and noise, tagged with non-ASCII text, and
    /// `flac -d`'s raw decode of it (little-endian, bits/8 bytes per sample).
    static func encoded(_ media: Media, rate: Int, bits: Int, seconds: Double, extra: [String] = [])
        throws -> (flac: String, reference: [Int32])
    {
        let name = "\(rate)_\(bits)"
        let wav = try media.wav(name + ".wav", rate: rate, bits: bits, seconds: seconds)
        let flac = media.dir.file(name + ".flac")
        try media.tool(
            [
                "flac", "--silent", "-f", "-T", "TITLE=\(Tags.title)", "-T", "ARTIST=\(Tags.artist)",
                "-T", "ALBUM=\(Tags.album)", "-T", "TRACKNUMBER=3",
            ] + extra + ["-o", flac, wav])
        let raw = media.dir.file(name + ".raw")
        try media.tool([
            "flac", "--silent", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", raw, flac,
        ])
        return (flac, try Raw.signed(raw, width: bits / 8))
    }

    static func decodeAll(_ decoder: FLACDecoder) throws -> [Int32] {
        try readAll(chunkSamples: 4096 * decoder.format.channels, channels: decoder.format.channels) {
            try decoder.read(into: $0.baseAddress!, capacityFrames: $0.count / decoder.format.channels)
        }
    }

    @Test(arguments: [(44100, 16), (48000, 24)])
    func everySampleMatchesFlacDecode(rate: Int, bits: Int) throws {
        let media = try Media()
        let (flac, reference) = try Self.encoded(media, rate: rate, bits: bits, seconds: 3)
        let decoder = try FLACDecoder(path: flac)
        #expect(
            decoder.format == FLACFormat(rate: rate, channels: 2, bitsPerSample: bits, totalFrames: Int64(rate * 3)))
        let decoded = try Self.decodeAll(decoder)
        #expect(decoded.count == reference.count)
        #expect(decoded.count == rate * 3 * 2)
        #expect(decoded == reference, "first difference at \(largestDifference(decoded, reference).at)")
        #expect(decoder.recoveredErrors == 0)
    }

    @Test(arguments: [0, 1, 4095, 4096, 100_003, 131_999])
    func seekLandsOnTheExactSample(frame: Int) throws {
        let media = try Media()
        let (flac, reference) = try Self.encoded(media, rate: 44100, bits: 16, seconds: 3)
        let decoder = try FLACDecoder(path: flac)
        _ = try Self.decodeAll(decoder)  // from the end backwards, too
        try decoder.seek(toFrame: Int64(frame))
        #expect(decoder.positionFrames == Int64(frame))
        let rest = try Self.decodeAll(decoder)
        #expect(rest.count == reference.count - frame * 2)
        #expect(rest == Array(reference[(frame * 2)...]))
    }

    @Test func commentsKeepNonASCIIText() throws {
        let media = try Media()
        let (flac, _) = try Self.encoded(media, rate: 44100, bits: 16, seconds: 0.5, extra: ["-T", "EQ=a=b"])
        let decoder = try FLACDecoder(path: flac)
        #expect(
            decoder.comments.map { "\($0.key)=\($0.value)" } == [
                "TITLE=\(Tags.title)", "ARTIST=\(Tags.artist)", "ALBUM=\(Tags.album)", "TRACKNUMBER=3", "EQ=a=b",
            ])
        #expect(decoder.vendor?.hasPrefix("reference libFLAC") == true)
        #expect(decoder.cueSheet == nil)
    }

    @Test func embeddedCueSheetGivesTrackOffsetsInFrames() throws {
        let media = try Media()
        let cue = media.dir.file("album.cue")
        // CD frames are 1/75 s (588 samples at 44.1 kHz): 00:01:00 is 44,100, 00:02:37 is 109,956.
        try """
        FILE "album.wav" WAVE
          TRACK 01 AUDIO
            INDEX 01 00:00:00
          TRACK 02 AUDIO
            ISRC GBAYE0000001
            INDEX 00 00:01:00
            INDEX 01 00:01:30
          TRACK 03 AUDIO
            INDEX 01 00:02:37

        """.write(toFile: cue, atomically: true, encoding: .utf8)
        let (flac, _) = try Self.encoded(media, rate: 44100, bits: 16, seconds: 3, extra: ["--cuesheet=\(cue)"])
        let sheet = try #require(try FLACDecoder(path: flac).cueSheet)
        #expect(sheet.isCD)
        #expect(sheet.tracks.map(\.number) == [1, 2, 3, 170])
        #expect(sheet.tracks.map(\.offset) == [0, 44100, 109_956, 132_300])
        #expect(sheet.tracks[1].isrc == "GBAYE0000001")
        #expect(
            sheet.tracks[1].indices == [.init(number: 0, offset: 44100), .init(number: 1, offset: 44100 + 30 * 588)])
        #expect(sheet.tracks.allSatisfy { $0.isAudio })
    }

    @Test func aLargePictureIsNotReadWhenOpening() throws {
        let media = try Media()
        let (plain, reference) = try Self.encoded(media, rate: 44100, bits: 16, seconds: 1)
        let covered = try media.copy(plain, as: "covered.flac")
        let picture = try media.cover()
        try media.tool(["metaflac", "--import-picture-from=3|image/jpeg||600x600x24|\(picture)", covered])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: covered)[.size] as? Int)
        #expect(size > 5 << 20)

        func bytesReadOpeningAndDecoding(_ path: String) throws -> (open: Int, decode: Int, samples: [Int32]) {
            let (open, decoder) = try bytesRead { try FLACDecoder(path: path) }
            let (decode, samples) = try bytesRead { try Self.decodeAll(decoder) }
            return (open, decode, samples)
        }
        let withoutPicture = try bytesReadOpeningAndDecoding(plain)
        let withPicture = try bytesReadOpeningAndDecoding(covered)
        print(
            "opening read \(withoutPicture.open) B without the picture, \(withPicture.open) B with it; decoding \(withoutPicture.decode) B and \(withPicture.decode) B"
        )
        #expect(withPicture.open < withoutPicture.open + 16384, "opening reads past the 5 MB picture")
        #expect(withPicture.decode < withoutPicture.decode + 16384, "decoding reads the 5 MB picture")
        #expect(withPicture.samples == reference)
    }

    @Test func badInputThrowsWithThePathAndLibFLACsText() throws {
        let media = try Media()
        let (flac, _) = try Self.encoded(media, rate: 44100, bits: 16, seconds: 1)
        for path in try media.impostors(ext: "flac") {
            expectError(FLACError.self, for: path) { _ = try FLACDecoder(path: path) }
        }
        // Cut inside the audio: the header is whole, so it opens and plays as far as it decodes.
        let cut = try media.truncated(flac, to: 0.6, name: "cut.flac")
        let decoder = try FLACDecoder(path: cut)
        let buffer = UnsafeMutablePointer<Int32>.allocate(capacity: 8192)
        defer { buffer.deallocate() }
        let error = #expect(throws: FLACError.self) {
            while try decoder.read(into: buffer, capacityFrames: 4096) > 0 {}
        }
        print(error?.description ?? "no error")
        #expect(error?.path == cut)
        #expect(error?.message.hasPrefix("the stream ended at frame \(decoder.positionFrames) of 44100") == true)
        #expect(decoder.positionFrames > 20000 && decoder.positionFrames < 44100)
    }
}
