import Testing

@testable import JukeboxCore

@Suite struct LyricTimelineTests {
    private let timeline = LyricTimeline(
        lyrics: LRCParser.parse(
            "[00:02.00]One\n[00:05.00]<00:05.00>Two <00:06.00>words<00:08.00>\n[00:08.00]\n[00:10.00]Last"))

    @Test(
        arguments: [
            (0, nil, "One"), (1999, nil, "One"), (2000, "One", "Two words"), (4999, "One", "Two words"),
            (5000, "Two words", ""), (8000, "", "Last"), (60_000, "Last", nil),
        ] as [(Int64, String?, String?)])
    func currentAndNext(position: Int64, current: String?, next: String?) {
        let moment = timeline.moment(at: position)
        #expect(moment.current?.text == current)
        #expect(moment.next?.text == next)
    }

    @Test func wordProgress() {
        #expect(timeline.moment(at: 5000).wordIndex == 0)
        #expect(timeline.moment(at: 5500).wordFraction == 0.5)
        #expect(timeline.moment(at: 6000).wordIndex == 1)
        #expect(timeline.moment(at: 7000).wordFraction == 0.5)
        #expect(timeline.moment(at: 3000).wordIndex == nil)
    }

    @Test func nudgeShowsLyricsSooner() {
        var nudged = timeline
        nudged.nudgeMs = 500
        #expect(nudged.moment(at: 1500).current?.text == "One")
        #expect(nudged.moment(at: 1500).lineStartMs == 1500)
        #expect(nudged.moment(at: 1500).lineEndMs == 4500)
        nudged.nudgeMs = -500
        #expect(nudged.moment(at: 2200).current == nil)
    }
}

@Suite struct TextCellsTests {
    @Test(arguments: [
        ("abc", 3), ("你好", 4), ("Café", 4), ("e\u{301}", 1), ("한국어", 6), ("ｆｕｌｌ", 8), ("🎵", 2), ("", 0),
        ("かな カナ", 9),
    ])
    func widths(text: String, cells: Int) {
        #expect(TextCells.width(of: text) == cells)
    }

    @Test func windowCutsWideCharactersAtEdgesIntoSpaces() {
        #expect(TextCells.window("你好世界", offset: 0, columns: 4) == "你好")
        #expect(TextCells.window("你好世界", offset: 1, columns: 4) == " 好 ")
        #expect(TextCells.window("你好世界", offset: 1, columns: 3) == " 好")
        #expect(TextCells.window("ab", offset: 0, columns: 5) == "ab   ")
        #expect(TextCells.window("abcdef", offset: 4, columns: 4) == "ef  ")
        for offset in 0..<8 {
            #expect(TextCells.width(of: TextCells.window("a你b好c世d界", offset: offset, columns: 5)) == 5)
        }
    }

    @Test func fitAddsAnEllipsis() {
        #expect(TextCells.fit("Hello world", columns: 8) == "Hello w…")
        #expect(TextCells.fit("你好世界", columns: 5) == "你好…")
        #expect(TextCells.fit("Hi", columns: 4) == "Hi  ")
    }
}

@Suite struct LyricScrollingTests {
    static let long = "Golden light is pouring on the kitchen floor and the day begins again"  // 69 cells
    static let lyrics = LRCParser.parse(
        "[ti:T]\n[00:02.50]Open the window\n[00:07.50]\(long)\n[00:12.50]\n[00:15.00]Morning light")

    private func lyricRow(_ layout: ScreenLayout, at ms: Int64) -> String {
        layout.frame(
            NowPlaying(title: "Morning Light", artist: "Demo", positionMs: ms),
            lyrics: LyricTimeline(lyrics: Self.lyrics),
            now: .milliseconds(ms)
        ).rows[1]
    }

    @Test func longLineOn16ColumnsHoldsScrollsAndIsFullyShownByTheNextLine() {
        let layout = ScreenLayout(columns: 16, rows: 2)
        // Manual clock: the audio position in 50 ms steps through the line's window.
        var previousOffset = 0
        var offsets: [Int64: Int] = [:]
        for ms in stride(from: Int64(7500), to: 12_500, by: 50) {
            let row = lyricRow(layout, at: ms)
            #expect(TextCells.width(of: row) == 16)
            let offset = LyricMarquee(textWidth: 69, columns: 16, startMs: 7500, endMs: 12_500).offset(at: ms)
            #expect(row == TextCells.window(Self.long, offset: offset, columns: 16))
            #expect(offset >= previousOffset, "never scrolls back")
            previousOffset = offset
            offsets[ms] = offset
        }
        // Starts still for the hold (1 s = a fifth of 5 s).
        #expect(lyricRow(layout, at: 7500) == "Golden light is ")
        #expect(lyricRow(layout, at: 8450) == "Golden light is ")
        // Moves in the middle.
        #expect(offsets[10_000]! > 10 && offsets[10_000]! < 43)
        // The end of the line is on screen before the next timestamp, and held there.
        #expect(lyricRow(layout, at: 11_500) == "day begins again")
        #expect(lyricRow(layout, at: 12_499) == "day begins again")
        // The next line (a gap) replaces it on time.
        #expect(lyricRow(layout, at: 12_500) == "♪               ")
    }

