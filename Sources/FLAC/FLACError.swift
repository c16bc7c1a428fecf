import CLazyLibraries

/// A failed libFLAC call (or a system call made for it): the call, the file, and the text
/// libFLAC gives for its status (its `…StatusString` tables), or the system's for errno.
public struct FLACError: Error, Equatable, CustomStringConvertible, Sendable {
    public var call: String
    public var path: String
    public var message: String

    public init(call: String, path: String, message: String) {
        self.call = call
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(call) failed: \(message)" }

    /// libFLAC's name for a decoder error-callback status (e.g. FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC).
    static func errorStatus(_ status: Int32) -> String {
        String(cString: jb_flac_error_status_string(status))
    }
}
