import Foundation
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

@testable import JukeboxAudio

/// An episode decoded while its file grows: the decoder waits at the partial file's end and goes
/// on when more arrives, giving the same samples as a decode of the whole file.
@Suite struct GrowingFileTests {
    /// Every sample `next` gives until the end; `grow` runs whenever it gives nothing yet.
    static func drain(_ decoder: any AudioDecoder, grow: () throws -> Void) throws -> [Int16] {
        let capacity = 4096
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: capacity * 2)
        defer { buffer.deallocate() }
        var samples: [Int16] = []
        while true {
            let channels = decoder.format.channels
            let r = try decoder.read(into: UnsafeMutableBufferPointer(start: buffer, count: capacity * channels))
            samples += UnsafeBufferPointer(start: buffer, count: r.frames * channels)
            if r.isEnd { return samples }
            if r.frames == 0 { try grow() }
        }
    }

    /// Appends the next `step` bytes of `bytes` (from `written` on) to `file`'s partial file,
    /// renamed into place and ended in `files` once whole, as jb-podcast does.
    static func grow(
        _ file: GrowingFile, in files: GrowingFiles, from bytes: [UInt8], written: inout Int, step: Int
    ) throws {
        guard written < bytes.count else { return }
        let old = written
        written = min(written + step, bytes.count)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file.partialPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes[old..<written]))
        try handle.close()
        if written == bytes.count {
            try FileSystem.rename(file.partialPath, to: file.path)
            files.end(path: file.path, .complete)
        }
    }

    /// The file written `step` bytes at a time (renamed into place once whole, as jb-podcast
    /// does) while it is decoded.
    @Test(arguments: [9_000, 60_000])
    func aGrowingMP3DecodesAsTheWholeFile(step: Int) throws {
        let source = try #require(Fixtures.longMP3)
        let bytes = Array(try [UInt8](Data(contentsOf: URL(fileURLWithPath: source))).prefix(300_000))
        let folder = try TemporaryDirectory(prefix: "growing")
        defer { folder.remove() }
        let whole = folder.file("ep.mp3")
        try Data(bytes).write(to: URL(fileURLWithPath: whole))
        let expected = try Self.drain(try openDecoder(path: whole)) {}
        try FileManager.default.removeItem(atPath: whole)

        let file = GrowingFile(path: whole, partialPath: whole + ".part")
        var written = min(step, bytes.count)
        try Data(bytes.prefix(written)).write(to: URL(fileURLWithPath: file.partialPath))
        let files = GrowingFiles()
        files.add(file)
        var waits = 0
        let decoder = try openDecoder(path: whole, growing: files)
        let played = try Self.drain(decoder) {
            waits += 1
            #expect(file.isWaiting)
            try Self.grow(file, in: files, from: bytes, written: &written, step: step)
        }
        #expect(waits > 0)
        #expect(played.count == expected.count)
        let firstDifference = zip(played, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first difference at sample \(firstDifference ?? -1) of \(expected.count)")
    }

    /// A download that gives up: what arrived plays, then the item fails with the reason.
    @Test func aFailedDownloadEndsTheTrackWithItsReasonAfterWhatArrived() throws {
        let source = try #require(Fixtures.longMP3)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source))).prefix(100_000)
        let folder = try TemporaryDirectory(prefix: "growing")
        defer { folder.remove() }
        let file = GrowingFile(path: folder.file("ep.mp3"), partialPath: folder.file("ep.mp3.part"))
        try Data(bytes).write(to: URL(fileURLWithPath: file.partialPath))
        let files = GrowingFiles()
        files.add(file)
        let decoder = try openDecoder(path: file.path, growing: files)
        var waited = false
        #expect {
            _ = try Self.drain(decoder) {
                waited = true
                files.end(path: file.path, .failed("HTTP 404"))
            }
        } throws: { error in
            "\(error)".contains("the download stopped (HTTP 404); played what had arrived")
        }
        #expect(waited)
        #expect(files.file(path: file.path) == nil)
    }
}
