import Foundation
import JukeboxAudio
import JukeboxCore
import JukeboxTestSupport
import Testing

/// The tracks of a CUE sheet: spans of one file, played alone, from a position inside, and
/// one after another, through a paced virtual DAC (ALSA's `file` PCM).
@Suite struct CueSpanTests {
    /// Where the sheet's INDEX 01 times 00:03:37 and 00:07:10 fall at 44.1 kHz (588 samples a
    /// CD frame).
    static let cuts: [Int64] = [262 * 588, 535 * 588]
    static let spans: [Range<Int64>] = [0..<cuts[0], cuts[0]..<cuts[1], cuts[1]..<Int64.max]
    static let rate = 44100

    /// 10 s of stereo noise over a tone, so that a split one sample off cannot match.
    static func album(in directory: TemporaryDirectory) -> (path: String, samples: [Int16]) {
        var random = SplitMix64(seed: 75)
        let samples = (0..<(10 * rate * 2)).map { index in
            Int16(Int(sin(Double(index / 2) * 0.031) * 8000) + random.next(below: 4000) - 2000)
        }
        let path = directory.file("album.wav")
        writeWAV(path, rate: rate, channels: 2, samples: samples)
        return (path, samples)
    }

    /// What the device gets for `spans` of `path` played one after another (gapless), the first
    /// from `fromMs` into it; waits for `expected` samples to arrive.
    static func play(_ path: String, _ spans: [Range<Int64>], fromMs: Int64 = 0, expected: Int) throws -> [Int16] {
        let items = spans.enumerated().map { PlaybackItem(token: UInt64($0 + 1), path: path, span: $1) }
        let sink = try PacedFifoSink(bytesPerSecond: 176_400, speed: 8)
        let h = Harness(device: sink.alsaDevice, periodMs: 10, bufferMs: 40)
        h.pipeline.play(items[0], fromMs: fromMs, next: items.count > 1 ? items[1] : nil)
        let ended = h.pump(
            timeoutSeconds: 10,
            onEvent: { event in
                if case .started(let token) = event, token >= 2, Int(token) < items.count {
                    h.pipeline.setNext(items[Int(token)])
                }
            },
            until: { $0.contains(.endOfStream) })
        #expect(ended)
        #expect(!h.events.contains { if case .failed = $0 { true } else { false } }, "\(h.events)")
        sink.waitForBytes(expected * 2, timeoutSeconds: 3)
        h.pipeline.shutdown()
        sink.stop()
        #expect(sink.segmentOffsets == [0], "the PCM must stay open across the tracks")
        return sink.samples
    }

    static func slice(_ samples: [Int16], _ span: Range<Int64>) -> [Int16] {
        Array(samples[Int(span.lowerBound) * 2..<min(samples.count, Int(min(span.upperBound, 1 << 40)) * 2)])
    }

    /// Each span of `path` alone, then all three one after another, against `reference` (the
    /// whole file's samples).
    static func expectSplits(_ path: String, _ reference: [Int16]) throws {
        for span in spans {
            let expected = slice(reference, span)
            let got = try play(path, [span], expected: expected.count)
            #expect(got.count == expected.count)
            #expect(
                firstDifference(got, expected) == -1, "\(span): first difference at \(firstDifference(got, expected))")
        }
        let whole = try play(path, spans, expected: reference.count)
        #expect(firstDifference(whole, reference) == -1, "first difference at \(firstDifference(whole, reference))")
    }

    /// `wav` encoded as FLAC beside it.
    static func flac(_ wav: String, in directory: TemporaryDirectory) throws -> String {
        let flac = directory.file("album.flac")
        #expect(try run(["/usr/bin/flac", "-s", "-f", "-o", flac, wav]).status == 0)
        return flac
    }

    static func firstDifference(_ a: [Int16], _ b: [Int16]) -> Int {
        (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? (a.count == b.count ? -1 : min(a.count, b.count))
    }

    @Test func wavTracksAreTheFilesSamplesBetweenTheirIndexPoints() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, samples) = Self.album(in: directory)
        try Self.expectSplits(path, samples)
    }

    @Test func aTrackStartsAtATrackRelativePosition() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, samples) = Self.album(in: directory)
        let expected = Self.slice(samples, (Self.cuts[0] + 44100)..<Self.cuts[1])
        let got = try Self.play(path, [Self.spans[1]], fromMs: 1000, expected: expected.count)
        #expect(Self.firstDifference(got, expected) == -1, "first difference at \(Self.firstDifference(got, expected))")
    }

    @Test(.enabled(if: access("/usr/bin/lame", X_OK) == 0)) func mp3TracksSplitWhereMpg123sGaplessDecodeDoes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (wav, _) = Self.album(in: directory)
        let mp3 = directory.file("album.mp3")
        #expect(try run(["/usr/bin/lame", "--quiet", "-b", "192", wav, mp3]).status == 0)
        let reference = try referenceDecode([mp3])
        #expect(reference.count == 10 * Self.rate * 2)
        try Self.expectSplits(mp3, reference)
    }

    @Test(.enabled(if: access("/usr/bin/flac", X_OK) == 0)) func flacTracksAreBitExactWithFlacD() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let flac = try Self.flac(Self.album(in: directory).path, in: directory)
        let decoded = directory.file("decoded.raw")
        #expect(
            try run([
                "/usr/bin/flac", "-s", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed",
                "-o", decoded, flac,
            ]).status == 0)
        let reference = samples(ofFile: decoded)
        #expect(reference.count == 10 * Self.rate * 2)
        try Self.expectSplits(flac, reference)
    }

    /// A FLAC with the sheet in a CUESHEET block (as `metaflac --import-cuesheet-from` writes
    /// it): the probe gives the sheet, whose tracks split bit-exact with `flac -d`.
    @Test(.enabled(if: access("/usr/bin/metaflac", X_OK) == 0)) func aFlacsCuesheetBlockGivesItsTracks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (wav, samples) = Self.album(in: directory)
        let flac = try Self.flac(wav, in: directory)
        let fixture = Fixtures.path("Tests/Fixtures/cue/album.cue")
        #expect(try run(["/usr/bin/metaflac", "--import-cuesheet-from=" + fixture, flac]).status == 0)
        let text = try #require(try MediaProbe.probe(path: flac).cueSheet)
        let sheet = try CueSheet.parse(Array(text.utf8))
        #expect(sheet.tracks.map { $0.startFrame(rate: Self.rate) } == [0] + Self.cuts)
        #expect(sheet.tracks.map(\.number) == ["01", "02", "03"])
        let spans = sheet.tracks.map { $0.startFrame(rate: Self.rate)..<($0.endFrame(rate: Self.rate) ?? .max) }
        #expect(spans == Self.spans)
        let whole = try Self.play(flac, spans, expected: samples.count)
        #expect(
            Self.firstDifference(whole, samples) == -1, "first difference at \(Self.firstDifference(whole, samples))")
    }

    @Test func aSpanPastTheEndOfTheFileFailsWithItsReason() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, _) = Self.album(in: directory)
        let sink = try PacedFifoSink(bytesPerSecond: 176_400, speed: 8)
        let h = Harness(device: sink.alsaDevice)
        h.pipeline.play(PlaybackItem(token: 1, path: path, span: 441_000..<Int64.max), fromMs: 0)
        #expect(h.waitForEnd())
        #expect(
            h.events.contains(
                .failed(1, "\(path): the track starts at frame 441000, past the file's end (441000 frames)")),
            "\(h.events)")
        h.pipeline.shutdown()
        sink.stop()
    }
}
