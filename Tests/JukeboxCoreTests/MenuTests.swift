import JukeboxCore
import TOML
import Testing

@Suite struct SortKeyTests {
    private func sorted(_ names: [String]) -> [String] {
        names.sorted { SortKey($0) != SortKey($1) ? SortKey($0) < SortKey($1) : $0 < $1 }
    }

    @Test func caseAndAccentsDoNotCount() {
        #expect(SortKey("Étoile") == SortKey("etoile"))
        #expect(SortKey("Straße") == SortKey("STRASSE"))
        #expect(SortKey("Øresund") == SortKey("oresund"))
        #expect(SortKey("Œuvre") == SortKey("oeuvre"))
        #expect(SortKey("Łódź") == SortKey("lodz"))
        #expect(SortKey("Tiếng Việt") == SortKey("tieng viet"))
        // Decomposed text (e + combining acute) sorts as the composed letter.
        #expect(SortKey("Cafe\u{301}") == SortKey("Café"))
        #expect(sorted(["zebra", "Émile", "apple", "Ärger", "Zoë"]) == ["apple", "Ärger", "Émile", "zebra", "Zoë"])
    }

    @Test func numbersInNumericOrder() {
        #expect(
            sorted(["Track 10", "Track 2", "Track 1", "track 02b"]) == ["Track 1", "Track 2", "track 02b", "Track 10"])
        #expect(SortKey("Track 007") == SortKey("Track 7"))
        #expect(sorted(["ABBA", "10cc", "2Pac"]) == ["2Pac", "10cc", "ABBA"])
    }

    @Test func leadingTheIsLeftOut() {
        #expect(SortKey("The Beatles") == SortKey("Beatles"))
        #expect(SortKey("The Beatles").initial == "B")
        #expect(SortKey("The").initial == "T")  // nothing after it: the word itself
        #expect(SortKey("Theatre").initial == "T")
        #expect(sorted(["The Who", "Abba", "The Beatles", "Queen"]) == ["Abba", "The Beatles", "Queen", "The Who"])
    }

    @Test func punctuationOnlySeparates() {
        #expect(SortKey("AC/DC") == SortKey("AC DC"))
        #expect(SortKey("  Hello,   World!") == SortKey("hello world"))
        #expect(SortKey("...").initial == "#")
    }

    @Test func otherScriptsAfterLatinInAStableOrder() {
        let names = ["月亮代表我的心", "Zebra", "Яблоко", "あいうえお", "Ωmega", "안녕", "abc", "Альфа"]
        #expect(sorted(names) == ["abc", "Zebra", "Ωmega", "Альфа", "Яблоко", "あいうえお", "月亮代表我的心", "안녕"])
        #expect(SortKey("Яблоко") == SortKey("яблоко"))
        #expect(SortKey("月亮").initial == "月")
        #expect(SortKey("Ärger").initial == "A")
        #expect(SortKey("42").initial == "#")
    }
}

/// A library of `albumsPerArtist` albums of `tracksPerAlbum` tracks for each artist.
func menuLibrary(artists: Int, albumsPerArtist: Int, tracksPerAlbum: Int) -> [TrackInfo] {
    var tracks: [TrackInfo] = []
    for a in 0..<artists {
        let artist = "Artist \(a)"
        for b in 0..<albumsPerArtist {
            for t in 1...tracksPerAlbum {
                tracks.append(
                    TrackInfo(
                        id: TrackID(tracks.count + 1), path: "\(artist)/Album \(b)/\(t) Song.mp3", title: "Song \(t)",
                        artist: artist, album: "Album \(b) of \(a)", trackNumber: t))
            }
        }
    }
    return tracks
}

