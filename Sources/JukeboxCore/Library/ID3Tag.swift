/// An ID3v2.3/2.4 tag at the start of a file, read frame header by frame header through a
/// `read(offset, count)` closure, so that a multi-megabyte picture frame is located without
/// being read. Pure: the caller does the reading. A tag unsynchronised as a whole (v2.3)
/// cannot be walked in place; the caller gets `wholeTagSize` and walks the decoded bytes.
public struct ID3Tag: Sendable, Equatable {
    /// One frame: its id, where its body starts (after the header and any data length
    /// indicator or grouping byte) and how long it is.
    public struct Frame: Sendable, Equatable {
        public var id: String
        public var bodyOffset: Int64
        public var bodySize: Int
        /// The body is unsynchronised (v2.4 frame flag): decode with `ID3Tag.resynchronised`.
        public var unsynchronised: Bool
        /// Compressed or encrypted: the body cannot be used as it is.
        public var unreadable: Bool
    }

    public var version: UInt8
    public var frames: [Frame]

    /// Reads the frame headers; nil when there is no v2.3/2.4 tag. `read(offset, count)` gives
    /// the file's bytes (fewer at its end); for a tag unsynchronised as a whole (see
    /// `wholeTagUnsynchronisedSize`) it must give the decoded tag instead.
    public static func read(_ read: (Int64, Int) -> [UInt8]) -> ID3Tag? {
        let header = read(0, 10)
        guard let total = ID3Lyrics.tagSize(header), header[3] == 3 || header[3] == 4 else { return nil }
        let version = header[3]
        let flags = header[5]
        var offset: Int64 = 10
        if flags & 0x40 != 0 {  // extended header
            let size = read(10, 4)
            guard size.count == 4 else { return nil }
            let value = size.reduce(0) { $0 << (version == 4 ? 7 : 8) | Int($1) }
            offset += Int64(version == 4 ? value : value + 4)
        }
        return ID3Tag(version: version, frames: frames(from: offset, to: Int64(total), version: version, read))
    }

    /// The frames between `offset` and `end` (a tag's, or those embedded in a CHAP or CTOC
    /// frame), headers as in a tag of `version`.
    static func frames(from start: Int64, to end: Int64, version: UInt8, _ read: (Int64, Int) -> [UInt8]) -> [Frame] {
        var offset = start
        var frames: [Frame] = []
        while offset + 10 <= end {
            let head = read(offset, 10)
            guard head.count == 10, head[0] != 0 else { break }
            let id = String(decoding: head[0..<4], as: UTF8.self)
            let size =
                version == 4
                ? head[4..<8].reduce(0) { $0 << 7 | Int($1 & 0x7F) } : head[4..<8].reduce(0) { $0 << 8 | Int($1) }
            let frameFlags = UInt16(head[8]) << 8 | UInt16(head[9])
            guard size > 0, offset + 10 + Int64(size) <= end else { break }
            var skip = 0
            let unsynchronised: Bool
            let unreadable: Bool
            if version == 4 {
                if frameFlags & 0x0040 != 0 { skip += 1 }  // grouping identity
                if frameFlags & 0x0001 != 0 { skip += 4 }  // data length indicator
                unsynchronised = frameFlags & 0x0002 != 0
                unreadable = frameFlags & 0x000C != 0  // compressed, encrypted
            } else {
                if frameFlags & 0x0080 != 0 { skip += 4 }  // decompressed size
                if frameFlags & 0x0040 != 0 { skip += 1 }  // encryption method
                if frameFlags & 0x0020 != 0 { skip += 1 }  // grouping identity
                unsynchronised = false
                unreadable = frameFlags & 0x00C0 != 0
            }
            if skip < size {
                frames.append(
                    Frame(
                        id: id, bodyOffset: offset + 10 + Int64(skip), bodySize: size - skip,
                        unsynchronised: unsynchronised, unreadable: unreadable))
            }
            offset += 10 + Int64(size)
        }
        return frames
    }

