/// What the upload page may write into the music folder: a relative path of safe names, a file
/// type the box plays or shows (audio, lyrics, covers, cue sheets), a size that fits.
public enum UploadRules {
    /// Extensions taken, lowercased: the decoders' formats, `.lrc`, cover pictures, cue sheets.
    public static let extensions: Set<String> = [
        "mp3", "flac", "ogg", "oga", "opus", "m4a", "m4b", "mp4", "aac", "alac", "wav", "lrc", "jpg", "jpeg", "png",
        "cue",
    ]
    /// One file at most (a long audiobook fits; a film does not).
    public static let maxFileBytes: Int64 = 4 << 30
    /// Kept free on the card after an upload, so the box can still write its state.
    public static let reserveBytes: Int64 = 64 << 20
    public static let maxDepth = 8
    /// Bytes of one name (ext4's limit).
    public static let maxNameBytes = 255

    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The folder and file names of `path` (`Folder/Sub/Song.mp3`, as a browser gives a
    /// dropped folder's file), each made safe, or why it is refused. Nothing in it can leave
    /// the music folder: no absolute path, no `.` or `..`, no hidden name, no backslash.
    public static func components(_ path: String) -> Result<[String], Problem> {
        switch names(path) {
        case .failure(let problem): return .failure(problem)
        case .success(let names):
            let file = names[names.count - 1].unicodeScalars
            let type = file.lastIndex(of: ".").map { String(file[file.index(after: $0)...]).lowercased() } ?? ""
            guard extensions.contains(type) else {
                return .failure(
                    Problem(
                        "\(String(file)): not a file the box plays or shows (\(extensions.sorted().joined(separator: ", ")))"
                    ))
            }
            return .success(names)
        }
    }

    /// The names of a folder path under the music folder, checked as `components` checks them.
    public static func folder(_ path: String) -> Result<[String], Problem> { names(path) }

    /// Split and checked scalar by scalar, as the file system reads the bytes: as characters,
    /// `/` or `.` followed by a combining mark is neither (`o/\u{301}x` would be one name
    /// holding a slash, `.\u{301}x` a hidden name not starting with "."; fuzz finding 6).
    static func names(_ path: String) -> Result<[String], Problem> {
        let parts = path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, path.unicodeScalars.first != "/" else {
            return .failure(Problem("\(path): not a relative path"))
        }
        guard parts.count <= maxDepth else { return .failure(Problem("\(path): more than \(maxDepth) folders deep")) }
        var names: [String] = []
        for part in parts {
            let name = safeName(String(String.UnicodeScalarView(part)))
            // Also refuses "." and "..", and hidden names.
            if name.isEmpty || name.unicodeScalars.first == "." {
                return .failure(Problem("\(path): the name '\(String(String.UnicodeScalarView(part)))' is not allowed"))
            }
            guard name.utf8.count <= maxNameBytes else { return .failure(Problem("\(path): a name is too long")) }
            names.append(name)
        }
        return .success(names)
    }

    /// A name with what file systems and shells trip on replaced by `_`: control characters,
    /// backslashes, and the characters FAT (a card's usual format) refuses; spaces trimmed,
    /// and trailing dots (FAT drops both).
    static func safeName(_ name: String) -> String {
        var out: [Unicode.Scalar] = []
        for scalar in name.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || "\\:*?\"<>|".unicodeScalars.contains(scalar) {
                out.append("_")
            } else {
                out.append(scalar)
            }
        }
        while out.first == " " { out.removeFirst() }
        while out.last == " " || out.last == "." && out != ["."] && out != [".", "."] { out.removeLast() }
        return String(String.UnicodeScalarView(out))
    }

    /// Why an upload of `bytes` cannot start when the card has `free` bytes, or nil.
    public static func sizeProblem(bytes: Int64?, free: Int64) -> Problem? {
        guard let bytes, bytes >= 0 else { return Problem("the upload's size is needed (Content-Length)") }
        if bytes > maxFileBytes { return Problem("a file may have at most \(maxFileBytes >> 20) MiB") }
        if bytes > free - reserveBytes {
            return Problem("not enough space: \(max(0, free - reserveBytes) >> 20) MiB free for music")
        }
        return nil
    }
}
