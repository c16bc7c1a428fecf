import Testing

@testable import JukeboxCore

/// The chapter model (which chapter, time in it, next/previous by chapter), ID3v2 CHAP/CTOC
/// frames built byte by byte, the CUE rule, scrubbing with the knob and what the screen shows.
@Suite struct ChapterListTests {
    /// Three chapters of a 10-minute file, given out of order with a duplicate start.
    static let book = ChapterList(
        [
            Chapter(title: "Two", startMs: 120_000), Chapter(title: "Intro", startMs: 500),
            Chapter(title: "Three", startMs: 400_000), Chapter(title: "Two again", startMs: 120_000),
            Chapter(title: "Past the end", startMs: 600_000),
        ], durationMs: 600_000)!

    @Test func sortsDropsAndStartsAtZero() {
        #expect(Self.book.chapters.map(\.title) == ["Intro", "Two", "Three"])
        #expect(Self.book.chapters.map(\.startMs) == [0, 120_000, 400_000])
        #expect(ChapterList([], durationMs: 1000) == nil)
        #expect(ChapterList([Chapter(title: "late", startMs: 5000)], durationMs: 1000) == nil)
    }

    @Test(
        arguments: [
            (0, 0, "Intro", 0, 120_000), (119_999, 0, "Intro", 119_999, 120_000), (120_000, 1, "Two", 0, 280_000),
            (599_000, 2, "Three", 199_000, 200_000),
        ] as [(Int64, Int, String, Int64, Int64)])
    func momentAt(position: Int64, index: Int, title: String, elapsed: Int64, length: Int64) {
        let moment = Self.book.moment(at: position)
        #expect(moment == ChapterMoment(index: index, count: 3, title: title, elapsedMs: elapsed, lengthMs: length))
        #expect(moment.leftMs == length - elapsed)
    }

    @Test func theLastChapterOfAFileOfUnknownLengthHasNoLength() {
        let list = ChapterList([Chapter(title: "a", startMs: 0), Chapter(title: "b", startMs: 1000)], durationMs: nil)!
        #expect(list.moment(at: 5000).lengthMs == nil)
        #expect(list.moment(at: 5000).leftMs == nil)
    }

    @Test func nextAndPreviousByChapter() {
        let book = Self.book
        #expect(book.nextStart(after: 0) == 120_000)
        #expect(book.nextStart(after: 130_000) == 400_000)
        #expect(book.nextStart(after: 450_000) == nil)
        // More than 3 s in: back to this chapter's start; within 3 s: the one before.
        #expect(book.previousStart(before: 130_000, restartMs: 3000) == 120_000)
        #expect(book.previousStart(before: 122_000, restartMs: 3000) == 0)
        #expect(book.previousStart(before: 2000, restartMs: 3000) == nil)
        #expect(book.previousStart(before: 5000, restartMs: 3000) == 0)
    }

    @Test func navigationTurnsNextAndPreviousIntoSeeks() {
        func command(_ c: Command, at ms: Int64, _ list: ChapterList? = Self.book) -> Command {
            ChapterNavigation.command(for: c, chapters: list, positionMs: ms, restartThresholdMs: 3000)
        }
        #expect(command(.next, at: 10_000) == .seek(.absolute(ms: 120_000)))
        #expect(command(.next, at: 450_000) == .next)
        #expect(command(.previous, at: 121_000) == .seek(.absolute(ms: 0)))
        #expect(command(.previous, at: 1000) == .previous)
        #expect(command(.toggle, at: 10_000) == .toggle)
        #expect(command(.next, at: 10_000, nil) == .next)
        let one = ChapterList([Chapter(title: "only", startMs: 0)], durationMs: 9000)
        #expect(command(.next, at: 10, one) == .next)
    }

