import Foundation

/// The formats the Xiph encoders make, with their reference decoders.
public enum XiphFormat: String, CaseIterable, Sendable, CustomStringConvertible {
    case flac
    case vorbis = "ogg"
    case opus

    /// The file-name extension.
    public var ext: String { rawValue }
    public var description: String { rawValue }
}

/// A failed encoder or decoder run: the command and what it wrote to stderr.
public struct ToolFailure: Error, CustomStringConvertible {
    public var description: String
}

/// Test audio made with sox and the Xiph encoders in a folder, and the reference decoders'
/// raw S16LE output (`flac -d`, `oggdec`, `opusdec --no-dither`, at the file's own rate).
/// The same every run (sox -R).
public struct EncodedMedia {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    public func file(_ name: String) -> String { directory + "/" + name }

    /// Runs a command in a UTF-8 locale (the encoders keep non-ASCII tags as they are).
    @discardableResult
    public static func tool(_ command: [String]) throws -> RunResult {
        let result = try run(command, environment: ["LC_ALL": "C.UTF-8"])
        guard result.status == 0 else {
            throw ToolFailure(description: "\(command.joined(separator: " ")): \(result.stderrText)")
        }
        return result
    }

    /// `seconds` of a 16-bit WAV: a sine on the left, pink noise on the right, 3 dB under full
    /// scale (mono: the sine); `from` seconds into that signal, so consecutive parts join
    /// into one continuous signal.
    public func wav(_ name: String, rate: Int = 44100, seconds: Double, from: Double = 0, channels: Int = 2)
        throws -> String
    {
        let path = file(name)
        try Self.tool(
            ["sox", "-R", "-n", "-r", "\(rate)", "-b", "16", "-c", "\(channels)", path, "synth", "\(from + seconds)"]
                + ["sine", "440"] + (channels == 2 ? ["pinknoise"] : []) + ["gain", "-3", "trim", "\(from)"])
        return path
    }

    /// `wav` encoded as `format` beside it (same name, the format's extension), with `tags`
    /// as Vorbis comments and, with `cover`, that file as an embedded front cover (a FLAC
    /// PICTURE block; METADATA_BLOCK_PICTURE in Ogg).
    public func encode(_ wav: String, as format: XiphFormat, tags: [(String, String)] = [], cover: String? = nil)
        throws -> String
    {
        let out = String(wav.dropLast(4)) + "." + format.ext
        let comments = tags.map { "\($0.0)=\($0.1)" }
        let picture = cover.map { "3|image/jpeg||600x600x24|\($0)" }
        switch format {
        case .flac:
            try Self.tool(
                ["flac", "--silent", "-f"] + comments.flatMap { ["-T", $0] }
                    + (picture.map { ["--picture=\($0)"] } ?? [])
                    + ["-o", out, wav])
        case .vorbis:
            try Self.tool(["oggenc", "-Q", "-q", "4"] + comments.flatMap { ["-c", $0] } + ["-o", out, wav])
            if let cover {
                // oggenc takes no picture: vorbiscomment adds the base64 FLAC picture block (read
                // from a file: it is longer than an argument may be).
                let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cover)))
                func be32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
                let mime = Array("image/jpeg".utf8)
                let block =
                    be32(3) + be32(mime.count) + mime + be32(0) + be32(600) + be32(600) + be32(24) + be32(0)
                    + be32(jpeg.count) + jpeg
                let list = out + ".comments"
                try Data(("METADATA_BLOCK_PICTURE=" + Data(block).base64EncodedString() + "\n").utf8).write(
                    to: URL(fileURLWithPath: list))
                try Self.tool(["vorbiscomment", "-a", "-c", list, out])
            }
        case .opus:
            try Self.tool(
                ["opusenc", "--quiet", "--bitrate", "96"] + comments.flatMap { ["--comment", $0] }
                    + (picture.map { ["--picture", $0] } ?? []) + [wav, out])
        }
        return out
    }

    /// A `bytes`-long "JPEG" (the magic bytes, then a fixed pseudo-random pattern): a cover as
    /// large as they come.
    public func cover(bytes: Int = 5 << 20) throws -> String {
        let path = file("cover.jpg")
        let pattern = (0..<bytes).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        try Data([0xFF, 0xD8, 0xFF, 0xE0] + pattern.dropFirst(4)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A file of `format` with its headers and no audio (`name` plus the format's extension).
    public func empty(_ name: String, as format: XiphFormat, rate: Int = 44100) throws -> String {
        let wav = file(name + ".wav")
        try Self.tool(["sox", "-n", "-r", "\(rate)", "-b", "16", "-c", "2", wav, "trim", "0", "0"])
        guard format == .flac else { return try encode(wav, as: format) }
        // flac refuses a WAV without samples; raw input of none makes a stream of none.
        let raw = file(name + ".raw")
        try Data().write(to: URL(fileURLWithPath: raw))
        let out = file(name + ".flac")
        try Self.tool([
            "flac", "--silent", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "--channels=2",
            "--bps=16", "--sample-rate=\(rate)", "-o", out, raw,
        ])
        return out
    }

    /// The reference decoder's S16 samples of `files`, one after the other.
    public func referenceDecode(_ files: [String]) throws -> [Int16] {
        var all: [Int16] = []
        for (index, path) in files.enumerated() {
            let raw = file("reference-\(index).raw")
            switch XiphFormat(rawValue: String(path.split(separator: ".").last ?? "")) {
            case .flac:
                try Self.tool([
                    "flac", "--silent", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", raw,
                    path,
                ])
            case .vorbis: try Self.tool(["oggdec", "-Q", "-R", "-b", "16", "-e", "0", "-s", "1", "-o", raw, path])
            case .opus: try Self.tool(["opusdec", "--quiet", "--rate", "48000", "--no-dither", path, raw])
            case nil: throw ToolFailure(description: "\(path): no reference decoder for this file")
            }
            let data = try Data(contentsOf: URL(fileURLWithPath: raw))
            all += data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        }
        return all
    }
}
