import Foundation
import JukeboxAudio
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// FLAC, Ogg Vorbis and Opus through the whole pipeline, compared with the reference decoders
/// (`flac -d`, `oggdec`, `opusdec --no-dither`) on files the encoders make here.
@Suite struct XiphFormatTests {
    /// The rate each format's test files are made at: Opus always decodes at 48 kHz.
    static func rate(_ format: XiphFormat) -> Int { format == .opus ? 48000 : 44100 }

    /// `seconds` of tone and noise encoded as `format`, starting `from` seconds into the signal.
    static func encoded(
        _ media: EncodedMedia, _ format: XiphFormat, name: String, seconds: Double, from: Double = 0,
        rate: Int? = nil
    ) throws -> String {
        let wav = try media.wav("\(name).wav", rate: rate ?? Self.rate(format), seconds: seconds, from: from)
        return try media.encode(wav, as: format)
    }

    /// Three parts of one continuous signal, 1.1 + 0.9 + 1.3 s, in the formats given.
    static func parts(_ media: EncodedMedia, _ formats: [XiphFormat], rate: Int) throws -> [String] {
        var from = 0.0
        return try zip(formats, [1.1, 0.9, 1.3]).enumerated().map { index, part in
            defer { from += part.1 }
            return try encoded(media, part.0, name: "part\(index + 1)", seconds: part.1, from: from, rate: rate)
        }
    }

    /// Decoded through ALSA's `file` PCM (unpaced), every sample and the exact length: FLAC
    /// bit-exact; Vorbis is `ov_read`, what oggdec writes; Opus undithered S16, what
    /// `opusdec --no-dither` writes (both rounding libopus's float output with lrintf).
    @Test(arguments: XiphFormat.allCases)
    func decodeMatchesTheReferenceDecoder(_ format: XiphFormat) throws {
        let dir = try TemporaryDirectory()
        let media = EncodedMedia(directory: dir.path)
        let file = try Self.encoded(media, format, name: "tone", seconds: 2.5)
        let reference = try media.referenceDecode([file])
        #expect(reference.count == Self.rate(format) * 5 / 2 * 2)
        let (got, events, status) = DecodeThroughALSATests.pipelineDecode(file, dir: dir)
        #expect(events == [.started(7), .finished(7), .endOfStream])
        #expect(status.state == .stopped)
        #expect(got.count == reference.count, "\(format): \(got.count) vs \(reference.count) samples")
        #expect(maxDifference(got, reference) == 0, "\(format)")
    }

    /// Three consecutive files of one signal join sample-exactly on a paced virtual DAC, with
    /// the PCM open throughout; per format, and mixed.
    @Test(arguments: [
        [XiphFormat.flac, .flac, .flac], [.vorbis, .vorbis, .vorbis], [.opus, .opus, .opus],
        [.flac, .vorbis, .opus], [.opus, .flac, .vorbis],
    ])
    func threePartsJoinGaplessly(_ formats: [XiphFormat]) throws {
        let dir = try TemporaryDirectory()
        let media = EncodedMedia(directory: dir.path)
        let rate = formats.contains(.opus) ? 48000 : 44100
        let parts = try Self.parts(media, formats, rate: rate)
        let reference = try media.referenceDecode(parts)
        #expect(reference.count == rate * 33 / 10 * 2)
        let played = try playAsQueue(parts, rate: rate, expectedFrames: reference.count / 2)
        #expect(played.ended)
        #expect(played.events == QueuePlayback.expectedEvents(parts: 3))
        #expect(played.segmentOffsets == [0], "the PCM must stay open across gapless joins")
        let got = played.samples
        #expect(got.count == reference.count, "\(formats)")
        #expect(maxDifference(got, reference) == 0, "\(formats)")
    }

