import Foundation
import Glibc
import JukeboxTestSupport
import Testing

@Suite struct LyricsCommandTests {
    @Test func printsTheTimelineWithWordsAndWarnings() throws {
        let file = Fixtures.path("Tests/Fixtures/lyrics/variants.lrc")
        let result = try Jukeboxd.run(["lyrics", file])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                # title: Variants
                # artist: Fixture
                # format: lrc, encoding: UTF-8, file offset: 200 ms (applied), 9 lines
                00:00.800  No fraction
                00:02.300  Tenths
                00:03.250  Hundredths
                00:03.923  Milliseconds
                00:04.800  Chorus twice
                00:06.300  Colon hundredths
                00:09.800  (gap)
                00:11.800  Word by word
                    00:11.800  Word
                    00:12.300  by
                    00:13.050  word
                00:24.800  Chorus twice

                """)
        #expect(
            result.stderr == """
                \(file):11: skipped: no timestamp: this line is garbage
                \(file):13: skipped: a tag followed by text: [zz:00]also garbage

                """)
    }

    @Test(arguments: [
        ("gbk.lrc", "GB18030", "00:01.000  你问我爱你有多深"),
        ("crlf-bom.lrc", "UTF-8 with BOM", "00:03.000  Deuxième"),
        ("utf16.lrc", "UTF-16LE", "00:01.000  Grüße 🎵"),
        ("karaoke.ksc", "UTF-8", "    00:04.800  唱"),
    ])
    func decodesEveryEncoding(file: String, encoding: String, line: String) throws {
        let result = try Jukeboxd.run(["lyrics", Fixtures.path("Tests/Fixtures/lyrics/\(file)")])
        #expect(result.status == 0)
        #expect(result.stdout.contains("encoding: \(encoding)"))
        #expect(result.stdout.contains(line + "\n"), "\(result.stdout)")
        #expect(result.stderr.isEmpty)
    }

    @Test func missingFile() throws {
        let result = try Jukeboxd.run(["lyrics", "/nonexistent.lrc"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent.lrc"))
    }
}

@Suite struct RenderCommandTests {
    @Test(arguments: ["320x240", "16x2"])
    func rendersAPNG(size: String) throws {
        let directory = try TemporaryDirectory(prefix: "jukebox-render")
        let output = directory.file("\(size).png")
        let result = try Jukeboxd.run([
            "render", "--track", Fixtures.path("config/demo-music/01 Morning Light.mp3"), "--position", "0:09.8",
            "--size", size, "--output", output,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("\(output): "))
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(Array(bytes.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
    }

    @Test func badSize() throws {
        let result = try Jukeboxd.run(["render", "--size", "big", "--output", "/tmp/x.png"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--size must be WIDTHxHEIGHT"))
    }
}

@Suite struct EmbeddedLyricsTests {
    @Test func syltInAnMP3() throws {
        let sylt: [UInt8] =
            [3] + Array("eng".utf8) + [2, 1] + [0]
            + Array("Embedded one".utf8) + [0, 0, 0, 0x05, 0xDC]
            + Array("\nEmbedded two".utf8) + [0, 0, 0, 0x0F, 0xA0]
        var body: [UInt8] = Array("SYLT".utf8) + [0, 0, 0, UInt8(sylt.count), 0, 0] + sylt
        body += [UInt8](repeating: 0, count: 16)  // padding
        let n = body.count
        let tag: [UInt8] = [0x49, 0x44, 0x33, 3, 0, 0, 0, 0, UInt8(n >> 7), UInt8(n & 0x7F)] + body
        let audio = try Array(Data(contentsOf: URL(fileURLWithPath: Fixtures.demoMusic + "/03 Night Drive.mp3")))
        let directory = try TemporaryDirectory(prefix: "jukebox-embedded")
        let path = directory.file("embedded.mp3")
        try Data(tag + audio).write(to: URL(fileURLWithPath: path))
        let result = try Jukeboxd.run(["lyrics", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("00:01.500  Embedded one\n00:04.000  Embedded two\n"), "\(result.stdout)")
    }

    /// An M4A's ©lyr as ffmpeg writes it (UTF-8), read from the atoms: synced LRC text shown
    /// as through FFmpeg; a file without it has none.
    @Test func lyricsAtomInAnM4A() throws {
        let directory = try TemporaryDirectory(prefix: "jukebox-embedded")
        let media = EncodedMedia(directory: directory.path)
        let wav = try media.wav("tone.wav", seconds: 1)
        for (name, lyrics) in [("synced.m4a", "[00:01.50]一行目\n[00:04.00]second"), ("plain.m4a", nil)] {
            try EncodedMedia.tool(
                ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "alac"]
                    + (lyrics.map { ["-metadata", "lyrics=\($0)"] } ?? []) + [directory.file(name)])
        }
        let synced = try Jukeboxd.run(["lyrics", directory.file("synced.m4a")])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains("00:01.500  一行目\n00:04.000  second\n"), "\(synced.stdout)")
        let plain = try Jukeboxd.run(["lyrics", directory.file("plain.m4a")])
        #expect(plain.status == 1 && plain.stderr.contains("no embedded lyrics"), "\(plain.stdout)\(plain.stderr)")
    }
}
