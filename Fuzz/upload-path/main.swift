import JukeboxWeb

// The upload page's paths (a file's path from a dropped folder, in the query; the target
// folder, in a form) and sizes: what `UploadRules` takes must stay in the music folder and
// be a name the card and the shell can hold. The input is the path as text; its first 16
// bytes are also read as a Content-Length and the card's free bytes.
let fatForbidden = Set("\\:*?\"<>|".utf8)

/// Why `names`, as taken, could leave the music folder or hide there; nil when it cannot.
func unsafe(_ names: [String]) -> String? {
    guard (1...UploadRules.maxDepth).contains(names.count) else { return "\(names.count) names" }
    for name in names {
        let bytes = Array(name.utf8)
        if bytes.isEmpty { return "an empty name" }
        if bytes == [0x2E] || bytes == [0x2E, 0x2E] { return "'\(name)' names a folder above or itself" }
        if bytes[0] == UInt8(ascii: ".") { return "'\(name)' is hidden" }
        if bytes.count > UploadRules.maxNameBytes { return "a name of \(bytes.count) bytes" }
        if let byte = bytes.first(where: { $0 == 0x2F || $0 < 0x20 || $0 == 0x7F || fatForbidden.contains($0) }) {
            return "'\(name)' holds byte \(byte)"
        }
        if bytes[0] == 0x20 || bytes[bytes.count - 1] == 0x20 || bytes[bytes.count - 1] == 0x2E {
            return "'\(name)' starts or ends with a space or a dot (FAT drops them)"
        }
    }
    return nil
}

/// The file type after the last dot, as the file system sees the name.
func fileType(_ name: String) -> String {
    let bytes = Array(name.utf8)
    guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return "" }
    return String(decoding: bytes[(dot + 1)...], as: UTF8.self).lowercased()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    // As the server reads a query: invalid UTF-8 repaired, `%XX` decoded.
    let raw = String(decoding: bytes, as: UTF8.self)
    for path in [raw, FormData("path=" + raw)["path"] ?? ""] {
        if case .success(let names) = UploadRules.components(path) {
            if let problem = unsafe(names) { fatalError("\(path) taken as \(names): \(problem)") }
            let type = fileType(names[names.count - 1])
            require(UploadRules.extensions.contains(type), "\(path) taken with the type '\(type)'")
        }
        if case .success(let names) = UploadRules.folder(path), let problem = unsafe(names) {
            fatalError("folder \(path) taken as \(names): \(problem)")
        }
    }
    if bytes.count >= 16 {
        let word = { (at: Int) in bytes[at..<at + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let length = Int64(bitPattern: word(0))
        // statvfs's free bytes: never negative.
        let free = Int64(bitPattern: word(8) & UInt64(Int64.max))
        if UploadRules.sizeProblem(bytes: length, free: free) == nil {
            require(length >= 0 && length <= UploadRules.maxFileBytes, "\(length) bytes taken")
            require(length <= free - UploadRules.reserveBytes, "\(length) bytes taken with \(free) free")
        }
    }
    return 0
}
