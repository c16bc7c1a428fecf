/// The metadata blocks of a FLAC file (after an ID3v2 tag, when one leads), walked block
/// header by block header through a `read(offset, count)` closure, as `ID3Tag` walks frames:
/// a 5 MB PICTURE block is located without being read. Pure: the caller does the reading.
public struct FLACMetadataBlocks: Sendable, Equatable {
    /// One block: its type (4 VORBIS_COMMENT, 6 PICTURE, ...), where its body starts, its size.
    public struct Block: Sendable, Equatable {
        public var type: UInt8
        public var bodyOffset: Int64
        public var bodySize: Int
    }

    public var blocks: [Block]

    /// The blocks; nil when the file is no FLAC stream.
    public static func read(_ read: (Int64, Int) -> [UInt8]) -> FLACMetadataBlocks? {
        var offset: Int64 = 0
        let start = read(0, 10)
        if let size = ID3Lyrics.tagSize(start) { offset = Int64(size) }
        guard read(offset, 4) == Array("fLaC".utf8) else { return nil }
        offset += 4
        var blocks: [Block] = []
        while true {
            let head = read(offset, 4)
            guard head.count == 4 else { break }
            let size = Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            blocks.append(Block(type: head[0] & 0x7F, bodyOffset: offset + 4, bodySize: size))
            offset += 4 + Int64(size)
            if head[0] & 0x80 != 0 || blocks.count > 1024 { break }
        }
        return FLACMetadataBlocks(blocks: blocks)
    }

    /// The image of the first PICTURE block (as MPD's readpicture takes it), in place.
    public func firstPicture(_ read: (Int64, Int) -> [UInt8]) -> EmbeddedPicture? {
        for block in blocks where block.type == 6 {
            if let picture = Self.picture(inBody: block.bodyOffset, size: block.bodySize, read) { return picture }
        }
        return nil
    }

    /// The image of a PICTURE block's body of `size` bytes at `offset` (the same structure is
    /// an Ogg comment's METADATA_BLOCK_PICTURE), in place; nil when a length overruns it.
    public static func picture(inBody offset: Int64, size: Int, _ read: (Int64, Int) -> [UInt8]) -> EmbeddedPicture? {
        var at = offset + 4  // the picture type
        let end = offset + Int64(size)
        // Each length is held against what is left of the block before it is read or
        // added: a 32-bit MIME length would otherwise be a read of up to 4 GiB.
        guard let mimeLength = bigEndian32(read(at, 4)), Int64(mimeLength) <= end - at - 4 else { return nil }
        let mime = String(decoding: read(at + 4, mimeLength), as: UTF8.self)
        at += 4 + Int64(mimeLength)
        guard let descriptionLength = bigEndian32(read(at, 4)), Int64(descriptionLength) <= end - at - 4 else {
            return nil
        }
        at += 4 + Int64(descriptionLength) + 16  // the description, width, height, depth, colours
        guard let dataLength = bigEndian32(read(at, 4)), at + 4 + Int64(dataLength) <= end else { return nil }
        return EmbeddedPicture(mimeType: mime, location: .inFile(offset: at + 4, size: dataLength))
    }

    /// The Vorbis comments as name/value pairs, in file order (MPD's readcomments: every
    /// `NAME=value` entry with a name).
    public func comments(_ read: (Int64, Int) -> [UInt8]) -> [(name: String, value: String)] {
        // A comment block over 16 MiB (covers in base64) is not read into memory.
        guard let block = blocks.first(where: { $0.type == 4 }), block.bodySize <= 16 << 20 else { return [] }
        let body = read(block.bodyOffset, block.bodySize)
        var at = 0
        func next32() -> Int? {
            guard at + 4 <= body.count else { return nil }
            defer { at += 4 }
            return Int(body[at]) | Int(body[at + 1]) << 8 | Int(body[at + 2]) << 16 | Int(body[at + 3]) << 24
        }
        guard let vendor = next32(), at + vendor <= body.count else { return [] }
        at += vendor
        guard let count = next32() else { return [] }
        var result: [(name: String, value: String)] = []
        for _ in 0..<count {
            guard let length = next32(), at + length <= body.count else { break }
            let entry = body[at..<at + length]
            at += length
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")), equals > entry.startIndex else { continue }
            result.append(
                (
                    String(decoding: entry[entry.startIndex..<equals], as: UTF8.self),
                    String(decoding: entry[(equals + 1)...], as: UTF8.self)
                ))
        }
        return result
    }

    private static func bigEndian32(_ bytes: [UInt8]) -> Int? {
        guard bytes.count == 4 else { return nil }
        return bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
