import Foundation
import Glibc
import JukeboxTestSupport
import SQLite
import Testing

/// Chapters in the running daemon, on files the test makes: an M4B with a chapter list
/// (ffmpeg from an ffmetadata file), an MP3 with ID3v2 CHAP/CTOC frames (python3-mutagen) and
/// a CUE sheet read as a WAV's chapters. Driven through the stdin console: the chapter in
/// `status` and on the terminal display, next/previous by chapter, skips, scrubbing with the
/// knob, the sleep timer to the end of the chapter.
@Suite(.serialized) struct ChapterDaemonTests {
    static let display = """

        [display]
        kind = "terminal"
        columns = 20
        rows = 4

        [sleep]
        fade_s = 1
        """

    /// A 40 s AAC book with chapters at 0, 15 and 30 s.
    static func book(_ media: EncodedMedia) throws -> String {
        let metadata = media.file("chapters.txt")
        try """
        ;FFMETADATA1
        title=The Book
        artist=The Author

        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=15000
        title=Opening

        [CHAPTER]
        TIMEBASE=1/1000
        START=15000
        END=30000
        title=Middle

        [CHAPTER]
        TIMEBASE=1/1000
        START=30000
        END=40000
        title=Ending

        """.write(toFile: metadata, atomically: true, encoding: .utf8)
        let path = media.file("Book.m4b")
        try EncodedMedia.tool([
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", try media.wav("book.wav", seconds: 40), "-i", metadata,
            "-map", "0", "-map_metadata", "1", "-map_chapters", "1", "-c:a", "aac", "-b:a", "64k", path,
        ])
        return path
    }

    /// The chapter lines of the console's `status` (they follow the player's lines).
    static func chapter(_ harness: DaemonHarness) -> (title: String, elapsed: Double)? {
        guard let process = harness.process else { return nil }
        process.skipOutput()
        harness.send("status")
        guard let title = process.waitForLine(matching: "chapter_title: ", on: .stdout, timeout: .seconds(3)),
            let elapsed = process.waitForLine(matching: "chapter_elapsed: ", on: .stdout, timeout: .seconds(3))
        else { return nil }
        return (
            String(title.dropFirst("chapter_title: ".count)),
            Double(elapsed.dropFirst("chapter_elapsed: ".count)) ?? -1
        )
    }

