import CFLAC
import CLazyLibraries
import Glibc
import LinuxSupport

/// What STREAMINFO says about the stream.
public struct FLACFormat: Sendable, Equatable {
    public var rate: Int
    public var channels: Int
    /// 4 to 32. Samples come right-justified in Int32: a 16-bit sample lies in -32768...32767.
    public var bitsPerSample: Int
    /// Frames (samples per channel) in the stream; nil when the encoder did not know it
    /// (STREAMINFO says 0, e.g. a stream piped into the encoder).
    public var totalFrames: Int64?

    public init(rate: Int, channels: Int, bitsPerSample: Int, totalFrames: Int64?) {
        self.rate = rate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
        self.totalFrames = totalFrames
    }
}

/// A CUESHEET metadata block (FLAC format, "CUESHEET"), offsets in frames from the start.
public struct FLACCueSheet: Sendable, Equatable {
    public struct Index: Sendable, Equatable {
        public var number: Int
        /// Absolute: the track's offset plus the index's own.
        public var offset: Int64

        public init(number: Int, offset: Int64) {
            self.number = number
            self.offset = offset
        }
    }

    public struct Track: Sendable, Equatable {
        public var number: Int
        public var offset: Int64
        public var isrc: String
        public var isAudio: Bool
        public var preEmphasis: Bool
        public var indices: [Index]
    }

    public var mediaCatalogNumber: String
    public var leadIn: Int64
    public var isCD: Bool
    /// In the file's order, the lead-out last (number 170 on a CD, 255 otherwise).
    public var tracks: [Track]
}

/// One libFLAC stream decoder over one native FLAC file: the single owner of the
/// `FLAC__StreamDecoder` and of the file it reads (both freed in `deinit`). Metadata comes
/// from libFLAC's metadata iterator, which seeks past the blocks it is not asked for, so a
/// large embedded picture is neither read nor held. Not thread-safe: one thread at a time.
public final class FLACDecoder {
    private let state: UnsafeMutablePointer<jb_flac>
    public let path: String
    public let format: FLACFormat
    /// STREAMINFO's largest block (frame) size, in frames.
    public let maxBlockSize: Int
    /// The Vorbis comment block's entries, split at the first "=", in the file's order (the
    /// field names as written; they are case-insensitive). Empty without the block.
    public let comments: [(key: String, value: String)]
    /// The Vorbis comment block's vendor string (the encoder), nil without the block.
    public let vendor: String?
    public let cueSheet: FLACCueSheet?
    /// Errors libFLAC reported and recovered from while decoding (lost sync, a bad frame
    /// CRC, ...), the last one's text. Decoding goes on after them, as in MPD.
    public private(set) var recoveredErrors = 0
    public private(set) var lastRecoveredError: String?
    /// Frames handed out (or skipped by a seek) so far.
    public private(set) var positionFrames: Int64 = 0

    /// Opens `path`: walks its metadata blocks (a leading ID3v2 tag is skipped), then starts
    /// the stream decoder at the first audio frame. Throws for a file that is not FLAC,
    /// has no STREAMINFO or cannot be read.
    public init(path: String) throws(FLACError) {
        // libFLAC is opened on first use (CLazyLibraries).
        if let failure = jb_lazy_load(Int32(JB_LIB_FLAC)) {
            throw FLACError(call: "dlopen", path: path, message: String(cString: failure))
        }
        let metadata = try Metadata(path: path)
        var initStatus: Int32 = -1
        let opened = metadata.keptBlocks.map(\.offset).withUnsafeBufferPointer { offsets in
            metadata.keptBlocks.map(\.length).withUnsafeBufferPointer { lengths in
                jb_flac_open(
                    path, offsets.baseAddress, lengths.baseAddress, Int32(offsets.count), metadata.audioOffset,
                    UInt32(metadata.maxBlockSize), UInt32(metadata.format.channels), &initStatus)
            }
        }
        guard let opened else {
            if initStatus >= 0 {
                throw FLACError(
                    call: "FLAC__stream_decoder_init_stream", path: path,
                    message: String(cString: jb_flac_init_status_string(initStatus)))
            }
            throw FLACError(call: "open", path: path, message: Errno.current("open").message)
        }
        state = opened
        self.path = path
        format = metadata.format
        maxBlockSize = metadata.maxBlockSize
        comments = metadata.comments
        vendor = metadata.vendor
        cueSheet = metadata.cueSheet
    }

    deinit { jb_flac_free(state) }

