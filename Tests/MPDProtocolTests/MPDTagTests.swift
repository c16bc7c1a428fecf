import JukeboxCore
import Testing

@testable import MPDProtocol

/// Tags beyond title/artist/album/track through find, search, list, count and song blocks,
/// with MPD 0.23's rules (checked against the real MPD by MPDDifferentialTests).
@Suite struct MPDTagTests {
    /// Every tag on the first track; the others lack some.
    static let tracks: [TrackInfo] = [
        TrackInfo(
            id: 1, path: "A/01.mp3", title: "One", artist: "Ann", album: "First", trackNumber: 1, durationMs: 100_000,
            tags: [
                TrackTag(.albumArtist, "Various"), TrackTag(.date, "2001-05-03"), TrackTag(.originalDate, "1999"),
                TrackTag(.genre, "Rock"), TrackTag(.genre, "Pop"), TrackTag(.composer, "Carl"),
                TrackTag(.conductor, "Dora"), TrackTag(.performer, "Pete"), TrackTag(.comment, "nice"),
                TrackTag(.disc, "1"), TrackTag(.musicBrainzArtistID, "mb-artist"),
                TrackTag(.musicBrainzAlbumID, "mb-album"), TrackTag(.musicBrainzAlbumArtistID, "mb-albumartist"),
                TrackTag(.musicBrainzTrackID, "mb-track"), TrackTag(.musicBrainzReleaseTrackID, "mb-release"),
            ], format: "44100:16:2", modifiedSeconds: 1_732_449_600),
        TrackInfo(
            id: 2, path: "A/02.mp3", title: "Two", artist: "Ann", album: "First", trackNumber: 2, durationMs: 50_000,
            tags: [TrackTag(.genre, "Rock")]),
        TrackInfo(
            id: 3, path: "B/01.mp3", title: "Three", artist: "Bob", album: "Second", durationMs: 30_000,
            tags: [TrackTag(.date, "2011"), TrackTag(.genre, "Jazz")]),
        TrackInfo(id: 4, path: "loose.wav", durationMs: 5_000, format: "48000:24:1"),
    ]

    static func run(_ line: String) -> String {
        var machine = PlayerMachine(
            configuration: .init(maxVolume: 100, startVolume: 40),
            queue: PlayQueue(entries: [1], mode: .inOrder, seed: 1))
        _ = machine.handle(.tracksDescribed(tracks), now: .zero)
        var world = MPDWorld(
            machine: machine, library: MPDLibrary(tracks: tracks), observer: MPDObserver(), now: .zero,
            host: MPDHostInfo())
        var session = MPDSession()
        return session.handle(line: line, world: &world).text
    }

    static func files(_ line: String) -> [String] {
        run(line).split(separator: "\n").filter { $0.hasPrefix("file: ") }.map { String($0.dropFirst(6)) }
    }

