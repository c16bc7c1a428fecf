import FFmpeg
import Foundation
import JukeboxTestSupport
import Testing

/// MP4 files that ffmpeg makes from sox's tone and noise (its native AAC encoder, which writes
/// an edit list, and its ALAC encoder), and ffmpeg's decodes of them.
extension Media {
    func ffmpeg(_ arguments: [String]) throws { try tool(["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments) }

    /// `wav` encoded to `name` with the codec options given (e.g. ["-c:a", "alac"]).
    func mp4(_ name: String, from wav: String, _ codec: [String], extra: [String] = []) throws -> String {
        let path = dir.file(name)
        try ffmpeg(["-i", wav] + extra + codec + [path])
        return path
    }

    /// ffmpeg's decode of `file` as raw little-endian `format` (s16le, s32le).
    func ffmpegDecode(_ file: String, format: String) throws -> [UInt8] {
        let raw = file + "." + format
        try ffmpeg(["-i", file, "-f", format, raw])
        return try Raw.bytes(raw)
    }

    /// Adds iTunes freeform atoms (NAME=VALUE) and a cover with python3-mutagen.
    func freeform(_ file: String, cover: String? = nil, _ pairs: [String]) throws {
        try tool(
            ["/usr/bin/python3", Fixtures.path("Tests/Tools/mp4-freeform.py"), file]
                + (cover.map { ["--cover", $0] } ?? []) + pairs)
    }
}

extension Raw {
    static func int16(_ bytes: [UInt8]) -> [Int16] {
        bytes.withUnsafeBytes { raw in
            (0..<raw.count / 2).map { raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self) }
        }
    }

    static func int32(_ bytes: [UInt8]) -> [Int32] {
        bytes.withUnsafeBytes { raw in
            (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self) }
        }
    }
}

@Suite struct MP4DecoderTests {
    static let aac = ["-c:a", "aac", "-b:a", "128k"]
    /// Without perceptual noise substitution: a seek cannot restore the noise generator's
    /// state, so only without it does AAC after a seek equal a decode from the start.
    static let aacWithoutNoise = ["-c:a", "aac", "-b:a", "128k", "-aac_pns", "0"]

    static func decode16(_ decoder: MP4AudioDecoder) throws -> [Int16] {
        try readAll(chunkSamples: 4000, channels: decoder.channels) { try decoder.read(into: $0) }
    }

    static func decode32(_ decoder: MP4AudioDecoder) throws -> [Int32] {
        try readAll(chunkSamples: 4000, channels: decoder.channels) { try decoder.read(into: $0) }
    }

    /// ALAC is lossless: the output is the source, bit for bit, 24-bit in the top 24 bits of
    /// S32, and equals ffmpeg's; the length is the source's.
    @Test(arguments: [(44100, 16), (48000, 24)])
    func alacIsTheSourceBitForBit(rate: Int, bits: Int) throws {
        let media = try Media()
        let wav = try media.wav("source.wav", rate: rate, bits: bits, seconds: 2.5)
        let source32 = media.dir.file("source.s32")
        try media.tool(["sox", wav, "-t", "raw", "-e", "signed", "-b", "32", source32])
        let m4a = try media.mp4("alac.m4a", from: wav, ["-c:a", "alac"])

        let decoder = try MP4AudioDecoder(path: m4a)
        #expect(decoder.codec == .alac)
        #expect(decoder.bitsPerSample == bits)
        #expect(decoder.rate == rate && decoder.channels == 2)
        #expect(decoder.totalFrames == Int64(rate * 5 / 2))
        let decoded = try Self.decode32(decoder)
        #expect(decoded == Raw.int32(try Raw.bytes(source32)))
        #expect(decoded == Raw.int32(try media.ffmpegDecode(m4a, format: "s32le")))

        let again = try MP4AudioDecoder(path: m4a)
        #expect(try Self.decode16(again) == Raw.int16(try media.ffmpegDecode(m4a, format: "s16le")))
    }

