import CMPG123
import Glibc
import LinuxSupport

/// The output format libmpg123 settled on. Always signed 16-bit interleaved.
public struct MPG123Format: Sendable, Equatable {
    public var rate: Int
    public var channels: Int

    public init(rate: Int, channels: Int) {
        self.rate = rate
        self.channels = channels
    }
}

/// Tags read by libmpg123 (mpg123_id3). ID3v2 text comes from libmpg123 already as UTF-8;
/// ID3v1 fields are Latin-1 and converted here.
public struct MPG123Tags: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var album: String?
    /// The leading number of TRCK ("2/9" gives 2), or the ID3v1.1 track byte.
    public var trackNumber: Int?
}

/// What `read` returned.
public enum MPG123ReadResult: Sendable, Equatable {
    /// `frames` frames of S16 interleaved audio (possibly 0).
    case frames(Int)
    /// The last `frames` frames (possibly 0) arrived together with MPG123_DONE: play them.
    case done(Int)
    /// The output format changed; `frames` frames of the old format were delivered first.
    case newFormat(Int)
}

private enum Library {
    /// mpg123_init: "call this before using any other function" (a no-op since 1.27, but
    /// required by older releases). A static let runs it exactly once, thread-safely.
    static let initialised: Int32 = mpg123_init()
}

/// One libmpg123 decoding handle over one file: the single owner of the `mpg123_handle`
/// (mpg123_close + mpg123_delete in `deinit`) and of the buffered reader it reads the file
/// through (freed after the handle). Not thread-safe: one thread at a time.
public final class MPG123Decoder {
    let handle: OpaquePointer
    let reader: UnsafeMutablePointer<jb_mpg123_reader>
    public let path: String
    public private(set) var format: MPG123Format
    /// Samples of the current MPEG frame not yet handed out (inside libmpg123's buffer, valid
    /// until the next decode or seek).
    private var pending: UnsafeRawPointer?
    private var pendingBytes = 0

    /// Opens `path`: keeps libmpg123's default flags (gapless on) and adds MPG123_QUIET with
    /// MPG123_ADD_FLAGS, forces S16 output for every standard rate (mpg123_format_none then
    /// mpg123_format), opens the file through a 64 KiB read buffer (libmpg123's own reader
    /// makes two read(2) calls per frame) and reads up to the first frame (mpg123_getformat).
    /// `readSize` is the bytes per read(2): smaller suits a probe that only visits both ends.
    public init(path: String, readSize: Int = 65536) throws(MPG123Error) {
        _ = Library.initialised
        let r: UnsafeMutablePointer<jb_mpg123_reader>
        do {
            r = try SystemCall.nonNil("open", path) { jb_mpg123_reader_open(path, readSize) }
        } catch {
            throw MPG123Error(code: MPG123_ERR.rawValue, call: "open", path: path, message: error.message)
        }
        var rc: Int32 = 0
        guard let h = mpg123_new(nil, &rc) else {
            jb_mpg123_reader_free(r)
            throw MPG123Error(code: rc, call: "mpg123_new", path: path)
        }
        do throws(MPG123Error) {
            try Self.setUp(h, r, path)
            var rate = 0
            var channels: Int32 = 0
            var encoding: Int32 = 0
            let r = mpg123_getformat(h, &rate, &channels, &encoding)
            if r == MPG123_DONE.rawValue {
                throw MPG123Error(code: r, call: "mpg123_getformat", path: path, message: "no MPEG audio frame found")
            }
            if r != MPG123_OK.rawValue { throw MPG123Error.from(r, "mpg123_getformat", path, h) }
            guard rate > 0, channels > 0 else {
                throw MPG123Error(code: MPG123_ERR.rawValue, call: "mpg123_getformat", path: path, message: "no audio")
            }
            format = MPG123Format(rate: rate, channels: Int(channels))
        } catch {
            mpg123_close(h)
            mpg123_delete(h)
            jb_mpg123_reader_free(r)
            throw error
        }
        handle = h
        reader = r
        self.path = path
    }

