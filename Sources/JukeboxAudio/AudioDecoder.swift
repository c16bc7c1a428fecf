import Glibc
import LinuxSupport
import MPG123

/// Sample rate and channel count of S16 interleaved PCM.
public struct AudioFormat: Sendable, Equatable, CustomStringConvertible {
    public var rate: Int
    public var channels: Int

    public init(rate: Int, channels: Int) {
        self.rate = rate
        self.channels = channels
    }

    public var description: String { "\(rate) Hz, \(channels) ch" }
}

/// Why a file cannot be decoded or probed. Carries the path and a human-readable reason.
public struct AudioFileError: Error, Equatable, CustomStringConvertible, Sendable {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// One call's worth of decoded audio.
public struct DecodeResult: Sendable, Equatable {
    /// Frames written into the buffer, in the format that was current before the call.
    public var frames: Int
    /// The end of the stream was reached; `frames` are still to be played.
    public var isEnd: Bool
    /// The format changed after these frames; read `format` again.
    public var formatChanged: Bool
}

/// A source of S16 interleaved PCM, owned and used by one thread at a time (jb-decode, or the
/// caller of MediaProbe).
public protocol AudioDecoder: AnyObject {
    var format: AudioFormat { get }
    /// Total length in frames when known.
    var lengthFrames: Int64? { get }
    /// Decodes up to `capacityFrames` frames of the current format into `buffer`.
    func read(into buffer: UnsafeMutablePointer<Int16>, capacityFrames: Int) throws -> DecodeResult
    /// Positions the decoder at output frame `frame` (sample-accurate).
    func seek(toFrame frame: Int64) throws
}

/// Opens the right decoder for a file: RIFF/WAVE content goes to `WAVDecoder`, anything else
/// to `MP3Decoder` (libmpg123 also resyncs past leading junk).
public func openDecoder(path: String) throws -> any AudioDecoder {
    if try WAVDecoder.looksLikeWAV(path: path) { return try WAVDecoder(path: path) }
    return try MP3Decoder(path: path)
}

/// MP3 (and MPEG 1/2/2.5 layer I-III) through libmpg123, gapless.
public final class MP3Decoder: AudioDecoder {
    let decoder: MPG123Decoder
    public private(set) var format: AudioFormat

    public init(path: String) throws(MPG123Error) {
        decoder = try MPG123Decoder(path: path)
        format = AudioFormat(rate: decoder.format.rate, channels: decoder.format.channels)
    }

    public var lengthFrames: Int64? { decoder.lengthFrames }

    public func read(into buffer: UnsafeMutablePointer<Int16>, capacityFrames: Int) throws -> DecodeResult {
        switch try decoder.read(into: buffer, capacityFrames: capacityFrames) {
        case .frames(let n): return DecodeResult(frames: n, isEnd: false, formatChanged: false)
        case .done(let n): return DecodeResult(frames: n, isEnd: true, formatChanged: false)
        case .newFormat(let n):
            let new = AudioFormat(rate: decoder.format.rate, channels: decoder.format.channels)
            let changed = new != format
            format = new
            return DecodeResult(frames: n, isEnd: false, formatChanged: changed)
        }
    }

    public func seek(toFrame frame: Int64) throws { try decoder.seek(toFrame: frame) }

    public func tags() -> MPG123Tags { decoder.tags() }
}