    /// ffmpeg's AAC encoder writes an edit list: 1024 frames of priming, and the source's
    /// length. The decoder drops the priming and ends at the edit's end; `ffmpeg -f s16le`
    /// drops the priming too but plays the last packet's padding, so it is longer, and
    /// equal sample for sample up to the end of ours.
    @Test func aacEndsAtTheEditListsLength() throws {
        let media = try Media()
        let wav = try media.wav("source.wav", rate: 44100, bits: 16, seconds: 3)
        let m4a = try media.mp4("aac.m4a", from: wav, Self.aac)
        let decoder = try MP4AudioDecoder(path: m4a)
        #expect(decoder.codec == .aac && decoder.bitsPerSample == nil)
        #expect(decoder.totalFrames == 132_300)
        #expect(decoder.iTunesGapless == nil)

        let decoded = try Self.decode16(decoder)
        let reference = Raw.int16(try media.ffmpegDecode(m4a, format: "s16le"))
        #expect(decoded.count == 132_300 * 2)
        #expect(reference.count > decoded.count)
        #expect(largestDifference(decoded, Array(reference.prefix(decoded.count))).difference <= 1)

        let wide = try Self.decode32(try MP4AudioDecoder(path: m4a))
        let reference32 = Raw.int32(try media.ffmpegDecode(m4a, format: "s32le"))
        #expect(wide.count == 132_300 * 2)
        let worst = zip(wide, reference32).map { abs(Int64($0) - Int64($1)) }.max() ?? 0
        #expect(worst <= 1 << 8, "S32 differs from ffmpeg's by \(worst)")
    }

    /// Without an edit list, iTunSMPB says it all: FFmpeg drops its delay, the wrapper ends at
    /// its length; the output equals the edit-list file's.
    @Test func iTunSMPBGivesTheDelayAndLengthWithoutAnEditList() throws {
        let media = try Media()
        let wav = try media.wav("source.wav", rate: 44100, bits: 16, seconds: 3)
        let edited = try media.mp4("edited.m4a", from: wav, Self.aac)
        let bare = media.dir.file("bare.m4a")
        try media.ffmpeg(["-i", edited, "-c", "copy", "-use_editlist", "0", bare])
        #expect(try MP4AudioDecoder(path: bare).totalFrames > 132_300, "without a length the padding plays")

        let packets = 131 * 1024  // 1024 priming + 132,300 + 780 padding, in whole packets
        let padding = packets - 1024 - 132_300
        let smpb = " 00000000 00000400 " + String(padding, radix: 16, uppercase: true) + " 00000000000204CC"
        try media.freeform(bare, ["iTunSMPB=" + smpb])
        let decoder = try MP4AudioDecoder(path: bare)
        #expect(decoder.iTunesGapless?.delay == 1024)
        #expect(decoder.iTunesGapless?.padding == Int64(padding))
        #expect(decoder.totalFrames == 132_300)
        #expect(try Self.decode16(decoder) == Self.decode16(try MP4AudioDecoder(path: edited)))
    }

    /// A seek lands on the exact frame, and the rest equals a decode from the start bit for
    /// bit (ALAC; AAC without noise substitution). With it, the position and the length are
    /// still exact: only the noise differs.
    @Test(arguments: [0, 1, 1023, 1024, 2047, 44_100, 100_001, 132_299])
    func seekLandsOnTheExactFrame(frame: Int) throws {
        let media = try Media()
        let wav = try media.wav("source.wav", rate: 44100, bits: 16, seconds: 3)
        for (name, codec) in [("alac.m4a", ["-c:a", "alac"]), ("aac.m4a", Self.aacWithoutNoise)] {
            let m4a = try media.mp4(name, from: wav, codec)
            let whole = try Self.decode16(try MP4AudioDecoder(path: m4a))
            let decoder = try MP4AudioDecoder(path: m4a)
            var start = [Int16](repeating: 0, count: 8192)
            _ = try start.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            try decoder.seek(toFrame: Int64(frame))
            #expect(decoder.positionFrames == Int64(frame))
            let rest = try Self.decode16(decoder)
            let reference = Array(whole[(frame * 2)...])
            #expect(rest.count == reference.count, "\(name) after a seek to \(frame)")
            #expect(largestDifference(rest, reference).difference == 0, "\(name) after a seek to \(frame)")
        }
        let noisy = try media.mp4("noisy.m4a", from: wav, Self.aac)
        let decoder = try MP4AudioDecoder(path: noisy)
        try decoder.seek(toFrame: Int64(frame))
        #expect(try Self.decode16(decoder).count == (132_300 - frame) * 2)
    }