    /// A chained Ogg Vorbis file whose second link changes rate and channels (22.05 kHz
    /// stereo, then 44.1 kHz mono): each link's samples as oggdec gives them, the device
    /// reopened once, for the second link.
    @Test func aChainedOggChangesFormatAtTheLink() throws {
        let dir = try TemporaryDirectory()
        let media = EncodedMedia(directory: dir.path)
        let first = try media.encode(try media.wav("a.wav", rate: 22050, seconds: 1.5), as: .vorbis)
        let second = try media.encode(try media.wav("b.wav", rate: 44100, seconds: 1, channels: 1), as: .vorbis)
        let chain = dir.file("chain.ogg")
        try (try Data(contentsOf: URL(fileURLWithPath: first)) + (try Data(contentsOf: URL(fileURLWithPath: second))))
            .write(to: URL(fileURLWithPath: chain))
        let reference = try media.referenceDecode([first, second])
        #expect(reference.count == 22050 * 3 + 44100)
        let sink = try PacedFifoSink(bytesPerSecond: 176_400, speed: 8)
        let h = Harness(device: sink.alsaDevice, periodMs: 10, bufferMs: 40)
        h.pipeline.play(PlaybackItem(token: 1, path: chain), fromMs: 0)
        #expect(h.waitForEnd())
        #expect(h.events == [.started(1), .finished(1), .endOfStream])
        let status = h.pipeline.status()
        #expect(status.deviceOpens == 2, "opened for the first link, reopened for the second")
        #expect(status.format == AudioFormat(rate: 44100, channels: 1))
        sink.waitForBytes(reference.count * 2, timeoutSeconds: 3)
        h.pipeline.shutdown()
        sink.stop()
        #expect(sink.samples == reference)

        // Each read's frames are in the format that was current before it (what the ring
        // labels them with): every sample of a link arrives under that link's format.
        let decoder = try VorbisFileDecoder(path: chain)
        var byFormat: [AudioFormat: [Int16]] = [:]
        var buffer = [Int16](repeating: 0, count: 4096)
        while true {
            let before = decoder.format
            let result = try buffer.withUnsafeMutableBufferPointer {
                try decoder.read(
                    into: UnsafeMutableBufferPointer(rebasing: $0[0..<4096 / before.channels * before.channels]))
            }
            byFormat[before, default: []] += buffer[0..<result.frames * before.channels]
            if result.isEnd { break }
        }
        #expect(byFormat[AudioFormat(rate: 22050, channels: 2)] == Array(reference.prefix(22050 * 3)))
        #expect(byFormat[AudioFormat(rate: 44100, channels: 1)] == Array(reference.dropFirst(22050 * 3)))
    }

    /// Playing from a position starts at that exact frame: FLAC and Vorbis give the samples a
    /// decode from the start gives; Opus, whose decoder state needs 80 ms of pre-roll to
    /// converge, differs only in its first half second.
    @Test(arguments: XiphFormat.allCases)
    func playFromAPositionStartsAtTheExactFrame(_ format: XiphFormat) throws {
        let dir = try TemporaryDirectory()
        let media = EncodedMedia(directory: dir.path)
        let file = try Self.encoded(media, format, name: "tone", seconds: 3)
        let reference = try media.referenceDecode([file])
        let out = dir.file("out.raw")
        let h = Harness(device: "file:'\(out)',raw")
        h.pipeline.setVolume(percent: 100, gain: 1.0)
        h.pipeline.play(PlaybackItem(token: 1, path: file), fromMs: 1234)
        #expect(h.waitForEnd())
        h.pipeline.shutdown()
        let got = samples(ofFile: out)
        let start = Self.rate(format) * 1234 / 1000 * 2
        #expect(got.count == reference.count - start)
        let settled = format == .opus ? Self.rate(format) / 2 * 2 : 0
        #expect(got.count > settled)
        #expect(maxDifference(Array(got.dropFirst(settled)), Array(reference.dropFirst(start + settled))) == 0)
    }