    @Test func songBlockInMPDsOrder() {
        #expect(
            Self.run("lsinfo A/01.mp3") == """
                file: A/01.mp3
                Last-Modified: 2024-11-24T12:00:00Z
                Format: 44100:16:2
                Artist: Ann
                AlbumArtist: Various
                Title: One
                Album: First
                Track: 1
                Date: 2001-05-03
                OriginalDate: 1999
                Genre: Rock
                Genre: Pop
                Composer: Carl
                Conductor: Dora
                Performer: Pete
                Disc: 1
                MUSICBRAINZ_ARTISTID: mb-artist
                MUSICBRAINZ_ALBUMID: mb-album
                MUSICBRAINZ_ALBUMARTISTID: mb-albumartist
                MUSICBRAINZ_TRACKID: mb-track
                MUSICBRAINZ_RELEASETRACKID: mb-release
                Time: 100
                duration: 100.000
                OK

                """)
    }

    @Test func tagTypesListsEveryTagButComment() {
        let names = Self.run("tagtypes").split(separator: "\n").dropLast().map { $0.dropFirst(9) }
        #expect(names.count == MPDTag.allCases.count - 1 && !names.contains("Comment") && names.contains("Date"))
    }

    /// Each tag finds the track that has the value, and `""` finds the tracks without it.
    @Test(arguments: MPDTag.allCases)
    func everyTagIsFilterable(_ tag: MPDTag) throws {
        let first = Self.tracks[0]
        let value = try #require(tag.values(of: first).last)
        let quoted = "\"\(value)\""
        #expect(Self.files("find \(tag.rawValue) \(quoted)").contains("A/01.mp3"))
        #expect(Self.files("find \"(\(tag.rawValue) == '\(value)')\"").contains("A/01.mp3"))
        #expect(Self.files("search \(tag.rawValue.lowercased()) \(quoted)").contains("A/01.mp3"))
        #expect(Self.run("count \(tag.rawValue) \(quoted)").hasPrefix("songs: "))
        let missing = Self.files("find \(tag.rawValue) \"\"")
        #expect(missing.contains("loose.wav") && !missing.contains("A/01.mp3"), "\(missing)")
    }

    /// ncmpcpp's media library splits albums by date and asks for the songs of one without a date.
    @Test func ncmpcppsAlbumWithoutDate() {
        #expect(Self.files("find Artist \"Ann\" Album \"First\" Date \"\"") == ["A/02.mp3"])
        #expect(Self.files("find Artist \"Ann\" Album \"First\" Date \"2001-05-03\"") == ["A/01.mp3"])
        #expect(
            Self.run("list Album Artist Ann group Date") == "Date: \nAlbum: First\nDate: 2001-05-03\nAlbum: First\nOK\n"
        )
    }

    /// `!=` is the negation of `==`: a track without the tag passes `!= 'x'`, not `!= ''`.
    /// Results come in MPD's database order: a folder's songs (A/01 has a disc, A/02 none, so
    /// A/02 first), then its subfolders.
    @Test func missingTagRules() {
        #expect(Self.files("find \"(Date != '2011')\"") == ["loose.wav", "A/02.mp3", "A/01.mp3"])
        #expect(Self.files("find \"(Date != '')\"") == ["A/01.mp3", "B/01.mp3"])
        #expect(Self.files("find \"(Date == '')\"") == ["loose.wav", "A/02.mp3"])
        #expect(Self.files("search \"(Genre contains 'O')\"") == ["A/02.mp3", "A/01.mp3"])
        #expect(Self.files("find \"(!(Genre == 'Rock'))\"") == ["loose.wav", "B/01.mp3"])
        // AlbumArtist falls back to Artist in filters; `any` looks at tags, not the path.
        #expect(Self.files("find AlbumArtist Ann") == ["A/02.mp3"])
        #expect(Self.files("search any loose") == [])
        #expect(Self.files("search any jazz") == ["B/01.mp3"])
    }

    @Test func listAndCountWithGroups() {
        #expect(Self.run("list genre") == "Genre: \nGenre: Jazz\nGenre: Pop\nGenre: Rock\nOK\n")
        #expect(Self.run("list date") == "Date: \nDate: 2001-05-03\nDate: 2011\nOK\n")
        #expect(
            Self.run("list albumartist")
                == "AlbumArtist: \nAlbumArtist: Ann\nAlbumArtist: Bob\nAlbumArtist: Various\nOK\n")
        #expect(
            Self.run("list album group date")
                == "Date: \nAlbum: \nAlbum: First\nDate: 2001-05-03\nAlbum: First\nDate: 2011\nAlbum: Second\nOK\n")
        #expect(
            Self.run("count group artist")
                == "Artist: \nsongs: 1\nplaytime: 5\nArtist: Ann\nsongs: 2\nplaytime: 150\n"
                + "Artist: Bob\nsongs: 1\nplaytime: 30\nOK\n")
        #expect(Self.run("count genre Rock group album") == "Album: First\nsongs: 2\nplaytime: 150\nOK\n")
        #expect(Self.run("count Date \"\"") == "songs: 2\nplaytime: 55\nOK\n")
        #expect(Self.run("count group colour") == "ACK [2@0] {count} Unknown tag type: colour\n")
        #expect(Self.run("find Artist Ann sort -Date").hasPrefix("file: A/01.mp3\n"))
    }

    @Test func lastModifiedIsISO8601UTC() {
        #expect(ISO8601.utc(0) == "1970-01-01T00:00:00Z")
        #expect(ISO8601.utc(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(ISO8601.utc(4_102_444_799) == "2099-12-31T23:59:59Z")
    }
}