@Suite struct MenuCatalogTests {
    let tracks: [TrackInfo] = [
        TrackInfo(
            id: 1, path: "Rock/The Beatles/Abbey Road/10 Sun King.mp3", title: "Sun King", artist: "The Beatles",
            album: "Abbey Road", trackNumber: 10),
        TrackInfo(
            id: 2, path: "Rock/The Beatles/Abbey Road/02 Something.mp3", title: "Something", artist: "The Beatles",
            album: "Abbey Road", trackNumber: 2),
        TrackInfo(
            id: 3, path: "Rock/The Beatles/Abbey Road/01 Come Together.mp3", title: "Come Together",
            artist: "The Beatles",
            album: "Abbey Road", trackNumber: 1),
        TrackInfo(
            id: 4, path: "Pop/ABBA/Arrival/1.mp3", title: "When I Kissed the Teacher", artist: "ABBA", album: "Arrival",
            trackNumber: 1),
        TrackInfo(
            id: 5, path: "Pop/Various/x.mp3", title: "Dancing Queen", artist: "ABBA", album: "Hits",
            tags: [TrackTag(.albumArtist, "Various Artists")]),
        TrackInfo(id: 6, path: "loose.mp3"),
        TrackInfo(
            id: 7, path: "Rock/The Beatles/Abbey Road/CD2/01 Her Majesty.mp3", title: "Her Majesty",
            artist: "The Beatles",
            album: "Abbey Road", trackNumber: 1, tags: [TrackTag(.disc, "2")]),
    ]

    @Test func artistsAlbumsAndTrackOrder() {
        let catalog = MenuCatalog(tracks: tracks)
        #expect(catalog.artists.map(\.name) == ["", "ABBA", "The Beatles", "Various Artists"])
        #expect(catalog.albums.map(\.name) == ["", "Abbey Road", "Arrival", "Hits"])
        let abbey = catalog.albums[1]
        #expect(abbey.tracks.map { catalog.tracks[$0].id } == [3, 2, 1, 7])
        #expect(catalog.tracks(of: .album(artist: "The Beatles", album: "Abbey Road"))?.count == 4)
        #expect(catalog.tracks(of: .album(artist: "Nobody", album: "Abbey Road")) == nil)
    }

    @Test func anArtistAndAnAlbumByNameAloneAsACardNamesThem() {
        let catalog = MenuCatalog(tracks: tracks)
        // An artist plays its albums A–Z, each in track order.
        #expect(catalog.tracks(of: .artist(name: "ABBA"))!.map { catalog.tracks[$0].id } == [4])
        #expect(catalog.tracks(of: .artist(name: "The Beatles"))!.map { catalog.tracks[$0].id } == [3, 2, 1, 7])
        #expect(catalog.tracks(of: .artist(name: "Nobody")) == nil)
        #expect(catalog.tracks(of: .album(artist: "", album: "Arrival"))!.map { catalog.tracks[$0].id } == [4])
        #expect(catalog.tracks(of: .album(artist: "", album: "Nothing")) == nil)
    }

    @Test func foldersFromPaths() {
        let catalog = MenuCatalog(tracks: tracks)
        let top = catalog.folders[0]
        #expect(top.folders.map { catalog.folders[$0].name } == ["Pop", "Rock"])
        #expect(top.tracks.map { catalog.tracks[$0].id } == [6])
        let abbey = catalog.folder(at: "Rock/The Beatles/Abbey Road")!
        #expect(catalog.folders[abbey].tracks.map { catalog.tracks[$0].id } == [3, 2, 1])
        // A folder plays its subfolders first, then its own tracks (the menu's order).
        #expect(catalog.tracks(of: .folder(path: "Rock"))!.map { catalog.tracks[$0].id } == [7, 3, 2, 1])
        #expect(catalog.tracks(of: .folder(path: ""))?.count == 7)
    }

    @Test func playlistsAndFavourites() {
        var catalog = MenuCatalog(tracks: tracks)
        catalog.setPlaylists(["zz", "Favourites", "Évening", "party 10", "party 9"])
        #expect(catalog.playlists == ["Évening", "party 9", "party 10", "zz"])
        catalog.setFavourites(["Pop/ABBA/Arrival/1.mp3", "gone.mp3", "loose.mp3"])
        #expect(catalog.tracks(of: .favourites)!.map { catalog.tracks[$0].id } == [4, 6])
    }
}

@Suite struct MenuTests {
    let catalog = MenuCatalog(tracks: menuLibrary(artists: 3, albumsPerArtist: 2, tracksPerAlbum: 3))
    let t0 = Instant.milliseconds(1_000)

