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
