/// The lyrics of an MP4 file (.m4a, .m4b) read from its atoms, without FFmpeg: the UTF-8
/// `©lyr` item of `moov/udta/meta/ilst` (or `moov/meta/ilst`), as iTunes, FFmpeg and mutagen
/// write it. Opening the file with FFmpeg only for this tag maps its whole sample index
/// again while the decoder has it open (37 MB for a 10-hour book).
///
/// Answers only where the text is certain to be the one FFmpeg's MP4 demuxer gives (MPD
/// 0.23's reading): anything else (another text encoding, two `©lyr`, a freeform "lyrics"
/// atom, QuickTime `keys` or `ID32` metadata, a damaged `ilst`) is left to FFmpeg.
public enum MP4LyricsAtom {
    public enum Found: Equatable, Sendable {
        /// The `©lyr` text, up to its first NUL as FFmpeg keeps it.
        case text(String)
        /// The file has no lyrics that FFmpeg would read.
        case none
    }

    /// What the atoms say; nil when they cannot say it for sure (no MP4 file, see above).
    /// `fileSize` ends the last atom when its size is 0 ("to the end of the file").
    public static func read(_ read: (Int64, Int) -> [UInt8], fileSize: Int64) -> Found? {
        typealias Atoms = MP4CoverAtoms
        guard let moov = Atoms.moov(read, fileSize: fileSize) else { return nil }
        let udtaItems = Atoms.children(of: moov, read).filter { $0.type == "udta" }.flatMap {
            Atoms.children(of: $0, read)
        }
        if udtaItems.contains(where: { $0.type == "\u{A9}lyr" }) { return nil }
        var lyricsItems: [MP4CoverAtoms.Atom] = []
        for meta in Atoms.metas(in: moov, read) {
            let metaItems = Atoms.children(of: Atoms.metaBody(meta, read), read)
            if metaItems.contains(where: { $0.type == "keys" || $0.type == "ID32" }) { return nil }
            for ilst in metaItems where ilst.type == "ilst" {
                let items = Atoms.children(of: ilst, read)
                // Items that do not fill the `ilst` exactly: a damaged or cut list.
                guard (items.last?.end ?? ilst.bodyOffset) == ilst.end else { return nil }
                for item in items {
                    if item.type == "\u{A9}lyr" { lyricsItems.append(item) }
                    if item.type == "----", freeformName(item, read).map({ $0.lowercased() == "lyrics" }) ?? true {
                        return nil
                    }
                }
            }
        }
        guard let item = lyricsItems.first else { return Found.none }
        guard lyricsItems.count == 1, let data = Atoms.children(of: item, read).first, data.type == "data",
            data.bodyOffset == item.bodyOffset + 8
        else { return nil }
        let head = read(data.bodyOffset, 8)
        guard head.count == 8, Atoms.bigEndian32(head[0..<4]) == 1, (8...16 << 20).contains(data.end - data.bodyOffset)
        else {
            return nil
        }
        let size = Int(data.end - data.bodyOffset) - 8
        let bytes = read(data.bodyOffset + 8, size)
        guard bytes.count == size else { return nil }
        let text = bytes.prefix { $0 != 0 }
        return text.isEmpty ? Found.none : .text(String(decoding: text, as: UTF8.self))
    }

    /// The `name` of a freeform (`----`) item: a full atom, version and flags then the name.
    private static func freeformName(_ item: MP4CoverAtoms.Atom, _ read: (Int64, Int) -> [UInt8]) -> String? {
        guard let name = MP4CoverAtoms.children(of: item, read).first(where: { $0.type == "name" }),
            name.end - name.bodyOffset <= 4096
        else { return nil }
        guard name.end - name.bodyOffset > 4 else { return "" }
        let bytes = read(name.bodyOffset + 4, Int(name.end - name.bodyOffset) - 4)
        return String(decoding: bytes, as: UTF8.self)
    }
}
