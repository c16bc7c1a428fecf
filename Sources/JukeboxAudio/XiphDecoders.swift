import FLAC
import JukeboxCore
import Opus
import Vorbis

// The pipeline's decoders for FLAC, Ogg Vorbis and Opus, over the wrappers. Each gives S16
// interleaved PCM in the file's channels (more than two are mixed down by `DownmixedDecoder`) and
// the exact length: FLAC from STREAMINFO, Vorbis and Opus from the last granule position
// (libopusfile drops the pre-skip and trims the end). Seeks are sample-exact and fast
// (SEEKTABLE or bisection), so these formats need no `SeekHint` to resume.

/// Refuses more than eight channels (the formats define where at most eight sound; more
/// than two are mixed down to stereo by `DownmixedDecoder`).
func checkChannels(_ channels: Int, _ path: String) throws(AudioFileError) {
    guard (1...AudioPipeline.maxSourceChannels).contains(channels) else {
        throw AudioFileError(path: path, reason: "\(channels) channels: at most 8 are played")
    }
}

/// FLAC through libFLAC: bit-exact; sources wider than 16 bits are narrowed with TPDF dither.
public final class FLACFileDecoder: WideAudioDecoder {
    let decoder: FLACDecoder
    public let format: AudioFormat
    /// libFLAC's samples (Int32, right-justified) before they are narrowed to S16.
    private var wide: [Int32] = []
    private var dither = TPDFDither()

    public init(path: String) throws {
        decoder = try FLACDecoder(path: path)
        try checkChannels(decoder.format.channels, path)
        format = AudioFormat(rate: decoder.format.rate, channels: decoder.format.channels)
    }

    public var lengthFrames: Int64? { decoder.format.totalFrames }
    /// From the Vorbis comments (REPLAYGAIN_TRACK_GAIN, ...).
    public var replayGain: ReplayGainInfo? { ReplayGainInfo(tags: decoder.comments) }

    /// Ends with 0 frames: a stream cut short of STREAMINFO's length throws only then, after
    /// everything that decoded.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        let capacityFrames = buffer.count / format.channels
        let samples = capacityFrames * format.channels
        guard samples > 0, let out = buffer.baseAddress else {
            return DecodeResult(frames: 0, isEnd: false, formatChanged: false)
        }
        if wide.count < samples { wide = [Int32](repeating: 0, count: samples) }
        let decoder = self.decoder
        let frames = try wide.withUnsafeMutableBufferPointer { wide throws(FLACError) in
            try decoder.read(into: wide.baseAddress!, capacityFrames: capacityFrames)
        }
        let bits = decoder.format.bitsPerSample
        let count = frames * format.channels
        if bits > 16 {
            wide.withUnsafeBufferPointer { dither.narrow($0.baseAddress!, bits: bits, into: out, count: count) }
        } else {
            for i in 0..<count { out[i] = Int16(truncatingIfNeeded: wide[i] << (16 - bits)) }
        }
        return DecodeResult(frames: frames, isEnd: frames == 0, formatChanged: false)
    }

    public var bitsPerSample: Int { decoder.format.bitsPerSample }

    public func read(wide buffer: UnsafeMutableBufferPointer<Int32>) throws -> DecodeResult {
        let capacityFrames = buffer.count / format.channels
        guard capacityFrames > 0, let buffer = buffer.baseAddress else {
            return DecodeResult(frames: 0, isEnd: false, formatChanged: false)
        }
        let frames = try decoder.read(into: buffer, capacityFrames: capacityFrames)
        let shift = Int32(32 - bitsPerSample)
        for i in 0..<frames * format.channels { buffer[i] <<= shift }
        return DecodeResult(frames: frames, isEnd: frames == 0, formatChanged: false)
    }

    public func seek(toFrame frame: Int64) throws { try decoder.seek(toFrame: frame) }
}

/// Frames a chained Ogg stream's read returned in a new link's format: they go out with the
/// next read, after the caller has seen the format change (a read's frames are in the format
/// that was current before it).
private struct LinkCarry {
    private var samples: [Int16] = []
    private var taken = 0
    /// The kept frames' format, until a read has announced it.
    private var announce: AudioFormat?

    private var isEmpty: Bool { taken == samples.count }

    private mutating func keep(_ buffer: UnsafeMutablePointer<Int16>, count: Int, format: AudioFormat) {
        samples = Array(UnsafeBufferPointer(start: buffer, count: count))
        taken = 0
        announce = format
    }

    /// Copies as many whole kept frames as fit into `buffer`; returns the frames copied.
    private mutating func take(into buffer: UnsafeMutableBufferPointer<Int16>, channels: Int) -> Int {
        let count = min(buffer.count / channels * channels, samples.count - taken)
        samples.withUnsafeBufferPointer { buffer.baseAddress!.update(from: $0.baseAddress! + taken, count: count) }
        taken += count
        return count / channels
    }

    mutating func clear() {
        samples = []
        taken = 0
        announce = nil
    }

