import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import SQLite
import Testing

/// Recently played in a real SQLite file: saved, trimmed to the newest fifteen, read back
/// after a reopen, with the queue's source.
@Suite struct RecentlyPlayedStoreTests {
    typealias Entry = RecentlyPlayed.Entry

    @Test func entriesSurviveAReopenNewestFirst() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("jukebox.sqlite")
        let album = PlaySource.album(artist: "Joni", album: "Blue")
        do {
            let (store, _) = try LibraryStore.open(path: path, logger: quietLogger)
            #expect(try store.recentlyPlayed().entries.isEmpty)
            try store.saveRecentlyPlayed(
                Entry(source: album, trackPath: "Joni/Blue/1.mp3", positionMs: 0), holdsQueue: true)
            try store.saveRecentlyPlayed(
                Entry(source: .favourites, trackPath: "x.mp3", positionMs: 0), holdsQueue: true)
            try store.saveRecentlyPlayed(
                Entry(source: .folder(path: "Jazz"), trackPath: "Jazz/a.mp3", positionMs: 5), holdsQueue: true)
            // The album again, where it was left: first, its old row gone.
            try store.saveRecentlyPlayed(
                Entry(source: album, trackPath: "Joni/Blue/3.mp3", positionMs: 61_500), holdsQueue: true)
            try store.saveRecentlyPlayed(
                Entry(source: .playlist(name: "mix"), trackPath: "m.mp3", positionMs: 7), holdsQueue: false)
        }
        let (store, _) = try LibraryStore.open(path: path, logger: quietLogger)
        let stored = try store.recentlyPlayed()
        #expect(
            stored.entries == [
                Entry(source: .playlist(name: "mix"), trackPath: "m.mp3", positionMs: 7),
                Entry(source: album, trackPath: "Joni/Blue/3.mp3", positionMs: 61_500),
                Entry(source: .folder(path: "Jazz"), trackPath: "Jazz/a.mp3", positionMs: 5),
                Entry(source: .favourites, trackPath: "x.mp3", positionMs: 0),
            ])
        #expect(!stored.newestHoldsQueue)
        // At most one row holds the queue.
        let raw = try Connection(path: path)
        #expect(try raw.scalarInt("SELECT count(*) FROM recently_played WHERE holds_queue = 1") == 0)
        try store.saveRecentlyPlayed(
            Entry(source: album, trackPath: "Joni/Blue/4.mp3", positionMs: 0), holdsQueue: true)
        #expect(try raw.scalarInt("SELECT count(*) FROM recently_played WHERE holds_queue = 1") == 1)
        #expect(try store.recentlyPlayed().newestHoldsQueue)
    }

    @Test func keepsTheNewestFifteen() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try LibraryStore.open(path: dir.file("jukebox.sqlite"), logger: quietLogger)
        for index in 0..<20 {
            try store.saveRecentlyPlayed(
                Entry(source: .folder(path: "f\(index)"), trackPath: "f\(index)/a.mp3", positionMs: 0), holdsQueue: true
            )
        }
        let entries = try store.recentlyPlayed().entries
        #expect(entries.count == RecentlyPlayed.limit)
        #expect(entries.first?.source == .folder(path: "f19"))
        #expect(entries.last?.source == .folder(path: "f5"))
        #expect(try Connection(path: store.path).scalarInt("SELECT count(*) FROM recently_played") == 15)
    }

    /// Saves are unsynced transactions: the resume commit that follows pays the fsync.
    @Test func aSaveCostsNoFsync() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try LibraryStore.open(path: dir.file("jukebox.sqlite"), logger: quietLogger)
        let before = (store.commitCount, store.durableCommitCount)
        try store.saveRecentlyPlayed(Entry(source: .favourites, trackPath: "x.mp3", positionMs: 0), holdsQueue: true)
        #expect(store.commitCount - before.0 == 1)
        #expect(store.durableCommitCount - before.1 == 0)
    }

    /// A version 3 database (before Recently played) gains the empty table.
    @Test func aVersion3DatabaseIsMigrated() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("jukebox.sqlite")
        try makeOldDatabase(at: path, version: 3, rows: "INSERT INTO queue(pos, track_id) VALUES (0, 7);")
        let (store, message) = try LibraryStore.open(path: path, logger: quietLogger)
        #expect(message == nil)
        #expect(try store.loadQueue() == [QueueRecord(trackID: 7)])
        #expect(try store.recentlyPlayed().entries.isEmpty)
    }
}
