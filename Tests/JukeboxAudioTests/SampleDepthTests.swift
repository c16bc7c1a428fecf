import ALSA
import Foundation
import JukeboxAudio
import JukeboxTestSupport
import Testing

/// Sources wider than 16 bits, and gains on a 16-bit device, through the whole pipeline into
/// ALSA's `file` PCM.
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
        let path = try Self.encode24(source, "sine", container, dir: dir)
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

    /// A software gain on a 16-bit device is dithered (TPDF), as the narrowing of wide sources
    /// is: a 16-bit 1 kHz sine of 4 LSB (-78 dBFS) at -6 dB comes out within an LSB plus
    /// rounding of the exact product, with no mean error at any source value and an error that
    /// does not follow the signal (rounded, every odd source value came out half an LSB off,
    /// always the same way: an error of 0.23 LSB at 1 kHz and at 3 kHz, 0.05 at 5 kHz).
    @Test func aGainOnA16BitDeviceIsDithered() throws {
        let dir = try TemporaryDirectory()
        let source = (0..<Self.frames).flatMap { n -> [Int16] in
            let v = Int16((4 * sin(2 * .pi * Self.frequency * Double(n) / Double(Self.rate))).rounded())
            return [v, v]
        }
        let path = dir.file("quiet.wav")
        writeWAV(path, rate: Self.rate, channels: 2, samples: source)
        let out = dir.file("gain.raw")
        let gain = Float(pow(10, -6.0 / 20))
        let h = Harness(device: "file:'\(out)',raw", sink: RestrictedSink { $0.formats = [.s16] })
        h.pipeline.setVolume(percent: 50, gain: gain)
        h.pipeline.play(PlaybackItem(token: 1, path: path), fromMs: 0)
        #expect(h.pump { $0.contains(.endOfStream) })
        h.pipeline.shutdown()
        let got = samples(ofFile: out)
        try #require(got.count == source.count)
        let errors = zip(got, source).map { Double($0) - Double($1) * Double(gain) }
        #expect(errors.allSatisfy { abs($0) < 1.5 })
        let byValue = Dictionary(grouping: zip(source, errors)) { $0.0 }
        for (value, pairs) in byValue.sorted(by: { $0.key < $1.key }) {
            let mean = pairs.map(\.1).reduce(0, +) / Double(pairs.count)
            #expect(abs(mean) < 0.03, "mean error \(mean) LSB where the source is \(value)")
        }
        for harmonic in [1.0, 3, 5] {
            let level = Self.amplitude(errors, at: harmonic * Self.frequency)
            #expect(level < 0.01, "error of \(level) LSB at \(harmonic) kHz")
        }
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

    /// A 16-bit FLAC then a 24-bit one at the same rate, gapless, on a device that takes S16
    /// only: one device open (the 24-bit part is narrowed, the device not reopened for it), the
    /// 16-bit part bit for bit, the 24-bit part dithered within an LSB of the source, and
    /// nothing lost or added at the join (a sine continued across it).
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
        let h = Harness(device: "file:'\(out)',raw", sink: RestrictedSink { $0.formats = [.s16] })
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

    /// A device's samples in `format` (little-endian) as 32-bit ones, the value in the top bits.
    static func samples32(ofFile path: String, _ format: PCMSampleFormat) throws -> [Int32] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let width = format.bytesPerSample
        return stride(from: 0, to: bytes.count - width + 1, by: width).map { i in
            let b = format == .s24 ? bytes[i..<i + 3] : bytes[i + width - 3..<i + width]
            let low: UInt32 = format == .s32 ? UInt32(bytes[i]) : 0
            return Int32(
                bitPattern: low | UInt32(b[b.startIndex]) << 8 | UInt32(b[b.startIndex + 1]) << 16 | UInt32(
                    b[b.startIndex + 2]) << 24)
        }
    }

    /// What the reference decoder makes of `path`, in the top bits of 32: `flac -d` (24-bit,
    /// three bytes a sample) for FLAC, `ffmpeg -f s32le` for ALAC, the samples as they are for WAV.
    static func reference(_ path: String, dir: TemporaryDirectory) throws -> [Int32] {
        let raw = dir.file("reference.raw")
        if path.hasSuffix(".m4a") {
            _ = try run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-i", path, "-f", "s32le", raw])
            return try samples32(ofFile: raw, .s32)
        }
        let flac = path.hasSuffix(".flac") ? path : dir.file("reference.flac")
        if flac != path { _ = try run(["/usr/bin/flac", "-s", "-f", "-o", flac, path]) }
        _ = try run([
            "/usr/bin/flac", "-s", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", raw,
            flac,
        ])
        return try samples32(ofFile: raw, .s24Packed)
    }

    /// `samples` (24 bits) as a file of `container` in `dir`.
    static func encode24(_ samples: [Int32], _ name: String, _ container: String, dir: TemporaryDirectory) throws
        -> String
    {
        let wav = dir.file("\(name).wav")
        writeWAV(wav, rate: Self.rate, channels: 2, samples24: samples)
        let path = dir.file("\(name).\(container)")
        switch container {
        case "flac": _ = try run(["/usr/bin/flac", "-s", "-o", path, wav])
        case "m4a":
            _ = try run(["/usr/bin/ffmpeg", "-v", "error", "-i", wav, "-c:a", "alac", "-sample_fmt", "s32p", path])
        default: break
        }
        return path
    }

    /// A 24-bit FLAC (and ALAC, WAV) to a device that takes a wide format arrives as the
    /// reference decoder gives it, widened: bit for bit, nothing dithered away (narrowed to
    /// S16 with dither and widened, 87,757 of 88,200 samples differed).
    @Test(arguments: [
        ("flac", PCMSampleFormat.s32), ("flac", .s24Packed), ("flac", .s24), ("m4a", .s32), ("wav", .s32),
    ])
    func a24BitSourceToAWideFilePCMIsBitExactWithTheReferenceDecoder(_ container: String, _ format: PCMSampleFormat)
        throws
    {
        let dir = try TemporaryDirectory()
        let source = Self.sine(from: 0, count: Self.rate, scale: 256).map { Int32($0.rounded()) }
        let path = try Self.encode24(source, "a", container, dir: dir)
        let out = dir.file("wide.raw")
        let h = Harness(device: "file:'\(out)',raw", sink: RestrictedSink { $0.formats = [format] })
        h.pipeline.play(PlaybackItem(token: 1, path: path), fromMs: 0, next: nil)
        #expect(h.pump { $0.contains(.endOfStream) })
        h.pipeline.shutdown()
        #expect(h.events == [.started(1), .finished(1), .endOfStream])
        let got = try Self.samples32(ofFile: out, format)
        let reference = try Self.reference(path, dir: dir)
        try #require(got.count == reference.count)
        let differing = zip(got, reference).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(got.count) samples differ")
    }

    /// Three 24-bit FLAC parts of a sine (cut off block boundaries) joined gaplessly on an
    /// S32_LE device: one open, and the output is `flac -d` of the three, bit for bit. Paced in
    /// real time, so that the third part is set while the second plays, as a client does.
    @Test func threeGapless24BitFLACPartsOnAWideDevice() throws {
        let dir = try TemporaryDirectory()
        let cuts = [0, 30_011, 61_337, 100_000]
        let paths = try (0..<3).map { k in
            let part = Self.sine(from: cuts[k], count: cuts[k + 1] - cuts[k], scale: 256).map { Int32($0.rounded()) }
            return try Self.encode24(part, "part\(k)", "flac", dir: dir)
        }
        let out = dir.file("gapless.raw")
        let h = Harness(device: "file:'\(out)',raw", sink: RestrictedSink { $0.formats = [.s32] }, pacing: .clock)
        h.pipeline.play(PlaybackItem(token: 1, path: paths[0]), fromMs: 0, next: PlaybackItem(token: 2, path: paths[1]))
        #expect(
            h.pump(
                onEvent: { if $0 == .started(2) { h.pipeline.setNext(PlaybackItem(token: 3, path: paths[2])) } },
                until: { $0.contains(.endOfStream) }))
        let status = h.pipeline.status()
        h.pipeline.shutdown()
        #expect(
            h.events == [.started(1), .finished(1), .started(2), .finished(2), .started(3), .finished(3), .endOfStream])
        #expect(status.deviceOpens == 1)
        let reference = try paths.flatMap { try Self.reference($0, dir: dir) }
        let got = try Self.samples32(ofFile: out, .s32)
        try #require(got.count == reference.count)
        let differing = zip(got, reference).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(got.count) samples differ")
    }

    /// ReplayGain on a wide device is applied in 32 bits: a 24-bit FLAC tagged -6.02 dB comes
    /// out within a 24-bit LSB of half of `flac -d` (narrowed to S16 first, it was off by
    /// 76,399, over a 16-bit LSB).
    @Test func replayGainOnAWideDeviceKeepsTheSourcePrecision() throws {
        let dir = try TemporaryDirectory()
        let source = Self.sine(from: 0, count: Self.rate / 2, scale: 256).map { Int32($0.rounded()) }
        let path = try Self.encode24(source, "gain", "flac", dir: dir)
        _ = try run(["/usr/bin/metaflac", "--set-tag=REPLAYGAIN_TRACK_GAIN=-6.02 dB", path])
        let out = dir.file("gain.raw")
        let h = Harness(device: "file:'\(out)',raw", sink: RestrictedSink { $0.formats = [.s32] })
        h.pipeline.play(PlaybackItem(token: 1, path: path, replayGainMode: .track), fromMs: 0)
        #expect(h.pump { $0.contains(.endOfStream) })
        h.pipeline.shutdown()
        let got = try Self.samples32(ofFile: out, .s32)
        let reference = try Self.reference(path, dir: dir)
        try #require(got.count == reference.count)
        let factor = pow(10, -6.02 / 20)
        let worst = zip(got, reference).map { abs(Double($0) - Double($1) * factor) }.max() ?? .infinity
        #expect(worst <= 256, "largest difference from half of flac -d: \(worst)")
    }
}
