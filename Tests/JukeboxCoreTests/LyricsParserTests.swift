import Testing

@testable import JukeboxCore

/// One LRC fixture and the (time, text) lines it must give.
private struct LRCCase: CustomTestStringConvertible, Sendable {
    var name: String
    var source: String
    var lines: [(Int64, String)]
    var warnings = 0
    var testDescription: String { name }
}

@Suite struct LRCParserTests {
    private static let cases: [LRCCase] = [
        LRCCase(
            name: "[mm:ss]", source: "[00:12]Twelve\n[01:05]Sixty-five",
            lines: [(12_000, "Twelve"), (65_000, "Sixty-five")]),
        LRCCase(name: "[mm:ss.xx]", source: "[00:12.34]A\n[02:00.05]B", lines: [(12_340, "A"), (120_050, "B")]),
        LRCCase(name: "[mm:ss.xxx]", source: "[00:12.345]A\n[00:13.007]B", lines: [(12_345, "A"), (13_007, "B")]),
        LRCCase(name: "[mm:ss.x]", source: "[00:12.3]A", lines: [(12_300, "A")]),
        LRCCase(name: "[mm:ss:xx]", source: "[00:12:34]A\n[01:02:03]B", lines: [(12_340, "A"), (62_030, "B")]),
        LRCCase(name: "[hh:mm:ss.xx]", source: "[1:02:03.50]Late", lines: [(3_723_500, "Late")]),
        LRCCase(name: "minutes over 99", source: "[100:00.00]Long", lines: [(6_000_000, "Long")]),
        LRCCase(
            name: "several stamps", source: "[00:10.00][00:30.00][00:50.00]Chorus\n[00:20.00]Verse",
            lines: [(10_000, "Chorus"), (20_000, "Verse"), (30_000, "Chorus"), (50_000, "Chorus")]),
        LRCCase(
            name: "unsorted", source: "[00:30.00]C\n[00:10.00]A\n[00:20.00]B",
            lines: [(10_000, "A"), (20_000, "B"), (30_000, "C")]),
        LRCCase(
            name: "empty lines are gaps", source: "[00:01.00]Sing\n[00:05.00]\n\n[00:09.00]Again",
            lines: [(1000, "Sing"), (5000, ""), (9000, "Again")]),
        LRCCase(
            name: "CRLF and CR", source: "[00:01.00]One\r\n[00:02.00]Two\r[00:03.00]Three\r\n",
            lines: [(1000, "One"), (2000, "Two"), (3000, "Three")]),
        LRCCase(
            name: "positive offset = sooner", source: "[offset:+500]\n[00:10.00]A\n[00:00.20]B",
            lines: [(0, "B"), (9500, "A")]),
        LRCCase(name: "negative offset = later", source: "[offset:-250]\n[00:10.00]A", lines: [(10_250, "A")]),
        LRCCase(name: "offset with spaces", source: "[offset: + 300 ]\n[00:10.00]A", lines: [(9700, "A")]),
        LRCCase(name: "offset after lines", source: "[00:10.00]A\n[offset:1000]", lines: [(9000, "A")]),
        LRCCase(name: "spaces around text", source: "[00:01.00]   padded   \n", lines: [(1000, "padded")]),
        LRCCase(name: "brackets in text", source: "[00:01.00]Hello [world]", lines: [(1000, "Hello [world]")]),
        LRCCase(
            name: "garbage skipped",
            source: "garbage line\n[00:01.00]Good\n[xx:yy]bad\n[00:02.00\n[00:61.00]bad\n[00:03.00]Fine",
            lines: [(1000, "Good"), (3000, "Fine")], warnings: 4),
        LRCCase(name: "text after tag", source: "[ar:Someone] extra\n[00:01.00]A", lines: [(1000, "A")], warnings: 1),
        LRCCase(name: "bad offset", source: "[offset:soon]\n[00:01.00]A", lines: [(1000, "A")], warnings: 1),
    ]

