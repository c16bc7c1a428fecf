import Glibc
import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import SQLite
import Testing

@Suite struct LibraryStoreTests {
    /// A store whose tracks table was filled by a scan of `files` (path -> contents).
    func storeWithTracks(_ dir: TemporaryDirectory, _ files: [String: String]) throws -> LibraryStore {
        for (path, text) in files { writeFile(dir.file("music/" + path), text) }
        makeDirectories(dir.file("music"))
        let (store, message) = try LibraryStore.open(path: dir.file("db/jukebox.sqlite"), logger: quietLogger)
        #expect(message == nil)
        _ = try makeScanner(database: store.path, music: dir.file("music")).scan()
        return store
    }

    @Test func createsParentDirectoriesAndSchema() throws {
        let dir = try TemporaryDirectory()
        let (store, message) = try LibraryStore.open(path: dir.file("a/b/c/jukebox.sqlite"), logger: quietLogger)
        #expect(message == nil)
        #expect(fileExists(dir.file("a/b/c/jukebox.sqlite")))
        #expect(try store.trackCount() == 0)
        #expect(try store.loadPlayback() == nil)
        #expect(try store.loadQueue() == [])
        let raw = try Connection(path: store.path)
        #expect(try raw.scalarInt("PRAGMA user_version") == 14)
        #expect(try raw.scalarInt("PRAGMA page_size") == 1024)
        #expect(try raw.strings("PRAGMA journal_mode") == ["wal"])
    }