    private func opened(_ catalog: MenuCatalog? = nil) -> Menu {
        var menu = Menu(catalog: catalog ?? self.catalog)
        _ = menu.handle(.open, now: t0)
        return menu
    }

    /// Slow clicks (a second apart) from `start`.
    private func turn(_ menu: inout Menu, _ detents: Int, from start: Instant) -> Instant {
        var now = start
        for _ in 0..<abs(detents) {
            now = now + 1_000
            _ = menu.handle(.turn(detents > 0 ? 1 : -1), now: now)
        }
        return now
    }

    @Test func secondArtistsSecondAlbumPlaysFromItsStart() {
        var menu = opened()
        #expect(menu.place == .top)
        var now = turn(&menu, 1, from: t0)  // Artists
        #expect(menu.handle(.press, now: now).isEmpty)
        #expect(menu.place == .artists)
        now = turn(&menu, 1, from: now)
        _ = menu.handle(.press, now: now)
        #expect(menu.place == .artist(1))
        #expect(menu.page(rows: 3, now: now)?.title == "Artist 1")
        now = turn(&menu, 1, from: now)
        _ = menu.handle(.press, now: now)
        #expect(menu.page(rows: 1, now: now)?.rows.first?.label == Menu.playAll)
        let actions = menu.handle(.press, now: now)
        #expect(
            actions == [
                .play(.album(artist: "Artist 1", album: "Album 1 of 1"), trackPath: nil, positionMs: 0), .closed,
            ])
        #expect(!menu.isOpen)
    }

    @Test func choosingATrackPlaysItsAlbumFromIt() {
        var menu = opened()
        var now = turn(&menu, 2, from: t0)  // Albums A–Z
        _ = menu.handle(.press, now: now)
        _ = menu.handle(.press, now: now)  // the first album
        now = turn(&menu, 2, from: now)  // its second track
        let actions = menu.handle(.press, now: now)
        #expect(
            actions.first
                == .play(
                    .album(artist: "Artist 0", album: "Album 0 of 0"), trackPath: "Artist 0/Album 0/2 Song.mp3",
                    positionMs: 0))
    }

    @Test func podcastsListTheirEpisodesAndOnlyWhenFollowed() {
        let plain = opened()
        #expect(!(0..<plain.count(.top)).contains { plain.label(.top, $0) == "Podcasts" })
        var catalog = self.catalog
        catalog.podcasts = [
            .init(title: "Show A", episodes: [(7, "Newest"), (3, "Older")]), .init(title: "Show B", episodes: []),
        ]
        var menu = opened(catalog)
        let top = menu.count(.top)
        #expect([menu.label(.top, top - 2), menu.label(.top, top - 1)] == ["Podcasts", "Settings"])
        var now = turn(&menu, top - 2, from: t0)
        _ = menu.handle(.press, now: now)
        #expect(menu.page(rows: 3, now: now)?.rows.map(\.label) == ["Show A", "Show B"])
        _ = menu.handle(.press, now: now)
        #expect(menu.page(rows: 3, now: now)?.title == "Show A")
        #expect(menu.page(rows: 3, now: now)?.rows.map(\.label) == ["Newest", "Older"])
        now = turn(&menu, 1, from: now)
        #expect(menu.handle(.press, now: now) == [.playEpisode(3), .closed])
    }

    @Test func backGoesUpAndClosesAtTheTop() {
        var menu = opened()
        let now = turn(&menu, 1, from: t0)
        _ = menu.handle(.press, now: now)
        #expect(menu.handle(.back, now: now).isEmpty)
        #expect(menu.place == .top)
        #expect(menu.highlighted == 1)  // where it was
        #expect(menu.handle(.back, now: now) == [.closed])
        #expect(!menu.isOpen)
        // Turns and presses of a closed menu do nothing.
        #expect(menu.handle(.press, now: now).isEmpty)
        #expect(menu.page(rows: 1, now: now) == nil)
    }

    @Test func idleTimeoutClosesIt() {
        var menu = opened()
        let now = turn(&menu, 1, from: t0)
        #expect(menu.nextDeadline == now + menu.timeoutMs)
        #expect(menu.handle(.tick, now: now + (menu.timeoutMs - 1)).isEmpty)
        #expect(menu.isOpen)
        #expect(menu.handle(.tick, now: now + menu.timeoutMs) == [.closed])
        #expect(!menu.isOpen)
        #expect(menu.nextDeadline == nil)
    }

    /// `[menu] timeout_s` from a config file sets the idle timeout.
    @Test func aConfiguredTimeoutClosesIt() throws {
        let text = "music_dir = \"/m\"\n[menu]\ntimeout_s = 8\n"
        let document = try TOMLParser.parse(text, fileName: "j.toml").get()
        let config = try #require(ConfigValidator.validate(document) { _ in nil }.config)
        var menu = opened()
        menu.timeoutMs = config.menu.timeoutMs
        let now = turn(&menu, 1, from: t0)
        #expect(menu.nextDeadline == now + 8_000)
        #expect(menu.handle(.tick, now: now + 7_999).isEmpty)
        #expect(menu.isOpen)
        // A gesture restarts the wait.
        _ = menu.handle(.turn(1), now: now + 7_999)
        #expect(menu.handle(.tick, now: now + 8_000).isEmpty)
        #expect(menu.handle(.tick, now: now + 15_998).isEmpty)
        #expect(menu.handle(.tick, now: now + 15_999) == [.closed])
        #expect(!menu.isOpen)
    }

    @Test func movesStopAtTheEnds() {
        var menu = opened()
        _ = menu.handle(.move(-3), now: t0)
        #expect(menu.highlighted == 0)
        _ = menu.handle(.move(100), now: t0)
        #expect(menu.highlighted == 6)
        #expect(menu.page(rows: 1, now: t0)?.position == "7/7")
    }

    @Test func spinningFasterMovesFurther() {
        let big = MenuCatalog(tracks: menuLibrary(artists: 1, albumsPerArtist: 1, tracksPerAlbum: 40))
        var menu = opened(big)
        var now = turn(&menu, 2, from: t0)
        _ = menu.handle(.press, now: now)  // Albums A–Z
        _ = menu.handle(.press, now: now)  // the album: 41 entries, short of a letter-jump list
        now = now + 1_000
        _ = menu.handle(.turn(1), now: now)
        #expect(menu.highlighted == 1)
        now = now + 60  // brisk
        _ = menu.handle(.turn(1), now: now)
        #expect(menu.highlighted == 3)
        now = now + 20  // fast
        _ = menu.handle(.turn(1), now: now)
        #expect(menu.highlighted == 8)
        now = now + 20  // fast but the other way: a new direction starts slow
        _ = menu.handle(.turn(-1), now: now)
        #expect(menu.highlighted == 7)
        // A typed turn moves exactly, however soon it follows.
        _ = menu.handle(.move(3), now: now + 1)
        #expect(menu.highlighted == 10)
    }

    @Test func fastSpinInALongListJumpsByLetter() {
        // 60 artists: "Artist 0".."Artist 59" all start with A; add B..E names.
        var tracks = menuLibrary(artists: 60, albumsPerArtist: 1, tracksPerAlbum: 1)
        for (i, name) in ["Bach", "Beethoven", "Chopin", "Debussy", "Elgar"].enumerated() {
            tracks.append(TrackInfo(id: TrackID(1000 + i), path: "\(name).mp3", artist: name, album: "Works"))
        }
        var menu = opened(MenuCatalog(tracks: tracks))
        var now = turn(&menu, 1, from: t0)
        _ = menu.handle(.press, now: now)
        #expect(menu.place == .artists)
        now = now + 1_000
        _ = menu.handle(.turn(1), now: now)  // slow: Artist 1
        #expect(menu.highlighted == 1)
        now = now + 10
        _ = menu.handle(.turn(1), now: now)  // fast: to B
        #expect(menu.highlighted == 60)
        #expect(menu.page(rows: 1, now: now)?.letter == "B")
        #expect(menu.page(rows: 1, now: now)?.position == "[B]")
        now = now + 10
        _ = menu.handle(.turn(1), now: now)  // C
        #expect(menu.page(rows: 1, now: now)?.rows.first?.label == "Chopin")
        now = now + 10
        _ = menu.handle(.turn(-1), now: now)  // back the other way starts slow: Beethoven
        #expect(menu.highlighted == 61)
        now = now + 10
        _ = menu.handle(.turn(-1), now: now)  // fast back: the start of B
        #expect(menu.highlighted == 60)
        now = now + 10
        _ = menu.handle(.turn(-1), now: now)  // and A
        #expect(menu.highlighted == 0)
        // The letter goes once the knob rests; the tick at that deadline redraws.
        #expect(menu.nextDeadline == now + Menu.letterShownMs)
        _ = menu.handle(.tick, now: now + Menu.letterShownMs)
        #expect(menu.page(rows: 1, now: now + Menu.letterShownMs)?.letter == nil)
        #expect(menu.page(rows: 1, now: now + Menu.letterShownMs)?.position == "1/65")
    }

    @Test func playNextAddsTheHighlightedEntry() {
        var menu = opened()
        var now = turn(&menu, 2, from: t0)
        _ = menu.handle(.press, now: now)  // Albums A–Z
        #expect(
            menu.handle(.playNext, now: now) == [
                .playNext(.album(artist: "Artist 0", album: "Album 0 of 0"), trackPath: nil)
            ])
        _ = menu.handle(.press, now: now)
        now = turn(&menu, 1, from: now)
        #expect(
            menu.handle(.playNext, now: now) == [
                .playNext(.album(artist: "Artist 0", album: "Album 0 of 0"), trackPath: "Artist 0/Album 0/1 Song.mp3")
            ])
        #expect(menu.isOpen)
    }

    @Test func foldersAndRecentlyPlayed() {
        var withRecent = catalog
        withRecent.recent.record(
            RecentlyPlayed.Entry(
                source: .folder(path: "Artist 2"), trackPath: "Artist 2/Album 1/3 Song.mp3", positionMs: 83_000))
        var menu = opened(withRecent)
        _ = menu.handle(.press, now: t0)  // Folders
        #expect(
            menu.page(rows: 5, now: t0)?.rows.map(\.label) == [Menu.playAll, "Artist 0/", "Artist 1/", "Artist 2/"])
        _ = menu.handle(.move(1), now: t0)
        _ = menu.handle(.press, now: t0)
        _ = menu.handle(.move(1), now: t0)
        _ = menu.handle(.press, now: t0)
        #expect(menu.page(rows: 5, now: t0)?.rows.map(\.label) == [Menu.playAll, "1 Song", "2 Song", "3 Song"])
        #expect(
            menu.handle(.press, now: t0).first
                == .play(.folder(path: "Artist 0/Album 0"), trackPath: nil, positionMs: 0))
        _ = menu.handle(.open, now: t0)
        _ = menu.handle(.move(4), now: t0)
        _ = menu.handle(.press, now: t0)
        #expect(menu.page(rows: 1, now: t0)?.rows.first?.label == "Artist 2/, 1:23")
        #expect(
            menu.handle(.press, now: t0).first
                == .play(.folder(path: "Artist 2"), trackPath: "Artist 2/Album 1/3 Song.mp3", positionMs: 83_000))
    }

    @Test func settings() {
        var menu = opened()
        menu.playMode = .repeatAll
        menu.lyricsOffsetMs = 200
        _ = menu.handle(.move(6), now: t0)
        _ = menu.handle(.press, now: t0)
        #expect(menu.page(rows: 2, now: t0)?.rows.map(\.label) == ["Play mode: repeat-all", "Lyrics offset: +200 ms"])
        _ = menu.handle(.press, now: t0)
        #expect(menu.highlighted == 1)  // the current mode
        _ = menu.handle(.move(2), now: t0)
        #expect(menu.handle(.press, now: t0) == [.setMode(.shuffle)])
        #expect(menu.place == .settings)
        _ = menu.handle(.move(1), now: t0)
        _ = menu.handle(.press, now: t0)
        #expect(menu.handle(.turn(-2), now: t0) == [.nudgeLyrics(-200)])
        _ = menu.handle(.press, now: t0)
        #expect(menu.place == .settings)
    }

    @Test func sleepTimerSetting() {
        var menu = opened()
        menu.sleepTarget = .endOfTrack
        _ = menu.handle(.move(6), now: t0)
        _ = menu.handle(.press, now: t0)
        _ = menu.handle(.move(2), now: t0)
        #expect(menu.page(rows: 1, now: t0)?.rows.map(\.label) == ["Sleep timer: end of track"])
        _ = menu.handle(.press, now: t0)
        #expect(menu.highlighted == 4)  // the timer set
        #expect(
            menu.page(rows: 7, now: t0)?.rows.map(\.label) == [
                "  off", "  15 min", "  30 min", "  60 min", "✓ end of track", "  end of album", "  end of chapter",
            ])
        _ = menu.handle(.move(-2), now: t0)
        #expect(menu.handle(.press, now: t0) == [.setSleep(.after(ms: 1_800_000))])
        #expect(menu.place == .settings)
        #expect(menu.label(.settings, 2) == "Sleep timer: 30 min")
    }

    @Test func speedSetting() {
        var menu = opened()
        menu.speed = PlaybackSpeed(clamping: 150)
        _ = menu.handle(.move(6), now: t0)
        _ = menu.handle(.press, now: t0)
        _ = menu.handle(.move(3), now: t0)
        #expect(menu.page(rows: 1, now: t0)?.rows.map(\.label) == ["Speed: 1.5×"])
        _ = menu.handle(.press, now: t0)
        #expect(menu.highlighted == 4)  // the speed playing
        #expect(
            menu.page(rows: 7, now: t0)?.rows.map(\.label) == [
                "  0.5×", "  0.75×", "  1×", "  1.25×", "✓ 1.5×", "  1.75×", "  2×",
            ])
        _ = menu.handle(.move(-2), now: t0)
        #expect(menu.handle(.press, now: t0) == [.setSpeed(.normal)])
        #expect(menu.place == .settings)
        #expect(menu.label(.settings, 3) == "Speed: 1×")
    }

    @Test func emptyListsAndNewCatalogs() {
        var menu = opened()
        _ = menu.handle(.move(3), now: t0)
        _ = menu.handle(.press, now: t0)  // Favourites: none yet
        #expect(
            menu.page(rows: 1, now: t0)?.frame(columns: 16, rows: 2).rows == ["Favourites   0/0", "  (empty)       "])
        #expect(menu.handle(.press, now: t0).isEmpty)
        var fed = catalog
        fed.setFavourites(["Artist 1/Album 0/2 Song.mp3"])
        menu.replaceCatalog(fed)
        #expect(menu.page(rows: 3, now: t0)?.rows.map(\.label) == [Menu.playAll, "Song 2 – Artist 1"])
    }

    @Test func characterScreens() {
        var menu = opened()
        _ = menu.handle(.move(1), now: t0)
        _ = menu.handle(.press, now: t0)
        _ = menu.handle(.move(1), now: t0)
        #expect(
            menu.page(rows: 1, now: t0)?.frame(columns: 16, rows: 2).rows == ["Artists      2/3", "▶Artist 1       "])
        #expect(
            menu.page(rows: 3, now: t0)?.frame(columns: 20, rows: 4).rows == [
                "Artists          2/3", " Artist 0           ", "▶Artist 1           ", " Artist 2           ",
            ])
    }

    @Test func tenThousandTracksOfAThousandArtists() {
        let catalog = MenuCatalog(tracks: menuLibrary(artists: 1000, albumsPerArtist: 2, tracksPerAlbum: 5))
        #expect(catalog.tracks.count == 10_000)
        #expect(catalog.artists.count == 1000)
        #expect(catalog.albums.count == 2000)
        // Numeric order: Artist 2 before Artist 10.
        #expect(catalog.artists.prefix(3).map(\.name) == ["Artist 0", "Artist 1", "Artist 2"])
        var menu = Menu(catalog: catalog)
        _ = menu.handle(.open, now: t0)
        _ = menu.handle(.move(1), now: t0)
        _ = menu.handle(.press, now: t0)
        _ = menu.handle(.move(999), now: t0)
        #expect(menu.page(rows: 1, now: t0)?.rows.first?.label == "Artist 999")
        #expect(menu.page(rows: 1, now: t0)?.position == "1000/1000")
    }
}
