/// A failed FFmpeg call (or a step of opening a file through it): FFmpeg's AVERROR code, the
/// call, the file, and FFmpeg's text: `av_strerror`'s, after the last error FFmpeg logged
/// during the call when there was one ("moov atom not found (Invalid data found when
/// processing input)"). A failed load of the libraries is `dlopen` with the loader's text.
public struct FFmpegError: Error, Equatable, CustomStringConvertible, Sendable {
    public var code: Int32
    public var call: String
    public var path: String
    public var message: String

    public init(code: Int32, call: String, path: String, message: String) {
        self.code = code
        self.call = call
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(call) failed: \(message)" }
}
