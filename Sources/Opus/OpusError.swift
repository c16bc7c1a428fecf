internal import COpus

/// A failed libopusfile call: its return code, the call, the file, and the text for the
/// code. libopusfile has no strerror; the texts are those of its header's list of error
/// codes (opusfile.h).
public struct OpusError: Error, Equatable, CustomStringConvertible, Sendable {
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
        case OP_FALSE: "a request did not succeed"
        case OP_HOLE: "there was a hole in the page sequence numbers (e.g., a page was corrupt or missing)"
        case OP_EREAD: "an underlying read, seek, or tell operation failed when it should have succeeded"
        case OP_EFAULT:
            "a NULL pointer was passed where one was unexpected, or an internal memory allocation failed, or an internal library error was encountered"
        case OP_EIMPL: "the stream used a feature that is not implemented, such as an unsupported channel family"
        case OP_EINVAL: "one or more parameters to a function were invalid"
        case OP_ENOTFORMAT:
            "a purported Ogg Opus stream did not begin with an Ogg page, a purported header packet did not start with one of the required strings, \"OpusHead\" or \"OpusTags\", or a link in a chained file was encountered that did not contain any logical Opus streams"
        case OP_EBADHEADER:
            "a required header packet was not properly formatted, contained illegal values, or was missing altogether"
        case OP_EVERSION: "the ID header contained an unrecognized version number"
        case OP_EBADPACKET: "an audio packet failed to decode properly"
        case OP_EBADLINK:
            "we failed to find data we had seen before, or the bitstream structure was sufficiently malformed that seeking to the target destination was impossible"
        case OP_ENOSEEK: "an operation that requires seeking was requested on an unseekable stream"
        case OP_EBADTIMESTAMP: "the first or last granule position of a link failed basic validity checks"
        default: "libopusfile error \(code)"
        }
    }
}
