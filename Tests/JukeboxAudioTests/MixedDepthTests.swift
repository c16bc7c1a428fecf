import ALSA
import Foundation
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

@testable import JukeboxAudio

/// 16-bit and 24-bit sources mixed on a device that takes a wide format: joins between depths
/// without reopening the device, 16-bit sources widened exactly, 24-bit ones bit for bit, and
/// the wide path kept through CUE tracks, growing files and the gain.
@Suite struct MixedDepthTests {
    static let rate = SampleDepthTests.rate

    /// A 16-bit FLAC of a 440 Hz sine from frame `start`, `count` frames, stereo.
    static func flac16(_ name: String, from start: Int, count: Int, dir: TemporaryDirectory) throws -> String {
        let wav = dir.file("\(name).wav")
        let samples = SampleDepthTests.sine(from: start, count: count, scale: 1).map { Int16($0.rounded()) }
        writeWAV(wav, rate: rate, channels: 2, samples: samples)
        let path = dir.file("\(name).flac")
        _ = try run(["/usr/bin/flac", "-s", "-o", path, wav])
        return path
    }

    /// A 24-bit FLAC of a 440 Hz sine from frame `start`, `count` frames, stereo.
    static func flac24(_ name: String, from start: Int, count: Int, dir: TemporaryDirectory) throws -> String {
        let samples = SampleDepthTests.sine(from: start, count: count, scale: 256).map { Int32($0.rounded()) }
        return try SampleDepthTests.encode24(samples, name, "flac", dir: dir)
    }

    /// `flac -d` of a 16-bit FLAC, in the top bits of 32.
    static func reference16(_ path: String, dir: TemporaryDirectory) throws -> [Int32] {
        let raw = dir.file("reference16.raw")
        _ = try run([
            "/usr/bin/flac", "-s", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", raw,
            path,
        ])
        return samples(ofFile: raw).map { Int32($0) << 16 }
    }

    /// Plays `paths` gaplessly (each follow-up set when the one before starts, as a client
    /// does, paced in real time) into a `file` PCM offered `formats`; returns the events, the
    /// status at the end and the file's samples read as `read`.
    static func play(
        _ paths: [String], formats: [PCMSampleFormat], read: PCMSampleFormat, gain: ReplayGainMode = .off,
        spans: [Range<Int64>?]? = nil, queueHoldsWide: Bool = false, dir: TemporaryDirectory
    ) throws -> ([PipelineEvent], PipelineStatus, [Int32]) {
        let out = dir.file("mixed.raw")
        let h = Harness(
            device: "file:'\(out)',raw", sink: RestrictedSink { r in r.formats = r.formats.filter(formats.contains) },
            pacing: .clock)
        let items = paths.enumerated().map {
            PlaybackItem(
                token: UInt64($0.offset + 1), path: $0.element, span: spans?[$0.offset], replayGainMode: gain)
        }
        h.pipeline.setQueueHoldsWide(queueHoldsWide)
        h.pipeline.play(items[0], fromMs: 0, next: items.count > 1 ? items[1] : nil)
        let ended = h.pump(
            timeoutSeconds: 20,
            onEvent: {
                if case .started(let t) = $0, t >= 2, Int(t) < items.count { h.pipeline.setNext(items[Int(t)]) }
            },
            until: { $0.contains(.endOfStream) })
        #expect(ended)
        let status = h.pipeline.status()
        h.pipeline.shutdown()
        if read == .s16 { return (h.events, status, samples(ofFile: out).map { Int32($0) << 16 }) }
        return (h.events, status, try SampleDepthTests.samples32(ofFile: out, read))
    }

    static func expectSame(_ got: [Int32], _ reference: [Int32]) throws {
        try #require(got.count == reference.count)
        let first = got.indices.first { got[$0] != reference[$0] }
        #expect(first == nil, "first difference at sample \(first ?? -1) of \(got.count)")
    }