    @Test func textThatFitsStaysStill() {
        let layout = ScreenLayout(columns: 16, rows: 2)
        for ms in stride(from: Int64(2500), to: 7500, by: 250) {
            #expect(lyricRow(layout, at: ms) == "Open the window ")
        }
    }

    @Test func cjkLineScrollsByCells() {
        let text = "故事的小黄花从出生那年就飘着"  // 14 characters, 28 cells
        let lyrics = LRCParser.parse("[00:00.00]\(text)\n[00:06.00]下一句")
        let layout = ScreenLayout(columns: 16, rows: 2)
        let frame = { (ms: Int64) in
            layout.frame(NowPlaying(title: "晴天", positionMs: ms), lyrics: LyricTimeline(lyrics: lyrics), now: .zero)
        }
        #expect(frame(0).rows[1] == "故事的小黄花从出")
        #expect(frame(5999).rows[1] == "从出生那年就飘着")
        for ms in stride(from: Int64(0), to: 6000, by: 37) {
            #expect(TextCells.width(of: frame(ms).rows[1]) == 16)
            #expect(TextCells.width(of: frame(ms).rows[0]) == 16)
        }
        #expect(frame(6000).rows[1] == "下一句          ")
    }

    @Test func lastLineWithoutANextLineStillScrollsToItsEnd() {
        let lyrics = LRCParser.parse("[00:01.00]\(Self.long)")
        let marqueeEnd = 1000 + max(4000, Int64(69 - 16) * 300 + 2400)
        let layout = ScreenLayout(columns: 16, rows: 2)
        let row = layout.frame(
            NowPlaying(title: "x", positionMs: marqueeEnd), lyrics: LyricTimeline(lyrics: lyrics), now: .zero
        ).rows[1]
        #expect(row == "day begins again")
    }

    @Test func marqueeNextChange() {
        let marquee = LyricMarquee(textWidth: 26, columns: 16, startMs: 0, endMs: 6000)
        let first: Int64? = marquee.nextChangeMs(after: 0)
        #expect(first == Int64(1560))
        #expect(marquee.offset(at: 1560) == 1)
        #expect(marquee.offset(at: 1559) == 0)
        #expect(marquee.nextChangeMs(after: 4800) == nil)
        #expect(LyricMarquee(textWidth: 10, columns: 16, startMs: 0, endMs: 5000).nextChangeMs(after: 0) == nil)
    }
}

@Suite struct ScreenLayoutTests {
    private let lyrics = LyricTimeline(lyrics: LRCParser.parse("[00:01.00]First line\n[00:04.00]Second line"))

    @Test func headingFitsOrLoops() {
        let layout = ScreenLayout(columns: 16, rows: 2)
        let short = NowPlaying(title: "Song", artist: "Band")
        #expect(layout.frame(short, lyrics: nil, now: .zero).rows[0] == "Song – Band     ")
        var long = NowPlaying(title: "A Very Long Title", artist: "Someone")
        #expect(layout.frame(long, lyrics: nil, now: .zero).rows[0] == "A Very Long Titl")
        long.positionMs = 2000 + 1000  // 4 cells/s after a 2 s hold
        #expect(layout.frame(long, lyrics: nil, now: .zero).rows[0] == "ry Long Title – ")
    }

