import Testing

@testable import JukeboxCore

/// CUE sheets as MPD 0.23's cue plugin reads them (the daemon's differential test compares
/// the listing with MPD itself).
@Suite struct CueSheetTests {
    static let album = """
        REM GENRE Rock
        REM DATE 1999
        PERFORMER "The Band"
        TITLE "The Album"
        FILE "whole.wav" WAVE
          TRACK 01 AUDIO
            TITLE "One"
            PERFORMER "Singer A"
            INDEX 01 00:00:00
          TRACK 02 AUDIO
            TITLE "Two"
            INDEX 00 00:03:00
            INDEX 01 00:03:37
          TRACK 03 AUDIO
            TITLE "Three"
            REM COMPOSER "Some One"
            INDEX 01 00:07:10

        """

    static func parse(_ text: String) throws -> CueSheet { try CueSheet.parse(Array(text.utf8)) }

    @Test func anAlbumSplitAtIndex01WithTheSheetsTags() throws {
        let sheet = try Self.parse(Self.album)
        let header = [TrackTag(.genre, "Rock"), TrackTag(.date, "1999"), TrackTag(.albumArtist, "The Band")]
        #expect(
            sheet.tracks == [
                .init(
                    file: "whole.wav", number: "01", start: 0, end: 262, title: "One", artist: "Singer A",
                    album: "The Album", tags: header),
                .init(
                    file: "whole.wav", number: "02", start: 262, end: 535, title: "Two", album: "The Album",
                    tags: header),
                .init(
                    file: "whole.wav", number: "03", start: 535, title: "Three", album: "The Album",
                    tags: header + [TrackTag(.composer, "Some One")]),
            ])
        #expect(sheet.warnings.isEmpty)
        // 75 frames a second: 00:03:37 is 262 frames, 154,056 samples at 44.1 kHz, 3.493 s as MPD's Range.
        #expect(sheet.tracks[1].startFrame(rate: 44100) == 154_056)
        #expect(sheet.tracks[1].startFrame(rate: 48000) == 167_680)
        #expect(sheet.tracks[1].startMs == 3493)
        #expect(sheet.tracks[0].endFrame(rate: 44100) == 154_056)
        #expect(sheet.tracks[2].endFrame(rate: 44100) == nil)
        #expect(sheet.tracks[1].trackNumber == 2)
    }

    @Test(
        arguments: [
            ("00:00:00", 0), ("00:03:37", 262), ("01:00:74", 4574), ("74:59:74", 337_499), ("100:00:00", 450_000),
        ] as [(String, Int64)])
    func times(_ text: String, _ frames: Int64) {
        #expect(CueSheet.frames(Substring(text)) == frames)
    }

    @Test(arguments: ["", "00:00", "0:0:0:0", "00:-1:00", "aa:00:00", "00:00:", "1 :00:00", "00:00:00x"])
    func badTimes(_ text: String) {
        #expect(CueSheet.frames(Substring(text)) == nil)
    }

    /// Each row: a sheet and the tracks as (file, number, start, end, title).
    @Test(
        arguments: [
            // Several files: each file's last track plays to that file's end.
            (
                """
                FILE "a.flac" WAVE
                TRACK 1 AUDIO
                INDEX 01 00:00:00
                FILE "b.flac" WAVE
                TRACK 2 AUDIO
                INDEX 01 00:00:00
                TRACK 3 AUDIO
                INDEX 01 02:00:00
                """,
                ["a.flac 1 0- ", "b.flac 2 0-9000 ", "b.flac 3 9000- "]
            ),
            // A data track (an enhanced CD) and a BINARY file are skipped; the audio track before
            // the data track runs to the end of its file.
            (
                """
                FILE "cd.bin" BINARY
                TRACK 01 MODE1/2352
                INDEX 01 00:00:00
                FILE "audio.wav" WAVE
                TRACK 02 AUDIO
                INDEX 01 00:00:00
                TRACK 03 MODE2/2352
                INDEX 01 00:10:00
                """,
                ["audio.wav 02 0- "]
            ),
            // The first track starts at its INDEX 00 (a hidden track one before it is in it),
            // PREGAP/POSTGAP add silence the file does not hold, unknown commands and REMs go.
            (
                """
                CATALOG 0000000000000
                REM DISCID 12345678
                FILE "x.wav" WAVE
                  TRACK 01 AUDIO
                    PREGAP 00:02:00
                    INDEX 00 00:00:00
                    INDEX 01 00:01:00
                    POSTGAP 00:02:00
                    ISRC ABCDE1234567
                    FLAGS DCP
                  TRACK 02 AUDIO
                    TITLE Unquoted words
                    INDEX 01 00:05:00
                """,
                ["x.wav 01 0-375 ", "x.wav 02 375- Unquoted"]
            ),
            // CRLF line ends, tabs, lower-case REM names, an unterminated quote.
            (
                "REM genre \"Jazz\"\r\nFILE \"t.mp3\" MP3\r\n\tTRACK 07 AUDIO\r\n\t\tTITLE \"Open\r\n\t\tINDEX 01 00:00:10\r\n",
                ["t.mp3 07 10- Open"]
            ),
        ] as [(String, [String])])
    func sheetsFromTheWild(_ text: String, _ expected: [String]) throws {
        let sheet = try Self.parse(text)
        let got = sheet.tracks.map {
            "\($0.file) \($0.number) \($0.start)-\($0.end.map(String.init) ?? "") \($0.title ?? "")"
        }
        #expect(got == expected)
    }

    @Test func encodings() throws {
        // UTF-8 with a BOM, Windows-1252 (é = E9) and UTF-16LE with a BOM.
        let bom =
            [0xEF, 0xBB, 0xBF] + Array("TITLE \"Été\"\nFILE \"é.wav\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n".utf8)
        #expect(try CueSheet.parse(bom).tracks.map { "\($0.album ?? "") \($0.file)" } == ["Été é.wav"])
        let latin1: [UInt8] =
            Array("FILE \"Caf".utf8) + [0xE9] + Array(".wav\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n".utf8)
        #expect(try CueSheet.parse(latin1).tracks.map(\.file) == ["Café.wav"])
        let text = "FILE \"日本.flac\" WAVE\nTRACK 01 AUDIO\nTITLE \"歌\"\nINDEX 01 00:00:00\n"
        let utf16: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(try CueSheet.parse(utf16).tracks.map { "\($0.file) \($0.title ?? "")" } == ["日本.flac 歌"])
    }

    @Test func badLinesAreSkippedWithTheirLineNumber() throws {
        let sheet = try Self.parse("FILE \"a.wav\" WAVE\nTRACK 01 AUDIO\nINDEX 01 0:xx:00\nINDEX 01 00:01:00\nTRACK\n")
        #expect(sheet.tracks.map(\.start) == [75])
        #expect(
            sheet.warnings == [
                "line 3: INDEX needs a number and a time mm:ss:ff", "line 5: TRACK without a number and a type",
            ])
    }

    @Test(arguments: [
        ("", "not a usable CUE sheet: no FILE line"),
        ("just some text\nwith lines\n", "not a usable CUE sheet: no FILE line"),
        (
            "FILE \"a.bin\" BINARY\nTRACK 01 MODE1/2352\nINDEX 01 00:00:00\n",
            "not a usable CUE sheet: no audio track with an audio file"
        ),
        ("FILE \"a.wav\" WAVE\n", "not a usable CUE sheet: no audio track with an audio file"),
        ("\u{0}\u{1}binary\u{0}", "not a text file"),
    ])
    func sheetsWithoutTracksSayWhy(_ text: String, _ message: String) {
        #expect(throws: CueSheet.Problem(message)) { try Self.parse(text) }
    }

    @Test func randomBytesNeverCrash() {
        var rng = SplitMix64(seed: 16)
        let words = [
            "FILE", "TRACK", "INDEX", "REM", "TITLE", "PERFORMER", "\"", " ", "\n", "01", "00:00:00", "AUDIO", "WAVE",
            ":",
        ]
        for _ in 0..<2000 {
            var text = ""
            for _ in 0..<rng.next(below: 40) { text += words[rng.next(below: words.count)] }
            let parsed = try? Self.parse(text)
            for track in parsed?.tracks ?? [] { #expect(track.end.map { $0 > track.start } ?? true) }
        }
    }
}