    @Test(arguments: cases)
    private func parses(_ c: LRCCase) {
        let lyrics = LRCParser.parse(c.source)
        #expect(lyrics.lines.map(\.timeMs) == c.lines.map(\.0))
        #expect(lyrics.lines.map(\.text) == c.lines.map(\.1))
        #expect(lyrics.warnings.count == c.warnings, "\(lyrics.warnings)")
    }

    @Test func idTags() {
        let lyrics = LRCParser.parse(
            "[ti:Song]\n[ar: Artist ]\n[al:Album]\n[by:me]\n[length: 03:25]\n[re:x]\n[00:01.00]A")
        #expect(lyrics.tags["ti"] == "Song")
        #expect(lyrics.tags["ar"] == "Artist")
        #expect(lyrics.tags["al"] == "Album")
        #expect(lyrics.tags["by"] == "me")
        #expect(lyrics.tags["length"] == "03:25")
        #expect(lyrics.warnings.isEmpty)
    }

    @Test func offsetIsRecorded() {
        #expect(LRCParser.parse("[offset:+500]\n[00:01.00]A").offsetMs == 500)
        #expect(LRCParser.parse("[offset:-20]").offsetMs == -20)
    }

    @Test func enhancedWordTiming() {
        let lyrics = LRCParser.parse("[00:10.00]<00:10.00>Hello <00:10.50>big <00:11.25>world<00:12.00>")
        let line = lyrics.lines[0]
        #expect(line.text == "Hello big world")
        #expect(line.words.map(\.timeMs) == [10_000, 10_500, 11_250])
        #expect(line.words.map(\.text) == ["Hello ", "big ", "world"])
    }

    @Test func enhancedWordTimingMovesWithRepeatedStamps() {
        let lyrics = LRCParser.parse("[00:10.00][00:40.00]<00:10.00>La <00:10.500>la")
        #expect(lyrics.lines.map { $0.words.map(\.timeMs) } == [[10_000, 10_500], [40_000, 40_500]])
    }

    @Test func enhancedWordTimingWithOffset() {
        let lyrics = LRCParser.parse("[offset:1000]\n[00:10.00]<00:10.00>A <00:11.00>B")
        #expect(lyrics.lines[0].timeMs == 9000)
        #expect(lyrics.lines[0].words.map(\.timeMs) == [9000, 10_000])
    }

    @Test func timestamps() {
        #expect(LRCParser.parseTimestamp("00:00") == 0)
        #expect(LRCParser.parseTimestamp("3:07.5") == 187_500)
        #expect(LRCParser.parseTimestamp(" 00:01.00 ") == 1000)
        #expect(LRCParser.parseTimestamp("00:01,25") == 1250)
        #expect(LRCParser.parseTimestamp("00:60") == nil)
        #expect(LRCParser.parseTimestamp("ti:x") == nil)
        #expect(LRCParser.parseTimestamp("00:01.1234") == nil)
        #expect(LRCParser.parseTimestamp("") == nil)
    }

