/// M3U playlists as MPD stores them (one path per line, relative to music_dir) and as
/// desktop players write them, so that a playlist made on a computer plays on the box:
/// `#EXTM3U` and `#EXTINF` (any `#` line) are skipped, CRLF line ends, a byte-order mark,
/// UTF-16 and 8-bit text (decoded as lyric files are), absolute paths inside music_dir,
/// `file://` URLs, `./` prefixes and Windows backslashes. Pure: the file I/O is the store's.
public enum M3U {
    /// The entries of a playlist file, in order: paths relative to `musicDir` where they lie
    /// inside it, other absolute paths and URLs as written (they match no library track).
    public static func entries(of bytes: [UInt8], musicDir: String) -> [String] {
        let text = LyricsTextDecoder.decode(bytes).text
        var root = musicDir
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        var result: [String] = []
        for rawLine in text.split(
            omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        {
            var line = Substring(rawLine)
            // MPD strips trailing whitespace only: a leading space may belong to a name.
            while let last = line.last, last == " " || last == "\t" { line.removeLast() }
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            var entry = String(line)
            if entry.hasPrefix("file://") { entry = PercentEncoding.decoded(entry.dropFirst("file://".count)) }
            if !entry.contains("/"), entry.contains("\\") { entry = entry.replacingBackslashes() }
            if entry.hasPrefix(root + "/") {
                entry = String(entry.dropFirst(root.count + 1))
            }
            while entry.hasPrefix("./") { entry.removeFirst(2) }
            guard !entry.isEmpty else { continue }
            result.append(entry)
        }
        return result
    }

    /// The file for `entries`: one path per line, UTF-8, LF, no header (as MPD writes it, so
    /// that MPD and the box read each other's playlists).
    public static func bytes(of entries: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in entries where !entry.contains("\n") && !entry.contains("\r") {
            bytes += entry.utf8
            bytes.append(0x0A)
        }
        return bytes
    }
}

extension String {
    fileprivate func replacingBackslashes() -> String {
        String(map { $0 == "\\" ? "/" : $0 })
    }
}
