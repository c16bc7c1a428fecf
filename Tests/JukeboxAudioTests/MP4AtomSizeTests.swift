import Glibc
import JukeboxAudio
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// An M4A and an M4B whose atoms take ISO/IEC 14496-12's other size forms (issue 34: a
/// last `mdat` of size 0 trapped the daemon at every start): a size-0 last atom, a 64-bit
/// size, both. Each is scanned as the file ffmpeg wrote (length, tags, chapters) and plays
/// through the pipeline sample for sample as ffmpeg decodes the same rewritten file.
@Suite struct MP4AtomSizeTests {
    static let cases = MP4AtomSizes.Variant.allCases.flatMap { variant in ["m4a", "m4b"].map { (variant, $0) } }

    @Test(arguments: cases)
    func scannedAndPlayedAsFFmpegReadsThem(variant: MP4AtomSizes.Variant, ext: String) throws {
        let dir = try TemporaryDirectory()
        let media = EncodedMedia(directory: dir.path)
        let wav = try media.wav("source.wav", seconds: 3)
        let (original, path) = try MP4AtomSizes.make(
            ext, variant, from: wav, cover: try media.cover(bytes: 3000), in: dir.path)

        let probed = try MediaProbe.probe(path: path)
        let expected = try MediaProbe.probe(path: original)
        #expect(probed.durationMs == 3000)
        #expect(probed.title == MP4AtomSizes.title)
        #expect(probed.lyrics == MP4AtomSizes.lyrics)
        #expect(probed.tags == expected.tags)
        #expect(probed.format == expected.format)
        #expect(
            probed.chapters.map { "\($0.title)@\($0.startMs)" }
                == (ext == "m4b" ? MP4AtomSizes.chapters.map { "\($0.title)@\($0.startMs)" } : []))

        let (got, events, status) = DecodeThroughALSATests.pipelineDecode(path, dir: dir)
        #expect(events == [.started(7), .finished(7), .endOfStream])
        #expect(status.state == .stopped)
        #expect(got.count == 132_300 * 2)
        #expect(maxDifference(got, try MP4PlaybackTests.ffmpegDecode(path, frames: 132_300)) == 0)
    }

    /// A Nero chapter list (`chpl`: 64-bit starts in 100 ns) whose second start is Int64.max,
    /// the chapter track's reference hidden so that FFmpeg reads the list: that chapter starts
    /// at Int64.max ms, past the end, and the track's chapter list leaves it out.
    @Test func aChapterStartPastAnyLengthIsLeftOut() throws {
        let dir = try TemporaryDirectory()
        let media = EncodedMedia(directory: dir.path)
        let wav = try media.wav("source.wav", seconds: 3)
        let (original, _) = try MP4AtomSizes.make(
            "m4b", .mdatOf64BitSize, from: wav, cover: try media.cover(bytes: 3000), in: dir.path)
        var bytes = Array(try readWholeFile(original))
        func find(_ text: String) throws -> Int {
            let pattern = Array(text.utf8)
            return try #require((0..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == pattern }, "\(text)")
        }
        let chapterTrack = try find("chap")
        bytes.replaceSubrange(chapterTrack..<chapterTrack + 4, with: Array("xxxx".utf8))
        // chpl: version 1, flags, 4 reserved bytes, a count, then each start, title length, title.
        let second = try find("chpl") + 4 + 1 + 3 + 4 + 1 + 8 + 1 + MP4AtomSizes.chapters[0].title.utf8.count
        #expect(bytes[second..<second + 8].reduce(0) { $0 << 8 | Int($1) } == 12_000_000)
        bytes.replaceSubrange(second..<second + 8, with: [0x7F] + [UInt8](repeating: 0xFF, count: 7))
        let path = dir.file("far.m4b")
        try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644).writeAll(bytes)
        let probed = try MediaProbe.probe(path: path)
        #expect(probed.chapters.map { "\($0.title)@\($0.startMs)" } == ["One@0", "Two@\(Int64.max)"])
        let list = try #require(ChapterList(probed.chapters, durationMs: probed.durationMs))
        #expect(list.chapters.map(\.title) == ["One"])
    }
}