    /// The size of the whole tag when it is unsynchronised as a whole (a v2.3 header flag):
    /// such a tag must be read and decoded with `resynchronised` before `read` can walk it.
    public static func wholeTagUnsynchronisedSize(_ header: [UInt8]) -> Int? {
        guard let total = ID3Lyrics.tagSize(header), header[3] == 3, header[5] & 0x80 != 0 else { return nil }
        return total
    }

    /// Undoes ID3 unsynchronisation: every `FF 00` becomes `FF`.
    public static func resynchronised(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            result.append(bytes[index])
            if bytes[index] == 0xFF, index + 1 < bytes.count, bytes[index + 1] == 0 { index += 1 }
            index += 1
        }
        return result
    }

    /// The first usable APIC frame and where its image starts: MPD takes the first picture
    /// whose MIME type is not `-->` (a link) and whose data is not empty. `read` as for `read`.
    public func firstPicture(_ read: (Int64, Int) -> [UInt8]) -> EmbeddedPicture? {
        for frame in frames where frame.id == "APIC" && !frame.unreadable {
            let head =
                frame.unsynchronised
                ? Self.resynchronised(read(frame.bodyOffset, frame.bodySize))
                : read(frame.bodyOffset, min(frame.bodySize, 4096))
            // A description longer than what was read leaves no image start to trust.
            guard let image = Self.pictureStart(head), image.offset < head.count else { continue }
            if frame.unsynchronised {
                return EmbeddedPicture(mimeType: image.mimeType, location: .decoded(Array(head[image.offset...])))
            }
            let size = frame.bodySize - image.offset
            guard size > 0 else { continue }
            return EmbeddedPicture(
                mimeType: image.mimeType,
                location: .inFile(offset: frame.bodyOffset + Int64(image.offset), size: size))
        }
        return nil
    }

    /// APIC: text encoding, MIME type (Latin-1, NUL-ended), picture type, description (in the
    /// text encoding, ended by its terminator), then the image.
    static func pictureStart(_ body: [UInt8]) -> (mimeType: String, offset: Int)? {
        guard body.count > 2, let mimeEnd = body[1...].firstIndex(of: 0) else { return nil }
        let mimeType = ID3Lyrics.decode(Array(body[1..<mimeEnd]), encoding: 0)
        guard mimeType != "-->", mimeEnd + 1 < body.count else { return nil }
        let (_, imageStart) = ID3Lyrics.string(body, from: mimeEnd + 2, encoding: body[0])
        return (mimeType, imageStart)
    }

    /// The user text frames (TXXX) as MPD's readcomments lists them: description and first
    /// value, where the description is a name (a letter, then letters, `_` or `-`) and the
    /// value has no control characters.
    public func userTexts(_ read: (Int64, Int) -> [UInt8]) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        for frame in frames where frame.id == "TXXX" && !frame.unreadable && frame.bodySize <= 64 << 10 {
            var body = read(frame.bodyOffset, frame.bodySize)
            if frame.unsynchronised { body = Self.resynchronised(body) }
            guard body.count > 1 else { continue }
            let (name, valueStart) = ID3Lyrics.string(body, from: 1, encoding: body[0])
            let (value, _) = ID3Lyrics.string(body, from: valueStart, encoding: body[0])
            guard Self.isCommentName(name), !value.unicodeScalars.contains(where: { $0.value < 0x20 }) else { continue }
            result.append((name, value))
        }
        return result
    }

    static func isCommentName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || $0 == "_" || $0 == "-" }
    }
}

/// A picture embedded in a music file: its MIME type and where its bytes are.
public struct EmbeddedPicture: Sendable, Equatable {
    /// Where the image bytes are.
    public enum Location: Sendable, Equatable {
        /// In place in the file: read `size` bytes from `offset` (chunk by chunk).
        case inFile(offset: Int64, size: Int)
        /// Decoded already (the frame was unsynchronised).
        case decoded([UInt8])
    }

    public var mimeType: String
    public var location: Location

    public init(mimeType: String, location: Location) {
        self.mimeType = mimeType
        self.location = location
    }

    /// The image's size in bytes.
    public var size: Int {
        switch location {
        case .inFile(_, let size): size
        case .decoded(let bytes): bytes.count
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) }
}
