/// The stream URLs of a station playlist: `.pls` (`FileN=` entries) or `.m3u`/`.m3u8` (one
/// URL a line, `#` comments, as radio directories serve them). HLS media playlists (`.m3u8`
/// with `#EXT-X-` tags) list segments, not stations: they are refused by name.
public enum StationPlaylist {
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// An HLS playlist (segments of one stream), which the box does not play.
        case hls
        /// No http or https URL in it.
        case noStreams

        public var description: String {
            switch self {
            case .hls: "an HLS playlist (#EXT-X- tags): not supported"
            case .noStreams: "no http or https stream URL in it"
            }
        }
    }

    /// Whether `url`'s path names a station playlist (by its extension, before any query).
    public static func isPlaylist(url: String) -> Bool {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        return [".pls", ".m3u", ".m3u8"].contains { path.lowercased().hasSuffix($0) }
    }

    /// Whether `text` is a stream URL the box fetches (http or https).
    public static func isStreamURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// The stream URLs in `text`, in order (duplicates dropped).
    public static func streams(in text: String) throws(Problem) -> [String] {
        let lines = text.split(whereSeparator: \.isNewline).map { trimmed($0) }
        if lines.contains(where: { $0.hasPrefix("#EXT-X-") }) { throw .hls }
        let isPLS = lines.first { !$0.isEmpty }?.lowercased() == "[playlist]"
        var found: [String] = []
        for line in lines {
            let candidate: Substring
            if isPLS {
                guard line.lowercased().hasPrefix("file"), let equals = line.firstIndex(of: "=") else { continue }
                candidate = line[line.index(after: equals)...]
            } else {
                guard !line.hasPrefix("#") else { continue }
                candidate = line[...]
            }
            let url = trimmed(candidate)
            if isStreamURL(url), !found.contains(url) { found.append(url) }
        }
        if found.isEmpty { throw .noStreams }
        return found
    }

    private static func trimmed(_ text: Substring) -> String {
        String(
            text.drop { $0 == " " || $0 == "\t" || $0 == "\u{FEFF}" }.reversed().drop { $0 == " " || $0 == "\t" }
                .reversed())
    }
}