    @Test func garbageNeverCrashes() {
        var rng = SplitMix64(seed: 7)
        let alphabet = Array("[]<>:.0123456789 abc\r\n-+offset:ti")
        for _ in 0..<300 {
            let text = String(
                (0..<Int(rng.next() % 80)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            let lyrics = LRCParser.parse(text)
            #expect(lyrics.lines.map(\.timeMs) == lyrics.lines.map(\.timeMs).sorted())
        }
    }
}

@Suite struct LyricsTextDecodingTests {
    @Test func utf8WithAndWithoutBOM() {
        let body = Array("[00:01.00]Café ünïcode 你好\r\n".utf8)
        #expect(LyricsTextDecoder.decode(body).encoding == .utf8)
        let withBOM = LyricsTextDecoder.decode([0xEF, 0xBB, 0xBF] + body)
        #expect(withBOM.encoding == .utf8BOM)
        let lyrics = Lyrics.parse(bytes: [0xEF, 0xBB, 0xBF] + body)
        #expect(lyrics.lines == [LyricLine(timeMs: 1000, text: "Café ünïcode 你好")])
        #expect(lyrics.warnings.isEmpty)
    }

    @Test func utf16LittleAndBigEndianWithBOM() {
        let text = "[00:02.00]Straße café 歌\r\n"
        let le: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let be: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        for (bytes, encoding) in [(le, LyricEncoding.utf16LE), (be, .utf16BE)] {
            let lyrics = Lyrics.parse(bytes: bytes)
            #expect(lyrics.encoding == encoding)
            #expect(lyrics.lines == [LyricLine(timeMs: 2000, text: "Straße café 歌")])
        }
    }

    /// `[ti:月亮代表我的心]␍␊[00:01.00]你问我爱你有多深␍␊[00:05.50]À 𠀀 €␍␊` in GB18030 (from Python's
    /// codec): two-byte GBK, a four-byte BMP code (À) and a four-byte supplementary one (𠀀).
    static let gbkFile: [UInt8] = [
        0x5B, 0x74, 0x69, 0x3A, 0xD4, 0xC2, 0xC1, 0xC1, 0xB4, 0xFA, 0xB1, 0xED, 0xCE, 0xD2, 0xB5, 0xC4, 0xD0, 0xC4,
        0x5D, 0x0D, 0x0A, 0x5B, 0x30, 0x30, 0x3A, 0x30, 0x31, 0x2E, 0x30, 0x30, 0x5D, 0xC4, 0xE3, 0xCE, 0xCA, 0xCE,
        0xD2, 0xB0, 0xAE, 0xC4, 0xE3, 0xD3, 0xD0, 0xB6, 0xE0, 0xC9, 0xEE, 0x0D, 0x0A, 0x5B, 0x30, 0x30, 0x3A, 0x30,
        0x35, 0x2E, 0x35, 0x30, 0x5D, 0x81, 0x30, 0x86, 0x38, 0x20, 0x95, 0x32, 0x82, 0x36, 0x20, 0xA2, 0xE3, 0x0D,
        0x0A,
    ]

    @Test func gbkAndGB18030() {
        let lyrics = Lyrics.parse(bytes: Self.gbkFile)
        #expect(lyrics.encoding == .gb18030)
        #expect(lyrics.tags["ti"] == "月亮代表我的心")
        #expect(lyrics.lines.map(\.text) == ["你问我爱你有多深", "À 𠀀 €"])
        #expect(lyrics.lines.map(\.timeMs) == [1000, 5500])
    }

    @Test func westernEightBitTextIsNotTakenForGBK() {
        // "été à Paris" in Windows-1252: E9 74 E9 is also a valid GBK sequence.
        let bytes: [UInt8] = Array("[00:01.00]".utf8) + [0xE9, 0x74, 0xE9, 0x20, 0xE0] + Array(" Paris".utf8)
        let lyrics = Lyrics.parse(bytes: bytes)
        #expect(lyrics.encoding == .windows1252)
        #expect(lyrics.lines.first?.text == "été à Paris")
    }

    @Test func randomBytesNeverCrash() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let bytes = (0..<Int(rng.next() % 120)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            _ = Lyrics.parse(bytes: Array("[00:01.00]".utf8) + bytes)
            _ = Lyrics.parse(bytes: bytes, fileName: "x.ksc")
            _ = ID3Lyrics.parse([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 50] + bytes)
        }
    }

    @Test func gb18030Lenient() {
        #expect(GB18030.decode([0x41, 0xD6, 0xD0, 0xFF, 0x42]) == "A中\u{FFFD}B")
        #expect(GB18030.decode([0xD6], strict: true) == nil)
    }

    @Test func windows1252Fallback() {
        // "[00:01.00]Caf\xE9 \x93quoted\x94" is neither UTF-8 nor GB18030 (0x94 0x0A).
        let bytes: [UInt8] = Array("[00:01.00]Caf".utf8) + [0xE9, 0x20, 0x93] + Array("quoted".utf8) + [0x94, 0x0A]
        let lyrics = Lyrics.parse(bytes: bytes)
        #expect(lyrics.encoding == .windows1252)
        #expect(lyrics.lines.first?.text == "Café “quoted”")
    }
}

@Suite struct KSCParserTests {
    static let file = """
        karaoke := CreateKaraokeObject;
        karaoke.rows := 2;
        karaoke.clear;
        karaoke.songname := '晴天';
        karaoke.singer := 'Someone';
        karaoke.tag('语言', '国语');
        karaoke.add('00:20.500', '00:22.000', '故事的小黄花', '200,300,250,250,250,250');
        karaoke.add('00:10.00', '00:12.00', '[Hello] [it''s] [me]', '500,700,800');
        karaoke.add('00:30.00', '00:31.00', 'ab', '100');
        karaoke.add('00:99.00', '00:31.00', 'x', '100');
        what is this
        """

