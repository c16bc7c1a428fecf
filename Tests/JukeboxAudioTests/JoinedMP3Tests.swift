import Foundation
import JukeboxAudio
import JukeboxTestSupport
import LinuxSupport
import Testing

/// MP3 files joined from parts in other formats ("Frankenstein" tracks, as mpg123 calls them:
/// podcast episodes cut together, a mono intro before a stereo programme), made here with sox,
/// lame and ffmpeg. Before the decoders took their room from the buffer, a probe sized for the
/// first part's mono frames got the second part's stereo ones: a heap overflow at every scan.
@Suite struct JoinedMP3Tests {
    /// One part of a joined file: its channels, rate and MPEG layer.
    struct Part: CustomStringConvertible, Sendable {
        var channels: Int
        var rate = 44100
        var layer = 3
        var description: String { "\(channels == 1 ? "mono" : "stereo") \(rate / 100) layer \(layer)" }
    }

    static let mono = Part(channels: 1)
    static let stereo = Part(channels: 2)

    /// `parts` encoded one after the other into `joined.mp3`, 1.5 s each (a tone, and noise on
    /// the right channel, different in each part).
    static func joined(_ parts: [Part], in dir: TemporaryDirectory) throws -> String {
        var bytes = Data()
        for (index, part) in parts.enumerated() {
            let wav = dir.file("part\(index).wav")
            try EncodedMedia.tool(
                ["sox", "-R", "-n", "-r", "\(part.rate)", "-b", "16", "-c", "\(part.channels)", wav, "synth", "1.5"]
                    + ["sine", "\(300 + 200 * index)"] + (part.channels == 2 ? ["pinknoise"] : []) + ["gain", "-6"])
            let encoded = dir.file("part\(index).mp\(part.layer)")
            if part.layer == 3 {
                try EncodedMedia.tool(["lame", "--quiet", "-b", part.channels == 1 ? "64" : "128", wav, encoded])
            } else {
                try EncodedMedia.tool(
                    ["ffmpeg", "-loglevel", "error", "-y", "-i", wav, "-c:a", "mp2", "-b:a", "192k", encoded])
            }
            bytes += try Data(contentsOf: URL(fileURLWithPath: encoded))
        }
        let path = dir.file("joined.mp3")
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// mpg123's decode of the whole file, every part as stereo (`--stereo`: a mono part's
    /// samples twice, as libmpg123 writes mono to a stereo output).
    static func referenceStereo(_ path: String) throws -> [Int16] {
        samples(of: try run(["/usr/bin/mpg123", "-q", "--stereo", "-s", path]).stdout)
    }

    /// `played` (each part in its own channels, one after the other) as stereo: the first
    /// part's frames are those before the change, told apart by the total.
    static func asStereo(_ played: [Int16], parts: [Part], referenceFrames: Int) -> [Int16]? {
        let channels = parts.map(\.channels)
        guard channels.count == 2, channels[0] != channels[1] else { return played }
        // played.count = c0 * n0 + c1 * (frames - n0)
        let n0 = (played.count - channels[1] * referenceFrames) / (channels[0] - channels[1])
        guard n0 >= 0, n0 <= referenceFrames else { return nil }
        let split = n0 * channels[0]
        func stereo(_ part: ArraySlice<Int16>, _ c: Int) -> [Int16] {
            c == 2 ? Array(part) : part.flatMap { [$0, $0] }
        }
        return stereo(played[..<split], channels[0]) + stereo(played[split...], channels[1])
    }

    /// The file's decoder's samples, read by read, each part in its own channels (or as stereo).
    static func decode(_ path: String, asStereo: Bool = false) throws -> [Int16] {
        let decoder = try openDecoder(path: path)
        var decoded: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 4096)
        while true {
            let before = decoder.format
            let result = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            let samples = buffer[0..<result.frames * before.channels]
            decoded += !asStereo || before.channels == 2 ? Array(samples) : samples.flatMap { [$0, $0] }
            if result.isEnd { return decoded }
        }
    }

    static let cases: [[Part]] = [
        [mono, stereo], [stereo, mono], [stereo, Part(channels: 2, rate: 48000)],
        [stereo, Part(channels: 2, layer: 2)],
    ]