    @Test func aFavouriteKeepsItsMarkInTheLastCell() {
        let layout = ScreenLayout(columns: 16, rows: 2)
        #expect(
            layout.frame(NowPlaying(title: "Song", artist: "Band", favourite: true), lyrics: nil, now: .zero).rows[0]
                == "Song – Band    ♥")
        // A long heading scrolls in the cells before it; the mark stays.
        var long = NowPlaying(title: "A Very Long Title", artist: "Someone", favourite: true)
        #expect(layout.frame(long, lyrics: nil, now: .zero).rows[0] == "A Very Long Ti ♥")
        long.positionMs = 3000
        #expect(layout.frame(long, lyrics: nil, now: .zero).rows[0] == "ry Long Title  ♥")
        let lcd = ScreenLayout(columns: 20, rows: 4)
        let rows = lcd.frame(NowPlaying(title: "Song", favourite: true), lyrics: nil, now: .zero).rows
        #expect(LCDCharset.encode(rows[0], columns: 20).last == LCDCharset.favouriteSlot)
        #expect(LCDCharset.customCharacters.count == Int(LCDCharset.favouriteSlot) + 1)
    }

    @Test func overlaysAreBrief() {
        var layout = ScreenLayout(columns: 16, rows: 2)
        let playing = NowPlaying(title: "Song", positionMs: 2000)
        layout.handle(.volume(50), now: .milliseconds(10_000))
        #expect(layout.frame(playing, lyrics: lyrics, now: .milliseconds(10_000)).rows[1] == "Vol 50 ████·····")
        #expect(layout.frame(playing, lyrics: lyrics, now: .milliseconds(11_499)).rows[1] == "Vol 50 ████·····")
        #expect(layout.frame(playing, lyrics: lyrics, now: .milliseconds(11_500)).rows[1] == "First line      ")
        layout.handle(.mode(PlayOptions(.shuffle)), now: .milliseconds(20_000))
        #expect(layout.frame(playing, lyrics: lyrics, now: .milliseconds(20_000)).rows[1] == "Mode: shuffle   ")
        layout.handle(.mode(PlayOptions(random: true, consume: true)), now: .milliseconds(20_000))
        #expect(layout.frame(playing, lyrics: lyrics, now: .milliseconds(20_000)).rows[1] == "Mode: random co…")
        layout.handle(.paused, now: .milliseconds(30_000))
        #expect(layout.frame(playing, lyrics: lyrics, now: .milliseconds(30_000)).rows[1] == "‖ Paused        ")
        #expect(layout.overlayEnds(after: .milliseconds(30_000)) == .milliseconds(31_500))
        #expect(layout.overlayEnds(after: .milliseconds(31_500)) == nil)
    }

    @Test func withoutLyricsRowTwoShowsTheTime() {
        let layout = ScreenLayout(columns: 16, rows: 2)
        let frame = layout.frame(
            NowPlaying(title: "Song", state: .paused, positionMs: 83_000, durationMs: 225_000), lyrics: nil, now: .zero)
        #expect(frame.rows == ["Song            ", "‖ 1:23 / 3:45   "])
    }

    @Test(arguments: [(Int64(1_799_001), "‖ 1:23 Zz30:00  "), (1, "‖ 1:23 Zz0:01   ")])
    func theSleepTimerShowsTheTimeLeft(leftMs: Int64, row: String) {
        let layout = ScreenLayout(columns: 16, rows: 2)
        let playing = NowPlaying(
            title: "Song", state: .paused, positionMs: 83_000, durationMs: 225_000, sleepLeftMs: leftMs)
        #expect(layout.frame(playing, lyrics: nil, now: .zero).rows[1] == row)
    }

    @Test func twentyByFourAddsNextLineAndProgress() {
        let layout = ScreenLayout(columns: 20, rows: 4)
        let frame = layout.frame(
            NowPlaying(title: "Song", artist: "Band", positionMs: 2000, durationMs: 8000), lyrics: lyrics, now: .zero)
        #expect(
            frame.rows == [
                "Song – Band         ", "First line          ", "Second line         ", "▶ 0:02 ━━────── 0:08",
            ])
    }

    @Test func nothingQueued() {
        #expect(
            ScreenLayout(columns: 16, rows: 2).frame(nil, lyrics: nil, now: .zero).rows == [
                "Jukebox         ", "Nothing queued  ",
            ])
    }

    @Test func wordHighlight() {
        let timed = LyricTimeline(lyrics: LRCParser.parse("[00:01.00]<00:01.00>Hello <00:02.00>world<00:03.00>"))
        let layout = ScreenLayout(columns: 16, rows: 2)
        let at = { (ms: Int64) in
            layout.frame(NowPlaying(title: "x", positionMs: ms), lyrics: timed, now: .zero).highlight
        }
        #expect(at(1000) == ScreenFrame.Highlight(row: 1, cells: 0))
        #expect(at(1500) == ScreenFrame.Highlight(row: 1, cells: 2))
        #expect(at(2000) == ScreenFrame.Highlight(row: 1, cells: 6))
        #expect(at(2999) == ScreenFrame.Highlight(row: 1, cells: 10))
    }
}

@Suite struct LCDCharsetTests {
    @Test(
        arguments: [
            ("Hello!", Array("Hello!".utf8)), ("Café", Array("Cafe".utf8)),
            (
                "Ärger über Öl",
                [0x41, 0x72, 0x67, 0x65, 0x72, 0x20, 0x75 - 0x75 + 0xF5, 0x62, 0x65, 0x72, 0x20, 0x4F, 0x6C]
            ),
            ("Straße", [0x53, 0x74, 0x72, 0x61, 0xE2, 0x65]), ("niño", [0x6E, 0x69, 0xEE, 0x6F]),
            ("Œuvre…", Array("OEuvre...".utf8)),
            ("“quoted” – ok", Array("\"quoted\" - ok".utf8)), ("a\\b~c", Array("a/b-c".utf8)), ("▶‖♪■", [0, 1, 2, 3]),
            ("你好", Array("????".utf8)), ("Ça", Array("Ca".utf8)),
        ] as [(String, [UInt8])])
    func mapsTextToTheROM(text: String, codes: [UInt8]) {
        #expect(LCDCharset.encode(text, columns: codes.count) == codes)
    }

    @Test func padsAndCuts() {
        #expect(LCDCharset.encode("ab", columns: 4) == [0x61, 0x62, 0x20, 0x20])
        #expect(LCDCharset.encode("abcdef", columns: 4) == [0x61, 0x62, 0x63, 0x64])
    }
}
