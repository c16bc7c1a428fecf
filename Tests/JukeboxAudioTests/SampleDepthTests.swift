import Foundation
import JukeboxAudio
import JukeboxTestSupport
import Testing

/// Sources wider than 16 bits through the whole pipeline into ALSA's `file` PCM.
@Suite struct SampleDepthTests {
    static let rate = 44_100
    static let frames = 3 * rate
    static let frequency = 1_000.0

    /// A 1 kHz sine at -110 dBFS (26.5 of 2^23): a tenth of a 16-bit LSB, in 24 bits.
    static func quietSine() -> [Int32] {
        let amplitude = Double(1 << 23) * pow(10, -110.0 / 20)
        return (0..<frames).flatMap { n -> [Int32] in
            let v = Int32((amplitude * sin(2 * .pi * frequency * Double(n) / Double(rate))).rounded())
            return [v, v]
        }
    }

    /// A 24-bit stereo PCM WAV file.
    static func writeWAV24(_ path: String, samples: [Int32]) {
        var d = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
        d.append(contentsOf: Array("RIFF".utf8))
        u32(36 + samples.count * 3)
        d.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)
        u16(2)
        u32(rate)
        u32(rate * 6)
        u16(6)
        u16(24)
        d.append(contentsOf: Array("data".utf8))
        u32(samples.count * 3)
        for s in samples {
            d.append(contentsOf: [
                UInt8(truncatingIfNeeded: s), UInt8(truncatingIfNeeded: s >> 8), UInt8(truncatingIfNeeded: s >> 16),
            ])
        }
        _ = FileManager.default.createFile(atPath: path, contents: d)
    }

    /// The amplitude of `signal` at `frequency` (a whole number of periods: the projection
    /// on sine and cosine), per channel of interleaved stereo.
    static func amplitude(_ signal: [Double], at frequency: Double) -> Double {
        var s = 0.0
        var c = 0.0
        for i in 0..<signal.count {
            let phase = 2 * .pi * frequency * Double(i / 2) / Double(rate)
            s += signal[i] * sin(phase)
            c += signal[i] * cos(phase)
        }
        return 2 * (s * s + c * c).squareRoot() / Double(signal.count)
    }

    /// 24 bits to a 16-bit device are dithered (TPDF), not truncated: the sine, a tenth of an
    /// LSB, survives in the noise at its level, the error has no mean and stays within an LSB
    /// plus rounding, and there is no distortion (truncation makes a square wave of it: a
    /// 1 kHz line six times too strong, a third harmonic, and a mean of -0.5 LSB).
    @Test(arguments: ["wav", "flac", "m4a"])
    func a24BitSourceToA16BitDeviceIsDithered(_ container: String) throws {
        let dir = try TemporaryDirectory()
        let source = Self.quietSine()
        let wav = dir.file("sine.wav")
        Self.writeWAV24(wav, samples: source)
        let path = dir.file("sine.\(container)")
        switch container {
        case "flac": _ = try run(["/usr/bin/flac", "-s", "-o", path, wav])
        case "m4a":
            _ = try run(["/usr/bin/ffmpeg", "-v", "error", "-i", wav, "-c:a", "alac", "-sample_fmt", "s32p", path])
        default: break
        }
        let (events, _, got) = FormatAndBadMediaTests.playChain([path], dir: dir)
        #expect(events == [.started(1), .finished(1), .endOfStream])
        try #require(got.count == source.count)
        let errors = zip(got, source).map { Double($0) - Double($1) / 256 }
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(abs(mean) < 0.02, "mean error \(mean) LSB")
        #expect(errors.allSatisfy { abs($0) < 1.5 })
        let output = got.map(Double.init)
        let fundamental = Self.amplitude(output, at: Self.frequency)
        let expected = Double(1 << 23) * pow(10, -110.0 / 20) / 256
        #expect(abs(fundamental - expected) < 0.01, "1 kHz at \(fundamental) LSB, the source's \(expected)")
        #expect(Self.amplitude(output, at: 3 * Self.frequency) < 0.01)
    }
}
