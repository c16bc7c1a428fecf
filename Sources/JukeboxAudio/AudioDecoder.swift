import Glibc
import JukeboxCore
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
    /// Where to start reading to come back to a position at or before the one being played
    /// (a few seconds behind what was decoded: the ring holds less). nil when none is known
    /// or the format needs none.
    var seekHint: SeekHint? { get }
    /// `seek(toFrame:)`, reading from `hint` on when it fits this file. Returns whether it did.
    func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool
}

extension AudioDecoder {
    public var seekHint: SeekHint? { nil }

    public func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool {
        try seek(toFrame: frame)
        return false
    }
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
    /// Seek hints noted while decoding: `newer` at output frame `newerAt`, and the one before
    /// it, which is at least `hintLagSeconds` behind what was decoded since and so behind
    /// what the device plays (the ring holds about 2 s).
    private var newer: (hint: SeekHint, at: Int64)?
    private var older: SeekHint?
    private var decodedFrames: Int64 = 0
    public static let hintLagSeconds: Int64 = 5

    public init(path: String) throws(MPG123Error) {
        decoder = try MPG123Decoder(path: path)
        format = AudioFormat(rate: decoder.format.rate, channels: decoder.format.channels)
    }

    public var lengthFrames: Int64? { decoder.lengthFrames }

    public func read(into buffer: UnsafeMutablePointer<Int16>, capacityFrames: Int) throws -> DecodeResult {
        let result: DecodeResult
        switch try decoder.read(into: buffer, capacityFrames: capacityFrames) {
        case .frames(let n): result = DecodeResult(frames: n, isEnd: false, formatChanged: false)
        case .done(let n): result = DecodeResult(frames: n, isEnd: true, formatChanged: false)
        case .newFormat(let n):
            let new = AudioFormat(rate: decoder.format.rate, channels: decoder.format.channels)
            let changed = new != format
            format = new
            result = DecodeResult(frames: n, isEnd: false, formatChanged: changed)
        }
        decodedFrames += Int64(result.frames)
        noteSeekHint()
        return result
    }

    private func noteSeekHint() {
        guard let frame = decoder.lastDecodedFrame, frame.mpegFrame > 0 else { return }
        if let newer, decodedFrames - newer.at < Self.hintLagSeconds * Int64(format.rate) { return }
        guard let size = decoder.fileSize else { return }
        older = newer?.hint
        newer = (SeekHint(mpegFrame: frame.mpegFrame, byteOffset: frame.byteOffset, fileSize: size), decodedFrames)
    }

    public var seekHint: SeekHint? { older }

    public func seek(toFrame frame: Int64) throws {
        newer = nil
        older = nil
        decodedFrames = frame
        try decoder.seek(toFrame: frame)
    }

    public func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool {
        var used = false
        if let hint, hint.fileSize == decoder.fileSize {
            used = decoder.useIndexEntry(mpegFrame: hint.mpegFrame, byteOffset: hint.byteOffset)
        }
        try seek(toFrame: frame)
        return used
    }

    public func tags() -> MPG123Tags { decoder.tags() }
}
