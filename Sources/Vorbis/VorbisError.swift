import CVorbis

/// A failed libvorbisfile call: its return code, the call, the file, and the text for the
/// code. libvorbisfile has no strerror; the texts are those of its documentation
/// (doc/vorbisfile/return.html in libvorbis).
public struct VorbisError: Error, Equatable, CustomStringConvertible, Sendable {
    public var code: Int32
    public var call: String
    public var path: String
    public var message: String

    public init(code: Int32, call: String, path: String, message: String? = nil) {
        self.code = code
        self.call = call
        self.path = path
        self.message = message ?? Self.text(code)
    }

    public var description: String { "\(path): \(call) failed: \(message)" }

    static func text(_ code: Int32) -> String {
        switch code {
        case OV_FALSE: "not true, or no data available"
        case OV_HOLE: "missing or corrupt data in the bitstream"
        case OV_EREAD: "read error while fetching compressed data for decode"
        case OV_EFAULT: "internal inconsistency in encode or decode state"
        case OV_EIMPL: "feature not implemented"
        case OV_EINVAL: "invalid argument, or incompletely initialized argument passed to a call"
        case OV_ENOTVORBIS: "the given file/data was not recognized as Ogg Vorbis data"
        case OV_EBADHEADER:
            "the file/data is apparently an Ogg Vorbis stream, but contains a corrupted or undecipherable header"
        case OV_EVERSION: "the bitstream format revision of the given stream is not supported"
        case OV_ENOTAUDIO: "the packet is not an audio packet"
        case OV_EBADPACKET: "error in the packet"
        case OV_EBADLINK:
            "the given link exists in the Vorbis data stream, but is not decipherable due to garbage or corruption"
        case OV_ENOSEEK: "the given stream is not seekable"
        default: "libvorbisfile error \(code)"
        }
    }
}