    /// Bad media of each format: a file that is not what its name says, one cut in half, junk
    /// before the header, a stream with no audio. The scan's probe refuses what cannot play
    /// with one message naming the file; playback plays what decodes, reports one failure
    /// naming the file for what does not, and goes on with the next item.
    @Test(arguments: XiphFormat.allCases)
    func badMediaGetsOneMessageAndPlaybackGoesOn(_ format: XiphFormat) throws {
        let dir = try TemporaryDirectory()
        let media = EncodedMedia(directory: dir.path)
        let good = try Self.encoded(media, format, name: "good", seconds: 2)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        func write(_ name: String, _ data: Data) throws -> String {
            let path = dir.file(name + "." + format.ext)
            try data.write(to: URL(fileURLWithPath: path))
            return path
        }
        /// What the probe and playback do with a file.
        enum Outcome: Equatable {
            /// Probed and played to its end.
            case plays
            /// Refused by the probe; playback fails at once (`played`: after what decodes).
            case refused(played: Bool)
            /// Refused by the probe; playback ends at once without a failure (nothing to play).
            case empty
        }
        let cases: [(String, Outcome)] = [
            (try write("text", Data("not audio at all\n".utf8)), .refused(played: false)),
            // libvorbisfile ends where the pages end; libopusfile checks the last page's
            // granule position on opening; libFLAC stops short of STREAMINFO's length.
            (
                try write("cut", bytes.prefix(bytes.count / 2)),
                [.flac: .refused(played: true), .vorbis: .plays, .opus: .refused(played: false)][format]!
            ),
            // The Ogg readers find the first page past junk; a FLAC file must start with fLaC
            // (or an ID3v2 tag).
            (
                try write("junk", Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }) + bytes),
                format == .flac ? .refused(played: false) : .plays
            ),
            (try media.empty("empty", as: format, rate: Self.rate(format)), .empty),
        ]
        for (bad, outcome) in cases {
            var probeError: String?
            do { _ = try MediaProbe.probe(path: bad) } catch { probeError = "\(error)" }
            let (events, _, _) = FormatAndBadMediaTests.playChain([bad, good], dir: dir)
            let failures = events.compactMap { if case .failed(1, let message) = $0 { message } else { nil } }
            switch outcome {
            case .plays:
                #expect(probeError == nil, "\(bad)")
                #expect(events.prefix(2) == [.started(1), .finished(1)], "\(bad): \(events)")
            case .refused(let played):
                #expect(probeError?.contains(bad) == true, "\(bad): \(probeError ?? "probed")")
                #expect(failures.count == 1 && failures[0].contains(bad), "\(bad): \(events)")
                #expect(events.contains(.started(1)) == played, "\(bad): \(events)")
            case .empty:
                #expect(probeError?.contains("holds no audio") == true, "\(bad): \(probeError ?? "probed")")
                #expect(failures.isEmpty && !events.contains(.started(1)), "\(bad): \(events)")
            }
            #expect(events.suffix(3) == [.started(2), .finished(2), .endOfStream], "\(bad): \(events)")
        }
        // Content decides over the name: an MP3 named .flac/.ogg/.opus plays as the MP3 it is.
        let mp3 = try write("mp3", try Data(contentsOf: URL(fileURLWithPath: Fixtures.media("mp3/cbr128.mp3"))))
        let (events, _, got) = FormatAndBadMediaTests.playChain([mp3], dir: dir)
        #expect(events == [.started(1), .finished(1), .endOfStream])
        #expect(got == (try referenceDecode([Fixtures.media("mp3/cbr128.mp3")])))
        #expect(try MediaProbe.probe(path: mp3).format == "44100:16:2")
    }

    /// The scanner's probe: exact duration, MPD's `Format:`, the Vorbis comments mapped as MPD
    /// maps them (CJK and accents kept, several values of a tag in file order) and the lyrics,
    /// reading neither the 5 MB cover nor the audio: a few blocks at each end.
    @Test(arguments: XiphFormat.allCases)
    func probeReadsTagsAndLengthWithoutTheCover(_ format: XiphFormat) throws {
        let dir = try TemporaryDirectory()
        let media = EncodedMedia(directory: dir.path)
        let tags = [
            ("TITLE", "日本語のうた"), ("Artist", "Ärtist Öne"), ("ALBUMARTIST", "Various"), ("ALBUM", "Xiph Älbum"),
            ("TRACKNUMBER", "03/12"), ("DISCNUMBER", "2/2"), ("DATE", "2001-05-03"), ("GENRE", "Rock"),
            ("GENRE", "Pop"), ("COMPOSER", "Compo"), ("PERFORMER", "Pé Former"), ("DESCRIPTION", "コメント"),
            ("MUSICBRAINZ_TRACKID", "55555555-5555-5555-5555-555555555555"),
            ("LYRICS", "[00:01.00]一行目\n[00:02.50]second line"), ("REPLAYGAIN_TRACK_GAIN", "-3.2 dB"),
        ]
        let wav = try media.wav("tagged.wav", rate: Self.rate(format), seconds: 30)
        let file = try media.encode(wav, as: format, tags: tags, cover: try media.cover())
        let before = bytesReadByThisThread()
        let probed = try MediaProbe.probe(path: file)
        let read = bytesReadByThisThread() - before
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        print("\(format): probe read \(read) B of \(size)")
        #expect(size > 5 << 20)
        #expect(read < 256 << 10, "\(format): the probe read \(read) B")
        #expect(probed.durationMs == 30_000)
        #expect(probed.format == [.flac: "44100:16:2", .vorbis: "44100:f:2", .opus: "48000:16:2"][format])
        #expect(probed.title == "日本語のうた" && probed.artist == "Ärtist Öne" && probed.album == "Xiph Älbum")
        #expect(probed.trackNumber == 3)
        #expect(
            probed.tags == [
                TrackTag(.albumArtist, "Various"), TrackTag(.disc, "2"), TrackTag(.date, "2001-05-03"),
                TrackTag(.genre, "Rock"), TrackTag(.genre, "Pop"), TrackTag(.composer, "Compo"),
                TrackTag(.performer, "Pé Former"),
                TrackTag(.musicBrainzTrackID, "55555555-5555-5555-5555-555555555555"),
            ])
        let lyrics = try #require(probed.lyrics.flatMap(Lyrics.embedded))
        #expect(lyrics.format == .lrc)
        #expect(lyrics.lines.map(\.timeMs) == [1000, 2500])
        #expect(lyrics.lines.first?.text == "一行目")
    }
}