    /// The shim reads the packets through the sample tables itself, a window at a time, and
    /// gives what the demuxer's index gives, sample for sample, from the start and after seeks
    /// (the same packets decode, so even AAC's noise is the same), with the same length, tags
    /// and chapters, in every layout ffmpeg makes: AAC with an edit list (index last or first),
    /// iTunSMPB without one, 22.05 kHz mono, ALAC at 16 and 24 bits, a book with chapters,
    /// parts joined by copying (odd packet durations where they meet), a file cut in its audio.
    /// A fragmented file is left to the demuxer.
    @Test func theSampleTableReaderGivesWhatTheDemuxerGives() throws {
        let media = try Media()
        let wav = try media.wav("source.wav", rate: 44100, bits: 16, seconds: 3)
        let wav24 = try media.wav("source24.wav", rate: 48000, bits: 24, seconds: 2.5)
        let chapters = media.dir.file("chapters.txt")
        try ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1200\ntitle=One\n"
            .appending("[CHAPTER]\nTIMEBASE=1/1000\nSTART=1200\nEND=3000\ntitle=Two\n")
            .write(toFile: chapters, atomically: true, encoding: .utf8)
        let edited = try media.mp4("edited.m4a", from: wav, Self.aac)
        let fast = try media.mp4("fast.m4a", from: wav, Self.aac, extra: ["-movflags", "+faststart"])
        let bare = media.dir.file("bare.m4a")
        try media.ffmpeg(["-i", edited, "-c", "copy", "-use_editlist", "0", bare])
        try media.freeform(bare, ["iTunSMPB= 00000000 00000400 0000030C 00000000000204CC"])
        let joined = media.dir.file("joined.m4b")
        let list = media.dir.file("parts.txt")
        try String(repeating: "file '\(fast)'\n", count: 3).write(toFile: list, atomically: true, encoding: .utf8)
        try media.ffmpeg(["-f", "concat", "-safe", "0", "-i", list, "-c", "copy", "-f", "ipod", joined])
        let layouts = [
            edited, fast, bare, joined,
            try media.mp4("mono.m4a", from: wav, ["-c:a", "aac", "-b:a", "48k", "-ar", "22050", "-ac", "1"]),
            try media.mp4("alac.m4a", from: wav, ["-c:a", "alac"]),
            try media.mp4("alac24.m4a", from: wav24, ["-c:a", "alac"]),
            try media.mp4(
                "book.m4b", from: wav, Self.aac, extra: ["-i", chapters, "-map_metadata", "1", "-map_chapters", "1"]),
            try media.truncated(fast, to: 0.6, name: "cut.m4a"),
        ]
        for path in layouts {
            let reader = try MP4AudioDecoder(path: path)
            let demuxer = try MP4AudioDecoder(path: path, demuxerPackets: true)
            #expect(reader.readsSampleTables && !demuxer.readsSampleTables, "\(path)")
            #expect(reader.totalFrames == demuxer.totalFrames, "\(path)")
            #expect(reader.rate == demuxer.rate && reader.channels == demuxer.channels, "\(path)")
            #expect(reader.bitsPerSample == demuxer.bitsPerSample, "\(path)")
            #expect(reader.chapters == demuxer.chapters, "\(path)")
            #expect(reader.tags.map { "\($0)=\($1)" } == demuxer.tags.map { "\($0)=\($1)" }, "\(path)")
            #expect(reader.streamTags.map { "\($0)=\($1)" } == demuxer.streamTags.map { "\($0)=\($1)" }, "\(path)")
            let whole = try Self.decode16(reader)
            #expect(whole.count == Int(reader.totalFrames) * reader.channels, "\(path)")
            #expect(whole == (try Self.decode16(demuxer)), "\(path)")
            for frame in [0, 1023, 2049, 44_100, Int(reader.totalFrames) - 1] {
                let reader = try MP4AudioDecoder(path: path)
                let demuxer = try MP4AudioDecoder(path: path, demuxerPackets: true)
                try reader.seek(toFrame: Int64(frame))
                try demuxer.seek(toFrame: Int64(frame))
                #expect(try Self.decode16(reader) == (try Self.decode16(demuxer)), "\(path) after a seek to \(frame)")
            }
        }

        let fragmented = try media.mp4(
            "fragmented.m4a", from: wav, Self.aac, extra: ["-movflags", "frag_keyframe+empty_moov"])
        let decoder = try MP4AudioDecoder(path: fragmented)
        #expect(!decoder.readsSampleTables)
        #expect(Int64(try Self.decode16(decoder).count / 2) == decoder.totalFrames)
    }

