import CLazyLibraries
import COggHeaders
internal import COpus
import Ogg

/// Gains of an Opus stream, in dB (Q7.8 fixed point in the file: 1/256 dB steps).
public struct OpusGains: Sendable, Equatable {
    /// The ID header's output gain. libopusfile applies it to every sample it returns, as
    /// the specification requires.
    public var header: Double
    /// R128_TRACK_GAIN and R128_ALBUM_GAIN from OpusTags (nil when absent), relative to the
    /// header gain: add them to reach -23 LUFS (EBU R128). Not applied by the decoder.
    public var track: Double?
    public var album: Double?

    public init(header: Double, track: Double?, album: Double?) {
        self.header = header
        self.track = track
        self.album = album
    }
}

/// One libopusfile handle over one file: the single owner of the `OggOpusFile` (op_free in
/// `deinit`) and of the stream it reads the file through (released after it). Output is always
/// 48 kHz; libopusfile drops the pre-skip and trims the end to the last granule position.
/// Not thread-safe: one thread at a time.
///
/// A chained stream may change channel count between links, and each libopusfile read
/// returns samples of one link only; so `read` makes one library call and `channels`
/// describes what it returned. Buffers are counted in samples.
public final class OpusDecoder {
    private let file: OpaquePointer
    /// What libopusfile reads: the file, or rebuilt header pages and then the file's audio.
    private let stream: OggStream
    public let path: String
    public static let rate = 48000
    /// Channels of the link the last read came from (the first link before any read).
    public private(set) var channels: Int
    /// Frames in the whole stream at 48 kHz, pre-skip and end trimming applied (op_pcm_total);
    /// nil for a pipe (a web radio stream), which has no end to read.
    public let totalFrames: Int64?
    /// The first link's OpusTags, split at the first "=", in the file's order (the field
    /// names as written; they are case-insensitive).
    public let comments: [(key: String, value: String)]
    /// The first link's vendor string (the encoder's library).
    public let vendor: String
    public let gains: OpusGains
    /// Comment entries of the first link left out as too long (embedded pictures).
    public var skippedComments: Int { stream.skippedComments }
    /// Holes (missing or corrupt pages) libopusfile reported and read past.
    public private(set) var holes = 0

    /// Opens `path`, reads its headers and (the file being seekable) finds every link and
    /// the last granule position. Comment entries longer than `longestComment` bytes in the
    /// first link (embedded pictures) are skipped unread (`skippedComments`).
    public init(path: String, longestComment: Int = 65536) throws(OpusError) {
        // libopusfile and libogg are opened on first use (CLazyLibraries).
        for library in [JB_LIB_OGG, JB_LIB_OPUSFILE] {
            if let failure = jb_lazy_load(Int32(library)) {
                throw OpusError(code: OP_EREAD, call: "dlopen", path: path, message: String(cString: failure))
            }
        }
        let stream: OggStream
        do {
            stream = try OggStream(path: path, codec: .opus, longestComment: longestComment)
        } catch {
            throw OpusError(code: OP_EREAD, call: "open", path: path, message: error.message)
        }
        var callbacks = OpusFileCallbacks(
            read: jb_ogg_opus_read, seek: jb_ogg_opus_seek, tell: jb_ogg_opus_tell, close: nil)
        var error: Int32 = 0
        guard let file = op_open_callbacks(stream.pointer, &callbacks, nil, 0, &error) else {
            throw OpusError(code: error, call: "op_open_callbacks", path: path)
        }
        let sequential = stream.pointer.pointee.sequential != 0
        let total = sequential ? 0 : op_pcm_total(file, -1)
        guard total >= 0, let head = op_head(file, 0)?.pointee else {
            op_free(file)
            throw OpusError(code: total < 0 ? Int32(total) : OP_EINVAL, call: "op_pcm_total", path: path)
        }
        self.file = file
        self.stream = stream
        self.path = path
        totalFrames = sequential ? nil : total
        channels = Int(head.channel_count)
        let tags = op_tags(file, 0)
        comments = OggStream.comments(
            tags?.pointee.user_comments, lengths: tags?.pointee.comment_lengths, count: Int(tags?.pointee.comments ?? 0)
        )
        vendor = tags?.pointee.vendor.map { String(cString: $0) } ?? ""
        var q8: Int32 = 0
        let track = tags.flatMap { opus_tags_get_track_gain($0, &q8) == 0 ? Double(q8) / 256 : nil }
        let album = tags.flatMap { opus_tags_get_album_gain($0, &q8) == 0 ? Double(q8) / 256 : nil }
        gains = OpusGains(header: Double(head.output_gain) / 256, track: track, album: album)
    }

    deinit { op_free(file) }

    /// Whether 16-bit reads are dithered (libopusfile's default: on). Float reads never are.
    public func setDither(_ enabled: Bool) { op_set_dither_enabled(file, enabled ? 1 : 0) }

    /// Decodes signed 16-bit interleaved samples into `buffer` (op_read). Returns the frames
    /// written, with `channels` channels; 0 only at the end.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(OpusError) -> Int {
        try readLoop("op_read") { link in op_read(file, buffer.baseAddress, Int32(buffer.count), &link) }
    }

    /// Decodes 32-bit float interleaved samples (nominally -1...1) into `buffer`
    /// (op_read_float). Returns the frames written, with `channels` channels; 0 only at the end.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(OpusError) -> Int {
        try readLoop("op_read_float") { link in op_read_float(file, buffer.baseAddress, Int32(buffer.count), &link) }
    }

    private func readLoop(_ call: String, _ decode: (inout Int32) -> Int32) throws(OpusError) -> Int {
        while true {
            var link: Int32 = 0
            let got = decode(&link)
            if got == OP_HOLE {
                holes += 1
                continue
            }
            if got < 0 { throw OpusError(code: got, call: call, path: path) }
            channels = Int(op_channel_count(file, link))
            return Int(got)
        }
    }

    /// Seeks to frame `frame` (48 kHz) exactly (op_pcm_seek): the next read starts with it.
    public func seek(toFrame frame: Int64) throws(OpusError) {
        let rc = op_pcm_seek(file, frame)
        if rc != 0 { throw OpusError(code: rc, call: "op_pcm_seek", path: path) }
    }

    /// The frame the next read returns first (op_pcm_tell).
    public var positionFrames: Int64 { op_pcm_tell(file) }

    /// The serial number of the link being read: each link of a chained stream has its own (a
    /// station's next song).
    public var linkSerial: UInt32 { op_serialno(file, -1) }

    /// The OpusTags of the link being read (a pipe's only the current link has).
    public var linkComments: [(key: String, value: String)] {
        let tags = op_tags(file, -1)
        return OggStream.comments(
            tags?.pointee.user_comments, lengths: tags?.pointee.comment_lengths, count: Int(tags?.pointee.comments ?? 0)
        )
    }
}
