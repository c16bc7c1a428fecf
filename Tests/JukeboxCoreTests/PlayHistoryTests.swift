import Testing

@testable import JukeboxCore

/// Which source the queue holds and what of Recently played is written when.
@Suite struct PlayHistoryTests {
    typealias Place = PlayHistory.Place
    typealias Entry = RecentlyPlayed.Entry
    let album = PlaySource.album(artist: "A", album: "B")

    @Test func choosingSavesAnEntryThatHoldsTheQueue() {
        var history = PlayHistory()
        let actions = history.handle(.chose(album, at: Place(trackPath: "A/B/1.mp3", positionMs: 0)))
        #expect(actions == [.save(Entry(source: album, trackPath: "A/B/1.mp3", positionMs: 0), holdsQueue: true)])
        #expect(history.source == album)
        #expect(history.recent.entries.map(\.source) == [album])
    }

    @Test func onlyAMovedPlaceIsWritten() {
        var history = PlayHistory()
        _ = history.handle(.chose(album, at: Place(trackPath: "A/B/1.mp3", positionMs: 0)))
        #expect(history.handle(.reached(Place(trackPath: "A/B/1.mp3", positionMs: 0))) == [])
        #expect(history.handle(.reached(nil)) == [])
        let moved = Place(trackPath: "A/B/2.mp3", positionMs: 12_345)
        #expect(
            history.handle(.reached(moved))
                == [.save(Entry(source: album, trackPath: "A/B/2.mp3", positionMs: 12_345), holdsQueue: true)])
        #expect(history.handle(.reached(moved)) == [])
        #expect(history.recent.entries.first?.positionMs == 12_345)
    }

    @Test func aClientsQueueEndsTheSource() {
        var history = PlayHistory()
        _ = history.handle(.chose(.favourites, at: Place(trackPath: "x.mp3", positionMs: 0)))
        let left = Place(trackPath: "y.mp3", positionMs: 4_000)
        #expect(
            history.handle(.queueTakenOver(at: left))
                == [.save(Entry(source: .favourites, trackPath: "y.mp3", positionMs: 4_000), holdsQueue: false)])
        #expect(history.source == nil)
        // Nothing is written for a queue that is no source's.
        #expect(history.handle(.reached(Place(trackPath: "z.mp3", positionMs: 1))) == [])
        #expect(history.handle(.queueTakenOver(at: left)) == [])
        #expect(history.recent.entries == [Entry(source: .favourites, trackPath: "y.mp3", positionMs: 4_000)])
    }

    @Test func aNewSourceGoesFirst() {
        var history = PlayHistory()
        _ = history.handle(.chose(.favourites, at: Place(trackPath: "x.mp3", positionMs: 0)))
        _ = history.handle(.chose(album, at: Place(trackPath: "A/B/1.mp3", positionMs: 0)))
        _ = history.handle(.chose(.favourites, at: Place(trackPath: "x.mp3", positionMs: 3_000)))
        #expect(history.recent.entries.map(\.source) == [.favourites, album])
        #expect(history.recent.entries.first?.positionMs == 3_000)
    }

    @Test func restoredAsStored() {
        let stored = [
            Entry(source: album, trackPath: "A/B/2.mp3", positionMs: 9_000),
            Entry(source: .favourites, trackPath: "x.mp3", positionMs: 0),
        ]
        var holding = PlayHistory(entries: stored, newestHoldsQueue: true)
        #expect(holding.source == album)
        #expect(
            holding.handle(.reached(Place(trackPath: "A/B/3.mp3", positionMs: 0)))
                == [.save(Entry(source: album, trackPath: "A/B/3.mp3", positionMs: 0), holdsQueue: true)])
        var detached = PlayHistory(entries: stored, newestHoldsQueue: false)
        #expect(detached.source == nil)
        #expect(detached.handle(.reached(Place(trackPath: "A/B/3.mp3", positionMs: 0))) == [])
        #expect(detached.recent.entries == stored)
    }
}