    /// The reader reads the packets' bytes 64 KiB at a time, not a read call per packet (60 s
    /// of 128 kbit/s AAC: ~2,600 packets in ~1 MB; a call each cost more CPU than ffmpeg).
    @Test func packetsAreReadAWindowAtATime() throws {
        let media = try Media()
        let wav = try media.wav("source.wav", rate: 44100, bits: 16, seconds: 60)
        let decoder = try MP4AudioDecoder(path: try media.mp4("long.m4a", from: wav, Self.aac))
        #expect(decoder.readsSampleTables)
        let before = try #require(ProcessIO.readThisThread())
        let samples = try Self.decode16(decoder)
        let reads = try #require(ProcessIO.readThisThread()).since(before).syscr
        #expect(samples.count == Int(decoder.totalFrames) * 2)
        #expect(reads < 100, "\(reads) read calls for \(decoder.totalFrames / 1024) packets")
    }

    /// Broken sample tables the reader takes on (30 s of ALAC: chunks of 4,096-frame packets): a
    /// chunk or a packet that would end past the end of the file ends the audio before it, with
    /// no error; a packet of 1.1 MB (more than any AAC or ALAC packet, yet inside the file) is an
    /// error naming the file, after the audio before it, and again on the next read.
    @Test func brokenSampleTablesEndTheAudioOrFailClearly() throws {
        let media = try Media()
        let wav = try media.wav("source.wav", rate: 44100, bits: 16, seconds: 30)
        let fast = try media.mp4("fast.m4a", from: wav, ["-c:a", "alac"], extra: ["-movflags", "+faststart"])
        let original = try #require(FileManager.default.contents(atPath: fast))
        #expect(original.count > 1_100_000)
        /// `fast` with entry `index` of `table` (its entries from `entries` bytes after the type)
        /// set to `value`.
        func broken(_ name: String, _ table: String, entries: Int, index: Int, _ value: UInt32) throws -> String {
            var bytes = [UInt8](original)
            let type = [UInt8](table.utf8)
            let at = try #require((0..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == type })
            let count = bytes[at + entries - 4..<at + entries].reduce(0) { $0 << 8 | Int($1) }
            #expect(index < count, "\(table) has \(count) entries")
            for k in 0..<4 { bytes[at + entries + index * 4 + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
            let path = media.dir.file(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        let chunkPast = try MP4AudioDecoder(
            path: try broken("chunk-past.m4a", "stco", entries: 12, index: 1, 0xFFFF_FF00))
        #expect(chunkPast.readsSampleTables)
        let played = Int64(try Self.decode16(chunkPast).count / 2)
        #expect(played > 0 && played < 1_323_000 && chunkPast.positionFrames == played)
        let packetPast = try MP4AudioDecoder(
            path: try broken("packet-past.m4a", "stsz", entries: 16, index: 5, 16 << 20))
        #expect(try Self.decode16(packetPast).count == 5 * 4096 * 2)

        let hugePacket = try broken("huge-packet.m4a", "stsz", entries: 16, index: 5, 1_100_000)
        let failing = try MP4AudioDecoder(path: hugePacket)
        for _ in 0..<2 {
            #expect {
                _ = try Self.decode16(failing)
            } throws: { error in
                let error = error as? FFmpegError
                return error?.path == hugePacket && error?.message.contains("a packet of 1100000 bytes") == true
            }
        }
        #expect(failing.positionFrames == 5 * 4096)
    }

    /// MP4 atoms as FFmpeg names them, non-ASCII text intact; Nero chapters (ffmpeg writes
    /// them from an ffmetadata file) with titles and exact starts.
    @Test func tagsAndChapters() throws {
        let media = try Media()
        let wav = try media.wav("source.wav", rate: 44100, bits: 16, seconds: 3)
        let metadata = media.dir.file("meta.txt")
        try """
        ;FFMETADATA1
        title=\(Tags.title)
        artist=\(Tags.artist)
        album_artist=Various Ärtists
        album=\(Tags.album)
        track=3/12
        disc=2/3
        date=2019-12-15
        genre=J-Pop
        composer=Ayase
        lyrics=[00:01.00]一行目\\
        [00:02.00]second

        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=1500
        title=Chapter One

        [CHAPTER]
        TIMEBASE=1/1000
        START=1500
        END=3000
        title=第二章

        """.write(toFile: metadata, atomically: true, encoding: .utf8)
        let m4b = try media.mp4(
            "book.m4b", from: wav, Self.aac, extra: ["-i", metadata, "-map_metadata", "1", "-map_chapters", "1"])
        let trackID = "1b2c3d4e-0000-4000-8000-000000000001"
        try media.freeform(m4b, ["MusicBrainz Track Id=" + trackID])

        let decoder = try MP4AudioDecoder(path: m4b)
        let tags = Dictionary(decoder.tags.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(tags["title"] == Tags.title)
        #expect(tags["artist"] == Tags.artist)
        #expect(tags["album_artist"] == "Various Ärtists")
        #expect(tags["album"] == Tags.album)
        #expect(tags["track"] == "3/12")
        #expect(tags["disc"] == "2/3")
        #expect(tags["date"] == "2019-12-15")
        #expect(tags["genre"] == "J-Pop")
        #expect(tags["composer"] == "Ayase")
        #expect(tags["lyrics"] == "[00:01.00]一行目\n[00:02.00]second")
        #expect(tags["MusicBrainz Track Id"] == trackID)
        #expect(
            decoder.chapters == [
                MP4Chapter(title: "Chapter One", startFrame: 0), MP4Chapter(title: "第二章", startFrame: 66_150),
            ])
        #expect(decoder.totalFrames == 132_300)
    }

    /// A 5 MB cover: the demuxer is shown another atom type where 'covr' is, so it skips the
    /// picture by offset; opening reads no more than without it.
    @Test func aLargeCoverIsNeverRead() throws {
        let media = try Media()
        let wav = try media.wav("source.wav", rate: 44100, bits: 16, seconds: 3)
        let plain = try media.mp4("plain.m4a", from: wav, ["-c:a", "alac"])
        let covered = try media.mp4("covered.m4a", from: wav, ["-c:a", "alac"])
        try media.freeform(plain, ["MusicBrainz Album Id=x"])
        try media.freeform(covered, cover: try media.cover(), ["MusicBrainz Album Id=x"])

        let (plainBytes, _) = try bytesRead { try MP4AudioDecoder(path: plain) }
        let (coveredBytes, decoder) = try bytesRead { try MP4AudioDecoder(path: covered) }
        print("opening read \(plainBytes) B without the cover, \(coveredBytes) B with it")
        #expect(coveredBytes < plainBytes + 65536, "opening reads the 5 MB cover")
        #expect(decoder.skippedCovers == 1)
        #expect(decoder.tags.contains { $0.key == "MusicBrainz Album Id" && $0.value == "x" })
        #expect(try Self.decode16(decoder) == Self.decode16(try MP4AudioDecoder(path: plain)))
    }

    /// Not MP4, no audio, or audio that is not AAC or ALAC: an error naming the file, with
    /// FFmpeg's text. A file cut in its audio opens and decodes what it holds, exactly the
    /// length it reports.
    @Test func badInputThrowsWithThePathAndFFmpegsText() throws {
        let media = try Media()
        let wav = try media.wav("source.wav", rate: 44100, bits: 16, seconds: 3)
        let video = media.dir.file("video.mp4")
        try media.ffmpeg(["-f", "lavfi", "-i", "testsrc=duration=1:size=64x48:rate=10", "-c:v", "mpeg4", video])
        let eac3 = try media.mp4("eac3.mp4", from: wav, ["-c:a", "eac3"])
        let mp3 = try media.mp4("mp3.mp4", from: wav, ["-c:a", "libmp3lame"])
        let tailMoov = try media.mp4("tail-moov.m4a", from: wav, Self.aac)
        let cutBeforeMoov = try media.truncated(tailMoov, to: 0.5, name: "cut-before-moov.m4a")
        let expected = [
            video: "no audio stream", eac3: "the audio is eac3", mp3: "the audio is mp3",
            cutBeforeMoov: "moov atom not found",
        ]
        for path in try media.impostors(ext: "m4a") + [video, eac3, mp3, cutBeforeMoov] {
            expectError(FFmpegError.self, for: path) { _ = try MP4AudioDecoder(path: path) }
            if let text = expected[path] {
                #expect {
                    _ = try MP4AudioDecoder(path: path)
                } throws: { error in
                    (error as? FFmpegError)?.message.contains(text) == true
                }
            }
        }

        // With the index first (faststart), a cut in the audio leaves whole packets to play.
        let faststart = try media.mp4("fast.m4a", from: wav, Self.aac, extra: ["-movflags", "+faststart"])
        let cut = try media.truncated(faststart, to: 0.6, name: "cut.m4a")
        let decoder = try MP4AudioDecoder(path: cut)
        #expect(decoder.totalFrames > 40_000 && decoder.totalFrames < 132_300)
        #expect(Int64(try Self.decode16(decoder).count / 2) == decoder.totalFrames)
    }
}