    /// Scanned as one track of its true length: the first part's Xing/LAME header gives only
    /// that part's length; audio past it means parts joined together.
    @Test(arguments: cases)
    func theScanGivesOneTrackOfTheWholeLength(_ parts: [Part]) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.joined(parts, in: dir)
        let media = try MediaProbe.probe(path: path)
        let duration = try #require(media.durationMs)
        if parts.allSatisfy({ $0.rate == 44100 }) {
            let frames = try Self.referenceStereo(path).count / 2
            #expect(abs(duration - Int64(frames) * 1000 / 44100) <= 1, "\(parts): \(duration) ms")
        } else {
            // libmpg123 counts the whole file at the first part's rate: longer than that part.
            #expect(duration > 2500, "\(parts): \(duration) ms")
        }
    }

    /// Played through the pipeline into a paced FIFO: every part's samples as mpg123 decodes
    /// them, the device opened once more at each change of channels or rate, never for a
    /// change of layer alone.
    @Test(arguments: cases)
    func everyPartPlaysAsTheReferenceDecodesIt(_ parts: [Part]) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.joined(parts, in: dir)
        let reference = try Self.referenceStereo(path)
        let sink = try PacedFifoSink(bytesPerSecond: 176_400, speed: 8)
        let h = Harness(device: sink.alsaDevice, periodMs: 10, bufferMs: 40)
        h.pipeline.play(PlaybackItem(token: 1, path: path), fromMs: 0)
        #expect(h.waitForEnd(timeoutSeconds: 30))
        #expect(h.events == [.started(1), .finished(1), .endOfStream])
        let status = h.pipeline.status()
        let changes = parts[0].channels != parts[1].channels || parts[0].rate != parts[1].rate
        #expect(status.deviceOpens == (changes ? 2 : 1), "\(parts)")
        #expect(status.format == AudioFormat(rate: parts[1].rate, channels: parts[1].channels))
        // Everything the pipeline wrote, in the parts' own channels, has reached the FIFO.
        #expect(sink.waitForBytes(try Self.decode(path).count * 2, timeoutSeconds: 30))
        h.pipeline.shutdown()
        sink.stop()
        let played = try #require(
            Self.asStereo(sink.samples, parts: parts, referenceFrames: reference.count / 2), "\(parts)")
        #expect(played.count == reference.count, "\(parts): \(played.count) vs \(reference.count) samples")
        let first = played.indices.first { $0 < reference.count && played[$0] != reference[$0] }
        #expect(
            first == nil,
            "\(parts): from sample \(first ?? 0): \(played[(first ?? 0)...].prefix(8)) vs \(reference[(first ?? 0)...].prefix(8))"
        )
    }

    /// Straight from the file's decoder, each read's frames in the format current before it:
    /// every part's samples as mpg123 gives them.
    @Test(arguments: cases)
    func everyPartDecodesAsTheReferenceDecodesIt(_ parts: [Part]) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.joined(parts, in: dir)
        let reference = try Self.referenceStereo(path)
        let decoded = try Self.decode(path, asStereo: true)
        #expect(decoded.count == reference.count, "\(parts): \(decoded.count) vs \(reference.count) samples")
        let first = decoded.indices.first { $0 < reference.count && decoded[$0] != reference[$0] }
        #expect(first == nil, "\(parts): from sample \(first ?? 0)")
    }

    /// A device that keeps 44.1 kHz: the 48 kHz part is resampled from the change on (no
    /// reopen, no loop of reopening and decoding again), about its length in time.
    @Test func aRateChangeOnAFixedRateDeviceIsResampled() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.joined([Self.stereo, Part(channels: 2, rate: 48000)], in: dir)
        let reference = try Self.referenceStereo(path)
        let firstPart = 66150 * 2
        let sink = try PacedFifoSink(bytesPerSecond: 176_400, speed: 8)
        let h = Harness(device: sink.alsaDevice, sink: RestrictedSink { $0.rate = 44100 })
        h.pipeline.play(PlaybackItem(token: 1, path: path), fromMs: 0)
        #expect(h.waitForEnd(timeoutSeconds: 30))
        #expect(h.events == [.started(1), .finished(1), .endOfStream])
        // Opened at 44.1 kHz, asked for 48 kHz at the change (and given 44.1 kHz again).
        #expect(h.pipeline.status().deviceOpens == 2)
        let resampled = (reference.count - firstPart) / 2 * 44100 / 48000 * 2
        #expect(sink.waitForBytes((firstPart + resampled) * 2, timeoutSeconds: 30))
        h.pipeline.shutdown()
        sink.stop()
        let played = sink.samples
        // The first part as it is, the second resampled to 44.1 kHz: about its length in time.
        #expect(Array(played.prefix(firstPart)) == Array(reference.prefix(firstPart)))
        #expect(abs(played.count - firstPart - resampled) <= 8, "\(played.count - firstPart) vs \(resampled)")
    }

    /// Read straight from the decoder with a buffer sized for the first part's mono frames
    /// (as the probe did): each read stays in the buffer, a change ends a read.
    @Test func aReadNeverWritesPastItsBuffer() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.joined([Self.mono, Self.stereo], in: dir)
        let decoder = try MP3Decoder(path: path)
        let room = 1152
        // A guard zone after the buffer: anything written there is a write past the room.
        var memory = [Int16](repeating: 0x5A5A, count: room + 4096)
        var formats: [AudioFormat] = []
        for _ in 0..<1000 {
            let before = decoder.format
            if formats.last != before { formats.append(before) }
            let result = try memory.withUnsafeMutableBufferPointer {
                try decoder.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<room]))
            }
            #expect(result.frames * before.channels <= room)
            if result.isEnd { break }
        }
        #expect(memory[room...].allSatisfy { $0 == 0x5A5A })
        #expect(formats == [AudioFormat(rate: 44100, channels: 1), AudioFormat(rate: 44100, channels: 2)])
    }
}
