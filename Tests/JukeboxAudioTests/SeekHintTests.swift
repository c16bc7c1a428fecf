import Foundation
import JukeboxCore
import JukeboxTestSupport
import Testing

@testable import JukeboxAudio

/// Resuming deep into a long MP3 with a seek hint: the same samples as an exact seek from the
/// start, for a fraction of the reading. A 2-minute VBR file with a LAME header (gapless
/// offsets in play) is made with sox and lame (`Fixtures.longMP3`).
@Suite(.serialized) struct SeekHintTests {
    /// Decodes `decoder` until its output position passes `frames`.
    func decode(_ decoder: MP3Decoder, past frames: Int64) throws {
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: 8192)
        defer { buffer.deallocate() }
        var position: Int64 = 0
        while position < frames {
            let r = try decoder.read(into: UnsafeMutableBufferPointer(start: buffer, count: 8192))
            position += Int64(r.frames)
            if r.isEnd { break }
        }
    }

    func next(_ decoder: MP3Decoder, frames: Int) throws -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * 2)
        var got = 0
        try out.withUnsafeMutableBufferPointer { p in
            while got < frames {
                let r = try decoder.read(into: UnsafeMutableBufferPointer(rebasing: p[got * 2..<frames * 2]))
                got += r.frames
                if r.isEnd { break }
            }
        }
        return Array(out.prefix(got * 2))
    }

    @Test func aHintedSeekGivesTheSameSamplesAndReadsLittle() throws {
        let path = try #require(Fixtures.longMP3, "sox and lame could not make the long test file")
        let rate: Int64 = 44100
        let playing = try MP3Decoder(path: path)
        try decode(playing, past: 100 * rate)
        let hint = try #require(playing.seekHint, "no seek hint after 100 s of decoding")
        // At least the lag behind what was decoded (the device plays behind the decoder).
        #expect(hint.mpegFrame * 1152 <= 100 * rate - MP3Decoder.hintLagSeconds * rate + 4096)
        #expect(hint.mpegFrame * 1152 >= 80 * rate, "hint at frame \(hint.mpegFrame): too far behind")

        let target = 101 * rate + 123
        let exact = try MP3Decoder(path: path)
        let before = bytesReadByThisThread()
        #expect(try exact.seek(toFrame: target, hint: nil) == false)
        let expected = try next(exact, frames: 20_000)
        let exactRead = bytesReadByThisThread() - before

        let hinted = try MP3Decoder(path: path)
        let start = bytesReadByThisThread()
        #expect(try hinted.seek(toFrame: target, hint: hint))
        let got = try next(hinted, frames: 20_000)
        let hintedRead = bytesReadByThisThread() - start
        print("seek to 101 s of \(path): exact read \(exactRead) B, hinted \(hintedRead) B")
        #expect(got.count == 40_000)
        #expect(got == expected, "a hinted seek must land on the same sample")
        #expect(hintedRead * 4 < exactRead, "hinted \(hintedRead) B, exact \(exactRead) B")
    }

    @Test func aHintThatDoesNotFitIsIgnored() throws {
        let path = try #require(Fixtures.longMP3, "sox and lame could not make the long test file")
        let playing = try MP3Decoder(path: path)
        try decode(playing, past: 60 * 44100)
        let hint = try #require(playing.seekHint)
        let target: Int64 = 61 * 44100
        let exact = try MP3Decoder(path: path)
        try exact.seek(toFrame: target)
        let expected = try next(exact, frames: 4096)
        var otherFile = hint
        otherFile.fileSize += 1  // retagged or replaced since
        var notAFrame = hint
        notAFrame.byteOffset += 1
        for wrong in [otherFile, notAFrame] {
            let decoder = try MP3Decoder(path: path)
            #expect(try decoder.seek(toFrame: target, hint: wrong) == false, "\(wrong)")
            #expect(try next(decoder, frames: 4096) == expected)
        }
        // A hint past the target is not used: reading starts at the file's start.
        let early = try MP3Decoder(path: path)
        #expect(try early.seek(toFrame: 10 * 44100, hint: hint) == false)
        let exactEarly = try MP3Decoder(path: path)
        try exactEarly.seek(toFrame: 10 * 44100)
        #expect(try next(early, frames: 4096) == next(exactEarly, frames: 4096))
    }

    /// Play after pause and seeks reuse the decoder: it starts reading at a frame it noted
    /// while decoding, back or forth, even after it was opened at a seek hint (libmpg123's
    /// own index stops growing then).
    @Test func seeksOnADecoderReadFromTheFramesItNoted() throws {
        let path = try #require(Fixtures.longMP3, "sox and lame could not make the long test file")
        let rate: Int64 = 44100
        let playing = try MP3Decoder(path: path)
        try decode(playing, past: 100 * rate)
        let hint = try #require(playing.seekHint)

        let resumed = try MP3Decoder(path: path)
        #expect(try resumed.seek(toFrame: 100 * rate, hint: hint))
        try decode(resumed, past: 15 * rate)  // to ~115 s
        for target in [105 * rate + 7, 112 * rate, 118 * rate + 999] {
            let exact = try MP3Decoder(path: path)
            try exact.seek(toFrame: target)
            let expected = try next(exact, frames: 8192)
            let before = bytesReadByThisThread()
            try resumed.seek(toFrame: target)
            let got = try next(resumed, frames: 8192)
            let read = bytesReadByThisThread() - before
            #expect(got == expected, "seek to \(Double(target) / Double(rate)) s")
            #expect(read < 200_000, "seek to \(Double(target) / Double(rate)) s read \(read) bytes")
        }
        // Before anything it decoded: from the file's start, still exact.
        let exact = try MP3Decoder(path: path)
        try exact.seek(toFrame: 50 * rate)
        try resumed.seek(toFrame: 50 * rate)
        #expect(try next(resumed, frames: 8192) == next(exact, frames: 8192))
    }

    @Test func frameMarksStayBoundedAndFindTheClosestMark() {
        var marks = FrameMarks(step: 4, capacity: 8)
        for frame in 1...1000 { marks.note(frame: Int64(frame), offset: Int64(frame) * 417) }
        #expect(marks.marks.count < 8 && marks.marks.count >= 4, "\(marks.marks.count)")
        #expect(marks.step > 4)
        #expect(zip(marks.marks, marks.marks.dropFirst()).allSatisfy { $0.frame < $1.frame })
        let closest = marks.closest(atOrBefore: 700)
        #expect(closest != nil && closest!.frame <= 700 && closest!.offset == closest!.frame * 417)
        #expect(700 - closest!.frame < marks.step)
        #expect(marks.closest(atOrBefore: 3) == nil)
        marks.note(frame: 10, offset: 1)  // behind the last mark (after a seek back): ignored
        #expect(zip(marks.marks, marks.marks.dropFirst()).allSatisfy { $0.frame < $1.frame })
    }
}
