import Glibc
import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import SQLite
import Testing

@Suite struct LibraryScannerTests {
    /// A music directory, a database and a scanner over them.
    final class Fixture {
        let dir: TemporaryDirectory
        let counter = ProbeCounter()
        let handler = RecordingLogHandler()
        var music: String { dir.file("music") }
        var database: String { dir.file("jukebox.sqlite") }
        let store: LibraryStore
        lazy var scanner = makeScanner(
            database: database, music: music, lyrics: dir.file("lyrics"), counter: counter, logger: handler.logger())

        init(_ files: [String: String] = [:]) throws {
            dir = try TemporaryDirectory()
            makeDirectories(dir.file("music"))
            for (path, text) in files { writeFile(dir.file("music/" + path), text) }
            store = try LibraryStore.open(path: dir.file("jukebox.sqlite"), logger: quietLogger).store
        }

        func add(_ path: String, _ text: String = "") { writeFile(music + "/" + path, text) }
        func tracks() throws -> [TrackRecord] { try store.playableTracks() + store.tracksWithProblems() }
        func track(_ path: String) throws -> TrackRecord? { try tracks().first { $0.path == path } }
    }

    @Test func tagsAndFormatAreStored() throws {
        let f = try Fixture(["a.mp3": "TAG T|A|B|1|1000|Genre=Rock;Date=2001;Genre=Pop;Disc=2", "b.mp3": "x"])
        _ = try f.scanner.scan()
        let a = try #require(try f.track("a.mp3"))
        #expect(
            a.tags == [
                TrackTag(.genre, "Rock"), TrackTag(.date, "2001"), TrackTag(.genre, "Pop"), TrackTag(.disc, "2"),
            ])
        #expect(a.format == "44100:16:2")
        #expect(try f.track("b.mp3")?.tags == [])
    }

    /// A database from before the tags column: the next scan reads the tags of the playable
    /// files again (once), keeps their remembered positions and leaves unplayable ones alone.
    @Test func aVersion2DatabaseIsMigratedAndItsTagsRead() throws {
        let dir = try TemporaryDirectory()
        let music = dir.file("music")
        makeDirectories(music)
        let tagged = "TAG T|A|B|1|1000|Genre=Rock"
        writeFile(music + "/a.mp3", tagged)
        writeFile(music + "/bad.mp3", "BAD broken")
        setModificationTime(music + "/a.mp3", seconds: 1000)
        setModificationTime(music + "/bad.mp3", seconds: 1000)
        let database = dir.file("jukebox.sqlite")
        try makeOldDatabase(
            at: database, version: 2,
            rows: """
                INSERT INTO tracks(path, size, mtime_ns, title, artist, last_position_ms)
                    VALUES ('a.mp3', \(tagged.utf8.count), 1000000000000, 'T', 'A', 600000);
                INSERT INTO tracks(path, size, mtime_ns, title, problem)
                    VALUES ('bad.mp3', 10, 1000000000000, 'bad', 'broken');
                """)
        let store = try LibraryStore.open(path: database, logger: quietLogger).store
        #expect(try Connection(path: database).scalarInt("PRAGMA user_version") == 14)
        #expect(try store.track(id: 1)?.tags == [])
        let counter = ProbeCounter()
        let scanner = makeScanner(database: database, music: music, counter: counter)
        let first = try scanner.scan()
        #expect(first.updated == 1 && first.unchanged == 1 && counter.value == 1)
        let track = try #require(try store.track(id: 1))
        #expect(track.tags == [TrackTag(.genre, "Rock")] && track.format == "44100:16:2")
        #expect(track.lastPositionMs == 600_000)
        let second = try scanner.scan()
        #expect(second.unchanged == 2 && counter.value == 1)
    }

    @Test func firstScanAddsAudioFilesOnly() throws {
        let f = try Fixture([
            "Artist/Album/01 One.mp3": "TAG One|Artist|Album|1|1000",
            "Artist/Album/02 Two.MP3": "x",
            "Artist/Album/cover.jpg": "jpeg",
            "Artist/Album/notes.txt": "text",
            "loose.wav": "x",
            ".hidden.mp3": "x",
            ".hiddendir/inside.mp3": "x",
            "noext": "x",
        ])
        let report = try f.scanner.scan()
        #expect(report.added == 3)
        #expect((report.updated, report.removed, report.unchanged) == (0, 0, 0))
        #expect(report.skipped.isEmpty)
        #expect(
            try f.store.playableTracks().map(\.path) == [
                "Artist/Album/01 One.mp3", "Artist/Album/02 Two.MP3", "loose.wav",
            ])
    }

    /// A file that changed (retagged, replaced) forgets its remembered position and the seek
    /// hint that went with it: both described the old file.
    @Test func aChangedFileForgetsItsPositionAndSeekHint() throws {
        let f = try Fixture(["book.mp3": "TAG Book|Reader|Books|1|7200000"])
        _ = try f.scanner.scan()
        let id = try #require(try f.track("book.mp3")).id
        try f.store.setPosition(3_600_000, hint: SeekHint(mpegFrame: 9, byteOffset: 9, fileSize: 9), ofTrack: id)
        #expect(try f.store.savedSeekHints().count == 1)
        f.add("book.mp3", "TAG Book|Reader|Books|1|7200000 retagged")
        let report = try f.scanner.scan()
        #expect(report.updated == 1)
        #expect(try f.store.position(ofTrack: id) == nil)
        #expect(try f.store.savedSeekHints().isEmpty)
    }

    @Test func incrementalRescanProbesOnlyChangedFiles() throws {
        let f = try Fixture(["a.mp3": "TAG A", "b.mp3": "TAG B", "c.mp3": "TAG C"])
        _ = try f.scanner.scan()
        #expect(f.counter.value == 3)
        let idBefore = try #require(try f.track("b.mp3")).id

        let unchanged = try f.scanner.scan()
        #expect((unchanged.added, unchanged.updated, unchanged.removed, unchanged.unchanged) == (0, 0, 0, 3))
        #expect(unchanged.commits == 0)
        #expect(f.counter.value == 3)

        f.add("b.mp3", "TAG B2")
        setModificationTime(f.music + "/b.mp3", seconds: 1_700_000_000, nanoseconds: 123)
        let touched = try f.scanner.scan()
        #expect((touched.added, touched.updated, touched.removed, touched.unchanged) == (0, 1, 0, 2))
        #expect(f.counter.value == 4)
        let b = try #require(try f.track("b.mp3"))
        #expect(b.id == idBefore)
        #expect(b.title == "B2")
        #expect(b.mtimeNs == 1_700_000_000_000_000_123)

        // Same size, only the nanoseconds of the mtime differ: still a change.
        setModificationTime(f.music + "/b.mp3", seconds: 1_700_000_000, nanoseconds: 124)
        #expect(try f.scanner.scan().updated == 1)
    }

    @Test func vanishedFilesAreRemoved() throws {
        let f = try Fixture(["keep.mp3": "x", "gone.mp3": "x", "dir/gone too.mp3": "x"])
        _ = try f.scanner.scan()
        unlink(f.music + "/gone.mp3")
        unlink(f.music + "/dir/gone too.mp3")
        rmdir(f.music + "/dir")
        let report = try f.scanner.scan()
        #expect(report.removed == 2)
        #expect(report.unchanged == 1)
        #expect(try f.tracks().map(\.path) == ["keep.mp3"])
    }

    @Test func missingMusicDirectoryThrowsAndRemovesNothing() throws {
        let f = try Fixture(["a.mp3": "x"])
        _ = try f.scanner.scan()
        rename(f.music, f.dir.file("elsewhere"))
        #expect(throws: Errno.self) { try f.scanner.scan() }
        #expect(try f.store.trackCount() == 1)
    }

    @Test func symlinkLoopsTerminate() throws {
        let f = try Fixture(["a/song.mp3": "x", "a/b/deep.mp3": "x"])
        symlink("..", f.music + "/a/b/up")  // a/b/up -> a
        symlink(f.music, f.music + "/a/root")  // absolute link to the root
        symlink(f.music + "/a/b/deep.mp3", f.music + "/linked.mp3")  // file symlinks are followed
        symlink(f.music + "/nowhere.mp3", f.music + "/dangling.mp3")
        let report = try f.scanner.scan()
        #expect(report.added == 3)
        #expect(try f.tracks().map(\.path).sorted() == ["a/b/deep.mp3", "a/song.mp3", "linked.mp3"])
    }

    @Test func badFilesAreRecordedWithTheirReason() throws {
        let f = try Fixture([
            "good.mp3": "TAG Good", "bad/empty.mp3": "", "bad/junk.mp3": "BAD no frame sync in 4096 bytes",
        ])
        let report = try f.scanner.scan()
        #expect(report.added == 1)
        #expect(
            report.skipped == [
                .init(path: "bad/empty.mp3", reason: "not an MPEG audio file (0 bytes)"),
                .init(path: "bad/junk.mp3", reason: "no frame sync in 4096 bytes"),
            ])
        #expect(f.handler.messages.contains("skipped bad/empty.mp3: not an MPEG audio file (0 bytes)"))
        #expect(f.handler.messages.contains("skipped bad/junk.mp3: no frame sync in 4096 bytes"))
        let problems = try f.store.tracksWithProblems()
        #expect(problems.map(\.problem) == ["not an MPEG audio file (0 bytes)", "no frame sync in 4096 bytes"])
        #expect(try f.store.playableTracks().map(\.path) == ["good.mp3"])

        // Unchanged bad files are not probed or logged again; a fixed one becomes playable.
        let probes = f.counter.value
        f.add("bad/empty.mp3", "TAG Fixed")
        let again = try f.scanner.scan()
        #expect(f.counter.value == probes + 1)
        #expect(again.updated == 1)
        #expect(again.skipped.isEmpty)
        #expect(try f.store.playableTracks().map(\.title) == ["Fixed", "Good"])
    }

    @Test func unicodeFileNames() throws {
        let names = [
            "Björk/Jóga.mp3", "坂本龍一/戦場のメリークリスマス.mp3", "Sigur Rós/( ).mp3", "emoji 🎵/naïve café.wav",
        ]
        let f = try Fixture(Dictionary(uniqueKeysWithValues: names.map { ($0, "x") }))
        let report = try f.scanner.scan()
        #expect(report.added == names.count)
        let stored = try f.tracks()
        #expect(Set(stored.map(\.path)) == Set(names))
        #expect(stored.contains { $0.title == "" && TrackInfo(id: $0.id, path: $0.path).shownTitle == "戦場のメリークリスマス" })
        #expect(try f.scanner.scan().unchanged == names.count)
    }

    @Test func invalidUTF8NamesAreSkipped() throws {
        let f = try Fixture(["ok.mp3": "x"])
        var bytes: [CChar] = Array((f.music + "/bad-").utf8CString.dropLast())
        bytes += [CChar(bitPattern: 0xFF), CChar(bitPattern: 0xFE)] + Array(".mp3".utf8CString)
        let fd = bytes.withUnsafeBufferPointer { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        #expect(fd >= 0)
        close(fd)
        let report = try f.scanner.scan()
        #expect(report.added == 1)
        #expect(report.skipped.map(\.reason) == ["file name is not valid UTF-8"])
    }

    @Test func lyricSidecarsBesideTheTrackOrInTheLyricsDirectory() throws {
        let f = try Fixture([
            "A/one.mp3": "x", "A/one.lrc": "[00:01.00]la",
            "A/two.mp3": "x", "A/two.KSC": "karaoke",
            "A/three.mp3": "x",
            "B/four.mp3": "x",
            "B/five.mp3": "x",
            "B/six.mp3": "x", "B/six.lrc": "beside wins",
        ])
        writeFile(f.dir.file("lyrics/A/three.lrc"), "mirrored")
        writeFile(f.dir.file("lyrics/four.ksc"), "flat")
        writeFile(f.dir.file("lyrics/six.lrc"), "loses")
        _ = try f.scanner.scan()
        #expect(try f.track("A/one.mp3")?.lyricPath == f.music + "/A/one.lrc")
        #expect(try f.track("A/two.mp3")?.lyricPath == f.music + "/A/two.KSC")
        #expect(try f.track("A/three.mp3")?.lyricPath == f.dir.file("lyrics/A/three.lrc"))
        #expect(try f.track("B/four.mp3")?.lyricPath == f.dir.file("lyrics/four.ksc"))
        #expect(try f.track("B/five.mp3")?.lyricPath == nil)
        #expect(try f.track("B/six.mp3")?.lyricPath == f.music + "/B/six.lrc")

        // A sidecar added later is picked up without probing the unchanged track again.
        let probes = f.counter.value
        writeFile(f.music + "/B/five.lrc", "late")
        let report = try f.scanner.scan()
        #expect(report.updated == 1)
        #expect(f.counter.value == probes)
        #expect(try f.track("B/five.mp3")?.lyricPath == f.music + "/B/five.lrc")
    }

    /// As MPD: a file without a title tag (or with a blank one) has no title; the screen and the
    /// menu show its file name instead.
    @Test func untaggedFilesHaveNoTitle() throws {
        let f = try Fixture([
            "Album/07 - Some Song.mp3": "untagged", "blank.mp3": "TAG   |Artist", "v1.2.final.wav": "x",
            "Named.mp3": "TAG Named|Artist",
        ])
        _ = try f.scanner.scan()
        #expect(try f.track("Album/07 - Some Song.mp3")?.title == "")
        #expect(try f.track("blank.mp3")?.title == "")
        #expect(try f.track("blank.mp3")?.artist == "Artist")
        #expect(try f.track("v1.2.final.wav")?.title == "")
        #expect(try f.track("Named.mp3")?.title == "Named")
    }

    /// A version 8 database stored the file name as an untagged file's title: the files whose
    /// title may be their file name are read again by the next scan (once), the others not.
    @Test func fileNameTitlesOfAnOlderDatabaseAreReadAgain() throws {
        let dir = try TemporaryDirectory()
        let music = dir.file("music")
        let files = [
            "Album/plain.mp3": "untagged", "Album/Same.mp3": "TAG Same|A", "other.mp3": "TAG Other title|A",
        ]
        for (path, text) in files {
            writeFile(music + "/" + path, text)
            setModificationTime(music + "/" + path, seconds: 1000)
        }
        let database = dir.file("jukebox.sqlite")
        try makeOldDatabase(
            at: database, version: 3,
            rows: files.keys.sorted().map { path in
                let title =
                    files[path]!.hasPrefix("TAG ")
                    ? String(files[path]!.dropFirst(4).prefix { $0 != "|" })
                    : String(path.split(separator: "/").last!.dropLast(4))
                return """
                    INSERT INTO tracks(path, size, mtime_ns, title, tags, format)
                        VALUES ('\(path)', \(files[path]!.utf8.count), 1000000000000, '\(title)', '', '44100:16:2');
                    """
            }.joined(separator: "\n"))
        let store = try LibraryStore.open(path: database, logger: quietLogger).store
        let counter = ProbeCounter()
        let scanner = makeScanner(database: database, music: music, counter: counter)
        let first = try scanner.scan()
        #expect(first.updated == 2 && first.unchanged == 1 && counter.value == 2)
        let byPath = Dictionary(uniqueKeysWithValues: try store.playableTracks().map { ($0.path, $0.title) })
        #expect(byPath == ["Album/plain.mp3": "", "Album/Same.mp3": "Same", "other.mp3": "Other title"])
        _ = try scanner.scan()
        #expect(counter.value == 2)
    }

    @Test func cancelledScanKeepsCommittedBatches() throws {
        let dir = try TemporaryDirectory()
        for index in 0..<300 { writeFile(dir.file("music/\(index).mp3"), "x") }
        let store = try LibraryStore.open(path: dir.file("db.sqlite"), logger: quietLogger).store
        let counter = ProbeCounter()
        let box = ScannerBox()
        let scanner = LibraryScanner(
            databasePath: store.path, musicDirectory: dir.file("music"), lyricsDirectory: nil,
            audioExtensions: ["mp3", "wav"],
            probe: { path in
                if counter.increment() == 250 { box.scanner?.cancel() }
                return ProbedTags()
            }, logger: quietLogger, batchSize: 100)
        box.scanner = scanner
        #expect(throws: LibraryScanner.Cancelled.self) { try scanner.scan() }
        #expect(try store.trackCount() == 200)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func twoThousandFiles() throws {
        let dir = try TemporaryDirectory()
        for artist in 0..<20 {
            for album in 0..<10 {
                for track in 0..<10 {
                    writeFile(dir.file("music/Artist \(artist)/Album \(album)/\(track) Track.mp3"), [])
                }
            }
        }
        let store = try LibraryStore.open(path: dir.file("db.sqlite"), logger: quietLogger).store
        let scanner = LibraryScanner(
            databasePath: store.path, musicDirectory: dir.file("music"), lyricsDirectory: nil,
            audioExtensions: ["mp3", "wav"],
            probe: { _ in ProbedTags(artist: "A", album: "B", trackNumber: 1, durationMs: 180_000) },
            logger: quietLogger)
        let first = try scanner.scan()
        #expect(first.added == 2000)
        var rescans: [Double] = []
        var last = first
        for _ in 0..<5 {
            last = try scanner.scan()
            #expect(last.unchanged == 2000)
            #expect(last.commits == 0)
            rescans.append(milliseconds(last.duration))
        }
        let loadStart = MonotonicClock.nanoseconds()
        let all = try store.playableTracks()
        let loadMs = Double(MonotonicClock.nanoseconds() - loadStart) / 1e6
        #expect(all.count == 2000)
        print("2,000 files, first scan: \(first)")
        print("2,000 files, unchanged rescan: \(last)")
        print(
            "2,000-file library: first scan \(milliseconds(first.duration)) ms (\(first.commits) commits),"
                + " unchanged rescan \(rescans.map { ($0 * 10).rounded() / 10 }) ms, loading all tracks \(loadMs) ms"
        )
    }
}

/// Lets a probe closure reach the scanner it belongs to.
final class ScannerBox: @unchecked Sendable {
    var scanner: LibraryScanner?
}