    @Test func theColumnTextReadsBack() {
        let list = ChapterList(
            [Chapter(title: "Tab\there", startMs: 0), Chapter(title: "第二章\nline", startMs: 66_150)],
            durationMs: 132_300)!
        #expect(list.text == "0\tTab here\n66150\t第二章 line")
        #expect(
            ChapterList(text: list.text, durationMs: 132_300)?.chapters == [
                Chapter(title: "Tab here", startMs: 0), Chapter(title: "第二章 line", startMs: 66_150),
            ])
        #expect(ChapterList(text: "", durationMs: nil) == nil)
        #expect(ChapterList(text: "zero\tx", durationMs: nil) == nil)
    }

    @Test func aCueSheetIsChaptersOnlyOverOneLongFile() {
        let minimum: Int64 = 80 * 60_000
        #expect(CueSheetReading.auto.readsAsChapters(files: 1, fileDurationMs: 5 * 3_600_000, minimumMs: minimum))
        #expect(!CueSheetReading.auto.readsAsChapters(files: 1, fileDurationMs: 74 * 60_000, minimumMs: minimum))
        #expect(!CueSheetReading.auto.readsAsChapters(files: 2, fileDurationMs: 5 * 3_600_000, minimumMs: minimum))
        #expect(CueSheetReading.chapters.readsAsChapters(files: 1, fileDurationMs: 60_000, minimumMs: minimum))
        #expect(!CueSheetReading.tracks.readsAsChapters(files: 1, fileDurationMs: 9 * 3_600_000, minimumMs: minimum))
    }
}

@Suite struct ID3ChapterTests {
    /// A CHAP frame's body: element id, start and end ms, offsets (unused: all ones), and the
    /// embedded frames.
    static func chap(_ element: String, _ start: UInt32, _ end: UInt32, title: String?, version: UInt8 = 4) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((v >> UInt32($0)) & 0xFF) } }
        var body = Array(element.utf8) + [0] + be(start) + be(end) + be(.max) + be(.max)
        if let title {
            let text: [UInt8] = [3] + Array(title.utf8)
            let size =
                version == 4
                ? ID3TagTests.syncsafe(text.count) : [24, 16, 8, 0].map { UInt8((text.count >> $0) & 0xFF) }
            body += Array("TIT2".utf8) + size + [0, 0] + text
        }
        return body
    }

    static func ctoc(_ element: String, topLevel: Bool, _ children: [String]) -> [UInt8] {
        Array(element.utf8) + [0, topLevel ? 0x03 : 0x01, UInt8(children.count)]
            + children.flatMap { Array($0.utf8) + [0] }
    }

    @Test(arguments: [UInt8(3), 4])
    func chaptersAreReadFromChapFrames(version: UInt8) throws {
        let bytes = ID3TagTests.file(
            version: version,
            [
                ("TIT2", 0, [3] + Array("Book".utf8)),
                ("CHAP", 0, Self.chap("ch1", 90_000, 200_000, title: "Second", version: version)),
                ("CHAP", 0, Self.chap("ch0", 0, 90_000, title: "Première", version: version)),
                ("CHAP", 0, Self.chap("ch2", 200_000, 300_000, title: nil, version: version)),
            ])
        let tag = try #require(ID3Tag.read(ID3TagTests.reader(bytes)))
        let chapters = tag.chapters(ID3TagTests.reader(bytes))
        #expect(
            chapters == [
                Chapter(title: "Second", startMs: 90_000), Chapter(title: "Première", startMs: 0),
                Chapter(title: "ch2", startMs: 200_000),
            ])
        #expect(ChapterList(chapters, durationMs: 300_000)?.chapters.map(\.title) == ["Première", "Second", "ch2"])
    }

    @Test func aTopLevelTableOfContentsChoosesTheChapters() throws {
        let bytes = ID3TagTests.file(
            version: 4,
            [
                ("CTOC", 0, Self.ctoc("toc", topLevel: true, ["a", "part"])),
                ("CTOC", 0, Self.ctoc("part", topLevel: false, ["b"])),
                ("CHAP", 0, Self.chap("a", 0, 1000, title: "A")),
                ("CHAP", 0, Self.chap("b", 1000, 2000, title: "B")),
                ("CHAP", 0, Self.chap("stray", 2000, 3000, title: "Not listed")),
            ])
        let tag = try #require(ID3Tag.read(ID3TagTests.reader(bytes)))
        #expect(tag.chapters(ID3TagTests.reader(bytes)).map(\.title) == ["A", "B"])
    }

    @Test func brokenFramesGiveNoChapters() throws {
        let bytes = ID3TagTests.file(
            version: 4,
            [("CHAP", 0, Array("no terminator".utf8)), ("CHAP", 0, Array("short".utf8) + [0, 1, 2]), ("CTOC", 0, [0])])
        let tag = try #require(ID3Tag.read(ID3TagTests.reader(bytes)))
        #expect(tag.chapters(ID3TagTests.reader(bytes)).isEmpty)
    }
}