    /// Decodes into `buffer` (interleaved Int32, room for `capacityFrames` frames). Returns
    /// the frames written; 0 only at the end. Throws when libFLAC fails, and at the end of a
    /// stream that stopped short of STREAMINFO's length (a truncated file), after handing
    /// out every frame that did decode.
    public func read(into buffer: UnsafeMutablePointer<Int32>, capacityFrames: Int) throws(FLACError) -> Int {
        let channels = format.channels
        var copied = 0
        while copied < capacityFrames {
            let available = Int(state.pointee.out_frames - state.pointee.out_next)
            if available > 0 {
                let n = min(available, capacityFrames - copied)
                (buffer + copied * channels).update(
                    from: state.pointee.out + Int(state.pointee.out_next) * channels, count: n * channels)
                state.pointee.out_next += UInt32(n)
                copied += n
                continue
            }
            let decoder = state.pointee.decoder
            if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_END_OF_STREAM { break }
            let ok = FLAC__stream_decoder_process_single(decoder) != 0
            noteRecoveredErrors()
            if !ok { throw stateError("FLAC__stream_decoder_process_single") }
        }
        positionFrames += Int64(copied)
        if copied == 0, let total = format.totalFrames, positionFrames < total {
            let cause = lastRecoveredError.map { ", after \($0)" } ?? ""
            throw FLACError(
                call: "FLAC__stream_decoder_process_single", path: path,
                message: "the stream ended at frame \(positionFrames) of \(total)\(cause)")
        }
        return copied
    }

    /// Seeks to frame `frame` exactly: the next `read` starts with it. libFLAC finds the
    /// frame by the SEEKTABLE or by bisection, and decodes the FLAC frame that holds it.
    public func seek(toFrame frame: Int64) throws(FLACError) {
        state.pointee.out_frames = 0
        state.pointee.out_next = 0
        let ok = FLAC__stream_decoder_seek_absolute(state.pointee.decoder, UInt64(frame)) != 0
        noteRecoveredErrors()
        if !ok {
            let error = stateError("FLAC__stream_decoder_seek_absolute")
            // After a failed seek libFLAC wants a flush before it decodes again.
            _ = FLAC__stream_decoder_flush(state.pointee.decoder)
            throw error
        }
        positionFrames = frame
    }

    private func noteRecoveredErrors() {
        guard Int(state.pointee.errors) != recoveredErrors else { return }
        recoveredErrors = Int(state.pointee.errors)
        lastRecoveredError = FLACError.errorStatus(state.pointee.error)
    }

    private func stateError(_ call: String) -> FLACError {
        FLACError(
            call: call, path: path,
            message: String(cString: FLAC__stream_decoder_get_resolved_state_string(state.pointee.decoder)))
    }
}

/// The metadata blocks of a FLAC file, read with libFLAC's simple iterator: STREAMINFO,
/// VORBIS_COMMENT and CUESHEET are read; the others (PICTURE, PADDING, APPLICATION) are
/// skipped by seeking.
private struct Metadata {
    var format = FLACFormat(rate: 0, channels: 0, bitsPerSample: 0, totalFrames: nil)
    var maxBlockSize = 0
    var comments: [(key: String, value: String)] = []
    var vendor: String?
    var cueSheet: FLACCueSheet?
    /// STREAMINFO and SEEKTABLE, header included: what the stream decoder is fed.
    var keptBlocks: [(offset: Int64, length: UInt32)] = []
    var audioOffset: Int64 = 0

    init(path: String) throws(FLACError) {
        guard let iterator = FLAC__metadata_simple_iterator_new() else {
            throw FLACError(call: "FLAC__metadata_simple_iterator_new", path: path, message: "out of memory")
        }
        defer { FLAC__metadata_simple_iterator_delete(iterator) }
        func failure(_ call: String) -> FLACError {
            let status = FLAC__metadata_simple_iterator_status(iterator)
            var message = String(cString: jb_flac_iterator_status_string(Int32(status.rawValue)))
            // libFLAC's status does not say why the file did not open; errno, from its fopen, does.
            if status == FLAC__METADATA_SIMPLE_ITERATOR_STATUS_ERROR_OPENING_FILE {
                message += " (\(Errno.current("fopen").message))"
            }
            return FLACError(call: call, path: path, message: message)
        }
        guard FLAC__metadata_simple_iterator_init(iterator, path, 1, 0) != 0 else {
            throw failure("FLAC__metadata_simple_iterator_init")
        }
        var sawStreamInfo = false
        while true {
            let type = FLAC__metadata_simple_iterator_get_block_type(iterator)
            let offset = Int64(FLAC__metadata_simple_iterator_get_block_offset(iterator))
            let length = FLAC__metadata_simple_iterator_get_block_length(iterator)
            switch type {
            case FLAC__METADATA_TYPE_STREAMINFO, FLAC__METADATA_TYPE_SEEKTABLE, FLAC__METADATA_TYPE_VORBIS_COMMENT,
                FLAC__METADATA_TYPE_CUESHEET:
                guard let block = FLAC__metadata_simple_iterator_get_block(iterator) else {
                    throw failure("FLAC__metadata_simple_iterator_get_block")
                }
                defer { FLAC__metadata_object_delete(block) }
                switch type {
                case FLAC__METADATA_TYPE_STREAMINFO:
                    let info = block.pointee.data.stream_info
                    format = FLACFormat(
                        rate: Int(info.sample_rate), channels: Int(info.channels),
                        bitsPerSample: Int(info.bits_per_sample),
                        totalFrames: info.total_samples > 0 ? Int64(info.total_samples) : nil)
                    maxBlockSize = Int(info.max_blocksize)
                    sawStreamInfo = true
                    keptBlocks.insert((offset, 4 + length), at: 0)
                case FLAC__METADATA_TYPE_SEEKTABLE:
                    keptBlocks.append((offset, 4 + length))
                case FLAC__METADATA_TYPE_VORBIS_COMMENT:
                    let block = block.pointee.data.vorbis_comment
                    vendor = Self.text(block.vendor_string)
                    comments = (0..<Int(block.num_comments)).map { i in
                        let entry = Self.text(block.comments[i])
                        let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
                    }
                default:
                    cueSheet = Self.cueSheet(block.pointee.data.cue_sheet)
                }
            default:
                break
            }
            if FLAC__metadata_simple_iterator_is_last(iterator) != 0 {
                audioOffset = offset + 4 + Int64(length)
                break
            }
            guard FLAC__metadata_simple_iterator_next(iterator) != 0 else {
                throw failure("FLAC__metadata_simple_iterator_next")
            }
        }
        guard sawStreamInfo, format.channels > 0, format.rate > 0, maxBlockSize > 0 else {
            throw FLACError(
                call: "FLAC__metadata_simple_iterator_get_block", path: path, message: "no valid STREAMINFO")
        }
    }

