/// Maps the tags FFmpeg reads from MP4 atoms (under its names: `©nam` is "title", `aART`
/// "album_artist", `trkn` "track" as "3/12", `disk` "disc", `©day` "date", `©gen` or `gnre`
/// "genre", `©wrt` "composer", `©lyr` "lyrics", `©cmt` "comment", and iTunes freeform atoms
/// under their names, such as "MusicBrainz Track Id") as MPD 0.23 maps them through FFmpeg:
/// by MPD's tag names, so each is renamed to the Vorbis comment that carries the same tag and
/// `VorbisCommentMapping` does the rest (track and disc numbers, lyrics). MPD matches
/// "MusicBrainz Track Id" to nothing (the name differs from its MUSICBRAINZ_TRACKID); here the
/// MusicBrainz atoms Picard writes are mapped as their ID3 TXXX twins are. Other atoms
/// (encoder, sort names, iTunes flags) are left out.
public enum MP4TagMapping {
    /// `tags` under their Vorbis comment names, in the same order.
    public static func vorbisComments(_ tags: [(key: String, value: String)]) -> [(key: String, value: String)] {
        tags.compactMap { tag in vorbisNames[tag.key].map { ($0, tag.value) } }
    }

    /// FFmpeg's names for the MP4 atoms that carry a tag, and the Vorbis comment name of that tag.
    static let vorbisNames: [String: String] = [
        "title": "TITLE", "artist": "ARTIST", "album": "ALBUM", "album_artist": "ALBUMARTIST", "track": "TRACKNUMBER",
        "disc": "DISCNUMBER", "date": "DATE", "genre": "GENRE", "composer": "COMPOSER", "comment": "COMMENT",
        "lyrics": "LYRICS", "MusicBrainz Artist Id": "MUSICBRAINZ_ARTISTID",
        "MusicBrainz Album Id": "MUSICBRAINZ_ALBUMID", "MusicBrainz Album Artist Id": "MUSICBRAINZ_ALBUMARTISTID",
        "MusicBrainz Track Id": "MUSICBRAINZ_TRACKID", "MusicBrainz Release Track Id": "MUSICBRAINZ_RELEASETRACKID",
    ]
}