@Suite struct ScrubTests {
    static let t0 = Instant.milliseconds(1000)

    @Test func theTargetMovesAndTheJumpComesAtTheRelease() {
        var scrubber = Scrubber(stepMs: 10_000, timeoutMs: 30_000)
        let none = scrubber.release()
        #expect(none == nil)
        scrubber.turn(3, positionMs: 65_000, durationMs: 600_000, now: Self.t0)
        #expect(scrubber.targetMs == 95_000)
        // The player moved on meanwhile: the target does not.
        scrubber.turn(-1, positionMs: 70_000, durationMs: 600_000, now: Self.t0 + 200)
        #expect(scrubber.targetMs == 85_000)
        scrubber.turn(-20, positionMs: 70_000, durationMs: 600_000, now: Self.t0 + 400)
        #expect(scrubber.targetMs == 0)
        scrubber.turn(100, positionMs: 70_000, durationMs: 600_000, now: Self.t0 + 600)
        #expect(scrubber.targetMs == 599_000, "a second before the end")
        let jump = scrubber.release()
        #expect(jump == 599_000)
        #expect(scrubber.targetMs == nil)
        let again = scrubber.release()
        #expect(again == nil)
    }

    @Test func aScrubWithoutReleaseIsDroppedAfterTheTimeout() {
        var scrubber = Scrubber(stepMs: 10_000, timeoutMs: 30_000)
        scrubber.turn(1, positionMs: 0, durationMs: nil, now: Self.t0)
        #expect(scrubber.nextDeadline == Self.t0 + 30_000)
        let early = scrubber.advance(to: Self.t0 + 29_999)
        #expect(!early)
        let due = scrubber.advance(to: Self.t0 + 30_000)
        #expect(due)
        #expect(scrubber.targetMs == nil)
        #expect(scrubber.nextDeadline == nil)
    }

    static func controller() -> InputController {
        // The default config: the switch toggles (short) and opens the menu (long), and
        // scrubs when held while the knob turns.
        var config = JukeboxConfig(musicDir: "/m")
        config.encoder.pushSwitch = 13
        return InputController(map: ControlMap(config: config), settings: InputController.Settings(config: config))
    }

    @Test func holdingTheSwitchWhileTurningScrubsAndIsNoGesture() {
        var input = Self.controller()
        var outputs = input.handle(.button("switch"), active: true, at: Self.t0)
        outputs += input.handle(detents: 1, at: Self.t0 + 100)
        outputs += input.handle(detents: 2, at: Self.t0 + 300)
        // Held well past the long press: no menu.
        outputs += input.advance(to: Self.t0 + 2000)
        outputs += input.handle(.button("switch"), active: false, at: Self.t0 + 2000)
        outputs += input.advance(to: Self.t0 + 2100)
        let shown = outputs.filter { if case .detent = $0 { false } else { true } }.map(\.description)
        #expect(shown == ["scrub +1", "scrub +1", "scrub +1", "scrub end"])
        #expect(outputs.last?.at == Self.t0 + 2005)
        // Not held: the knob is the volume again, and the switch toggles.
        outputs = input.handle(detents: 1, at: Self.t0 + 3000)
        outputs += input.handle(.button("switch"), active: true, at: Self.t0 + 3100)
        outputs += input.handle(.button("switch"), active: false, at: Self.t0 + 3200)
        outputs += input.advance(to: Self.t0 + 3300)
        let actions = outputs.compactMap { output -> String? in
            guard case .action(let action, _) = output else { return nil }
            return "\(action)"
        }
        #expect(actions == ["volume +2", "toggle"])
    }