    @Test func anM4BMovesByChapterAndShowsIt() throws {
        let sources = try TemporaryDirectory(prefix: "jukebox-chapters")
        defer { sources.remove() }
        let media = EncodedMedia(directory: sources.path)
        let harness = try DaemonHarness(tracks: [try Self.book(media)], configExtra: Self.display, mode: "in-order")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "playing \"The Book\"", on: .stderr) != nil, "\(harness.log)")
        let connection = try Connection(path: harness.database)
        #expect(
            try connection.strings("SELECT chapters FROM tracks") == ["0\tOpening\n15000\tMiddle\n30000\tEnding"])

        #expect(Self.chapter(harness)?.title == "Opening", "\(harness.log)")
        // Row 1 leads with the chapter; row 3 gives its number.
        #expect(process.waitForLine(matching: "lcd| Opening – The Book |", on: .stderr) != nil, "\(harness.log)")
        #expect(process.waitForLine(matching: "| Ch 1/3  0:", on: .stderr) != nil, "\(harness.log)")

        harness.send("next")
        var status = harness.waitForStatus { $0.elapsed >= 15 }
        #expect(status.map { $0.elapsed < 16.5 && $0.playlistLength == 1 } == true, "\(String(describing: status))")
        #expect(Self.chapter(harness)?.title == "Middle")

        harness.send("skip +10")
        status = harness.waitForStatus { $0.elapsed >= 25 }
        #expect(status.map { $0.elapsed < 27 } == true, "\(String(describing: status))")
        harness.send("skip -30")
        status = harness.waitForStatus { $0.elapsed < 2 }
        #expect(status != nil, "skip -30 from 25 s goes to the start")
        harness.send("skip +30")
        #expect(harness.waitForStatus { $0.elapsed >= 30 } != nil)
        let ending = Self.chapter(harness)
        #expect(ending?.title == "Ending" && (ending?.elapsed ?? 9) < 2, "\(String(describing: ending))")
        // Within 3 s of the chapter's start, previous goes to the chapter before.
        harness.send("previous")
        status = harness.waitForStatus { $0.elapsed < 20 }
        #expect(status.map { $0.elapsed >= 15 } == true, "\(String(describing: status))")
        #expect(Self.chapter(harness)?.title == "Middle")

        // Scrub: the knob turned with the switch held moves a target, shown on the display;
        // the player stays where it is until the switch is let go.
        let before = try #require(harness.status()).elapsed
        harness.send("knob scrub +2")
        #expect(process.waitForLine(matching: "| » 0:3", on: .stderr) != nil, "\(harness.log)")
        let during = try #require(harness.status()).elapsed
        #expect(during < before + 3, "no jump before the release: \(before) -> \(during)")
        harness.send("knob scrub end")
        status = harness.waitForStatus { $0.elapsed >= before + 19 }
        #expect(status.map { $0.elapsed < before + 23 } == true, "\(String(describing: status)), from \(before)")
        #expect(waitUntil { harness.log.contains("scrub: to 0:3") }, "\(harness.log)")

        // The sleep timer to the end of the chapter: it stops at 30 s, not at the book's end.
        harness.send("seek 27")
        #expect(harness.waitForStatus { $0.elapsed >= 27 } != nil)
        harness.send("sleep chapter")
        #expect(process.waitForLine(matching: "sleep: end of chapter", on: .stdout) != nil, "\(harness.log)")
        let stopped = process.waitForOutputLine(matching: "sleep timer: time is up", on: .stderr, timeout: .seconds(8))
        #expect(stopped != nil, "\(harness.log)")
        #expect(harness.status()?.state == "stop")
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)
    }

    /// An MP3 whose ID3v2.4 tag holds a top-level CTOC and CHAP frames (written by mutagen):
    /// its chapters are read at the scan, `next`/`previous` move by them, and with
    /// `navigate = false` they move by track again.
    @Test func id3ChaptersOfAnMP3() throws {
        let sources = try TemporaryDirectory(prefix: "jukebox-chapters")
        defer { sources.remove() }
        let media = EncodedMedia(directory: sources.path)
        let mp3 = media.file("Episode.mp3")
        try EncodedMedia.tool(["lame", "--quiet", "-V", "6", try media.wav("e.wav", seconds: 30), mp3])
        try EncodedMedia.tool([
            "/usr/bin/python3", Fixtures.path("Tests/Tools/id3-chapters.py"), mp3, "0:Welcome", "12000:News",
            "24000:Goodbye ☺", "30000",
        ])
        let other = media.file("Other.mp3")
        try EncodedMedia.tool(["lame", "--quiet", "-V", "6", try media.wav("o.wav", seconds: 5), other])

        let harness = try DaemonHarness(tracks: [mp3, other], configExtra: Self.display, mode: "in-order")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "playing \"Episode\"", on: .stderr) != nil, "\(harness.log)")
        let connection = try Connection(path: harness.database)
        #expect(
            try connection.strings("SELECT chapters FROM tracks ORDER BY path") == [
                "0\tWelcome\n12000\tNews\n24000\tGoodbye ☺", "",
            ])
        #expect(Self.chapter(harness)?.title == "Welcome")
        harness.send("next")
        #expect(harness.waitForStatus { $0.elapsed >= 12 } != nil)
        #expect(Self.chapter(harness)?.title == "News")
        harness.send("next")
        #expect(harness.waitForStatus { $0.elapsed >= 24 } != nil)
        #expect(Self.chapter(harness)?.title == "Goodbye ☺")
        // From the last chapter, next leaves the file.
        harness.send("next")
        #expect(process.waitForLine(matching: "playing \"Other\"", on: .stderr) != nil, "\(harness.log)")
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)

        try String(contentsOfFile: harness.configPath, encoding: .utf8).appending("\n[chapters]\nnavigate = false\n")
            .write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        let again = try harness.start()
        harness.send("play 1")
        #expect(again.waitForLine(matching: "playing \"Episode\"", on: .stderr) != nil, "\(harness.log)")
        again.skipOutput()
        harness.send("next")
        #expect(again.waitForLine(matching: "playing \"Other\"", on: .stderr) != nil, "\(harness.log)")
        again.kill(SIGTERM)
        #expect(again.waitForExit(timeout: .seconds(3)) == 0)
    }

    /// A CUE sheet over one WAV, with `cue_sheets = "chapters"`: the WAV is one song whose
    /// chapters are the sheet's tracks (no `album.cue/trackN` songs); with the default rule
    /// (`auto`, over 80 minutes) the same 20 s sheet stays tracks, as MPD lists it.
    @Test func aCueSheetAsChapters() throws {
        let sources = try TemporaryDirectory(prefix: "jukebox-chapters")
        defer { sources.remove() }
        let media = EncodedMedia(directory: sources.path)
        let wav = try media.wav("whole.wav", seconds: 20)
        let sheet = media.file("whole.cue")
        try """
        TITLE "A Book"
        FILE "whole.wav" WAVE
          TRACK 01 AUDIO
            TITLE "Part One"
            INDEX 01 00:00:00
          TRACK 02 AUDIO
            TITLE "Part Two"
            INDEX 01 00:08:00

        """.write(toFile: sheet, atomically: true, encoding: .utf8)
        let harness = try DaemonHarness(
            tracks: [wav, sheet], configExtra: Self.display + "\n\n[chapters]\ncue_sheets = \"chapters\"\n",
            mode: "in-order")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "playing \"whole\"", on: .stderr) != nil, "\(harness.log)")
        let connection = try Connection(path: harness.database)
        #expect(try connection.strings("SELECT path FROM tracks ORDER BY path") == ["whole.wav"])
        #expect(try connection.strings("SELECT cue_chapters FROM tracks") == ["0\tPart One\n8000\tPart Two"])
        #expect(Self.chapter(harness)?.title == "Part One")
        harness.send("next")
        #expect(harness.waitForStatus { $0.elapsed >= 8 } != nil)
        #expect(Self.chapter(harness)?.title == "Part Two")
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)

        // The default rule: a 20 s file is no audiobook; the sheet's tracks are songs again
        // and the file's chapters from the sheet are gone.
        let config = try String(contentsOfFile: harness.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "cue_sheets = \"chapters\"", with: "cue_sheets = \"auto\"")
            .write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        let again = try harness.start()
        #expect(again.waitForLine(matching: "library scan", on: .stderr) != nil, "\(harness.log)")
        let rows = "SELECT path FROM tracks ORDER BY path"
        #expect(
            waitUntil {
                (try? connection.strings(rows)) == ["whole.cue/track0001", "whole.cue/track0002", "whole.wav"]
            },
            "\((try? connection.strings(rows)) ?? [])")
        #expect(try connection.strings("SELECT count(*) FROM tracks WHERE cue_chapters IS NOT NULL") == ["0"])
        again.kill(SIGTERM)
        #expect(again.waitForExit(timeout: .seconds(3)) == 0)
    }
}
