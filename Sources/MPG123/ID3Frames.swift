import CMPG123

/// One ID3v2 text frame as libmpg123 hands it over (already UTF-8, whatever the frame's
/// encoding was: Latin-1, UTF-16 with or without BOM, UTF-16BE or UTF-8), or one of the
/// fields of an ID3v1 tag under the ID3v2.3 id it corresponds to.
public struct ID3TextFrame: Sendable, Equatable {
    /// `TPE2`, `TCON`, `COMM`, `TXXX`, ... (ID3v2.2's three-letter ids come promoted to
    /// four letters by libmpg123 where it knows them, else as they were).
    public var id: String
    /// COMM and TXXX: the description (`MusicBrainz Album Id`); empty otherwise.
    public var description: String
    /// The text; a frame holding several strings has them separated by NUL.
    public var text: String

    public init(id: String, description: String = "", text: String) {
        self.id = id
        self.description = description
        self.text = text
    }
}

extension MPG123Decoder {
    /// Every ID3v2 text, comment, TXXX and UFID frame in file order per kind, then, when the file
    /// has no ID3v2 tag, the ID3v1 year, comment and genre (as `TYER`, `COMM`, `TCON` with
    /// the genre number in parentheses). The corresponding C function is mpg123_id3.
    public func textFrames() -> [ID3TextFrame] {
        guard mpg123_meta_check(handle) & MPG123_ID3 != 0 else { return [] }
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        guard mpg123_id3(handle, &v1, &v2) == MPG123_OK.rawValue else { return [] }
        var frames: [ID3TextFrame] = []
        if let v2 = v2?.pointee {
            func append(_ list: UnsafeMutablePointer<mpg123_text>?, _ count: Int) {
                guard let list else { return }
                for item in UnsafeBufferPointer(start: list, count: count) {
                    let id = withUnsafeBytes(of: item.id) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    frames.append(
                        ID3TextFrame(
                            id: id, description: Self.text(item.description), text: Self.text(item.text)))
                }
            }
            append(v2.text, Int(v2.texts))
            append(v2.comment_list, Int(v2.comments))
            append(v2.extra, Int(v2.extras))
            frames += uniqueFileIdentifiers()
        }
        if frames.isEmpty, let v1 = v1?.pointee, withUnsafeBytes(of: v1.tag, { Array($0) }) == Array("TAG".utf8) {
            let year = Self.latin1(v1.year)
            if !year.isEmpty { frames.append(ID3TextFrame(id: "TYER", text: year)) }
            // ID3v1.1 keeps the track number in the last two bytes of the comment.
            let commentBytes = withUnsafeBytes(of: v1.comment) { Array($0) }
            let comment = Self.latin1(commentBytes[28] == 0 ? Array(commentBytes[..<28]) : commentBytes)
            if !comment.isEmpty { frames.append(ID3TextFrame(id: "COMM", text: comment)) }
            if v1.genre != 255 { frames.append(ID3TextFrame(id: "TCON", text: "(\(v1.genre))")) }
        }
        return frames
    }

    /// The `UFID` frames of the ID3v2 tag at the start of the file (libmpg123 skips them), as
    /// owner (in `description`) and identifier. Read from the file: the tag header, then the
    /// frames until padding; a tag with unsynchronisation or an extended header is not walked.
    func uniqueFileIdentifiers() -> [ID3TextFrame] {
        var header = [UInt8](repeating: 0, count: 10)
        guard jb_mpg123_reader_peek(reader, 0, &header, 10) == 10, header.starts(with: Array("ID3".utf8)),
            header[5] & 0xC0 == 0
        else { return [] }
        let version = header[3]
        let size = header[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        guard (2...4).contains(version), size <= 1 << 20 else { return [] }
        var tag = [UInt8](repeating: 0, count: size)
        guard jb_mpg123_reader_peek(reader, 10, &tag, size) == Int64(size) else { return [] }
        let idLength = version == 2 ? 3 : 4
        let headerLength = version == 2 ? 6 : 10
        var found: [ID3TextFrame] = []
        var at = 0
        while at + headerLength <= tag.count, tag[at] != 0 {
            let sizeBytes = tag[(at + idLength)..<(at + idLength + (version == 2 ? 3 : 4))]
            let frameSize = sizeBytes.reduce(0) { version == 4 ? $0 << 7 | Int($1 & 0x7F) : $0 << 8 | Int($1) }
            let body = at + headerLength
            guard frameSize >= 0, body + frameSize <= tag.count else { break }
            let id = String(decoding: tag[at..<(at + idLength)], as: UTF8.self)
            if id == "UFID" || id == "UFI", let nul = tag[body..<(body + frameSize)].firstIndex(of: 0) {
                found.append(
                    ID3TextFrame(
                        id: id, description: String(decoding: tag[body..<nul], as: UTF8.self),
                        text: String(decoding: tag[(nul + 1)..<(body + frameSize)], as: UTF8.self)))
            }
            at = body + frameSize
        }
        return found
    }

    /// The whole `mpg123_string` (its NULs between several strings kept, the final one dropped).
    private static func text(_ s: mpg123_string) -> String {
        guard let p = s.p, s.fill > 0 else { return "" }
        var bytes = UnsafeRawBufferPointer(start: p, count: s.fill)[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func latin1<T>(_ field: T) -> String {
        latin1(withUnsafeBytes(of: field) { Array($0) })
    }

    private static func latin1(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        for b in bytes.prefix(while: { $0 != 0 }) { scalars.append(Unicode.Scalar(b)) }
        var value = Substring(String(scalars))
        while value.last == " " { value = value.dropLast() }
        return String(value)
    }
}
