import Foundation
import JukeboxAudio
import JukeboxTestSupport
import Testing

/// `WAVDecoder` reads the file 64 KiB at a time and hands it out in the sizes asked for: odd
/// read sizes, reads across its 64 KiB refills and seeks into and out of what it holds give
/// the file's samples exactly (sox's noise, read back from the data chunk's bytes).
@Suite struct WAVReadAheadTests {
    /// The file's samples as its data chunk holds them (the bytes after "data" and its size),
    /// in 32 bits left-justified.
    static func samples(_ path: String, bits: Int) throws -> [Int32] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let data = try #require((12..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("data".utf8) })
        let width = bits / 8
        return stride(from: data + 8, to: bytes.count - width + 1, by: width).map { at in
            var v: UInt32 = 0
            for k in 0..<width { v |= UInt32(bytes[at + k]) << (8 * (4 - width + k)) }
            return Int32(bitPattern: v)
        }
    }

    static func noise(_ dir: TemporaryDirectory, bits: Int, channels: Int) throws -> String {
        let wav = dir.file("noise\(bits).wav")
        try EncodedMedia.tool([
            "sox", "-R", "-n", "-r", "44100", "-b", "\(bits)", "-c", "\(channels)", wav, "synth", "1.3", "whitenoise",
        ])
        return wav
    }

    @Test func sixteenBitReadsOfAnySizeGiveTheFileExactly() throws {
        let dir = try TemporaryDirectory()
        let wav = try Self.noise(dir, bits: 16, channels: 2)
        let expected = try Self.samples(wav, bits: 16).map { Int16(truncatingIfNeeded: $0 >> 16) }
        let decoder = try WAVDecoder(path: wav)
        var got: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 2 * 20000)
        let sizes = [1, 2047, 2048, 16383, 16384, 16385, 20000, 777]
        var index = 0
        while true {
            let result = try buffer.withUnsafeMutableBufferPointer {
                try decoder.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<2 * sizes[index % sizes.count]]))
            }
            got += buffer[0..<2 * result.frames]
            index += 1
            if result.isEnd { break }
        }
        #expect(got.count == expected.count)
        #expect(got.indices.first { got[$0] != expected[$0] } == nil)

        // Back into the block it holds, then past it.
        for frame in [1000, 40000, 39000, 52000] {
            try decoder.seek(toFrame: Int64(frame))
            let result = try buffer.withUnsafeMutableBufferPointer {
                try decoder.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<10000]))
            }
            #expect(result.frames == 5000)
            #expect(Array(buffer[0..<10000]) == Array(expected[2 * frame..<2 * frame + 10000]), "at \(frame)")
        }
    }

    @Test func twentyFourBitReadsWideGiveTheFileExactly() throws {
        let dir = try TemporaryDirectory()
        let wav = try Self.noise(dir, bits: 24, channels: 1)
        let expected = try Self.samples(wav, bits: 24)
        let decoder = try WAVDecoder(path: wav)
        var got: [Int32] = []
        var buffer = [Int32](repeating: 0, count: 30000)
        while true {
            let result = try buffer.withUnsafeMutableBufferPointer {
                try decoder.read(wide: UnsafeMutableBufferPointer(rebasing: $0[0..<30000 - got.count % 7]))
            }
            got += buffer[0..<result.frames]
            if result.isEnd { break }
        }
        #expect(got.count == expected.count)
        #expect(got.indices.first { got[$0] != expected[$0] } == nil)
    }
}
