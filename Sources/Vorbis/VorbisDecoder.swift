import CLazyLibraries
import COggHeaders
import CVorbis
import Ogg

/// The format of one link of an Ogg Vorbis stream.
public struct VorbisFormat: Sendable, Hashable {
    public var rate: Int
    public var channels: Int

    public init(rate: Int, channels: Int) {
        self.rate = rate
        self.channels = channels
    }
}

/// One libvorbisfile handle over one file: the single owner of the `OggVorbis_File` (ov_clear
/// in `deinit`) and of the stream it reads the file through (released after it). Not
/// thread-safe: one thread at a time.
///
/// A chained stream may change format between links, and each libvorbisfile read returns
/// samples of one link only; so `read` makes one library call and `format` describes what it
/// returned. Buffers are counted in samples and must hold whole frames of the widest link
/// (`maxChannels`).
public final class VorbisDecoder {
    private let file: UnsafeMutablePointer<OggVorbis_File>
    /// What libvorbisfile reads: the file, or rebuilt header pages and then the file's audio.
    private let stream: OggStream
    public let path: String
    /// The format of the link the last read came from (the first link before any read).
    public private(set) var format: VorbisFormat
    /// The most channels of any link.
    public let maxChannels: Int
    /// Frames in the whole stream, exact from the last granule position (ov_pcm_total); nil
    /// for a pipe (a web radio stream), which has no end to read.
    public let totalFrames: Int64?
    /// The first link's comments, split at the first "=", in the file's order (the field
    /// names as written; they are case-insensitive).
    public let comments: [(key: String, value: String)]
    /// The first link's vendor string (the encoder).
    public let vendor: String
    /// Comment entries of the first link left out as too long (embedded pictures).
    public var skippedComments: Int { stream.skippedComments }
    /// Holes (missing or corrupt pages) libvorbisfile reported and read past.
    public private(set) var holes = 0

    /// Opens `path` and reads its headers; in a seekable file libvorbisfile also finds every
    /// link and the last granule position (it reads the end of the file). Comment entries
    /// longer than `longestComment` bytes in the first link (embedded pictures) are skipped
    /// unread (`skippedComments`).
    public init(path: String, longestComment: Int = 65536) throws(VorbisError) {
        // libvorbisfile and libogg are opened on first use (CLazyLibraries).
        for library in [JB_LIB_OGG, JB_LIB_VORBISFILE] {
            if let failure = jb_lazy_load(Int32(library)) {
                throw VorbisError(code: OV_EREAD, call: "dlopen", path: path, message: String(cString: failure))
            }
        }
        let stream: OggStream
        do {
            stream = try OggStream(path: path, codec: .vorbis, longestComment: longestComment)
        } catch {
            throw VorbisError(code: OV_EREAD, call: "open", path: path, message: error.message)
        }
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        let callbacks = ov_callbacks(
            read_func: jb_ogg_vorbis_read, seek_func: jb_ogg_vorbis_seek, close_func: nil, tell_func: jb_ogg_vorbis_tell
        )
        let rc = ov_open_callbacks(stream.pointer, file, nil, 0, callbacks)
        if rc != 0 {
            file.deallocate()
            throw VorbisError(code: rc, call: "ov_open_callbacks", path: path)
        }
        let sequential = stream.pointer.pointee.sequential != 0
        let total = sequential ? 0 : ov_pcm_total(file, -1)
        guard total >= 0, let info = ov_info(file, 0) else {
            ov_clear(file)
            file.deallocate()
            throw VorbisError(code: total < 0 ? Int32(total) : OV_EINVAL, call: "ov_pcm_total", path: path)
        }
        self.file = file
        self.stream = stream
        self.path = path
        totalFrames = sequential ? nil : total
        format = VorbisFormat(rate: info.pointee.rate, channels: Int(info.pointee.channels))
        maxChannels = (0..<Int(ov_streams(file))).reduce(0) { widest, link in
            max(widest, Int(ov_info(file, Int32(link))?.pointee.channels ?? 0))
        }
        let comment = ov_comment(file, 0)?.pointee
        comments = OggStream.comments(
            comment?.user_comments, lengths: comment?.comment_lengths, count: Int(comment?.comments ?? 0))
        vendor = comment?.vendor.map { String(cString: $0) } ?? ""
    }

    deinit {
        ov_clear(file)
        file.deallocate()
    }

    /// Decodes signed 16-bit interleaved samples into `buffer` (ov_read, which rounds and
    /// clips as oggdec does). Returns the frames written, in `format`; 0 only at the end.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(VorbisError) -> Int {
        precondition(buffer.count >= maxChannels, "VorbisDecoder.read: the buffer holds no whole frame")
        let frames = buffer.count / maxChannels
        while true {
            var link: Int32 = 0
            let got = UnsafeMutableRawPointer(buffer.baseAddress!).withMemoryRebound(
                to: CChar.self, capacity: frames * maxChannels * 2
            ) { ov_read(file, $0, Int32(frames * maxChannels * 2), 0, 2, 1, &link) }
            if got == Int(OV_HOLE) {
                holes += 1
                continue
            }
            if got < 0 { throw VorbisError(code: Int32(got), call: "ov_read", path: path) }
            noteLink(link)
            return got / (2 * format.channels)
        }
    }

    /// Decodes 32-bit float interleaved samples (nominally -1...1) into `buffer`
    /// (ov_read_float). Returns the frames written, in `format`; 0 only at the end.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(VorbisError) -> Int {
        precondition(buffer.count >= maxChannels, "VorbisDecoder.read: the buffer holds no whole frame")
        while true {
            var link: Int32 = 0
            var planes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            let got = ov_read_float(file, &planes, Int32(buffer.count / maxChannels), &link)
            if got == Int(OV_HOLE) {
                holes += 1
                continue
            }
            if got < 0 { throw VorbisError(code: Int32(got), call: "ov_read_float", path: path) }
            noteLink(link)
            guard got > 0, let planes else { return 0 }
            let channels = format.channels
            for c in 0..<channels {
                let plane = planes[c]!
                var out = c
                for i in 0..<got {
                    buffer[out] = plane[i]
                    out += channels
                }
            }
            return got
        }
    }

    private func noteLink(_ link: Int32) {
        guard let info = ov_info(file, link)?.pointee else { return }
        format = VorbisFormat(rate: info.rate, channels: Int(info.channels))
    }

    /// Seeks to frame `frame` exactly (ov_pcm_seek): the next read starts with it.
    public func seek(toFrame frame: Int64) throws(VorbisError) {
        let rc = ov_pcm_seek(file, frame)
        if rc != 0 { throw VorbisError(code: rc, call: "ov_pcm_seek", path: path) }
    }

    /// The frame the next read returns first (ov_pcm_tell).
    public var positionFrames: Int64 { ov_pcm_tell(file) }

    /// The serial number of the link being read: each link of a chained stream has its own (a
    /// station's next song).
    public var linkSerial: UInt32 { UInt32(truncatingIfNeeded: ov_serialnumber(file, -1)) }

    /// The comments of the link being read (a pipe's only the current link has).
    public var linkComments: [(key: String, value: String)] {
        let comment = ov_comment(file, -1)?.pointee
        return OggStream.comments(
            comment?.user_comments, lengths: comment?.comment_lengths, count: Int(comment?.comments ?? 0))
    }
}
