import Testing

@testable import JukeboxCore

/// ID3v2 tags built byte by byte: pictures located by frame headers (in place, or decoded
/// when unsynchronised), and TXXX frames as MPD's readcomments lists them.
@Suite struct ID3TagTests {
    static func syncsafe(_ n: Int) -> [UInt8] { [21, 14, 7, 0].map { UInt8((n >> $0) & 0x7F) } }

    /// A tag of (id, flags, body) frames and 16 bytes of padding, then `audio`.
    static func file(version: UInt8, tagFlags: UInt8 = 0, _ frames: [(String, UInt16, [UInt8])], audio: [UInt8] = [])
        -> [UInt8]
    {
        var data: [UInt8] = []
        for (id, flags, body) in frames {
            let size = version == 4 ? syncsafe(body.count) : [24, 16, 8, 0].map { UInt8((body.count >> $0) & 0xFF) }
            data += Array(id.utf8) + size + [UInt8(flags >> 8), UInt8(flags & 0xFF)] + body
        }
        data += [UInt8](repeating: 0, count: 16)
        return Array("ID3".utf8) + [version, 0, tagFlags] + syncsafe(data.count) + data + audio
    }

    static func apic(mime: String, description: [UInt8], encoding: UInt8 = 0, image: [UInt8]) -> [UInt8] {
        [encoding] + Array(mime.utf8) + [0, 3] + description + image
    }

    static func reader(_ bytes: [UInt8]) -> (Int64, Int) -> [UInt8] {
        { offset, count in
            let start = min(Int(offset), bytes.count)
            return Array(bytes[start..<min(start + count, bytes.count)])
        }
    }

    static let image: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<9000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    @Test func aPictureIsFoundInPlaceWithoutReadingIt() throws {
        let bytes = Self.file(
            version: 4,
            [
                ("TIT2", 0, [3] + Array("Song".utf8)),
                ("APIC", 0, Self.apic(mime: "-->", description: [0], image: Array("http://x".utf8))),
                (
                    "APIC", 0,
                    Self.apic(
                        mime: "image/jpeg", description: [0xFF, 0xFE, 0x41, 0, 0, 0], encoding: 1, image: Self.image)
                ),
            ], audio: [0xFF, 0xFB, 0x90, 0x00])
        var largest = 0
        let read: (Int64, Int) -> [UInt8] = { offset, count in
            largest = max(largest, count)
            return Self.reader(bytes)(offset, count)
        }
        let tag = try #require(ID3Tag.read(read))
        #expect(tag.frames.map(\.id) == ["TIT2", "APIC", "APIC"])
        let picture = try #require(tag.firstPicture(read))
        #expect(picture.mimeType == "image/jpeg")
        #expect(picture.size == Self.image.count)
        guard case .inFile(let offset, let size) = picture.location else {
            Issue.record("not in place: \(picture.location)")
            return
        }
        #expect(Array(bytes[Int(offset)..<Int(offset) + size]) == Self.image)
        #expect(largest <= 4096, "read \(largest) bytes at once")
    }

    @Test func unsynchronisedPicturesAreDecoded() throws {
        func unsynchronising(_ bytes: [UInt8]) -> [UInt8] {
            var result: [UInt8] = []
            for (index, byte) in bytes.enumerated() {
                result.append(byte)
                if byte == 0xFF, index + 1 == bytes.count || bytes[index + 1] == 0 || bytes[index + 1] >= 0xE0 {
                    result.append(0)
                }
            }
            return result
        }
        let body = Self.apic(mime: "image/jpeg", description: [0], image: Self.image)
        let unsynchronised = unsynchronising(body)
        #expect(unsynchronised.count > body.count)
        #expect(ID3Tag.resynchronised(unsynchronised) == body)
        // v2.4: the frame's own flag.
        let frame = Self.file(version: 4, [("APIC", 0x0002, unsynchronised)])
        let tag = try #require(ID3Tag.read(Self.reader(frame)))
        #expect(tag.firstPicture(Self.reader(frame))?.location == .decoded(Self.image))
        // v2.3: the whole tag after its header, frame headers included (frame sizes are the
        // decoded ones).
        let plain = Self.file(version: 3, [("APIC", 0, body)])
        let rest = unsynchronising(Array(plain.dropFirst(10)))
        let whole = Array("ID3".utf8) + [3, 0, 0x80] + Self.syncsafe(rest.count) + rest
        #expect(ID3Tag.wholeTagUnsynchronisedSize(Array(whole.prefix(10))) != nil)
        let decoded = Array(whole.prefix(10)) + ID3Tag.resynchronised(Array(whole.dropFirst(10)))
        let wholeTag = try #require(ID3Tag.read(Self.reader(decoded)))
        #expect(wholeTag.firstPicture(Self.reader(decoded))?.mimeType == "image/jpeg")
        #expect(wholeTag.firstPicture(Self.reader(decoded))?.size == Self.image.count)
    }

    @Test func compressedOrMissingPicturesAreNone() {
        let compressed = Self.file(
            version: 3, [("APIC", 0x0080, [0, 0, 0, 9] + Self.apic(mime: "image/png", description: [0], image: [1]))])
        #expect(ID3Tag.read(Self.reader(compressed))?.firstPicture(Self.reader(compressed)) == nil)
        let empty = Self.file(version: 4, [("APIC", 0, Self.apic(mime: "image/png", description: [0], image: []))])
        #expect(ID3Tag.read(Self.reader(empty))?.firstPicture(Self.reader(empty)) == nil)
        #expect(ID3Tag.read(Self.reader([0xFF, 0xFB, 0x90, 0, 0, 0, 0, 0, 0, 0])) == nil)
    }

    /// TXXX: a name of letters, `_` and `-` (starting with a letter), and the first value.
    @Test func userTextsAsReadcomments() throws {
        func txxx(_ encoding: UInt8, _ name: String, _ value: String) -> (String, UInt16, [UInt8]) {
            ("TXXX", 0, [encoding] + Array(name.utf8) + [0] + Array(value.utf8))
        }
        let bytes = Self.file(
            version: 4,
            [
                txxx(3, "CATALOGNUMBER", "JB-0001"), txxx(3, "MusicBrainz Album Id", "x"), txxx(3, "_x", "y"),
                txxx(3, "REPLAYGAIN_TRACK_GAIN", "-6.5 dB"), txxx(3, "Bad", "line\nbreak"),
                ("TXXX", 0, [1, 0xFF, 0xFE, 0x4D, 0, 0x4F, 0, 0, 0, 0xFF, 0xFE, 0xE9, 0]),
            ])
        let tag = try #require(ID3Tag.read(Self.reader(bytes)))
        let texts = tag.userTexts(Self.reader(bytes))
        #expect(texts.map(\.name) == ["CATALOGNUMBER", "REPLAYGAIN_TRACK_GAIN", "MO"])
        #expect(texts.map(\.value) == ["JB-0001", "-6.5 dB", "é"])
    }
}
