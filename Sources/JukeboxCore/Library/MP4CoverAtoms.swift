/// The cover pictures of an MP4 file (.m4a, .m4b): the `data` atoms of the `covr` atoms in
/// `moov/udta/meta/ilst` (or `moov/meta/ilst`), found by walking atom headers through a
/// `read(offset, count)` closure, as `FLACMetadataBlocks` walks blocks: a 5 MB cover is
/// located without being read. Pure: the caller does the reading.
///
/// The picture taken and its MIME type are those MPD 0.23 reports through FFmpeg's MP4
/// demuxer: the first `data` atom typed JPEG (13), PNG (14) or BMP (27), other types skipped;
/// a JPEG- or PNG-typed image is PNG when it starts with PNG's signature and JPEG otherwise.
public enum MP4CoverAtoms {
    /// The first cover, in place; nil when the file is no MP4 file or has no cover.
    /// `fileSize` ends the last atom when its size is 0 ("to the end of the file").
    public static func firstPicture(_ read: (Int64, Int) -> [UInt8], fileSize: Int64) -> EmbeddedPicture? {
        guard let moov = moov(read, fileSize: fileSize) else { return nil }
        for meta in metas(in: moov, read) {
            for ilst in children(of: metaBody(meta, read), read) where ilst.type == "ilst" {
                for covr in children(of: ilst, read) where covr.type == "covr" {
                    for data in children(of: covr, read) where data.type == "data" {
                        if let picture = picture(in: data, read) { return picture }
                    }
                }
            }
        }
        return nil
    }

    /// The `moov` atom of an MP4 file; nil when the file is no MP4 file or has none.
    static func moov(_ read: (Int64, Int) -> [UInt8], fileSize: Int64) -> Atom? {
        guard fileSize >= 0, read(4, 4) == Array("ftyp".utf8) else { return nil }
        return children(of: Atom(bodyOffset: 0, end: fileSize), read).first { $0.type == "moov" }
    }

    /// The `meta` atoms that may hold an `ilst`: in `moov/udta`, then in `moov`.
    static func metas(in moov: Atom, _ read: (Int64, Int) -> [UInt8]) -> [Atom] {
        let moovChildren = children(of: moov, read)
        return moovChildren.filter { $0.type == "udta" }.flatMap { children(of: $0, read) }.filter { $0.type == "meta" }
            + moovChildren.filter { $0.type == "meta" }
    }

    /// An atom's type and the span of its body.
    struct Atom {
        var type = ""
        var bodyOffset: Int64
        var end: Int64
    }

    /// The atoms inside `parent`'s body, in order: 32-bit sizes, 64-bit ones (size 1) and the
    /// last atom's size 0 (to the parent's end, the file's at the top). A size smaller than its
    /// header or past the parent ends the list. Every size is compared with the room left
    /// (`parent.end - at`, never negative) before it is added, so no value in the file can
    /// overflow an offset.
    static func children(of parent: Atom, _ read: (Int64, Int) -> [UInt8]) -> [Atom] {
        var atoms: [Atom] = []
        var at = parent.bodyOffset
        while at <= parent.end, parent.end - at >= 8, atoms.count < 4096 {
            let room = parent.end - at
            let head = read(at, 8)
            guard head.count == 8 else { break }
            // Byte for byte (Latin-1), so that `©lyr` (0xA9 "lyr") keeps its first byte.
            let type = String(String.UnicodeScalarView(head[4..<8].map { Unicode.Scalar($0) }))
            var size = Int64(bigEndian32(head[0..<4]))
            var header: Int64 = 8
            if size == 1 {
                guard room >= 16 else { break }
                let large = read(at + 8, 8)
                guard large.count == 8 else { break }
                // A size past Int64.max reads as negative: smaller than the header, refused below.
                size = Int64(bitPattern: large.reduce(0) { $0 << 8 | UInt64($1) })
                header = 16
            } else if size == 0 {
                size = room
            }
            guard size >= header, size <= room else { break }
            atoms.append(Atom(type: type, bodyOffset: at + header, end: at + size))
            at += size
        }
        return atoms
    }

    /// A `meta` atom's children start after its version and flags (MP4), or at once when the
    /// `hdlr` comes first (QuickTime's form).
    static func metaBody(_ meta: Atom, _ read: (Int64, Int) -> [UInt8]) -> Atom {
        var body = meta
        // A body too short for a child atom has none either way.
        guard meta.end - meta.bodyOffset >= 8 else { return body }
        if read(meta.bodyOffset + 4, 4) != Array("hdlr".utf8) { body.bodyOffset += 4 }
        return body
    }

    /// The image of a `data` atom (type, locale, then the bytes), when its type is a picture's.
    private static func picture(in data: Atom, _ read: (Int64, Int) -> [UInt8]) -> EmbeddedPicture? {
        guard data.end - data.bodyOffset >= 8 else { return nil }
        let head = read(data.bodyOffset, 8)
        guard head.count == 8 else { return nil }
        let start = data.bodyOffset + 8
        let size = Int(data.end - start)
        // A picture cut short by the file's end (a partial copy) is none.
        guard size == 0 || read(data.end - 1, 1).count == 1 else { return nil }
        let mimeType: String
        switch bigEndian32(head[0..<4]) {
        case 27: mimeType = "image/x-ms-bmp"
        case 13, 14:
            let signature = read(start, 8)
            if signature.count == 8 {
                mimeType = signature == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] ? "image/png" : "image/jpeg"
            } else {
                mimeType = bigEndian32(head[0..<4]) == 14 ? "image/png" : "image/jpeg"
            }
        default: return nil
        }
        return EmbeddedPicture(mimeType: mimeType, location: .inFile(offset: start, size: size))
    }

    static func bigEndian32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