    /// 16-bit FLAC, 24-bit FLAC, 16-bit FLAC and an MP3 in a row on a device that takes only
    /// S32_LE: opened once (on main it was opened three times, at each change of depth), the
    /// FLAC parts as `flac -d` gives them and the MP3 as an S16 device gets it, each widened,
    /// bit for bit, nothing lost or added at the joins.
    @Test func depthsJoinGaplesslyOnAnS32OnlyDevice() throws {
        let dir = try TemporaryDirectory()
        let paths = [
            try Self.flac16("a", from: 0, count: 20_011, dir: dir),
            try Self.flac24("b", from: 20_011, count: 21_337, dir: dir),
            try Self.flac16("c", from: 41_348, count: 19_999, dir: dir),
            Fixtures.media("gapless/part1.mp3"),
        ]
        let (events, status, got) = try Self.play(paths, formats: [.s32], read: .s32, dir: dir)
        #expect(
            events == [
                .started(1), .finished(1), .started(2), .finished(2), .started(3), .finished(3), .started(4),
                .finished(4), .endOfStream,
            ])
        #expect(status.deviceOpens == 1, "reopened at a change of bit depth: not gapless")
        let (_, _, mp3) = FormatAndBadMediaTests.playChain([paths[3]], dir: dir)
        let reference =
            try Self.reference16(paths[0], dir: dir) + SampleDepthTests.reference(paths[1], dir: dir)
            + Self.reference16(paths[2], dir: dir) + mp3.map { Int32($0) << 16 }
        try Self.expectSame(got, reference)
    }

    /// A 24-bit FLAC then a 16-bit one on a device that takes S16 and S32_LE: the device opened
    /// wide for the first stays so for the second (on main it was reopened in S16), both bit
    /// for bit.
    @Test func aDeviceOpenedWideStaysWideForA16BitFollowUp() throws {
        let dir = try TemporaryDirectory()
        let paths = [
            try Self.flac24("b", from: 0, count: 30_011, dir: dir),
            try Self.flac16("c", from: 30_011, count: 29_989, dir: dir),
        ]
        let (events, status, got) = try Self.play(paths, formats: [.s16, .s32], read: .s32, dir: dir)
        #expect(events == [.started(1), .finished(1), .started(2), .finished(2), .endOfStream])
        #expect(status.deviceOpens == 1, "reopened at a change of bit depth: not gapless")
        let reference = try SampleDepthTests.reference(paths[0], dir: dir) + Self.reference16(paths[1], dir: dir)
        try Self.expectSame(got, reference)
    }

    /// A 16-bit FLAC then a 24-bit one on a device that takes S16 and S32_LE, the queue
    /// known to hold a wide source (as the daemon tells from the library): the device is
    /// opened wide for the first already, so the join does not reopen it (on main it was
    /// opened in S16, then reopened in S32_LE at the join: a gap), both bit for bit.
    @Test func aQueueHoldingAWideSourceOpensTheDeviceWideFromItsFirst16BitItem() throws {
        let dir = try TemporaryDirectory()
        let paths = [
            try Self.flac16("a", from: 0, count: 30_011, dir: dir),
            try Self.flac24("b", from: 30_011, count: 29_989, dir: dir),
        ]
        let (events, status, got) = try Self.play(
            paths, formats: [.s16, .s32], read: .s32, queueHoldsWide: true, dir: dir)
        #expect(events == [.started(1), .finished(1), .started(2), .finished(2), .endOfStream])
        #expect(status.deviceOpens == 1, "reopened at the first change of bit depth: not gapless")
        let reference = try Self.reference16(paths[0], dir: dir) + SampleDepthTests.reference(paths[1], dir: dir)
        try Self.expectSame(got, reference)
    }

    /// The queue gets a wide source while a 16-bit item plays on a device open in S16 (an
    /// album added): the device switches to wide at the next seek, where the audio breaks
    /// anyway, not at the join to the wide item that follows (one open for both).
    @Test func aDeviceOpenInS16SwitchesWideAtASeekOnceTheQueueHoldsAWideSource() throws {
        let dir = try TemporaryDirectory()
        let first = try Self.flac16("a", from: 0, count: 3 * Self.rate, dir: dir)
        let second = try Self.flac24("b", from: 0, count: 20_000, dir: dir)
        let h = Harness(
            device: "file:'\(dir.file("edit.raw"))',raw",
            sink: RestrictedSink { r in r.formats = r.formats.filter { $0 == .s16 || $0 == .s32 } }, pacing: .clock)
        h.pipeline.play(PlaybackItem(token: 1, path: first), fromMs: 0, next: PlaybackItem(token: 2, path: second))
        #expect(waitUntil { h.pipeline.status().positionMs >= 200 })
        #expect(h.pipeline.status().deviceOpens == 1)
        h.pipeline.setQueueHoldsWide(true)
        h.pipeline.seek(toMs: 2_500)
        #expect(waitUntil { h.pipeline.status().positionMs >= 2_600 })
        let afterSeek = h.pipeline.status()
        #expect(afterSeek.token == 1 && afterSeek.deviceOpens == 2, "still in S16 after the seek")
        #expect(h.pump { $0.contains(.endOfStream) })
        #expect(h.events == [.started(1), .finished(1), .started(2), .finished(2), .endOfStream])
        #expect(h.pipeline.status().deviceOpens == 2, "reopened at the join: not gapless")
    }

    /// A box that plays only 16-bit sources keeps an S16 device in S16 (its path unchanged).
    @Test func sixteenBitSourcesKeepADeviceThatTakesS16InS16() throws {
        let dir = try TemporaryDirectory()
        let paths = [
            try Self.flac16("a", from: 0, count: 20_011, dir: dir), Fixtures.media("gapless/part1.mp3"),
        ]
        let (_, status, got) = try Self.play(paths, formats: [.s16, .s32], read: .s16, dir: dir)
        #expect(status.deviceOpens == 1)
        let (_, _, mp3) = FormatAndBadMediaTests.playChain([paths[1]], dir: dir)
        try Self.expectSame(got, try Self.reference16(paths[0], dir: dir) + mp3.map { Int32($0) << 16 })
    }

    /// A crossfade (mixed in S16) on a device open wide: what an S16 device gets, widened.
    @Test func aCrossfadeOnAWideDeviceIsTheS16MixWidened() throws {
        let dir = try TemporaryDirectory()
        let paths = [
            try Self.flac16("a", from: 0, count: 2 * Self.rate, dir: dir),
            try Self.flac16("b", from: 0, count: 2 * Self.rate, dir: dir),
        ]
        func played(_ format: PCMSampleFormat) throws -> [Int32] {
            let out = dir.file("crossfade-\(format).raw")
            let h = Harness(device: "file:'\(out)',raw", sink: RestrictedSink { $0.formats = [format] })
            h.pipeline.setCrossfade(seconds: 1)
            h.pipeline.play(
                PlaybackItem(token: 1, path: paths[0]), fromMs: 0, next: PlaybackItem(token: 2, path: paths[1]))
            #expect(h.pump { $0.contains(.endOfStream) })
            h.pipeline.shutdown()
            if format == .s16 { return samples(ofFile: out).map { Int32($0) << 16 } }
            return try SampleDepthTests.samples32(ofFile: out, format)
        }
        let reference = try played(.s16)
        #expect(reference.count == 3 * Self.rate * 2)
        try Self.expectSame(try played(.s32), reference)
    }

    /// Two CUE tracks over one 24-bit FLAC on an S32_LE device: the file's samples as `flac -d`
    /// gives them, bit for bit, across the track join (on main a CUE track was read in S16,
    /// dithered: nearly every sample differed).
    @Test func cueTracksOverA24BitFLACStayBitExactOnAWideDevice() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.flac24("album", from: 0, count: 50_000, dir: dir)
        let (events, status, got) = try Self.play(
            [path, path], formats: [.s32], read: .s32, spans: [0..<20_011, 20_011..<Int64.max], dir: dir)
        #expect(events == [.started(1), .finished(1), .started(2), .finished(2), .endOfStream])
        #expect(status.deviceOpens == 1)
        try Self.expectSame(got, try SampleDepthTests.reference(path, dir: dir))
    }

    /// ReplayGain on a 16-bit source on a wide device is applied in 32 bits: -6.02 dB comes out
    /// within a 24-bit LSB of the exact product (rounded to 16 bits, on main, it was off by up
    /// to half a 16-bit LSB, 32,768).
    @Test func gainOnA16BitSourceOnAWideDeviceKeepsItsPrecision() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.flac16("gain", from: 0, count: Self.rate / 2, dir: dir)
        _ = try run(["/usr/bin/metaflac", "--set-tag=REPLAYGAIN_TRACK_GAIN=-6.02 dB", path])
        let (_, _, got) = try Self.play([path], formats: [.s32], read: .s32, gain: .track, dir: dir)
        let reference = try Self.reference16(path, dir: dir)
        try #require(got.count == reference.count)
        let factor = pow(10, -6.02 / 20)
        let worst = zip(got, reference).map { abs(Double($0) - Double($1) * factor) }.max() ?? .infinity
        #expect(worst <= 256, "largest difference from the exact product: \(worst)")
    }

    /// A 24-bit FLAC still downloading is read wide (on main a growing file was read in S16):
    /// written in pieces while it is decoded, it gives `flac -d`'s samples bit for bit.
    @Test func aGrowing24BitFLACIsReadWide() throws {
        let dir = try TemporaryDirectory()
        let source = try Self.flac24("episode", from: 0, count: 60_000, dir: dir)
        let reference = try SampleDepthTests.reference(source, dir: dir)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        let whole = dir.file("growing.flac")
        let file = GrowingFile(path: whole, partialPath: whole + ".part")
        let step = 40_000
        var written = min(step, bytes.count)
        try Data(bytes.prefix(written)).write(to: URL(fileURLWithPath: file.partialPath))
        let files = GrowingFiles()
        files.add(file)
        let decoder = try #require(try openDecoder(path: whole, growing: files) as? any WideAudioDecoder)
        try #require(decoder.bitsPerSample == 24)
        let capacity = 4096
        let buffer = UnsafeMutablePointer<Int32>.allocate(capacity: capacity * 2)
        defer { buffer.deallocate() }
        var got: [Int32] = []
        while true {
            let r = try decoder.read(wide: UnsafeMutableBufferPointer(start: buffer, count: capacity * 2))
            got += UnsafeBufferPointer(start: buffer, count: r.frames * 2)
            if r.isEnd { break }
            if r.frames == 0 { try GrowingFileTests.grow(file, in: files, from: bytes, written: &written, step: step) }
        }
        #expect(written == bytes.count, "read to the end before the download was whole")
        try Self.expectSame(got, reference)
    }
}
