import CVorbis
import LinuxSupport

/// The format of one link of an Ogg Vorbis stream.
public struct VorbisFormat: Sendable, Hashable {
    public var rate: Int
    public var channels: Int

    public init(rate: Int, channels: Int) {
        self.rate = rate
        self.channels = channels
    }
}

/// One libvorbisfile handle over one file: the single owner of the `OggVorbis_File` and the
/// file it reads (ov_clear in `deinit`). Not thread-safe: one thread at a time.
///
/// A chained stream may change format between links, and each libvorbisfile read returns
/// samples of one link only; so `read` makes one library call and `format` describes what it
/// returned. Buffers are counted in samples and must hold whole frames of the widest link
/// (`maxChannels`).
public final class VorbisDecoder {
    private let file: UnsafeMutablePointer<OggVorbis_File>
    public let path: String
    /// The format of the link the last read came from (the first link before any read).
    public private(set) var format: VorbisFormat
    /// The most channels of any link.
    public let maxChannels: Int
    /// Frames in the whole stream, exact from the last granule position (ov_pcm_total).
    public let totalFrames: Int64
    /// The first link's comments, split at the first "=", in the file's order (the field
    /// names as written; they are case-insensitive).
    public let comments: [(key: String, value: String)]
    /// The first link's vendor string (the encoder).
    public let vendor: String
    /// Holes (missing or corrupt pages) libvorbisfile reported and read past.
    public private(set) var holes = 0

    /// Opens `path` and reads its headers; in a seekable file libvorbisfile also finds every
    /// link and the last granule position (it reads the end of the file).
    public init(path: String) throws(VorbisError) {
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        let rc = jb_ov_open(path, file)
        if rc != 0 {
            file.deallocate()
            if rc > 0 {
                throw VorbisError(code: rc, call: "fopen", path: path, message: Errno.current("fopen").message)
            }
            throw VorbisError(code: rc, call: "ov_open_callbacks", path: path)
        }
        let total = ov_pcm_total(file, -1)
        guard total >= 0, let info = ov_info(file, 0) else {
            ov_clear(file)
            file.deallocate()
            throw VorbisError(code: total < 0 ? Int32(total) : OV_EINVAL, call: "ov_pcm_total", path: path)
        }
        self.file = file
        self.path = path
        totalFrames = total
        format = VorbisFormat(rate: info.pointee.rate, channels: Int(info.pointee.channels))
        maxChannels = (0..<Int(ov_streams(file))).reduce(0) { widest, link in
            max(widest, Int(ov_info(file, Int32(link))?.pointee.channels ?? 0))
        }
        var entries: [(key: String, value: String)] = []
        var vendorText = ""
        if let comment = ov_comment(file, 0)?.pointee {
            vendorText = comment.vendor.map { String(cString: $0) } ?? ""
            for i in 0..<Int(comment.comments) {
                guard let bytes = comment.user_comments[i] else { continue }
                let count = Int(comment.comment_lengths[i])
                let entry = bytes.withMemoryRebound(to: UInt8.self, capacity: count) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                }
                let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                entries.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
            }
        }
        comments = entries
        vendor = vendorText
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
}
