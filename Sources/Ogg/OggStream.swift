import COggHeaders
import LinuxSupport

/// The codec whose header packets `OggStream` walks.
public enum OggCodec: Sendable {
    case vorbis
    case opus
}

/// An Ogg file as the Vorbis and Opus wrappers' libraries read it (COggHeaders): the file,
/// or, when a comment entry longer than `longestComment` bytes was left out of the first
/// link's comment header (an embedded picture), header pages rebuilt without it followed by
/// the file's audio pages. The single owner of the `jb_ogg_stream` (freed in `deinit`): keep
/// it until the library handle reading it is closed.
public final class OggStream {
    public let pointer: UnsafeMutablePointer<jb_ogg_stream>
    /// Comment entries left out as too long.
    public var skippedComments: Int { Int(pointer.pointee.skipped) }

    /// Opens `path` and walks its first link's header pages (page headers and the comment
    /// entries it keeps only). Throws the system's error when the file does not open; a file
    /// that is not what `codec` says opens, and the library reading it says what is wrong.
    public init(path: String, codec: OggCodec, longestComment: Int) throws(Errno) {
        let kind = codec == .vorbis ? JB_OGG_VORBIS : JB_OGG_OPUS
        guard let opened = jb_ogg_open(path, Int32(kind), UInt32(clamping: longestComment)) else {
            throw Errno.current("open", path: path)
        }
        pointer = opened
    }

    deinit { jb_ogg_free(pointer) }

    /// A comment header's entries (`user_comments`, `comment_lengths`: the same fields in
    /// libvorbis's `vorbis_comment` and libopusfile's `OpusTags`) split at the first "=".
    public static func comments(
        _ entries: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, lengths: UnsafeMutablePointer<Int32>?,
        count: Int
    ) -> [(key: String, value: String)] {
        guard let entries, let lengths else { return [] }
        return (0..<count).compactMap { i in
            guard let bytes = entries[i] else { return nil }
            let length = Int(lengths[i])
            let entry = bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            }
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }
}
