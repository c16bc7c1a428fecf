import CMPG123

/// A failed libmpg123 call: libmpg123's error code, the call, the file, and the library's
/// text (mpg123_strerror for handle errors, else mpg123_plain_strerror).
/// `MPG123_DONE` and `MPG123_NEW_FORMAT` are not errors and never become this type.
public struct MPG123Error: Error, Equatable, CustomStringConvertible, Sendable {
    public var code: Int32
    public var call: String
    public var path: String
    public var message: String

    public init(code: Int32, call: String, path: String, message: String? = nil) {
        self.code = code
        self.call = call
        self.path = path
        self.message = message ?? String(cString: mpg123_plain_strerror(code))
    }

    /// Builds the error for a handle call that returned `rc`: MPG123_ERR means "look at the
    /// handle" (mpg123_errcode / mpg123_strerror).
    static func from(_ rc: Int32, _ call: String, _ path: String, _ handle: OpaquePointer?) -> MPG123Error {
        if rc == MPG123_ERR.rawValue, let handle {
            return MPG123Error(
                code: mpg123_errcode(handle), call: call, path: path, message: String(cString: mpg123_strerror(handle)))
        }
        return MPG123Error(code: rc, call: call, path: path)
    }

    public var description: String { "\(path): \(call) failed: \(message)" }
}
