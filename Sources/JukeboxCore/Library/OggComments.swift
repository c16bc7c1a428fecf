/// The comments of an Ogg Vorbis or Opus file (MPD's readcomments) and its first picture (MPD's
/// readpicture: the first `METADATA_BLOCK_PICTURE` entry, base64 text of a FLAC PICTURE
/// block), from the first stream's comment header. The header is put together from the pages
/// it spans (a cover makes it tens of pages long), read through a `read(offset, count)`
/// closure. Pure: the caller does the reading.
public enum OggComments {
    /// The largest comment header put together (covers of a few MiB fit; a header claiming
    /// more is not read).
    public static let largestCommentHeader = 16 << 20
    /// The most pages walked for the two first packets.
    static let mostPages = 8192

    /// The picture; nil when the file is no Ogg Vorbis or Opus, has no picture entry, or the
    /// entry is not a picture block.
    public static func firstPicture(_ read: (Int64, Int) -> [UInt8]) -> EmbeddedPicture? {
        let name = Array("METADATA_BLOCK_PICTURE".utf8)
        guard let header = commentHeader(read),
            let entry = entries(in: header).first(where: { entry in
                entry.name.count == name.count
                    && zip(entry.name, name).allSatisfy { $0 == $1 || ($1 >= 0x41 && $1 <= 0x5A && $0 == $1 | 0x20) }
            }),
            let block = Base64.decode(entry.value)
        else { return nil }
        guard let found = FLACMetadataBlocks.picture(inBody: 0, size: block.count, memoryReader(block)),
            case .inFile(let offset, let size) = found.location
        else { return nil }
        return EmbeddedPicture(
            mimeType: found.mimeType, location: .decoded(Array(block[Int(offset)..<Int(offset) + size])))
    }

    /// The comments as name/value pairs in file order, as `FLACMetadataBlocks.comments` gives
    /// a FLAC's (every `NAME=value` entry with a name); none when the file is no Ogg Vorbis or Opus.
    public static func comments(_ read: (Int64, Int) -> [UInt8]) -> [(name: String, value: String)] {
        guard let header = commentHeader(read) else { return [] }
        return entries(in: header).map {
            (String(decoding: $0.name, as: UTF8.self), String(decoding: $0.value, as: UTF8.self))
        }
    }

    /// The second packet of the first logical stream (its comment header), put together from
    /// its pages; nil when the pages end, break off or it grows past `largestCommentHeader`.
    static func commentHeader(_ read: (Int64, Int) -> [UInt8]) -> [UInt8]? {
        var offset: Int64 = 0
        var serial: [UInt8]?
        var packet = 0
        var header: [UInt8] = []
        for _ in 0..<mostPages {
            let head = read(offset, 27)
            guard head.count == 27, head[0..<4].elementsEqual("OggS".utf8), head[4] == 0 else { return nil }
            let segments = read(offset + 27, Int(head[26]))
            guard segments.count == Int(head[26]) else { return nil }
            let bodyOffset = offset + 27 + Int64(segments.count)
            let bodySize = segments.reduce(0) { $0 + Int($1) }
            offset = bodyOffset + Int64(bodySize)
            // Pages of other streams (a multiplexed file) are passed over.
            if serial == nil { serial = Array(head[14..<18]) }
            guard head[14..<18].elementsEqual(serial!) else { continue }
            // The body is read once, when the comment header is in it.
            var body: [UInt8] = []
            var at = 0
            for lacing in segments {
                if packet == 1 {
                    guard header.count + Int(lacing) <= largestCommentHeader else { return nil }
                    if body.isEmpty { body = read(bodyOffset, bodySize) }
                    guard body.count == bodySize else { return nil }
                    header += body[at..<at + Int(lacing)]
                }
                at += Int(lacing)
                // A lacing value under 255 ends its packet.
                if lacing < 255 {
                    if packet == 1 { return header }
                    packet += 1
                }
            }
        }
        return nil
    }

    /// The entries with a name of a Vorbis (`\u{3}vorbis`) or Opus (`OpusTags`) comment
    /// header, split at the first "=".
    static func entries(in header: [UInt8]) -> [(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] {
        var at: Int
        if header.starts(with: [3] + Array("vorbis".utf8)) {
            at = 7
        } else if header.starts(with: Array("OpusTags".utf8)) {
            at = 8
        } else {
            return []
        }
        func next32() -> Int? {
            guard at + 4 <= header.count else { return nil }
            defer { at += 4 }
            return Int(header[at]) | Int(header[at + 1]) << 8 | Int(header[at + 2]) << 16 | Int(header[at + 3]) << 24
        }
        guard let vendor = next32(), vendor <= header.count - at else { return [] }
        at += vendor
        guard let count = next32() else { return [] }
        var result: [(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] = []
        // Each entry holds at least its 4-byte length: the count cannot loop past the header.
        for _ in 0..<min(count, header.count / 4) {
            guard let length = next32(), length <= header.count - at else { break }
            let entry = header[at..<at + length]
            at += length
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")), equals > entry.startIndex else { continue }
            result.append((entry[..<equals], entry[(equals + 1)...]))
        }
        return result
    }
}

/// Base64 text (RFC 4648's alphabet, `=` padding optional) to bytes.
public enum Base64 {
    /// The bytes; nil at a character outside the alphabet or a length no encoding has.
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 4 * 3)
        var group: UInt32 = 0
        var count = 0
        var padding = 0
        for character in text {
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(character - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            // Nothing follows the padding.
            guard padding == 0 else { return nil }
            group = group << 6 | value
            count += 1
            if count == 4 {
                bytes += [UInt8(group >> 16), UInt8(truncatingIfNeeded: group >> 8), UInt8(truncatingIfNeeded: group)]
                group = 0
                count = 0
            }
        }
        switch count {
        case 0: break
        case 2: bytes.append(UInt8(truncatingIfNeeded: group >> 4))
        case 3: bytes += [UInt8(truncatingIfNeeded: group >> 10), UInt8(truncatingIfNeeded: group >> 2)]
        default: return nil
        }
        return padding <= 2 ? bytes : nil
    }
}
