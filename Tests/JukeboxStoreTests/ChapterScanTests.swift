import Glibc
import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import SQLite
import Testing

/// Chapters stored with the track: the probe's (MP4, ID3 CHAP), a CUE sheet's when it is
/// read as chapters, and the files a database from before the column reads again.
@Suite struct ChapterScanTests {
    typealias Fixture = LibraryScannerTests.Fixture

    @Test func theProbesChaptersAreStoredAndReadBack() throws {
        let f = try Fixture(["book.mp3": "TAG Book|A|B|1|600000||300000:Two;0:One", "song.mp3": "TAG Song||||1000"])
        _ = try f.scanner.scan()
        #expect(
            try f.track("book.mp3")?.chapters == [
                Chapter(title: "One", startMs: 0), Chapter(title: "Two", startMs: 300_000),
            ])
        #expect(try f.track("song.mp3")?.chapters == [])
        let raw = try Connection(path: f.database)
        #expect(try raw.strings("SELECT chapters FROM tracks ORDER BY path") == ["0\tOne\n300000\tTwo", ""])
    }

    /// A sheet over one long file (a 5-hour book) is that file's chapters under `auto`; a CD
    /// rip stays tracks; `tracks` keeps every sheet as tracks; a sheet removed takes its
    /// chapters with it.
    @Test func aCueSheetOverOneLongFileIsItsChapters() throws {
        let sheet = """
            FILE "book.mp3" MP3
              TRACK 01 AUDIO
                TITLE "Chapter One"
                INDEX 01 00:00:00
              TRACK 02 AUDIO
                INDEX 01 95:00:00

            """
        let f = try Fixture([
            "book.mp3": "TAG Book|Reader|The Book|1|18000000", "book.cue": sheet,
            "cd.mp3": "TAG CD||||4000000",
            "cd.cue": sheet.replacingOccurrences(of: "book.mp3", with: "cd.mp3").replacingOccurrences(
                of: "95:00:00", with: "30:00:00"),
        ])
        let scanner = makeScanner(database: f.database, music: f.music, cueSheets: .auto)
        _ = try scanner.scan()
        #expect(
            try f.store.playableTracks().map(\.path) == ["book.mp3", "cd.cue/track0001", "cd.cue/track0002"])
        #expect(
            try f.track("book.mp3")?.chapters == [
                Chapter(title: "Chapter One", startMs: 0), Chapter(title: "Track 02", startMs: 5_700_000),
            ])
        let again = try scanner.scan()
        #expect(again.updated == 0, "\(again)")

        _ = try makeScanner(database: f.database, music: f.music, cueSheets: .tracks).scan()
        #expect(
            try f.store.playableTracks().map(\.path) == [
                "book.cue/track0001", "book.cue/track0002", "cd.cue/track0001", "cd.cue/track0002",
            ])
        #expect(try f.store.track(id: 1)?.chapters == [])

        _ = try scanner.scan()
        #expect(try f.track("book.mp3")?.chapters.count == 2)
        unlink(f.music + "/book.cue")
        _ = try scanner.scan()
        #expect(try f.track("book.mp3")?.chapters == [])
    }

    /// A database from before the chapters column: only long MP3 and MP4 files are read
    /// again (they may hold chapters); the others count as read.
    @Test func aVersion8DatabaseReadsLongFilesAgainForTheirChapters() throws {
        let f = try Fixture([
            "book.mp3": "TAG Book||||600000", "song.mp3": "TAG Song||||200000", "long.wav": "TAG Wave||||900000",
        ])
        _ = try f.scanner.scan()
        #expect(f.counter.value == 3)
        f.add("book.mp3", "TAG Book||||600000||0:Start;60000:Later")
        setModificationTime(f.music + "/book.mp3", seconds: 1000)
        let raw = try Connection(path: f.database)
        try raw.execute(
            """
            UPDATE tracks SET mtime_ns = 1000000000000, size = \("TAG Book||||600000||0:Start;60000:Later".utf8.count)
                WHERE path = 'book.mp3';
            ALTER TABLE tracks DROP COLUMN chapters;
            ALTER TABLE tracks DROP COLUMN cue_chapters;
            ALTER TABLE tracks DROP COLUMN speed;
            DROP TABLE streams;
            DROP TABLE episodes;
            DROP TABLE podcasts;
            ALTER TABLE tag_cards DROP COLUMN name;
            ALTER TABLE tag_cards DROP COLUMN last_used;
            PRAGMA user_version = 8;
            """)
        let store = try LibraryStore.open(path: f.database, logger: quietLogger).store
        let report = try f.scanner.scan()
        #expect(f.counter.value == 4, "only book.mp3 probed again")
        #expect(report.unchanged == 2, "\(report)")
        #expect(
            try store.playableTracks().first { $0.path == "book.mp3" }?.chapters.map(\.title) == ["Start", "Later"])
    }
}