    /// A web radio station gets one negative track id, kept with the queue across a reopen.
    @Test func stationsHaveStableNegativeTrackIDs() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("jukebox.sqlite")
        let store = try LibraryStore.open(path: path, logger: quietLogger).store
        let first = try store.streamTrackID(url: "http://radio.example.org/jazz.mp3")
        let second = try store.streamTrackID(url: "https://radio.example.org/pop.pls")
        #expect(first < 0 && second < 0 && first != second)
        #expect(try store.streamTrackID(url: "http://radio.example.org/jazz.mp3") == first)
        let reopened = try LibraryStore.open(path: path, logger: quietLogger).store
        #expect(
            try reopened.streams() == [
                first: "http://radio.example.org/jazz.mp3", second: "https://radio.example.org/pop.pls",
            ])
    }

    /// A version 1 database (before seek hints) keeps its remembered positions.
    @Test func aVersion1DatabaseIsMigrated() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("jukebox.sqlite")
        try makeOldDatabase(
            at: path, version: 1,
            rows:
                "INSERT INTO tracks(path, size, mtime_ns, title, last_position_ms) VALUES ('book.mp3', 1, 1, 'Book', 3600000);"
        )
        let (store, message) = try LibraryStore.open(path: path, logger: quietLogger)
        #expect(message == nil)
        #expect(try Connection(path: path).scalarInt("PRAGMA user_version") == 14)
        #expect(try store.savedTrackPositions().values.sorted() == [3_600_000])
        #expect(try store.savedSeekHints().isEmpty)
    }

    /// Track 3 queued twice, each entry with its own id, priority and version.
    static let queueRows = [
        QueueRecord(trackID: 3, entryID: 7, priority: 0, version: 12), QueueRecord(trackID: 1, entryID: 65535),
        QueueRecord(trackID: 3, entryID: 2, priority: 255, version: 2_147_483_646),
    ]

    /// A version 3 database (before queue ids): its entries come back without ids, and the
    /// playback row's next id is the first.
    @Test func aVersion3QueueIsMigrated() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("jukebox.sqlite")
        try makeOldDatabase(
            at: path, version: 3,
            rows: """
                INSERT INTO queue(pos, track_id) VALUES (0, 5), (1, 5);
                INSERT INTO playback(id, position_ms, state, mode, volume, queue_version) VALUES (1, 0, 'stopped', 'in-order', 40, 9);
                """)
        let (store, message) = try LibraryStore.open(path: path, logger: quietLogger)
        #expect(message == nil)
        #expect(try store.loadQueue() == [QueueRecord(trackID: 5), QueueRecord(trackID: 5)])
        #expect(try store.loadPlayback()?.nextEntryID == 1)
        #expect(try store.loadPlayback()?.queueVersion == 9)
    }

    @Test func reopeningKeepsData() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("jukebox.sqlite")
        do {
            let (store, _) = try LibraryStore.open(path: path, logger: quietLogger)
            try store.saveQueue(Self.queueRows)
        }
        let (store, message) = try LibraryStore.open(path: path, logger: quietLogger)
        #expect(message == nil)
        #expect(try store.loadQueue() == Self.queueRows)
    }

    @Test func tracksQueueAndPlaybackRoundTrip() throws {
        let dir = try TemporaryDirectory()
        let store = try storeWithTracks(
            dir,
            [
                "b.mp3": "TAG Bee|Artist B|Album|2|61000",
                "a.mp3": "TAG Ay|Artist A|Album|1|3723000",
                "broken.mp3": "BAD truncated frame",
            ])
        let playable = try store.playableTracks()
        #expect(playable.map(\.path) == ["a.mp3", "b.mp3"])
        let a = try #require(playable.first)
        #expect(a.title == "Ay")
        #expect(a.artist == "Artist A")
        #expect(a.album == "Album")
        #expect(a.trackNumber == 1)
        #expect(a.durationMs == 3_723_000)
        #expect(a.problem == nil)
        #expect(try store.track(id: a.id) == a)
        #expect(try store.track(id: 9999) == nil)
        let problems = try store.tracksWithProblems()
        #expect(problems.map(\.path) == ["broken.mp3"])
        #expect(problems.first?.problem == "truncated frame")

        let ids = playable.map(\.id)
        #expect(try store.tracks(ids: [ids[1], 9999, ids[0], ids[1]]).map(\.path) == ["b.mp3", "a.mp3", "b.mp3"])

        let rows = [QueueRecord(trackID: ids[1], entryID: 1), QueueRecord(trackID: ids[0], entryID: 2)]
        try store.saveQueue(rows)
        #expect(try store.loadQueue() == rows)
        try store.saveQueue([])
        #expect(try store.loadQueue() == [])

        let record = PlaybackRecord(
            queueIndex: 1, trackID: ids[0], positionMs: 123_456, state: "playing", mode: "shuffle", volume: 40,
            shuffleOrder: [1, 0, 2], shuffleHistory: [2], rngState: [UInt64.max, 0, 42, 1 << 63], queueVersion: 17,
            journalSequence: 99, nextEntryID: 40000)
        try store.savePlayback(record, durable: true, rememberTrackPosition: true)
        #expect(try store.loadPlayback() == record)
        #expect(try store.position(ofTrack: ids[0]) == 123_456)
        var paused = record
        paused.state = "paused"
        paused.queueIndex = nil
        paused.shuffleOrder = []
        try store.savePlayback(paused, durable: false)
        #expect(try store.loadPlayback() == paused)

        try store.setPosition(5000, ofTrack: ids[1])
        #expect(try store.position(ofTrack: ids[1]) == 5000)
        #expect(try store.savedSeekHints().isEmpty)
        let hint = SeekHint(mpegFrame: 180_000, byteOffset: 96_000_123, fileSize: 120_000_000)
        try store.setPosition(4_700_000, hint: hint, ofTrack: ids[1])
        #expect(try store.savedSeekHints() == [ids[1]: hint])
        try store.setPosition(nil, ofTrack: ids[1])
        #expect(try store.position(ofTrack: ids[1]) == nil)
        #expect(try store.savedSeekHints().isEmpty)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func countsDurableCommits() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try LibraryStore.open(path: dir.file("jukebox.sqlite"), logger: quietLogger)
        let before = (store.commitCount, store.durableCommitCount)
        let record = PlaybackRecord(
            queueIndex: 0, trackID: 1, positionMs: 0, state: "playing", mode: "in-order", volume: 30)
        try store.savePlayback(record, durable: true)
        try store.savePlayback(record, durable: false)
        try store.savePlayback(record, durable: false)
        #expect(store.commitCount - before.0 == 3)
        #expect(store.durableCommitCount - before.1 == 1)
    }

    // MARK: damaged databases

    func expectRecovery(_ dir: TemporaryDirectory, damage: (String) -> Void) throws {
        let path = dir.file("jukebox.sqlite")
        damage(path)
        let handler = RecordingLogHandler()
        let (store, message) = try LibraryStore.open(path: path, logger: handler.logger())
        let text = try #require(message)
        #expect(text.contains("database \(path) is damaged"))
        #expect(text.contains("moved it to \(path).damaged-1"))
        #expect(handler.messages == [text])
        #expect(fileExists(path + ".damaged-1"))
        #expect(try store.trackCount() == 0)
        try store.saveQueue([QueueRecord(trackID: 1)])
        #expect(try store.loadQueue() == [QueueRecord(trackID: 1)])
        #expect(try store.integrityCheck() == ["ok"])
    }

    /// The daemon's connections leave the WAL at close; the damage tests hit the main file,
    /// so first move the pages there, as an auto-checkpoint does on a long-lived database.
    func foldWALIntoFile(_ path: String) {
        let connection = try! Connection(path: path)
        _ = try! connection.strings("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    @Test func randomBytesAreMovedAside() throws {
        let dir = try TemporaryDirectory()
        try expectRecovery(dir) { path in
            var generator = SplitMix64(seed: 8192)
            writeFile(path, (0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
    }

    @Test func textFileIsMovedAside() throws {
        let dir = try TemporaryDirectory()
        try expectRecovery(dir) { path in
            writeFile(path, "music_dir = \"/home/pi/Music\"\n# oops, this is the config file\n")
        }
    }

    @Test func truncatedDatabaseIsMovedAside() throws {
        let dir = try TemporaryDirectory()
        try expectRecovery(dir) { path in
            do {
                let (store, _) = try! LibraryStore.open(path: path, logger: quietLogger)
                try! store.saveQueue((0..<3000).map { QueueRecord(trackID: $0) })
            }
            foldWALIntoFile(path)
            var info = stat()
            stat(path, &info)
            #expect(info.st_size > 20 * 1024)
            truncate(path, off_t(info.st_size / 2))
        }
    }

    @Test func garbageInsideTheFileIsMovedAside() throws {
        let dir = try TemporaryDirectory()
        try expectRecovery(dir) { path in
            do {
                let (store, _) = try! LibraryStore.open(path: path, logger: quietLogger)
                try! store.saveQueue((0..<3000).map { QueueRecord(trackID: $0) })
            }
            foldWALIntoFile(path)
            // Overwrite a few pages in the middle (a b-tree page) with garbage, header intact.
            let fd = try! FileDescriptor(path: path, flags: O_WRONLY)
            let garbage = [UInt8](repeating: 0xA5, count: 4096)
            garbage.withUnsafeBytes { try! fd.writeAll($0.baseAddress!, count: $0.count, at: 8192) }
        }
    }

    @Test func secondDamageGetsTheNextNumberAndCompanionFilesMove() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("jukebox.sqlite")
        writeFile(path + ".damaged-1", "older wreck")
        writeFile(path, String(repeating: "not a database ", count: 100))
        writeFile(path + "-position", [UInt8](repeating: 7, count: 32))
        let (_, message) = try LibraryStore.open(path: path, logger: quietLogger)
        #expect(message?.contains("\(path).damaged-2") == true)
        #expect(fileExists(path + ".damaged-2"))
        #expect(fileExists(path + ".damaged-2-position"))
        #expect(!fileExists(path + "-position"))
    }

    @Test func unwritableLocationThrows() throws {
        let dir = try TemporaryDirectory()
        writeFile(dir.file("file"), "x")
        #expect(throws: (any Error).self) {
            _ = try LibraryStore.open(path: dir.file("file/jukebox.sqlite"), logger: quietLogger)
        }
    }
}
