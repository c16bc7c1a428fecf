import JukeboxAudio
import JukeboxCore
import LinuxSupport

/// `jukeboxd lyrics FILE`: prints a lyric file's parsed timeline so people can check their
/// files: `mm:ss.xxx  text` per line, word timings indented below, then a warning for every
/// line that was skipped.
struct LyricsCommand {
    static let command = CommandLineCommand(
        name: "lyrics", abstract: "Print the parsed timeline of a .lrc or .ksc file (or an MP3's ID3 lyrics).",
        options: [
            .option("offset", default: "0", help: "Show the lyrics this many ms sooner (like a per-track nudge).")
        ],
        arguments: [
            CommandLineArgument("file", help: "The lyric file (.lrc, .ksc), or an .mp3 with embedded SYLT/USLT lyrics.")
        ])

    var file: String
    var offset: Int64

    init(_ parsed: ParsedArguments) throws(UsageError) {
        file = parsed.arguments[0]
        offset = Int64(try parsed.defaultedInteger("offset"))
    }

    func run() throws {
        let lyrics: Lyrics
        let ext = file.lastIndex(of: ".").map { file[file.index(after: $0)...].lowercased() }
        if let ext, AudioFileKind.extensions.contains(ext) {
            guard let (embedded, _) = EmbeddedLyrics.read(path: file) else {
                writeStderr("\(file): no embedded lyrics (ID3 SYLT or USLT, or a LYRICS comment)\n")
                throw CommandExit(1)
            }
            lyrics = embedded
        } else {
            let bytes: [UInt8]
            do {
                bytes = try readWholeFile(file, limit: 16 << 20)
            } catch {
                writeStderr("\(file): \(error)\n")
                throw CommandExit(1)
            }
            lyrics = Lyrics.parse(bytes: bytes, fileName: file)
        }
        print(Self.render(lyrics, offsetMs: offset), terminator: "")
        for warning in lyrics.warnings { writeStderr("\(file):\(warning.line): skipped: \(warning.message)\n") }
        if lyrics.lines.isEmpty { throw CommandExit(1) }
    }

    /// The printed timeline.
    static func render(_ lyrics: Lyrics, offsetMs: Int64 = 0) -> String {
        var out = ""
        let header = [
            ("ti", "title"), ("ar", "artist"), ("al", "album"), ("by", "by"), ("length", "length"),
        ].compactMap { key, name in lyrics.tags[key].map { "# \(name): \($0)\n" } }
        out += header.joined()
        out += "# format: \(lyrics.format.rawValue)"
        if let encoding = lyrics.encoding { out += ", encoding: \(encoding.rawValue)" }
        if lyrics.offsetMs != 0 { out += ", file offset: \(lyrics.offsetMs) ms (applied)" }
        out += ", \(lyrics.lines.count) lines\n"
        for line in lyrics.lines {
            out += "\(stamp(line.timeMs - offsetMs))  \(line.text.isEmpty ? "(gap)" : line.text)\n"
            for word in line.words {
                out += "    \(stamp(word.timeMs - offsetMs))  \(word.text.trimmedForDisplay)\n"
            }
        }
        return out
    }

    /// `mm:ss.xxx`.
    static func stamp(_ ms: Int64) -> String {
        let sign = ms < 0 ? "-" : ""
        let v = abs(ms)
        let minutes = v / 60_000
        let seconds = v / 1000 % 60
        let millis = v % 1000
        func pad(_ n: Int64, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(sign)\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(millis, 3))"
    }
}

extension String {
    fileprivate var trimmedForDisplay: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
