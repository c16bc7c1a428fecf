/// The tags beyond title, artist, album and track number that MPD clients show and search,
/// under MPD's names, in the order of MPD's `tagtypes`.
public enum TagName: String, CaseIterable, Sendable, Hashable {
    case albumArtist = "AlbumArtist"
    case genre = "Genre"
    case date = "Date"
    case originalDate = "OriginalDate"
    case composer = "Composer"
    case performer = "Performer"
    case conductor = "Conductor"
    case comment = "Comment"
    case disc = "Disc"
    case musicBrainzArtistID = "MUSICBRAINZ_ARTISTID"
    case musicBrainzAlbumID = "MUSICBRAINZ_ALBUMID"
    case musicBrainzAlbumArtistID = "MUSICBRAINZ_ALBUMARTISTID"
    case musicBrainzTrackID = "MUSICBRAINZ_TRACKID"
    case musicBrainzReleaseTrackID = "MUSICBRAINZ_RELEASETRACKID"
}

/// One value of one tag; a tag may occur several times (two genres, two performers).
public struct TrackTag: Sendable, Hashable {
    public var name: TagName
    public var value: String

    public init(_ name: TagName, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Maps ID3 text frames to tags as MPD 0.23's ID3 scanner does: `TPE2` AlbumArtist, `TCON`
/// Genre (ID3v1 genre numbers, `(17)` or `17`, become names), `TDRC`, `TYER` (+ `TDAT`) Date,
/// `TDOR`/`TORY` OriginalDate, `TCOM` Composer, `TPE3` Conductor, `TPE4` Performer, `COMM`
/// Comment, `TPOS` Disc (its number only, as MPD keeps it), the MusicBrainz `TXXX` frames and
/// the musicbrainz.org `UFID`. ID3v2.2's three-letter ids are accepted too.
public enum ID3TagMapping {
    /// A frame as the reader gives it: id, description (COMM, TXXX, UFID owner) and text.
    public typealias Frame = (id: String, description: String, text: String)

    /// The tags of `frames` in MPD's order: by tag as its scanner reads them, the
    /// MusicBrainz `TXXX` ids in file order, then the `UFID` one.
    public static func tags(_ frames: [Frame]) -> [TrackTag] {
        var found: [TagName: [String]] = [:]
        var musicBrainzIDs: [TrackTag] = []
        var trackIDs: [TrackTag] = []
        func add(_ name: TagName, _ text: String) {
            for value in values(text) { found[name, default: []].append(value) }
        }
        let dates = frames.filter { ["TDAT", "TDA"].contains($0.id) }.map(\.text)
        for frame in frames {
            switch frame.id {
            case "TPE2", "TP2": add(.albumArtist, frame.text)
            case "TCON", "TCO":
                for value in values(frame.text) { found[.genre, default: []].append(genreName(value)) }
            case "TDRC": add(.date, frame.text)
            case "TYER", "TYE":
                // ID3v2.3 splits the date: TYER holds the year, TDAT the day as DDMM.
                let year = frame.text.trimmedSpaces
                if let day = dates.first?.trimmedSpaces, day.count == 4, day.allSatisfy(\.isNumber), year.count == 4 {
                    let dd = day.prefix(2)
                    let mm = day.suffix(2)
                    add(.date, "\(year)-\(mm)-\(dd)")
                } else {
                    add(.date, year)
                }
            case "TDOR", "TORY", "TOR": add(.originalDate, frame.text)
            case "TCOM", "TCM": add(.composer, frame.text)
            case "TPE3", "TP3": add(.conductor, frame.text)
            case "TPE4", "TP4": add(.performer, frame.text)
            case "COMM", "COM": add(.comment, frame.text)
            case "TPOS", "TPA":
                for value in values(frame.text) {
                    let number = value.drop { $0 == "0" }.prefix { $0.isASCII && $0.isNumber }
                    if !number.isEmpty { found[.disc, default: []].append(String(number)) }
                }
            case "TXXX", "TXX":
                if let name = musicBrainz[frame.description] {
                    musicBrainzIDs += values(frame.text).map { TrackTag(name, $0) }
                }
            case "UFID", "UFI":
                if frame.description == "http://musicbrainz.org" {
                    trackIDs += values(frame.text).map { TrackTag(.musicBrainzTrackID, $0) }
                }
            default: break
            }
        }
        return scanOrder.flatMap { name in (found[name] ?? []).map { TrackTag(name, $0) } } + musicBrainzIDs
            + trackIDs
    }

    /// The order in which MPD's ID3 scanner reads the tags (and so lists them in a song).
    static let scanOrder: [TagName] = [
        .albumArtist, .date, .originalDate, .genre, .composer, .conductor, .performer, .comment, .disc,
    ]

    /// The non-empty, trimmed strings of a frame (ID3v2.4 separates several with NUL).
    static func values(_ text: String) -> [String] {
        text.split(separator: "\0").map(\.trimmedSpaces).filter { !$0.isEmpty }
    }

    static let musicBrainz: [String: TagName] = [
        "MusicBrainz Artist Id": .musicBrainzArtistID,
        "MusicBrainz Album Id": .musicBrainzAlbumID,
        "MusicBrainz Album Artist Id": .musicBrainzAlbumArtistID,
        "MusicBrainz Track Id": .musicBrainzTrackID,
        "MusicBrainz Release Track Id": .musicBrainzReleaseTrackID,
    ]

    /// `17`, `(17)` → `Rock`; `(17)Heavy` → `Heavy` (the refinement); other text as it is.
    public static func genreName(_ text: String) -> String {
        var rest = Substring(text)
        var number: Int?
        if rest.hasPrefix("("), let close = rest.firstIndex(of: ")") {
            let inside = rest[rest.index(after: rest.startIndex)..<close]
            if !inside.isEmpty, inside.allSatisfy(\.isASCII), let n = Int(inside) {
                number = n
                rest = rest[rest.index(after: close)...]
            }
        } else if !rest.isEmpty, rest.allSatisfy({ $0.isASCII && $0.isNumber }) {
            number = Int(rest)
            rest = ""
        }
        if !rest.isEmpty { return String(rest) }
        if let number, number >= 0, number < genres.count { return genres[number] }
        return text
    }

    /// The ID3v1 genres with Winamp's extensions, by number.
    public static let genres: [String] = [
        "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz", "Metal",
        "New Age", "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno", "Industrial",
        "Alternative", "Ska", "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop",
        "Vocal", "Jazz+Funk", "Fusion", "Trance", "Classical", "Instrumental", "Acid", "House", "Game",
        "Sound Clip", "Gospel", "Noise", "AlternRock", "Bass", "Soul", "Punk", "Space", "Meditative",
        "Instrumental Pop", "Instrumental Rock", "Ethnic", "Gothic", "Darkwave", "Techno-Industrial",
        "Electronic", "Pop-Folk", "Eurodance", "Dream", "Southern Rock", "Comedy", "Cult", "Gangsta", "Top 40",
        "Christian Rap", "Pop/Funk", "Jungle", "Native American", "Cabaret", "New Wave", "Psychedelic", "Rave",
        "Showtunes", "Trailer", "Lo-Fi", "Tribal", "Acid Punk", "Acid Jazz", "Polka", "Retro", "Musical",
        "Rock & Roll", "Hard Rock", "Folk", "Folk-Rock", "National Folk", "Swing", "Fast Fusion", "Bebob",
        "Latin", "Revival", "Celtic", "Bluegrass", "Avantgarde", "Gothic Rock", "Progressive Rock",
        "Psychedelic Rock", "Symphonic Rock", "Slow Rock", "Big Band", "Chorus", "Easy Listening", "Acoustic",
        "Humour", "Speech", "Chanson", "Opera", "Chamber Music", "Sonata", "Symphony", "Booty Bass", "Primus",
        "Porn Groove", "Satire", "Slow Jam", "Club", "Tango", "Samba", "Folklore", "Ballad", "Power Ballad",
        "Rhythmic Soul", "Freestyle", "Duet", "Punk Rock", "Drum Solo", "A Cappella", "Euro-House",
        "Dance Hall", "Goa", "Drum & Bass", "Club-House", "Hardcore", "Terror", "Indie", "BritPop",
        "Negerpunk", "Polsk Punk", "Beat", "Christian Gangsta Rap", "Heavy Metal", "Black Metal", "Crossover",
        "Contemporary Christian", "Christian Rock", "Merengue", "Salsa", "Thrash Metal", "Anime", "JPop",
        "Synthpop",
    ]
}

/// Maps Vorbis comments (FLAC, Ogg Vorbis, Opus) to tags as MPD 0.23's scanner does (checked
/// against it by XiphDaemonTests): field names compare case-insensitively with MPD's tag names
/// (ALBUMARTIST, GENRE, DATE, ..., MUSICBRAINZ_TRACKID), plus TRACKNUMBER and DISCNUMBER;
/// values in the file's order. Disc keeps its number only, as for ID3's TPOS. MPD 0.23 shows
/// no Comment from COMMENT or DESCRIPTION, so neither does this.
public enum VorbisCommentMapping {
    public struct Mapped: Sendable, Equatable {
        public var title: String?
        public var artist: String?
        public var album: String?
        public var trackNumber: Int?
        /// The other tags, in the file's order.
        public var tags: [TrackTag] = []
        /// LYRICS or UNSYNCEDLYRICS (the first present), LRC or plain text.
        public var lyrics: String?
    }

    public static func map(_ comments: [(key: String, value: String)]) -> Mapped {
        var mapped = Mapped()
        var lyrics: [String: String] = [:]
        for (key, raw) in comments {
            let value = raw.trimmedSpaces
            guard !value.isEmpty else { continue }
            switch key.uppercased() {
            case "TITLE": mapped.title = mapped.title ?? value
            case "ARTIST": mapped.artist = mapped.artist ?? value
            case "ALBUM": mapped.album = mapped.album ?? value
            case "TRACKNUMBER", "TRACK":
                mapped.trackNumber = mapped.trackNumber ?? Int(value.prefix { $0.isASCII && $0.isNumber })
            case "DISCNUMBER", "DISC":
                let number = value.drop { $0 == "0" }.prefix { $0.isASCII && $0.isNumber }
                if !number.isEmpty { mapped.tags.append(TrackTag(.disc, String(number))) }
            case "LYRICS", "UNSYNCEDLYRICS": lyrics[key.uppercased()] = lyrics[key.uppercased()] ?? raw
            case let name:
                if let tag = byName[name] { mapped.tags.append(TrackTag(tag, value)) }
            }
        }
        mapped.lyrics = lyrics["LYRICS"] ?? lyrics["UNSYNCEDLYRICS"]
        return mapped
    }

    /// MPD's tag names (uppercased) that Vorbis comments carry under the same name.
    static let byName: [String: TagName] = Dictionary(
        uniqueKeysWithValues: TagName.allCases.filter { $0 != .disc && $0 != .comment }.map {
            ($0.rawValue.uppercased(), $0)
        })
}
