import CFFmpeg
import CLazyLibraries

/// The codec of an MP4 file's audio.
public enum MP4Codec: Sendable, Equatable {
    case aac
    case alac
}

/// A chapter of an MP4 file (an audiobook's, usually): its title and where it starts, in
/// output frames.
public struct MP4Chapter: Sendable, Equatable {
    public var title: String
    public var startFrame: Int64

    public init(title: String, startFrame: Int64) {
        self.title = title
        self.startFrame = startFrame
    }
}

/// One MP4 file's AAC or ALAC audio through FFmpeg (libavformat's MP4 demuxer, libavcodec's
/// decoder): the single owner of the `jb_mp4` handle of the CFFmpeg shim (closed in `deinit`),
/// which owns the file descriptor and FFmpeg's contexts. FFmpeg itself is loaded with dlopen
/// when the first file is opened (see mp4_audio.h). Not thread-safe: one thread at a time.
///
/// In the usual layout the shim reads the packets itself through the sample tables in the file,
/// a few kB whatever the length, instead of the demuxer's index (24 bytes a packet: 37 MB for
/// a 10-hour audiobook); the demuxer still gives the codec's parameters, tags and chapters.
///
/// Gapless: the encoder delay is dropped (the edit list's media time, or iTunSMPB's delay,
/// as FFmpeg applies them) and the output ends at the exact length (iTunSMPB's, else the edit
/// list's duration), so `totalFrames` is what a read to the end gives. Buffers are counted
/// in samples.
public final class MP4AudioDecoder {
    private let handle: OpaquePointer
    /// Where the shim writes an error's text: allocated once, so that reads allocate nothing.
    private let errorText: UnsafeMutableBufferPointer<CChar>
    public let path: String
    public let codec: MP4Codec
    public let rate: Int
    public let channels: Int
    /// Where the channels sound (FFmpeg's `AV_CH_*` bits, WAVE's), in channel order by bit;
    /// 0 when FFmpeg gives no positions.
    public let channelMask: UInt64
    /// ALAC: the source's bit depth (16, 20, 24 or 32); AAC: nil (it decodes to float).
    public let bitsPerSample: Int?
    /// The exact length in frames, encoder delay and padding removed; for a truncated file,
    /// the frames of the packets wholly in it.
    public let totalFrames: Int64
    /// iTunSMPB's encoder delay and end padding, when the file has that tag.
    public let iTunesGapless: (delay: Int64, padding: Int64)?
    /// The container's tags under FFmpeg's names ("title", "artist", "album_artist", "album",
    /// "track" as "3/12", "disc", "date", "genre", "composer", "lyrics", and freeform ones such
    /// as "MusicBrainz Track Id"), in the file's order.
    public let tags: [(key: String, value: String)]
    /// The audio stream's own tags ("language", "handler_name", "vendor_id"), in FFmpeg's order.
    public let streamTags: [(key: String, value: String)]
    public let chapters: [MP4Chapter]
    /// Cover atoms hidden from the demuxer: it skips them by offset and never reads them.
    public let skippedCovers: Int
    /// Whether the shim reads the packets through the sample tables (else the demuxer does).
    public let readsSampleTables: Bool

    /// The folder of the minimal FFmpeg build that the first file loads (`../lib/jukebox` beside
    /// the executable, else this checkout's build cache); nil when neither holds it, and
    /// Debian's FFmpeg (25 MB more resident) is loaded instead.
    public static var minimalBuildDirectory: String? { jb_lazy_minimal_ffmpeg_dir().map { String(cString: $0) } }

    /// Where the minimal build was looked for when it was not found.
    public static var minimalBuildSearched: String { String(cString: jb_lazy_minimal_ffmpeg_searched()) }

