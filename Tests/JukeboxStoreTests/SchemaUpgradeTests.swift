import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import SQLite
import Testing

@testable import JukeboxStore

/// A box's database at every schema version shipped before this one
/// (Tests/Fixtures/schemas/vN.sql, Tests/Fixtures/make-schema-fixtures.py) opens with this
/// code and keeps everything: the queue and the paused place, a long track's position, the
/// stickers and settings, Recently played, the cards with their places (which take a name and
/// a last use after the upgrade), queue ids and a station in the queue, each from the version
/// that introduced it.
@Suite struct SchemaUpgradeTests {
    static let oldVersions = Array(1..<Int(Schema.currentVersion))

    /// Loads `vN.sql` into a new database file with the sqlite3 shell, as a box's file is.
    static func database(version: Int, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("jukebox.sqlite")
        let result = try run(
            ["sqlite3", path, ".read \(Fixtures.repoRoot)/Tests/Fixtures/schemas/v\(version).sql"])
        #expect(result.status == 0, "\(result.stderrText)")
        return path
    }

    @Test func everyShippedVersionHasAFixture() {
        for version in Self.oldVersions {
            #expect(
                FileSystem.exists("\(Fixtures.repoRoot)/Tests/Fixtures/schemas/v\(version).sql"),
                "v\(version).sql: run Tests/Fixtures/make-schema-fixtures.py after appending a migration")
        }
    }

    @Test(arguments: oldVersions) func upgradesKeepEverything(version: Int) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.database(version: version, in: dir)
        let (store, message) = try LibraryStore.open(path: path, logger: quietLogger)
        #expect(message == nil, "the upgrade moved the database aside: \(message ?? "")")
        #expect(try Connection(path: path).scalarInt("PRAGMA user_version") == Schema.currentVersion)
        #expect(try store.integrityCheck() == ["ok"])

        #expect(try store.trackCount() == 3)
        let queue = try store.loadQueue()
        #expect(Array(queue.map(\.trackID).prefix(3)) == [1, 2, 3])
        let playback = try #require(try store.loadPlayback())
        #expect(playback.queueIndex == 1 && playback.trackID == 2 && playback.positionMs == 61_500)
        #expect(playback.state == "paused" && playback.mode == "in-order" && playback.volume == 35)
        #expect(try store.position(ofTrack: 3) == 754_000)

        if version >= 4 {
            #expect(try store.sticker(type: "song", uri: "Album/01 One.mp3", name: "rating") == "5")
            #expect(try store.setting("replay_gain_mode") == "album")
        }
        if version >= 5 {
            let recent = try store.recentlyPlayed()
            #expect(
                recent.entries == [
                    .init(source: .folder(path: "Album"), trackPath: "Album/02 Two.mp3", positionMs: 61_500)
                ])
            #expect(recent.newestHoldsQueue)
        }
        if version >= 7 {
            let cards = try store.tagCards().sorted { $0.id < $1.id }
            #expect(
                cards == [
                    TagCard(
                        id: "04A1B2C3", content: .source(.folder(path: "Book")), policy: .continue,
                        place: .init(trackPath: "Book/book.mp3", positionMs: 754_000)),
                    TagCard(id: "DEADBEEF", content: .source(.album(artist: "Artist", album: "Album"))),
                ])
            // Version 14's columns on an upgraded card: a name and a last use beside its place.
            #expect(try store.setTagCardName("yellow car", id: "04A1B2C3"))
            try store.setTagCardLastUsed(1_796_715_120, id: "04A1B2C3")
            let named = try #require(try store.tagCard(id: "04A1B2C3"))
            #expect(named.name == "yellow car" && named.lastUsed == 1_796_715_120)
            #expect(named.place == .init(trackPath: "Book/book.mp3", positionMs: 754_000) && named.policy == .continue)
        }
        if version >= 8 {
            #expect(queue.prefix(3).map(\.entryID) == [1, 2, 3])
            #expect(playback.nextEntryID == (version >= 12 ? 5 : 4))
        }
        if version >= 12 {
            #expect(queue.count == 4 && queue[3].trackID == -1)
            #expect(try store.streams().values.sorted() == ["http://radio.example/jazz.mp3"])
        }
    }

    /// The fixture of the last shipped version, migrated, has the schema a new database gets:
    /// a migration edited after it shipped would make them differ.
    @Test func migratedSchemaIsTheNewDatabasesSchema() throws {
        let dir = try TemporaryDirectory()
        let old = try Self.database(version: Self.oldVersions.last ?? 1, in: dir)
        _ = try LibraryStore.open(path: old, logger: quietLogger)
        let fresh = dir.file("fresh.sqlite")
        _ = try LibraryStore.open(path: fresh, logger: quietLogger)
        let schema = { (path: String) in
            try Connection(path: path).strings("SELECT name || ':' || sql FROM sqlite_master ORDER BY name")
                .map { $0.replacingSpaces }
        }
        #expect(try schema(old) == schema(fresh))
    }

    /// A database of a newer jukeboxd (a downgrade) is refused with what to do, and left as it
    /// is: installing the newer version again finds every card and place.
    @Test func aNewerDatabaseIsRefusedAndKept() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.database(version: Self.oldVersions.last ?? 1, in: dir)
        let newer = Schema.currentVersion + 1
        try Connection(path: path).execute("PRAGMA user_version=\(newer)")
        #expect {
            _ = try LibraryStore.open(path: path, logger: quietLogger)
        } throws: { error in
            guard let refused = error as? LibraryStore.NewerDatabase else { return false }
            return refused.found == newer && refused.description.contains("newer jukeboxd")
        }
        #expect(!FileSystem.exists(path + ".damaged-1"))
        #expect(try Connection(path: path).scalarInt("PRAGMA user_version") == newer)
        #expect(try Connection(path: path).strings("SELECT id FROM tag_cards ORDER BY id") == ["04A1B2C3", "DEADBEEF"])
    }
}

extension String {
    /// Runs of spaces and line breaks as one space: `ALTER TABLE` and `CREATE TABLE` lay out
    /// the same columns differently.
    fileprivate var replacingSpaces: String {
        split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }
}
