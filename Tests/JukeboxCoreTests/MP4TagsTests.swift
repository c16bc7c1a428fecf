import JukeboxCore
import Testing

@Suite struct MP4TagsTests {
    /// FFmpeg's names for the atoms become the Vorbis comments of the same tags, in order;
    /// the rest (encoder, brands, sort names) is left out; through VorbisCommentMapping the
    /// track and disc numbers keep their number, the MusicBrainz atoms become MPD's tags.
    @Test func atomsMapAsMPDMapsThem() {
        let tags: [(key: String, value: String)] = [
            ("major_brand", "M4A "), ("title", "夜に駆ける"), ("artist", "Beyoncé"), ("album_artist", "Various"),
            ("album", "Ålbum"), ("track", "3/12"), ("disc", "2/3"), ("date", "2019-12-15"), ("genre", "J-Pop"),
            ("composer", "Ayase"), ("encoder", "Lavf59.27.100"), ("sort_artist", "Beyonce"),
            ("MusicBrainz Track Id", "t-id"), ("MusicBrainz Album Id", "a-id"), ("lyrics", "[00:01.00]一行目"),
        ]
        let comments = MP4TagMapping.vorbisComments(tags)
        #expect(
            comments.map(\.key) == [
                "TITLE", "ARTIST", "ALBUMARTIST", "ALBUM", "TRACKNUMBER", "DISCNUMBER", "DATE", "GENRE", "COMPOSER",
                "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_ALBUMID", "LYRICS",
            ])
        let mapped = VorbisCommentMapping.map(comments)
        #expect(mapped.title == "夜に駆ける" && mapped.artist == "Beyoncé" && mapped.album == "Ålbum")
        #expect(mapped.trackNumber == 3)
        #expect(mapped.lyrics == "[00:01.00]一行目")
        #expect(
            mapped.tags == [
                TrackTag(.albumArtist, "Various"), TrackTag(.disc, "2"), TrackTag(.date, "2019-12-15"),
                TrackTag(.genre, "J-Pop"), TrackTag(.composer, "Ayase"), TrackTag(.musicBrainzTrackID, "t-id"),
                TrackTag(.musicBrainzAlbumID, "a-id"),
            ])
    }
}

@Suite struct MP4CoverAtomsTests {
    static func atom(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + body.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array(type.utf8) + body
    }

    static func data(type: UInt8, _ image: [UInt8]) -> [UInt8] { atom("data", [0, 0, 0, type, 0, 0, 0, 0] + image) }

    static let hdlr = atom(
        "hdlr", [UInt8](repeating: 0, count: 8) + Array("mdirappl".utf8) + [UInt8](repeating: 0, count: 9))
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<3000).map { UInt8($0 % 251) }
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]

    /// ftyp, an mdat with a 64-bit size, then moov/udta/meta/ilst holding `covers` data atoms.
    static func file(_ covers: [[UInt8]], quickTimeMeta: Bool = false) -> [UInt8] {
        let largeMdat: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8) + [0, 0, 0, 0, 0, 0, 0, 20] + [1, 2, 3, 4]
        let ilst = atom("ilst", atom("aART", data(type: 1, Array("x".utf8))) + atom("covr", covers.flatMap { $0 }))
        let meta = atom("meta", (quickTimeMeta ? [] : [0, 0, 0, 0]) + hdlr + ilst)
        return atom("ftyp", Array("M4A \0\0\0\0".utf8)) + largeMdat
            + atom("moov", atom("mvhd", [UInt8](repeating: 0, count: 100)) + atom("udta", meta))
    }

    /// In place (the reads stay small), the type FFmpeg gives: unknown types skipped, a
    /// JPEG-typed PNG is PNG, BMP is `image/x-ms-bmp`.
    @Test func theFirstPictureAsFFmpegTypesIt() throws {
        let bytes = Self.file([
            Self.data(type: 0, Self.png), Self.data(type: 14, Self.jpeg), Self.data(type: 13, Self.png),
        ])
        var largest = 0
        let read: (Int64, Int) -> [UInt8] = { offset, count in
            largest = max(largest, count)
            return ID3TagTests.reader(bytes)(offset, count)
        }
        let picture = try #require(MP4CoverAtoms.firstPicture(read))
        #expect(picture.mimeType == "image/jpeg")
        guard case .inFile(let offset, let size) = picture.location else {
            Issue.record("not in place: \(picture.location)")
            return
        }
        #expect(Array(bytes[Int(offset)..<Int(offset) + size]) == Self.jpeg)
        #expect(largest <= 8, "read \(largest) bytes at once")

        let png = Self.file([Self.data(type: 13, Self.png)], quickTimeMeta: true)
        #expect(MP4CoverAtoms.firstPicture(ID3TagTests.reader(png))?.mimeType == "image/png")
        let bmp = Self.file([Self.data(type: 27, Self.png)])
        #expect(MP4CoverAtoms.firstPicture(ID3TagTests.reader(bmp))?.mimeType == "image/x-ms-bmp")
    }

    @Test func noCoverOrNoMP4IsNone() {
        #expect(MP4CoverAtoms.firstPicture(ID3TagTests.reader(Self.file([]))) == nil)
        #expect(MP4CoverAtoms.firstPicture(ID3TagTests.reader(Self.file([Self.data(type: 1, Self.jpeg)]))) == nil)
        #expect(MP4CoverAtoms.firstPicture(ID3TagTests.reader(Array("fLaC".utf8) + Self.jpeg)) == nil)
        // A cover cut short by the end of the file (a partial copy) is none.
        var cut = Self.file([Self.data(type: 13, Self.jpeg)])
        cut.removeLast(100)
        #expect(MP4CoverAtoms.firstPicture(ID3TagTests.reader(cut)) == nil)
    }
}
