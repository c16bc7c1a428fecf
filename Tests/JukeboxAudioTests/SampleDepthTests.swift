import ALSA
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

    /// A 440 Hz sine from frame `start`, `count` frames, stereo, at `scale` (1: 16-bit full scale).
    static func sine(from start: Int, count: Int, scale: Double) -> [Double] {
        (start..<start + count).flatMap { n -> [Double] in
            let v = 0.25 * scale * 32767 * sin(2 * .pi * 440 * Double(n) / Double(rate))
            return [v, v]
        }
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
        writeWAV(wav, rate: Self.rate, channels: 2, samples24: source)
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

    /// Two gapless parts on a device that does not take S16: opened once in the format it
    /// takes, and every sample is the S16 one widened exactly (the value in the top bits).
    @Test(arguments: [PCMSampleFormat.s32, .s24, .s24Packed])
    func aDeviceThatRefusesS16GetsTheSamplesWidened(_ format: PCMSampleFormat) throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("wide.raw")
        let parts = ["gapless/part1.mp3", "gapless/part2.mp3"].map(Fixtures.media)
        let h = Harness(device: "file:'\(out)',raw", sink: RestrictedSink { $0.formats = [format] })
        h.pipeline.play(PlaybackItem(token: 1, path: parts[0]), fromMs: 0, next: PlaybackItem(token: 2, path: parts[1]))
        #expect(h.pump { $0.contains(.endOfStream) })
        let status = h.pipeline.status()
        h.pipeline.shutdown()
        #expect(status.deviceOpens == 1)
        let (_, _, reference) = FormatAndBadMediaTests.playChain(parts, dir: dir)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        try #require(bytes.count == reference.count * format.bytesPerSample)
        let width = format.bytesPerSample
        let got = (0..<reference.count).map { i -> Int16 in
            let b = bytes[(i * width)..<(i * width + width)]
            let low = format == .s32 ? b.prefix(2) : b.prefix(1)
            #expect(
                low.allSatisfy { $0 == 0 } && (format != .s24 || b.last! == (b[b.startIndex + 2] >= 0x80 ? 0xFF : 0)))
            let top = format == .s24 ? b.dropLast().suffix(2) : b.suffix(2)
            return Int16(bitPattern: UInt16(top.first!) | UInt16(top.last!) << 8)
        }
        #expect(got == reference)
    }

    /// A 16-bit FLAC then a 24-bit one at the same rate, gapless: one device open (the bit depth
    /// alone never reopens it: the ring is S16, so both play on the one S16 device), the 16-bit
    /// part bit for bit, the 24-bit part dithered within an LSB of the source, and nothing
    /// lost or added at the join (a sine continued across it).
    @Test func a16BitAnd24BitTrackJoinGaplesslyOnOneOpenDevice() throws {
        let dir = try TemporaryDirectory()
        let first = Self.sine(from: 0, count: Self.rate, scale: 1).map { Int16($0.rounded()) }
        let second = Self.sine(from: Self.rate, count: Self.rate, scale: 256).map { Int32($0.rounded()) }
        writeWAV(dir.file("a.wav"), rate: Self.rate, channels: 2, samples: first)
        writeWAV(dir.file("b.wav"), rate: Self.rate, channels: 2, samples24: second)
        for name in ["a", "b"] {
            _ = try run(["/usr/bin/flac", "-s", "-o", dir.file("\(name).flac"), dir.file("\(name).wav")])
        }
        let out = dir.file("join.raw")
        let h = Harness(device: "file:'\(out)',raw")
        h.pipeline.play(
            PlaybackItem(token: 1, path: dir.file("a.flac")), fromMs: 0,
            next: PlaybackItem(token: 2, path: dir.file("b.flac")))
        #expect(h.pump { $0.contains(.endOfStream) })
        let status = h.pipeline.status()
        h.pipeline.shutdown()
        #expect(h.events == [.started(1), .finished(1), .started(2), .finished(2), .endOfStream])
        #expect(status.deviceOpens == 1, "reopened at the change of bit depth: not gapless")
        let got = samples(ofFile: out)
        try #require(got.count == first.count + second.count)
        #expect(Array(got.prefix(first.count)) == first)
        let errors = zip(got.suffix(second.count), second).map { Double($0) - Double($1) / 256 }
        #expect(errors.allSatisfy { abs($0) < 1.5 })
        #expect(abs(errors.reduce(0, +) / Double(errors.count)) < 0.02)
    }
}