    @Test func withoutAScrubButtonTheKnobStaysTheVolume() {
        var config = JukeboxConfig(musicDir: "/m")
        config.encoder.scrubButton = .none
        var input = InputController(
            map: ControlMap(config: config), settings: InputController.Settings(config: config))
        var outputs = input.handle(.button("switch"), active: true, at: Self.t0)
        outputs += input.handle(detents: 1, at: Self.t0 + 100)
        #expect(outputs.map(\.description).contains("-> volume +2"))
        #expect(!outputs.map(\.description).contains("scrub +1"))
    }
}

@Suite struct ChapterScreenTests {
    static let moment = ChapterMoment(index: 2, count: 12, title: "The Storm", elapsedMs: 83_000, lengthMs: 754_000)

    @Test func theChapterLeadsRowOneAndItsTimesAreShown() {
        let playing = NowPlaying(
            title: "Moby", artist: "Melville", positionMs: 3_723_000, durationMs: 36_000_000, chapter: Self.moment)
        let lcd = ScreenLayout(columns: 20, rows: 4).frame(playing, lyrics: nil, now: .zero)
        #expect(
            lcd.rows == [
                "The Storm – Moby    ", "▶ 1:23 / 12:34      ", "Ch 3/12  1:02:03    ", "▶ 1:23 ─────── 12:34",
            ])
        let wide = ScreenLayout(columns: 30, rows: 3).frame(playing, lyrics: nil, now: .zero)
        #expect(wide.rows[2] == "Ch 3/12  1:02:03 / 10:00:00   ")
        #expect(playing.topLine == "The Storm")
        #expect(playing.secondLine == "Moby – Melville")
    }

    @Test func aScrubShowsItsTargetInPlaceOfTheLyrics() {
        let playing = NowPlaying(
            title: "Moby Dick", positionMs: 10_000, durationMs: 36_000_000, chapter: Self.moment,
            scrubTargetMs: 4_000_000)
        let lyrics = LyricTimeline(lyrics: LRCParser.parse("[00:01.00]a lyric line"))
        #expect(
            ScreenLayout(columns: 16, rows: 2).frame(playing, lyrics: lyrics, now: .zero).rows[1] == "» 1:06:40       ")
        #expect(
            ScreenLayout(columns: 24, rows: 2).frame(playing, lyrics: lyrics, now: .zero).rows[1]
                == "» 1:06:40 / 10:00:00    ")
    }
}

@Suite struct ChapterEndTests {
    @Test func playingIntoTheNextChapterLeavesNothingButASkipMovesTheChapter() {
        let book = ChapterListTests.book
        var end = ChapterEnd()
        func left(_ ms: Int64, track: TrackID = 7) -> Int64? {
            end.leftMs(track: track, chapters: book, positionMs: ms, trackLeftMs: 600_000 - ms)
        }
        #expect(left(110_000) == 10_000)
        #expect(left(119_980) == 20)
        // The tick after the boundary: the chapter is over, not the next one's 280 s.
        #expect(left(120_230) == 0)
        end.reset()
        #expect(left(120_230) == 279_770)
        // A skip to another chapter (not just into the next one): that chapter is waited for.
        #expect(left(450_000) == 150_000)
        #expect(left(200_000) == 200_000)
        // Another track: its chapter.
        #expect(left(5000, track: 8) == 115_000)
        // Without chapters: the track's rest; nothing playing: nil.
        #expect(end.leftMs(track: 9, chapters: nil, positionMs: 1000, trackLeftMs: 4000) == 4000)
        #expect(end.leftMs(track: nil, chapters: book, positionMs: 1000, trackLeftMs: nil) == nil)
    }
}
