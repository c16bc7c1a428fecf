import FFmpeg
import FLAC
import Foundation
import Glibc
import JukeboxTestSupport
import Opus
import Testing
import Vorbis

/// Test audio made by sox in a temporary folder, and the tools' runs on it.
struct Media {
    let dir: TemporaryDirectory

    init() throws { dir = try TemporaryDirectory(prefix: "jukebox-formats") }

    /// Runs a command (UTF-8 locale, so that the encoders keep non-ASCII tags as they are);
    /// fails the test with its stderr when it exits non-zero.
    @discardableResult
    func tool(_ command: [String]) throws -> RunResult {
        let result = try run(command, environment: ["LC_ALL": "C.UTF-8"])
        try #require(result.status == 0, "\(command.joined(separator: " ")): \(result.stderrText)")
        return result
    }

    /// `seconds` of a stereo WAV: a sine on the left, pink noise on the right (broadband, so
    /// the lossy encoders' rounding is exercised), 3 dB under full scale; mono: the sine
    /// alone. The same every run (sox -R).
    func wav(_ name: String, rate: Int, bits: Int, seconds: Double, channels: Int = 2) throws -> String {
        let path = dir.file(name)
        try tool(
            [
                "sox", "-R", "-n", "-r", "\(rate)", "-b", "\(bits)", "-c", "\(channels)", path, "synth", "\(seconds)",
                "sine", "440",
            ]
                + (channels == 2 ? ["pinknoise"] : []) + ["gain", "-3"])
        return path
    }

    /// A file of `bytes` bytes of a fixed pseudo-random pattern (Knuth's multiplicative hash
    /// of the offset): no audio format's magic.
    func junk(_ name: String, bytes: Int) throws -> String {
        let path = dir.file(name)
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }).write(
            to: URL(fileURLWithPath: path))
        return path
    }

    /// The first `fraction` of `source`'s bytes, as a new file.
    func truncated(_ source: String, to fraction: Double, name: String) throws -> String {
        let data = try #require(FileManager.default.contents(atPath: source))
        let path = dir.file(name)
        try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A 5 MB "JPEG" (the magic bytes, then junk): a cover as large as they come.
    func cover() throws -> String {
        let path = dir.file("cover.jpg")
        let junk = try Raw.bytes(try junk("cover.bin", bytes: 5 << 20))
        try Data([0xFF, 0xD8, 0xFF, 0xE0] + junk.dropFirst(4)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// An empty file.
    func empty(_ name: String) throws -> String {
        let path = dir.file(name)
        try Data().write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Files named `*.ext` that hold no audio of that format: an MP3, an empty file, junk,
    /// and a path where no file is.
    func impostors(ext: String) throws -> [String] {
        [
            try copy(Fixtures.media("mp3/cbr128.mp3"), as: "song.\(ext)"), try empty("empty.\(ext)"),
            try junk("junk.\(ext)", bytes: 100_000), dir.file("missing.\(ext)"),
        ]
    }

    /// `source` copied under another name (an MP3 named .flac, say).
    func copy(_ source: String, as name: String) throws -> String {
        let path = dir.file(name)
        try FileManager.default.copyItem(atPath: source, toPath: path)
        return path
    }
}

/// Raw little-endian samples of a reference decoder's output file.
enum Raw {
    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: path)))
    }

    static func int16(_ path: String) throws -> [Int16] {
        try bytes(path).withUnsafeBytes { raw in
            (0..<raw.count / 2).map { raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self) }
        }
    }

    static func float(_ path: String) throws -> [Float] {
        try bytes(path).withUnsafeBytes { raw in
            (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
        }
    }

    /// Signed samples of `width` bytes each (flac -d writes 24-bit as three bytes), widened.
    static func signed(_ path: String, width: Int) throws -> [Int32] {
        let b = try bytes(path)
        return stride(from: 0, to: b.count - width + 1, by: width).map { i in
            var v: Int32 = 0
            for k in 0..<width { v |= Int32(b[i + k]) << (8 * k) }
            let shift = Int32(32 - 8 * width)
            return (v << shift) >> shift
        }
    }
}

/// Decodes everything a decoder gives, `chunk` samples at a time, through `read`
/// (which returns frames written into the buffer it is given, 0 at the end).
func readAll<T: Numeric>(chunkSamples: Int, channels: Int, _ read: (UnsafeMutableBufferPointer<T>) throws -> Int)
    rethrows -> [T]
{
    var all: [T] = []
    var buffer = [T](repeating: 0, count: chunkSamples)
    while true {
        let frames = try buffer.withUnsafeMutableBufferPointer { try read($0) }
        if frames == 0 { return all }
        all += buffer[0..<frames * channels]
    }
}

/// The largest absolute difference between two equally long sample arrays, and where.
func largestDifference<T: BinaryInteger>(_ a: [T], _ b: [T]) -> (difference: Int, at: Int) {
    var worst = (difference: 0, at: -1)
    for i in 0..<min(a.count, b.count) {
        let d = abs(Int(a[i]) - Int(b[i]))
        if d > worst.difference { worst = (d, i) }
    }
    return worst
}

/// Names of tags with non-ASCII text, as the encoders are given them.
enum Tags {
    static let title = "夜に駆ける"
    static let artist = "Beyoncé & Zoë Ångström"
    static let album = "ピアノ・ソナタ第8番 «Pathétique»"
}

/// What the three wrappers' errors have in common.
protocol WrapperError: Error, CustomStringConvertible {
    var path: String { get }
    var message: String { get }
}
extension FLACError: WrapperError {}
extension VorbisError: WrapperError {}
extension OpusError: WrapperError {}
extension FFmpegError: WrapperError {}

/// Expects `body` to throw an `E` that names `path` and carries the library's (or the
/// system's) text: "<path>: <call> failed: <message>".
func expectError<E: WrapperError>(
    _ type: E.Type, for path: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    #expect(sourceLocation: sourceLocation) {
        try body()
    } throws: { error in
        guard let e = error as? E else { return false }
        print(e.description)
        return e.path == path && !e.message.isEmpty && e.description.hasPrefix(path + ": ")
    }
}

/// What this thread read (rchar) while `body` ran.
func bytesRead<T>(_ body: () throws -> T) throws -> (bytes: Int, result: T) {
    let before = try #require(ProcessIO.readThisThread()).rchar
    let result = try body()
    return (Int(try #require(ProcessIO.readThisThread()).rchar - before), result)
}
