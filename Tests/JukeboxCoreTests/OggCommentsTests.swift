import Foundation
import JukeboxCore
import Testing

/// The picture of an Ogg Vorbis or Opus file (`OggComments`): the comment header put
/// together from its pages, its METADATA_BLOCK_PICTURE entry decoded, hostile sizes refused.
@Suite struct OggCommentsTests {
    /// Ogg pages of `packets` (the first stream's, serial 1), at most `perPage` lacing values a
    /// page; `foreign` puts a page of another stream after the first.
    static func ogg(_ packets: [[UInt8]], perPage: Int = 255, foreign: Bool = false) -> [UInt8] {
        var lacing: [(value: UInt8, bytes: ArraySlice<UInt8>)] = []
        for packet in packets {
            var at = 0
            repeat {
                let length = min(255, packet.count - at)
                lacing.append((UInt8(length), packet[at..<at + length]))
                at += length
                if length < 255 { break }
            } while true
        }
        var file: [UInt8] = []
        var sequence: UInt8 = 0
        func page(serial: UInt8, _ segments: ArraySlice<(value: UInt8, bytes: ArraySlice<UInt8>)>) {
            file += Array("OggS".utf8) + [0, sequence == 0 ? 2 : 0] + [UInt8](repeating: 0, count: 8)
            file += [serial, 0, 0, 0, sequence, 0, 0, 0, 0, 0, 0, 0, UInt8(segments.count)]
            file += segments.map(\.value)
            for segment in segments { file += segment.bytes }
            sequence &+= 1
        }
        var start = 0
        while start < lacing.count {
            page(serial: 1, lacing[start..<min(start + perPage, lacing.count)])
            if foreign && start == 0 { page(serial: 9, [(3, [7, 7, 7])]) }
            start += perPage
        }
        return file
    }

    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func be32(_ value: Int) -> [UInt8] {
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// A FLAC PICTURE block of `image`.
    static func pictureBlock(_ image: [UInt8], mime: String = "image/png", dataLength: Int? = nil) -> [UInt8] {
        be32(3) + be32(mime.utf8.count) + Array(mime.utf8) + be32(5) + Array("Front".utf8)
            + [UInt8](repeating: 0, count: 16) + be32(dataLength ?? image.count) + image
    }

    /// A comment header (`prefix`: Vorbis's or Opus's) of `entries`, `count` claimed.
    static func comments(_ entries: [String], prefix: [UInt8] = [3] + Array("vorbis".utf8), count: Int? = nil)
        -> [UInt8]
    {
        var header = prefix + le32(6) + Array("Xiph.O".utf8) + le32(count ?? entries.count)
        for entry in entries { header += le32(entry.utf8.count) + Array(entry.utf8) }
        return header + (prefix.first == 3 ? [1] : [])
    }

    static func entry(_ block: [UInt8], name: String = "METADATA_BLOCK_PICTURE") -> String {
        "\(name)=\(Data(block).base64EncodedString())"
    }

    static let image: [UInt8] = [0x89, 0x50, 0x4E, 0x47] + (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    static let identification: [UInt8] = [1] + Array("vorbis".utf8) + [UInt8](repeating: 0, count: 23)

    static func picture(_ file: [UInt8]) -> EmbeddedPicture? {
        OggComments.firstPicture(ID3TagTests.reader(file))
    }

    @Test func aCoverOverManyPagesIsPutTogetherAndDecoded() throws {
        let header = Self.comments(["TITLE=Bilder", Self.entry(Self.pictureBlock(Self.image)), "ARTIST=Ogg"])
        // 133 KiB of base64 over pages of 16 lacing values (4 KiB): 33 pages, one of another stream.
        let file = Self.ogg([Self.identification, header, [5, 5, 5]], perPage: 16, foreign: true)
        let picture = try #require(Self.picture(file))
        #expect(picture.mimeType == "image/png")
        #expect(picture.location == .decoded(Self.image))
        let comments = OggComments.comments(ID3TagTests.reader(file))
        #expect(comments.map(\.name) == ["TITLE", "METADATA_BLOCK_PICTURE", "ARTIST"])
        #expect(comments.first?.value == "Bilder" && comments.last?.value == "Ogg")
    }

    @Test func opusTagsAndAnyCaseOfTheName() throws {
        let opusHead = Array("OpusHead".utf8) + [1, 2, 0, 0, 0x80, 0xBB, 0, 0, 0, 0, 0]
        let header = Self.comments(
            [Self.entry(Self.pictureBlock([1, 2, 3], mime: "image/jpeg"), name: "metadata_block_picture")],
            prefix: Array("OpusTags".utf8))
        let picture = try #require(Self.picture(Self.ogg([opusHead, header])))
        #expect(picture == EmbeddedPicture(mimeType: "image/jpeg", location: .decoded([1, 2, 3])))
    }

    @Test func noPictureOrNoOgg() {
        #expect(Self.picture(Self.ogg([Self.identification, Self.comments(["TITLE=x"])])) == nil)
        #expect(Self.picture(Array("fLaC".utf8) + [UInt8](repeating: 0, count: 64)) == nil)
        #expect(Self.picture([]) == nil)
        // Not a picture block: a Vorbis entry of another name that ends the same.
        #expect(Self.picture(Self.ogg([Self.identification, Self.comments(["X_METADATA_BLOCK_PICTURE=AAAA"])])) == nil)
    }

    /// Sizes and counts that claim more than there is give no picture and read nothing past
    /// the file; a comment count of 4 billion does not loop.
    @Test func hostileSizesGiveNoPicture() {
        let block = Self.pictureBlock([1, 2, 3])
        var hostile: [[UInt8]] = [
            Self.comments([Self.entry(block)], count: 0xFFFF_FFFF).dropLast(1) + [],
            Self.comments(["TITLE=x"], count: 0xFFFF_FFFF),
            Self.comments(["METADATA_BLOCK_PICTURE=%%%%"]),
            Self.comments(["METADATA_BLOCK_PICTURE=AAA"]),
            Self.comments([Self.entry(Self.pictureBlock([1, 2, 3], dataLength: 0x7FFF_FFFF))]),
            Self.comments([Self.entry(Array(block.prefix(9)))]),
        ]
        var vendorPastTheEnd = Self.comments([])
        vendorPastTheEnd.replaceSubrange(7..<11, with: Self.le32(0x7FFF_FFF0))
        hostile.append(vendorPastTheEnd)
        var entryPastTheEnd = Self.comments([Self.entry(block)])
        entryPastTheEnd.replaceSubrange(21..<25, with: Self.le32(0x7FFF_FFF0))
        hostile.append(entryPastTheEnd)
        for (index, header) in hostile.enumerated() {
            let file = Self.ogg([Self.identification, header])
            if index == 0 {
                // The first has its picture before the claimed count runs out: found.
                #expect(Self.picture(file) != nil)
            } else {
                #expect(Self.picture(file) == nil, "case \(index)")
            }
        }
        // A page claiming segments past the end of the file; a comment header cut off.
        let whole = Self.ogg([Self.identification, Self.comments([Self.entry(block)])])
        #expect(Self.picture(Array(whole.prefix(whole.count - 5))) == nil)
        var claimed = whole
        claimed[26] = 255
        #expect(Self.picture(claimed) == nil)
    }

    /// Thousands of pages of 255-byte segments that never end the packet: the walk stops at
    /// its page limit, without putting together more than it allows.
    @Test func aCommentHeaderThatNeverEndsIsNotFollowed() {
        let endless = Self.ogg([Self.identification, [UInt8](repeating: 65, count: 255 * 20_000) + [65]], perPage: 2)
        var reads = 0
        let read = ID3TagTests.reader(endless)
        #expect(
            OggComments.firstPicture({
                reads += 1; return read($0, $1)
            }) == nil)
        #expect(reads < 3 * 8192 + 10)
    }

    @Test(arguments: [
        ("", [UInt8]()), ("Zg==", Array("f".utf8)), ("Zm8=", Array("fo".utf8)), ("Zm9v", Array("foo".utf8)),
        ("Zg", Array("f".utf8)), ("Zm9vYmFy", Array("foobar".utf8)), ("+/+/", [0xFB, 0xFF, 0xBF]),
    ])
    func base64(text: String, bytes: [UInt8]) {
        #expect(Base64.decode(Array(text.utf8)) == bytes)
    }

    @Test func base64Refuses() {
        for text in ["Z", "Zm9v!", "Zg==Zg==", "Zm9vY", "Z===", " Zg=="] {
            #expect(Base64.decode(Array(text.utf8)) == nil, "\(text)")
        }
    }
}