    @Test func parsesKaraokeLines() {
        let lyrics = Lyrics.parse(text: Self.file, fileName: "song.ksc")
        #expect(lyrics.format == .ksc)
        #expect(lyrics.tags["ti"] == "晴天")
        #expect(lyrics.tags["ar"] == "Someone")
        #expect(lyrics.tags["语言"] == "国语")
        #expect(lyrics.lines.map(\.timeMs) == [10_000, 20_500, 30_000])
        #expect(lyrics.lines.map(\.text) == ["Hello it's me", "故事的小黄花", "ab"])
        #expect(lyrics.lines[0].words.map(\.timeMs) == [10_000, 10_500, 11_200])
        #expect(lyrics.lines[0].words.map(\.text) == ["Hello ", "it's ", "me"])
        #expect(lyrics.lines[1].words.map(\.timeMs) == [20_500, 20_700, 21_000, 21_250, 21_500, 21_750])
        #expect(lyrics.lines[1].endMs == 22_000)
        // Duration count mismatch: spread evenly.
        #expect(lyrics.lines[2].words.map(\.timeMs) == [30_000, 30_500])
        #expect(lyrics.warnings.count == 2, "\(lyrics.warnings)")
    }

    @Test func detectedWithoutExtension() {
        #expect(Lyrics.parse(text: Self.file).format == .ksc)
        #expect(Lyrics.parse(text: "[00:01.00]karaoke.add is just text", fileName: "x.lrc").format == .lrc)
    }
}

@Suite struct ID3LyricsTests {
    /// An ID3v2.3 tag with the given frames.
    static func tag(_ frames: [(String, [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for (id, data) in frames {
            let n = data.count
            body +=
                Array(id.utf8) + [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), 0, 0]
                + data
        }
        let n = body.count
        let size: [UInt8] = [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)]
        return [0x49, 0x44, 0x33, 3, 0, 0] + size + body + [0xFF, 0xFB, 0x90, 0x00]
    }

    @Test func syncedSYLTIsPreferred() {
        let sylt: [UInt8] =
            [3] + Array("eng".utf8) + [2, 1] + [0]
            + Array("First".utf8) + [0, 0, 0, 0x03, 0xE8]
            + Array("\nSecond".utf8) + [0, 0, 0, 0x0B, 0xB8]
        let uslt: [UInt8] = [3] + Array("eng".utf8) + [0] + Array("Plain text".utf8)
        let lyrics = ID3Lyrics.parse(Self.tag([("USLT", uslt), ("SYLT", sylt)]))
        #expect(lyrics?.lines == [LyricLine(timeMs: 1000, text: "First"), LyricLine(timeMs: 3000, text: "Second")])
    }

    @Test func unsyncedUSLTInUTF16() {
        let text = "Line one\nLine two"
        let uslt: [UInt8] =
            [1] + Array("eng".utf8) + [0xFF, 0xFE, 0, 0] + [0xFF, 0xFE]
            + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let lyrics = ID3Lyrics.parse(Self.tag([("TIT2", [3] + Array("T".utf8)), ("USLT", uslt)]))
        #expect(lyrics?.format == .unsynced)
        #expect(lyrics?.lines == [LyricLine(timeMs: 0, text: "Line one / Line two")])
    }

    @Test func noTag() {
        #expect(ID3Lyrics.parse([0xFF, 0xFB, 0x90, 0x00]) == nil)
        #expect(ID3Lyrics.parse(Self.tag([("TIT2", [3, 0x41])])) == nil)
    }
}
