import Glibc
import JukeboxCore
import LinuxSupport
import MPG123

/// Sample rate and channel count of S16 interleaved PCM.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
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
    /// Decodes whole frames of the current format into `buffer`: at most
    /// `buffer.count / format.channels`. The buffer carries its room, so a format that changes
    /// between the caller's look and the read (a seek into a joined file's other part) can
    /// never make a decoder write past it; a change ends the read with `formatChanged`.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult
    /// Positions the decoder at output frame `frame` (sample-accurate).
    func seek(toFrame frame: Int64) throws
    /// Where to start reading to come back to a position at or before the one being played
    /// (a few seconds behind what was decoded: the ring holds less). nil when none is known
    /// or the format needs none.
    var seekHint: SeekHint? { get }
    /// `seek(toFrame:)`, reading from `hint` on when it fits this file. Returns whether it did.
    func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool
    /// The file's ReplayGain tags; nil when it has none.
    var replayGain: ReplayGainInfo? { get }
    /// Where each of `format`'s channels is meant to sound, in channel order.
    var speakers: [SpeakerPosition] { get }
}

/// A decoder whose source may be wider than 16 bits (FLAC, WAV, ALAC): jb-decode reads it
/// in 32 bits when it is, for a device that takes a wide format, so nothing is dithered away.
public protocol WideAudioDecoder: AudioDecoder {
    /// The source's bits per sample.
    var bitsPerSample: Int { get }
    /// As `read`, into 32-bit samples: the source's value in the top bits, zeros below.
    func read(wide buffer: UnsafeMutableBufferPointer<Int32>) throws -> DecodeResult
}

extension AudioDecoder {
    public var seekHint: SeekHint? { nil }
    public var replayGain: ReplayGainInfo? { nil }
    public var speakers: [SpeakerPosition] { .standard(channels: format.channels) }

    public func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool {
        try seek(toFrame: frame)
        return false
    }
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
    /// Where the MPEG frames decoded so far start, for seeks on this decoder (pause and play,
    /// seek): libmpg123's own index stops growing once a seek hint was installed.
    private var marks = FrameMarks()
    public static let hintLagSeconds: Int64 = 5
    /// From the ID3v2 `TXXX` frames (read with the tag when the file was opened).
    public let replayGain: ReplayGainInfo?

    public init(path: String) throws(MPG123Error) {
        decoder = try MPG123Decoder(path: path)
        format = AudioFormat(rate: decoder.format.rate, channels: decoder.format.channels)
        replayGain = ReplayGainInfo(
            tags: decoder.textFrames().filter { $0.id == "TXXX" }.map { ($0.description, $0.text) })
    }

    public var lengthFrames: Int64? { decoder.lengthFrames }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        let result: DecodeResult
        switch try decoder.read(into: buffer) {
        case .frames(let n): result = DecodeResult(frames: n, isEnd: false, formatChanged: false)
        case .done(let n): result = DecodeResult(frames: n, isEnd: true, formatChanged: false)
        case .newFormat(let n):
            let new = AudioFormat(rate: decoder.format.rate, channels: decoder.format.channels)
            let changed = new != format
            format = new
            result = DecodeResult(frames: n, isEnd: false, formatChanged: changed)
        }
        decodedFrames += Int64(result.frames)
        if let frame = decoder.lastDecodedFrame {
            marks.note(frame: frame.mpegFrame, offset: frame.byteOffset)
            noteSeekHint(frame)
        }
        return result
    }

    private func noteSeekHint(_ frame: (mpegFrame: Int64, byteOffset: Int64)) {
        guard frame.mpegFrame > 0 else { return }
        if let newer, decodedFrames - newer.at < Self.hintLagSeconds * Int64(format.rate) { return }
        guard let size = decoder.fileSize else { return }
        older = newer?.hint
        newer = (SeekHint(mpegFrame: frame.mpegFrame, byteOffset: frame.byteOffset, fileSize: size), decodedFrames)
    }

    public var seekHint: SeekHint? { older }

    public func seek(toFrame frame: Int64) throws { _ = try seek(toFrame: frame, hint: nil) }

    /// Starts reading at the closest known MPEG frame at or before the target (a few frames
    /// early: libmpg123 decodes some before it to fill the bit reservoir): libmpg123's own
    /// index entry, one noted while decoding, or `hint` when it fits this file and is closer.
    /// Returns whether `hint` was it.
    public func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool {
        let want = frame / Int64(max(1, decoder.samplesPerFrame)) - 4
        var start = marks.closest(atOrBefore: want)
        var fromHint = false
        if let hint, hint.mpegFrame <= want, hint.mpegFrame > (start?.frame ?? 0), hint.fileSize == decoder.fileSize {
            start = (hint.mpegFrame, hint.byteOffset)
            fromHint = true
        }
        // Only past what libmpg123's own index reaches: replacing that index stops it growing,
        // and it also learns the frames a seek walks over, which the marks never see.
        var used = false
        if let start, start.frame > decoder.indexReach + 16 {
            used = decoder.useIndexEntry(mpegFrame: start.frame, byteOffset: start.offset)
        }
        newer = nil
        older = nil
        decodedFrames = frame
        try decoder.seek(toFrame: frame)
        return used && fromHint
    }

    public func tags() -> MPG123Tags { decoder.tags() }
}

/// Where MPEG frames start in a file, noted while decoding: at most `capacity` marks spread
/// over what was decoded, one every `step` frames; when full, every other one goes and the
/// step doubles (as libmpg123 thins its own index), so they cover any length.
struct FrameMarks {
    private(set) var marks: [(frame: Int64, offset: Int64)] = []
    private(set) var step: Int64
    let capacity: Int

    init(step: Int64 = 32, capacity: Int = 128) {
        self.step = step
        self.capacity = capacity
        marks.reserveCapacity(capacity)
    }

    /// Notes that MPEG frame `frame` starts at byte `offset`; only past the last mark (a seek
    /// back decodes frames the marks already cover).
    mutating func note(frame: Int64, offset: Int64) {
        guard frame > 0, frame >= (marks.last?.frame ?? 0) + step else { return }
        marks.append((frame, offset))
        if marks.count >= capacity {
            marks = stride(from: 0, to: marks.count, by: 2).map { marks[$0] }
            step *= 2
        }
    }

    /// The last mark at or before MPEG frame `frame`.
    func closest(atOrBefore frame: Int64) -> (frame: Int64, offset: Int64)? {
        var low = 0
        var high = marks.count
        while low < high {
            let mid = (low + high) / 2
            if marks[mid].frame <= frame { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : marks[low - 1]
    }
}