    private static func text(_ entry: FLAC__StreamMetadata_VorbisComment_Entry) -> String {
        guard let bytes = entry.entry else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(entry.length)), as: UTF8.self)
    }

    private static func cueSheet(_ sheet: FLAC__StreamMetadata_CueSheet) -> FLACCueSheet {
        let tracks = (0..<Int(sheet.num_tracks)).map { i in
            let track = sheet.tracks[i]
            // 64-bit offsets as the file gives them (libFLAC does not check them): past Int64.max
            // they are held there, beyond any file's length, rather than trap.
            let offset = Int64(clamping: track.offset)
            return FLACCueSheet.Track(
                number: Int(track.number), offset: offset, isrc: cString(track.isrc),
                isAudio: track.type == 0, preEmphasis: track.pre_emphasis != 0,
                indices: (0..<Int(track.num_indices)).map { j in
                    let (absolute, overflow) = offset.addingReportingOverflow(Int64(clamping: track.indices[j].offset))
                    return FLACCueSheet.Index(number: Int(track.indices[j].number), offset: overflow ? .max : absolute)
                })
        }
        return FLACCueSheet(
            mediaCatalogNumber: cString(sheet.media_catalog_number), leadIn: Int64(sheet.lead_in),
            isCD: sheet.is_cd != 0, tracks: tracks)
    }

    /// A fixed-size C char array (a tuple in Swift) up to its first NUL.
    private static func cString<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// FLAC frame headers found in raw bytes, for telling cheaply whether a file holds its whole
/// stream: the last frame header in its final bytes must start at most one block before
/// STREAMINFO's length. (libFLAC's seek to the last frame reads megabytes.)
public enum FLACFrameHeaders {
    /// The first sample of the last frame whose header (sync code, valid CRC-8) is in `bytes`;
    /// `blockSize` turns a fixed-blocksize stream's frame number into a sample number.
    public static func lastFrameStart(in bytes: [UInt8], blockSize: Int) -> Int64? {
        var i = bytes.count - 6
        while i >= 0 {
            defer { i -= 1 }
            guard bytes[i] == 0xFF, bytes[i + 1] & 0xFE == 0xF8 else { continue }
            guard let (number, length) = codedNumber(bytes, at: i + 4) else { continue }
            var end = i + 4 + length
            switch bytes[i + 2] >> 4 {  // block size: 8 or 16 more bits
            case 6: end += 1
            case 7: end += 2
            default: break
            }
            switch bytes[i + 2] & 0x0F {  // sample rate: 8 or 16 more bits
            case 12: end += 1
            case 13, 14: end += 2
            default: break
            }
            guard end < bytes.count, crc8(bytes[i..<end]) == bytes[end] else { continue }
            return bytes[i + 1] & 1 == 0 ? number * Int64(blockSize) : number
        }
        return nil
    }

    /// The frame or sample number in FLAC's UTF-8-like coding, and its length in bytes.
    static func codedNumber(_ bytes: [UInt8], at start: Int) -> (Int64, Int)? {
        guard start < bytes.count else { return nil }
        let first = bytes[start]
        let length = first < 0x80 ? 1 : (first.leadingZeroBitCount == 0 ? (~first).leadingZeroBitCount : 0)
        guard length >= 1, length <= 7, first & 0xC0 != 0x80, start + length <= bytes.count else { return nil }
        var value = length == 1 ? Int64(first) : Int64(first & (0xFF >> (length + 1)))
        for k in 1..<max(1, length) {
            let b = bytes[start + k]
            guard b & 0xC0 == 0x80 else { return nil }
            value = value << 6 | Int64(b & 0x3F)
        }
        return (value, length)
    }

    /// CRC-8, polynomial x^8 + x^2 + x + 1, as FLAC's frame header uses.
    static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }
}
