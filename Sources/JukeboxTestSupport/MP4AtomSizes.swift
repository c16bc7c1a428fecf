import Foundation

/// MP4 files that ffmpeg makes, rewritten into the two other size forms of ISO/IEC 14496-12
/// that players meet: a last atom of size 0 ("to the end of the file", as streaming muxers
/// write `mdat`) and a 64-bit size (size 1, as muxers write an `mdat` over 4 GiB). Both keep
/// every byte offset, so the sample tables still point at the audio.
public enum MP4AtomSizes {
    /// The kinds of file made from one ffmpeg output.
    public enum Variant: String, CaseIterable, Sendable, CustomStringConvertible {
        /// `-movflags +faststart` (moov first): the last atom, `mdat`, of size 0.
        case mdatOfSizeZero = "mdat-size-0"
        /// ffmpeg's default layout (ftyp, free, mdat, moov): the 8-byte `free` placeholder and
        /// the `mdat` header become one 16-byte `mdat` header with a 64-bit size, as ffmpeg
        /// writes them past 4 GiB.
        case mdatOf64BitSize = "mdat-size-1"
        /// The same, and then the last atom, `moov`, of size 0.
        case mdatOf64BitSizeAndMoovOfSizeZero = "mdat-size-1-moov-size-0"

        public var description: String { rawValue }

        /// The ffmpeg options the source file needs: moov first for a size-0 `mdat`.
        public var muxerOptions: [String] { self == .mdatOfSizeZero ? ["-movflags", "+faststart"] : [] }
    }

    public struct Unexpected: Error, CustomStringConvertible {
        public var description: String
    }

    /// The top-level atoms of `bytes` (32-bit sizes, as ffmpeg writes files this small): type,
    /// offset, size.
    static func topLevel(_ bytes: [UInt8]) throws -> [(type: String, at: Int, size: Int)] {
        var atoms: [(type: String, at: Int, size: Int)] = []
        var at = 0
        while at + 8 <= bytes.count {
            let size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, at + size <= bytes.count else { throw Unexpected(description: "an atom of size \(size)") }
            atoms.append((String(decoding: bytes[at + 4..<at + 8], as: UTF8.self), at, size))
            at += size
        }
        return atoms
    }

    /// `source` (an ffmpeg output made with `variant.muxerOptions`) rewritten as `variant`, at
    /// `path`.
    public static func rewrite(_ source: String, as variant: Variant, to path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        let atoms = try topLevel(bytes)
        func sizeZero(_ type: String) throws {
            guard let last = atoms.last, last.type == type else {
                throw Unexpected(description: "\(atoms.map(\.type)): \(type) is not last")
            }
            bytes.replaceSubrange(last.at..<last.at + 4, with: [0, 0, 0, 0])
        }
        switch variant {
        case .mdatOfSizeZero:
            try sizeZero("mdat")
        case .mdatOf64BitSize, .mdatOf64BitSizeAndMoovOfSizeZero:
            guard let free = atoms.firstIndex(where: { $0.type == "free" && $0.size == 8 }), free + 1 < atoms.count,
                atoms[free + 1].type == "mdat"
            else { throw Unexpected(description: "\(atoms.map(\.type)): no 8-byte free atom before mdat") }
            let size = UInt64(atoms[free + 1].size + 8)
            let header =
                [0, 0, 0, 1] + Array("mdat".utf8) + (0..<8).map { UInt8(truncatingIfNeeded: size >> (56 - 8 * $0)) }
            bytes.replaceSubrange(atoms[free].at..<atoms[free].at + 16, with: header)
            if variant == .mdatOf64BitSizeAndMoovOfSizeZero { try sizeZero("moov") }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The tags every file made here carries: a title, and lyrics (`©lyr`).
    public static let title = "Atoms ü"
    public static let lyrics = "[00:01.00]first line"
    /// The chapters of the M4B (titles and starts in ms).
    public static let chapters: [(title: String, startMs: Int64)] = [("One", 0), ("Two", 1200)]

    /// `wav` as AAC in an M4A (`.m4a`: title, lyrics) or an audiobook (`.m4b`: the same and
    /// `chapters`), with `cover` (a JPEG) added by mutagen as iTunes does: ffmpeg's file laid
    /// out for `variant`, and that file rewritten as `variant`.
    public static func make(_ ext: String, _ variant: Variant, from wav: String, cover: String, in directory: String)
        throws -> (original: String, rewritten: String)
    {
        let metadata = directory + "/\(ext)-\(variant).txt"
        var text = ";FFMETADATA1\ntitle=\(title)\nlyrics=\(lyrics)\n"
        if ext == "m4b" {
            let ends = chapters.dropFirst().map(\.startMs) + [3000]
            for (chapter, end) in zip(chapters, ends) {
                text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(chapter.startMs)\nEND=\(end)\ntitle=\(chapter.title)\n"
            }
        }
        try text.write(toFile: metadata, atomically: true, encoding: .utf8)
        let original = directory + "/\(variant)-original.\(ext)"
        try EncodedMedia.tool(
            ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-i", metadata, "-map_metadata", "1"]
                + (ext == "m4b" ? ["-map_chapters", "1"] : []) + ["-c:a", "aac", "-b:a", "128k"] + variant.muxerOptions
                + [original])
        try EncodedMedia.tool(
            ["/usr/bin/python3", Fixtures.repoRoot + "/Tests/Tools/mp4-freeform.py", original, "--cover", cover])
        let rewritten = directory + "/\(variant).\(ext)"
        try rewrite(original, as: variant, to: rewritten)
        return (original, rewritten)
    }
}
