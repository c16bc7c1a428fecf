import JukeboxCore
import Testing

@Suite struct TrackTagsTests {
    @Test func genreNumbersBecomeNames() {
        #expect(ID3TagMapping.genres.count == 148)
        #expect(ID3TagMapping.genreName("17") == "Rock")
        #expect(ID3TagMapping.genreName("(17)") == "Rock")
        #expect(ID3TagMapping.genreName("(0)") == "Blues")
        #expect(ID3TagMapping.genreName("(147)") == "Synthpop")
        #expect(ID3TagMapping.genreName("(17)Heavy") == "Heavy")
        #expect(ID3TagMapping.genreName("(999)") == "(999)")
        #expect(ID3TagMapping.genreName("Rock 17") == "Rock 17")
    }

    @Test func framesMapAsMPDsScanner() {
        let tags = ID3TagMapping.tags([
            ("TXXX", "MusicBrainz Album Id", "album-id"), ("UFID", "http://musicbrainz.org", "track-id"),
            ("UFID", "http://example.org", "other"), ("TXXX", "Mood", "calm"), ("TPOS", "", "02/3"),
            ("TYER", "", "1987"), ("TDAT", "", "2412"), ("TCON", "", "Rock\0(8)"), ("TPE3", "", "Conductor"),
            ("TPE4", "", "Remixer"), ("TP2", "", "Band"), ("TORY", "", "1980"), ("TALB", "", "ignored here"),
        ])
        #expect(
            tags == [
                TrackTag(.albumArtist, "Band"), TrackTag(.date, "1987-12-24"), TrackTag(.originalDate, "1980"),
                TrackTag(.genre, "Rock"), TrackTag(.genre, "Jazz"), TrackTag(.conductor, "Conductor"),
                TrackTag(.performer, "Remixer"), TrackTag(.disc, "2"), TrackTag(.musicBrainzAlbumID, "album-id"),
                TrackTag(.musicBrainzTrackID, "track-id"),
            ])
    }
}

@Suite struct VorbisCommentMappingTests {
    @Test func namesAreCaseInsensitiveAndValuesKeepTheFilesOrder() {
        let mapped = VorbisCommentMapping.map([
            ("title", " Tïtle "), ("TITLE", "second title"), ("Artist", "日本"), ("ALBUM", "A"),
            ("TRACKNUMBER", "03/12"), ("genre", "Rock"), ("DISCNUMBER", "02/3"), ("GENRE", "Pop"),
            ("AlbumArtist", "Various"), ("COMMENT", "not shown by MPD 0.23"), ("DESCRIPTION", "nor this"),
            ("musicbrainz_albumid", "22"), ("EMPTY", ""), ("DATE", ""), ("UNSYNCEDLYRICS", "plain"),
            ("LYRICS", "[00:01.00]timed"),
        ])
        #expect(mapped.title == "Tïtle" && mapped.artist == "日本" && mapped.album == "A")
        #expect(mapped.trackNumber == 3)
        #expect(
            mapped.tags == [
                TrackTag(.genre, "Rock"), TrackTag(.disc, "2"), TrackTag(.genre, "Pop"),
                TrackTag(.albumArtist, "Various"),
                TrackTag(.musicBrainzAlbumID, "22"),
            ])
        #expect(mapped.lyrics == "[00:01.00]timed")
        #expect(VorbisCommentMapping.map([("UNSYNCEDLYRICS", "plain")]).lyrics == "plain")
    }

    @Test func embeddedLyricsAreSyncedWhenTheTextIsLRC() {
        #expect(Lyrics.embedded("[00:01.00]one\n[00:02.50]two")?.lines.map(\.timeMs) == [1000, 2500])
        #expect(Lyrics.embedded("[00:01.00]one")?.format == .lrc)
        #expect(Lyrics.embedded("just words\nmore")?.format == .unsynced)
        #expect(Lyrics.embedded(" \n ") == nil)
    }
}
