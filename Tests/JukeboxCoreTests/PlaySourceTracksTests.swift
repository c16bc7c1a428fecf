import Testing

@testable import JukeboxCore

/// What each kind of source plays, in which order.
@Suite struct PlaySourceTracksTests {
    static func track(
        _ id: TrackID, _ path: String, album: String? = nil, artist: String? = nil, number: Int? = nil,
        tags: [TrackTag] = []
    ) -> TrackInfo {
        TrackInfo(id: id, path: path, artist: artist, album: album, trackNumber: number, tags: tags)
    }

    let library = [
        track(1, "Jazz/b.mp3", album: "Blue", artist: "Guest", number: 2, tags: [TrackTag(.albumArtist, "Joni")]),
        track(2, "Jazz/a.mp3", album: "Blue", artist: "Joni", number: 1),
        track(3, "Jazz/Live/c.mp3", album: "Blue", artist: "Joni", number: 1, tags: [TrackTag(.disc, "2/2")]),
        track(4, "Rock/d.mp3", album: "Blue", artist: "Other", number: 1),
        track(5, "Jazzier/e.mp3"),
    ]

    @Test func aFolderWithItsSubfoldersByPath() {
        #expect(PlaySource.folder(path: "Jazz").tracks(in: library, entries: nil).tracks.map(\.id) == [3, 2, 1])
        #expect(PlaySource.folder(path: "").tracks(in: library, entries: nil).tracks.count == 5)
    }

    @Test func anAlbumByItsAlbumArtistInDiscAndTrackOrder() {
        let blue = PlaySource.album(artist: "Joni", album: "Blue").tracks(in: library, entries: nil)
        #expect(blue.tracks.map(\.id) == [2, 1, 3])
    }

    @Test func aPlaylistAsListedWithoutTheMissing() {
        let result = PlaySource.favourites.tracks(in: library, entries: ["Rock/d.mp3", "gone.mp3", "Jazz/a.mp3"])
        #expect(result.tracks.map(\.id) == [4, 2])
        #expect(result.missing == 1)
        #expect(PlaySource.playlist(name: "none").tracks(in: library, entries: nil).tracks.isEmpty)
        #expect(PlaySource.favourites.playlistName == "Favourites")
    }
}