    /// One read of a chained stream: `decode` (frames written into the buffer it is given,
    /// and the format of their link) is called until the buffer is full, the stream ends or a
    /// link in another format begins: those frames are kept, the next read changes `format`
    /// and returns 0 frames and `formatChanged`, and the reads after it hand them out. (The
    /// libraries return one packet per call, 20 ms for Opus: filling the slot makes fewer and
    /// fuller ring chunks.)
    mutating func read(
        into buffer: UnsafeMutableBufferPointer<Int16>, format: inout AudioFormat,
        _ decode: (UnsafeMutableBufferPointer<Int16>) throws -> (frames: Int, link: AudioFormat)
    ) rethrows -> DecodeResult {
        if let announce {
            format = announce
            self.announce = nil
            return DecodeResult(frames: 0, isEnd: false, formatChanged: true)
        }
        if !isEmpty {
            let frames = take(into: buffer, channels: format.channels)
            return DecodeResult(frames: frames, isEnd: false, formatChanged: false)
        }
        var filled = 0
        // Room for a frame of the widest link: the libraries want whole frames of it.
        while buffer.count - filled * format.channels >= AudioPipeline.maxSourceChannels {
            let start = buffer.baseAddress! + filled * format.channels
            let (frames, link) = try decode(
                UnsafeMutableBufferPointer(start: start, count: buffer.count - filled * format.channels))
            if frames == 0 { return DecodeResult(frames: filled, isEnd: filled == 0, formatChanged: false) }
            if link != format {
                keep(start, count: frames * link.channels, format: link)
                guard filled == 0 else { return DecodeResult(frames: filled, isEnd: false, formatChanged: false) }
                format = link
                announce = nil
                return DecodeResult(frames: 0, isEnd: false, formatChanged: true)
            }
            filled += frames
        }
        return DecodeResult(frames: filled, isEnd: false, formatChanged: false)
    }
}

/// A chained Ogg stream's decoder: which link it reads and that link's comments (an Ogg
/// station's song titles: each song is a new link).
protocol OggLinks: AnyObject {
    var linkSerial: UInt32 { get }
    var linkComments: [(key: String, value: String)] { get }
}

/// Ogg Vorbis through libvorbisfile: `ov_read`'s S16, what oggdec writes.
public final class VorbisFileDecoder: AudioDecoder, OggLinks {
    let decoder: VorbisDecoder
    public private(set) var format: AudioFormat
    private var carry = LinkCarry()

    public init(path: String) throws {
        decoder = try VorbisDecoder(path: path)
        try checkChannels(decoder.maxChannels, path)
        format = AudioFormat(rate: decoder.format.rate, channels: decoder.format.channels)
    }

    public var lengthFrames: Int64? { decoder.totalFrames }
    /// From the Vorbis comments (REPLAYGAIN_TRACK_GAIN, ...).
    public var replayGain: ReplayGainInfo? { ReplayGainInfo(tags: decoder.comments) }
    public var speakers: [SpeakerPosition] { .vorbis(channels: format.channels) }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        let decoder = self.decoder
        return try carry.read(into: buffer, format: &format) { samples in
            let frames = try decoder.read(into: samples)
            return (frames, AudioFormat(rate: decoder.format.rate, channels: decoder.format.channels))
        }
    }

    public func seek(toFrame frame: Int64) throws {
        carry.clear()
        try decoder.seek(toFrame: frame)
    }

    var linkSerial: UInt32 { decoder.linkSerial }
    var linkComments: [(key: String, value: String)] { decoder.linkComments }
}

/// Opus through libopusfile, at 48 kHz, S16 without libopusfile's dither (what
/// `opusdec --no-dither` writes; its dithered S16 costs 45 % more instructions).
public final class OpusFileDecoder: AudioDecoder, OggLinks {
    let decoder: OpusDecoder
    public private(set) var format: AudioFormat
    private var carry = LinkCarry()

    public init(path: String) throws {
        decoder = try OpusDecoder(path: path)
        try checkChannels(decoder.channels, path)
        decoder.setDither(false)
        format = AudioFormat(rate: OpusDecoder.rate, channels: decoder.channels)
    }

    public var lengthFrames: Int64? { decoder.totalFrames }
    /// From R128_TRACK_GAIN and R128_ALBUM_GAIN, as MPD takes them (REPLAYGAIN_* comments are
    /// not read in Opus files, as MPD does not read them there).
    public var replayGain: ReplayGainInfo? { ReplayGainInfo(opusComments: decoder.comments) }
    /// Channel mapping family 1's order is Vorbis's (and families 0 and 255 place none).
    public var speakers: [SpeakerPosition] { .vorbis(channels: format.channels) }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        let decoder = self.decoder
        return try carry.read(into: buffer, format: &format) { samples in
            let frames = try decoder.read(into: samples)
            try checkChannels(decoder.channels, decoder.path)
            return (frames, AudioFormat(rate: OpusDecoder.rate, channels: decoder.channels))
        }
    }

    public func seek(toFrame frame: Int64) throws {
        carry.clear()
        try decoder.seek(toFrame: frame)
    }

    var linkSerial: UInt32 { decoder.linkSerial }
    var linkComments: [(key: String, value: String)] { decoder.linkComments }
}