    private static func setUp(
        _ h: OpaquePointer, _ reader: UnsafeMutablePointer<jb_mpg123_reader>, _ path: String
    ) throws(MPG123Error) {
        var r = jb_mpg123_param(h, MPG123_ADD_FLAGS, Int(MPG123_QUIET.rawValue), 0)
        if r != MPG123_OK.rawValue { throw MPG123Error.from(r, "mpg123_param(MPG123_ADD_FLAGS)", path, h) }
        r = mpg123_format_none(h)
        if r != MPG123_OK.rawValue { throw MPG123Error.from(r, "mpg123_format_none", path, h) }
        var rates: UnsafePointer<Int>?
        var count = 0
        mpg123_rates(&rates, &count)
        let channels = Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue)
        for i in 0..<count {
            r = mpg123_format(h, rates![i], channels, Int32(MPG123_ENC_SIGNED_16.rawValue))
            if r != MPG123_OK.rawValue { throw MPG123Error.from(r, "mpg123_format", path, h) }
        }
        r = jb_mpg123_open_reader(h, reader)
        if r != MPG123_OK.rawValue { throw MPG123Error.from(r, "mpg123_open_handle", path, h) }
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
        jb_mpg123_reader_free(reader)
    }

    /// Decodes whole frames of the current format into `buffer` (S16 interleaved): at most
    /// `buffer.count / format.channels` of them. The room is the buffer's, never frames of a
    /// format that may change (a joined mono-then-stereo file): a format change ends the read
    /// (`.newFormat`), so the caller sees it before any frame of the new format is written.
    /// The data that arrives with MPG123_DONE is returned with `.done`:
    /// callers must play it (MPD drops it and loses up to 46 ms per track).
    /// Frame by frame (mpg123_decode_frame, then a copy out of libmpg123's buffer, as
    /// mpg123_read does inside), so that each MPEG frame's number and file offset are known.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(MPG123Error) -> MPG123ReadResult {
        let frameBytes = 2 * format.channels
        let capacity = buffer.count / format.channels * frameBytes
        guard capacity > 0, let base = buffer.baseAddress else { return .frames(0) }
        let out = UnsafeMutableRawPointer(base)
        var copied = 0
        while copied < capacity {
            if pendingBytes > 0, let pending {
                let n = min(pendingBytes, capacity - copied)
                (out + copied).copyMemory(from: pending, byteCount: n)
                self.pending = pending + n
                pendingBytes -= n
                copied += n
                continue
            }
            var number: Int64 = 0
            var offset: Int64 = 0
            var audio: UnsafeMutablePointer<UInt8>?
            var bytes = 0
            let r = jb_mpg123_decode_frame(handle, &number, &offset, &audio, &bytes)
            switch r {
            case MPG123_OK.rawValue:
                pending = audio.map { UnsafeRawPointer($0) }
                pendingBytes = audio == nil ? 0 : bytes
                lastDecodedFrame = (number, offset)
            case MPG123_DONE.rawValue:
                return .done(copied / frameBytes)
            case MPG123_NEW_FORMAT.rawValue:
                // libmpg123 reports the change before the first frame in the new format.
                var rate = 0
                var channels: Int32 = 0
                var encoding: Int32 = 0
                _ = mpg123_getformat(handle, &rate, &channels, &encoding)
                if rate > 0, channels > 0 { format = MPG123Format(rate: rate, channels: Int(channels)) }
                return .newFormat(copied / frameBytes)
            default:
                throw MPG123Error.from(r, "mpg123_decode_frame", path, handle)
            }
        }
        return .frames(copied / frameBytes)
    }

    /// The MPEG frame whose samples `read` is handing out: its number and where its header
    /// starts in the file. nil before the first frame and after a seek.
    public private(set) var lastDecodedFrame: (mpegFrame: Int64, byteOffset: Int64)?

    /// Seeks to output sample (frame) `frame`, sample-accurately (gapless offsets included).
    /// Returns the new position. The corresponding C function is mpg123_seek (SEEK_SET).
    @discardableResult
    public func seek(toFrame frame: Int64) throws(MPG123Error) -> Int64 {
        pending = nil
        pendingBytes = 0
        lastDecodedFrame = nil
        let r = jb_mpg123_seek(handle, frame, SEEK_SET)
        if r < 0 { throw MPG123Error.from(Int32(r), "mpg123_seek", path, handle) }
        return r
    }

    /// Output samples per MPEG frame of the stream (1,152 for MPEG 1 layer III, 576 for
    /// MPEG 2 and 2.5). The corresponding C function is mpg123_spf.
    public var samplesPerFrame: Int { Int(mpg123_spf(handle)) }

    /// The last MPEG frame libmpg123's own index can seek to directly (0: only the first). It
    /// grows with every frame read, walks to a seek target included, until `useIndexEntry`
    /// replaces the index. The corresponding C function is mpg123_index.
    public var indexReach: Int64 { jb_mpg123_index_reach(handle) }

    /// The size of the file, from fstat (nil when that fails).
    public var fileSize: Int64? {
        let size = jb_mpg123_reader_size(reader)
        return size >= 0 ? size : nil
    }

    /// Makes seeks to or past MPEG frame `frame` start reading at `byteOffset` (what
    /// `lastDecodedFrame` said for this same file) instead of walking from the first frame. Checks
    /// that an MPEG frame header starts there (sync bits, layer and bitrate fields not
    /// reserved); false when it does not or libmpg123 refuses, and then nothing changed.
    /// The corresponding C function is mpg123_set_index.
    public func useIndexEntry(mpegFrame frame: Int64, byteOffset: Int64) -> Bool {
        var header: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        let got = withUnsafeMutableBytes(of: &header) { jb_mpg123_reader_peek(reader, byteOffset, $0.baseAddress, 4) }
        guard got == 4, header.0 == 0xFF, header.1 & 0xE0 == 0xE0,  // 11 sync bits
            header.1 & 0x06 != 0,  // layer 00 is reserved
            header.2 & 0xF0 != 0xF0  // bitrate index 15 is invalid
        else { return false }
        return jb_mpg123_use_index_entry(handle, frame, byteOffset) == MPG123_OK.rawValue
    }

    /// Whether seeks may be approximate (MPG123_FUZZY, off by default). An approximate seek jumps
    /// by the Xing table of contents or the bitrate; an exact one reads every frame header from
    /// the start up to the target unless libmpg123 has indexed them while decoding, which on a
    /// first visit means reading the file up to there. Only for callers that need to reach a
    /// region, not a sample. The corresponding C function is mpg123_param.
    public func allowApproximateSeeks(_ allow: Bool) throws(MPG123Error) {
        let r = jb_mpg123_param(handle, allow ? MPG123_ADD_FLAGS : MPG123_REMOVE_FLAGS, Int(MPG123_FUZZY.rawValue), 0)
        if r != MPG123_OK.rawValue { throw MPG123Error.from(r, "mpg123_param(MPG123_FUZZY)", path, handle) }
    }

    /// The current output position in frames. The corresponding C function is mpg123_tell.
    public var positionFrames: Int64 { jb_mpg123_tell(handle) }

    /// Length in frames: exact with a Xing/LAME header, else estimated from the file size
    /// (nil when unknown). The corresponding C function is mpg123_length.
    public var lengthFrames: Int64? {
        let n = jb_mpg123_length(handle)
        return n > 0 ? n : nil
    }

    /// Reads every frame header of the file for its exact length (and fills the seek index),
    /// for a file that goes on past what its Xing/LAME header says (files joined together:
    /// the first part's header covers only that part). Reads the whole file: only for those.
    /// Returns `lengthFrames` after it. The corresponding C function is mpg123_scan.
    public func scanWholeFile() throws(MPG123Error) -> Int64? {
        let r = jb_mpg123_scan(handle)
        if r != MPG123_OK.rawValue { throw MPG123Error.from(r, "mpg123_scan", path, handle) }
        return lengthFrames
    }

    /// Tags libmpg123 found (ID3v2 at the start, ID3v1 at the end of a seekable file).
    /// The corresponding C functions are mpg123_meta_check and mpg123_id3.
    public func tags() -> MPG123Tags {
        var result = MPG123Tags()
        guard mpg123_meta_check(handle) & MPG123_ID3 != 0 else { return result }
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        guard mpg123_id3(handle, &v1, &v2) == MPG123_OK.rawValue else { return result }
        if let v2 = v2?.pointee {
            result.title = Self.string(v2.title)
            result.artist = Self.string(v2.artist)
            result.album = Self.string(v2.album)
            if let texts = v2.text {
                for i in 0..<Int(v2.texts) {
                    let t = texts[i]
                    let id = withUnsafeBytes(of: t.id) { Array($0) }
                    if id.starts(with: Array("TRCK".utf8)) || id.starts(with: Array("TRK".utf8) + [0]) {
                        var text = t.text
                        if let s = Self.string(&text) { result.trackNumber = Self.leadingNumber(s) }
                    }
                }
            }
        }
        if let v1 = v1?.pointee, withUnsafeBytes(of: v1.tag, { Array($0) }) == Array("TAG".utf8) {
            if result.title == nil { result.title = Self.latin1(v1.title) }
            if result.artist == nil { result.artist = Self.latin1(v1.artist) }
            if result.album == nil { result.album = Self.latin1(v1.album) }
            if result.trackNumber == nil {
                let comment = withUnsafeBytes(of: v1.comment) { Array($0) }
                if comment[28] == 0, comment[29] != 0 { result.trackNumber = Int(comment[29]) }
            }
        }
        return result
    }

    private static func string(_ s: UnsafeMutablePointer<mpg123_string>?) -> String? {
        guard let s, let p = s.pointee.p, s.pointee.fill > 0 else { return nil }
        let bytes = UnsafeRawBufferPointer(start: p, count: s.pointee.fill)
        let trimmed = bytes.prefix { $0 != 0 }
        let value = String(decoding: trimmed, as: UTF8.self).trimmingSpaces()
        return value.isEmpty ? nil : value
    }

    private static func latin1<T>(_ field: T) -> String? {
        let bytes = withUnsafeBytes(of: field) { Array($0) }.prefix { $0 != 0 }
        var scalars = String.UnicodeScalarView()
        for b in bytes { scalars.append(Unicode.Scalar(b)) }
        let value = String(scalars).trimmingSpaces()
        return value.isEmpty ? nil : value
    }

    static func leadingNumber(_ s: String) -> Int? {
        let digits = s.drop { $0 == " " }.prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty ? nil : Int(digits)
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\0" { s = s.dropLast() }
        while let first = s.first, first == " " { s = s.dropFirst() }
        return String(s)
    }
}