    /// Opens `path`: loads FFmpeg on first use, reads the MP4 headers (a cover is never read)
    /// and decodes the first frame, so that a file that does not decode fails here.
    /// `demuxerPackets` leaves the packets to the demuxer's index always (to compare the two).
    public init(path: String, demuxerPackets: Bool = false) throws(FFmpegError) {
        var handle: OpaquePointer?
        let errorText = UnsafeMutableBufferPointer<CChar>.allocate(capacity: 512)
        do {
            try Self.check(path, errorText) { call, message, length in
                jb_mp4_open(path, demuxerPackets ? Int32(JB_MP4_DEMUXER_PACKETS) : 0, &handle, call, message, length)
            }
        } catch {
            errorText.deallocate()
            throw error
        }
        guard let handle else { preconditionFailure("jb_mp4_open succeeded without a handle") }
        self.handle = handle
        self.errorText = errorText
        self.path = path
        var info = jb_mp4_info()
        jb_mp4_get_info(handle, &info)
        codec = Int(info.codec) == JB_MP4_ALAC ? .alac : .aac
        rate = Int(info.rate)
        channels = Int(info.channels)
        channelMask = info.channel_mask
        bitsPerSample = info.bits > 0 ? Int(info.bits) : nil
        totalFrames = info.frames
        iTunesGapless = info.delay >= 0 ? (info.delay, info.padding) : nil
        skippedCovers = Int(info.covers_skipped)
        readsSampleTables = info.own_packets != 0
        tags = Self.dictionary(handle, count: jb_mp4_tag_count, entry: jb_mp4_tag)
        streamTags = Self.dictionary(handle, count: jb_mp4_stream_tag_count, entry: jb_mp4_stream_tag)
        chapters = (0..<jb_mp4_chapter_count(handle)).map { index in
            var title: UnsafePointer<CChar>?
            var start: Int64 = 0
            jb_mp4_chapter(handle, index, &title, &start)
            return MP4Chapter(title: title.map { String(cString: $0) } ?? "", startFrame: start)
        }
    }

    /// One of the handle's FFmpeg dictionaries as key/value pairs.
    private static func dictionary(
        _ handle: OpaquePointer, count: (OpaquePointer) -> Int32,
        entry: (
            OpaquePointer, Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>,
            UnsafeMutablePointer<UnsafePointer<CChar>?>
        ) -> Void
    ) -> [(key: String, value: String)] {
        (0..<count(handle)).map { index in
            var key: UnsafePointer<CChar>?
            var value: UnsafePointer<CChar>?
            entry(handle, index, &key, &value)
            return (key.map { String(cString: $0) } ?? "", value.map { String(cString: $0) } ?? "")
        }
    }

    deinit {
        jb_mp4_close(handle)
        errorText.deallocate()
    }

    /// Decodes signed 16-bit interleaved samples into `buffer`. Returns the frames written;
    /// 0 only at the end.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(FFmpegError) -> Int {
        try read(buffer.baseAddress, frames: buffer.count / channels, s32: false)
    }

    /// Decodes signed 32-bit interleaved samples (full scale: 24-bit ALAC in the top 24 bits,
    /// the low 8 zero) into `buffer`. Returns the frames written; 0 only at the end.
    public func read(into buffer: UnsafeMutableBufferPointer<Int32>) throws(FFmpegError) -> Int {
        try read(buffer.baseAddress, frames: buffer.count / channels, s32: true)
    }

    private func read(_ base: UnsafeMutableRawPointer?, frames: Int, s32: Bool) throws(FFmpegError) -> Int {
        guard let base, frames > 0 else { return 0 }
        var got: Int32 = 0
        try Self.check(path, errorText) { call, message, length in
            got = jb_mp4_read(handle, base, Int32(clamping: frames), s32 ? 1 : 0, call, message, length)
            return got
        }
        return Int(got)
    }

    /// Seeks so that the next read starts with frame `frame` exactly. ALAC's output then
    /// equals a decode from the start bit for bit, and so does AAC's, except in bands coded
    /// as noise (PNS), whose generator state a seek cannot restore.
    public func seek(toFrame frame: Int64) throws(FFmpegError) {
        try Self.check(path, errorText) { call, message, length in jb_mp4_seek(handle, frame, call, message, length) }
    }

    /// The frame the next read returns first.
    public var positionFrames: Int64 { jb_mp4_position(handle) }

    /// Runs one shim call that reports failure as a negative AVERROR code with the call's
    /// name and FFmpeg's text.
    private static func check(
        _ path: String, _ text: UnsafeMutableBufferPointer<CChar>,
        _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws(FFmpegError) {
        var call: UnsafePointer<CChar>?
        let code = body(&call, text.baseAddress!, text.count)
        guard code < 0 else { return }
        throw FFmpegError(
            code: code, call: call.map { String(cString: $0) } ?? "", path: path,
            message: String(cString: text.baseAddress!))
    }
}
