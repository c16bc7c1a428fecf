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
