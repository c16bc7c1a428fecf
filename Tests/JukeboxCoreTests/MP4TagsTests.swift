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

    static func firstPicture(_ bytes: [UInt8]) -> EmbeddedPicture? {
        MP4CoverAtoms.firstPicture(ID3TagTests.reader(bytes), fileSize: Int64(bytes.count))
    }

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
        let picture = try #require(MP4CoverAtoms.firstPicture(read, fileSize: Int64(bytes.count)))
        #expect(picture.mimeType == "image/jpeg")
        guard case .inFile(let offset, let size) = picture.location else {
            Issue.record("not in place: \(picture.location)")
            return
        }
        #expect(Array(bytes[Int(offset)..<Int(offset) + size]) == Self.jpeg)
        #expect(largest <= 8, "read \(largest) bytes at once")

        let png = Self.file([Self.data(type: 13, Self.png)], quickTimeMeta: true)
        #expect(Self.firstPicture(png)?.mimeType == "image/png")
        let bmp = Self.file([Self.data(type: 27, Self.png)])
        #expect(Self.firstPicture(bmp)?.mimeType == "image/x-ms-bmp")
    }

    @Test func noCoverOrNoMP4IsNone() {
        #expect(Self.firstPicture(Self.file([])) == nil)
        #expect(Self.firstPicture(Self.file([Self.data(type: 1, Self.jpeg)])) == nil)
        #expect(Self.firstPicture(Array("fLaC".utf8) + Self.jpeg) == nil)
        // A cover cut short by the end of the file (a partial copy) is none.
        var cut = Self.file([Self.data(type: 13, Self.jpeg)])
        cut.removeLast(100)
        #expect(Self.firstPicture(cut) == nil)
    }
}

@Suite struct MP4LyricsAtomTests {
    typealias Atoms = MP4CoverAtomsTests
    static let lyr: [UInt8] = [0xA9] + Array("lyr".utf8)
    static let lrc = "[00:01.00]一行目\n[00:02.50]second"

    static func item(_ type: [UInt8], _ body: [UInt8]) -> [UInt8] {
        Array(Atoms.atom("xxxx", body).prefix(4)) + type + body
    }

    static func freeform(_ name: String, _ value: String) -> [UInt8] {
        Atoms.atom(
            "----",
            Atoms.atom("mean", [0, 0, 0, 0] + Array("com.apple.iTunes".utf8))
                + Atoms.atom("name", [0, 0, 0, 0] + Array(name.utf8)) + Atoms.data(type: 1, Array(value.utf8)))
    }

    /// ftyp, mdat, then moov/udta/meta/ilst holding a title and `items`.
    static func file(_ items: [UInt8], metaExtra: [UInt8] = []) -> [UInt8] {
        let ilst = Atoms.atom("ilst", item([0xA9] + Array("nam".utf8), Atoms.data(type: 1, Array("x".utf8))) + items)
        let meta = Atoms.atom("meta", [0, 0, 0, 0] + Atoms.hdlr + metaExtra + ilst)
        return Atoms.atom("ftyp", Array("M4A \0\0\0\0".utf8)) + Atoms.atom("mdat", [1, 2, 3, 4])
            + Atoms.atom("moov", Atoms.atom("mvhd", [UInt8](repeating: 0, count: 100)) + Atoms.atom("udta", meta))
    }

    static func lyrics(_ bytes: [UInt8]) -> MP4LyricsAtom.Found? {
        MP4LyricsAtom.read(ID3TagTests.reader(bytes), fileSize: Int64(bytes.count))
    }

    @Test func utf8LyricsAreReadUpToTheirFirstNUL() {
        let synced = Self.file(Self.item(Self.lyr, Atoms.data(type: 1, Array(Self.lrc.utf8))))
        #expect(Self.lyrics(synced) == .text(Self.lrc))
        let withNUL = Self.file(Self.item(Self.lyr, Atoms.data(type: 1, Array("one\0two".utf8))))
        #expect(Self.lyrics(withNUL) == .text("one"))
        // A freeform atom of another name (MusicBrainz) does not hide them.
        let tagged = Self.file(
            Self.freeform("MusicBrainz Track Id", "1b2c") + Self.item(Self.lyr, Atoms.data(type: 1, Array("la".utf8))))
        #expect(Self.lyrics(tagged) == .text("la"))
    }

    @Test func noLyricsAtomIsNone() {
        #expect(Self.lyrics(Self.file([])) == MP4LyricsAtom.Found.none)
        #expect(Self.lyrics(Self.file(Self.item(Self.lyr, Atoms.data(type: 1, [])))) == MP4LyricsAtom.Found.none)
    }

    /// Where FFmpeg's reading could differ (other encodings, a second `©lyr`, a freeform
    /// "lyrics", no MP4 file), or the atoms are damaged, the answer is left to FFmpeg.
    @Test func undecidedOrDamagedIsLeftToFFmpeg() {
        let lyr = Self.item(Self.lyr, Atoms.data(type: 1, Array(Self.lrc.utf8)))
        for type: UInt8 in [0, 2, 3] {
            #expect(Self.lyrics(Self.file(Self.item(Self.lyr, Atoms.data(type: type, Array("la".utf8))))) == nil)
        }
        #expect(Self.lyrics(Self.file(lyr + lyr)) == nil)
        #expect(Self.lyrics(Self.file(Self.freeform("LYRICS", "la"))) == nil)
        #expect(Self.lyrics(Self.file(lyr, metaExtra: Atoms.atom("ID32", [0, 0, 0, 0]))) == nil)
        #expect(Self.lyrics(Array("fLaC".utf8) + Array(Self.lrc.utf8)) == nil)

        let whole = Self.file(lyr)
        // Cut anywhere, or with a garbled size inside the ilst: nil or the whole text, never a crash.
        for length in 0..<whole.count {
            let found = Self.lyrics(Array(whole.prefix(length)))
            #expect(found == nil || found == MP4LyricsAtom.Found.none, "cut at \(length): \(String(describing: found))")
        }
        let ilst = whole.count - lyr.count - 25  // the ©nam item, first in the ilst
        // Size 0 runs to the ilst's end, as FFmpeg reads it too (no ©lyr then); a 64-bit size
        // of garbage, a size below a header's or past the ilst's end is damage.
        let expected: [(UInt8, MP4LyricsAtom.Found?)] = [
            (0, MP4LyricsAtom.Found.none), (1, nil), (7, nil), (0xFF, nil),
        ]
        for (byte, answer) in expected {
            var garbled = whole
            garbled[ilst + 3] = byte
            #expect(Self.lyrics(garbled) == answer, "size byte \(byte)")
        }
    }
}
