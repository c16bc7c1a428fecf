import Foundation
import JukeboxAudio
import JukeboxTestSupport
import LinuxSupport
import Testing

@Suite struct MediaProbeTests {
    struct Expected: Sendable, CustomStringConvertible {
        var file: String
        var title: String?
        var artist: String?
        var album: String?
        var track: Int?
        var description: String { file }
    }

    static let tagCases: [Expected] = [
        Expected(file: "id3v1_latin1.mp3", title: "Café Müller", artist: "Zoë", album: "Ça va", track: 3),
        Expected(file: "id3v22.mp3", title: "Two Two", artist: "Old Tagger", album: "Vintage", track: 2),
        Expected(file: "id3v23_utf16.mp3", title: "Ünïcödé Sixteen", artist: "Ærø", album: "Ελληνικά", track: 7),
        Expected(file: "id3v24_utf8_cjk.mp3", title: "夜に駆ける", artist: "YOASOBI", album: "THE BOOK", track: 1),
        Expected(file: "untagged.mp3", title: nil, artist: nil, album: nil, track: nil),
    ]

    @Test(arguments: tagCases)
    func tags(_ e: Expected) throws {
        let m = try MediaProbe.probe(path: Fixtures.media("tags/" + e.file))
        #expect(m.title == e.title)
        #expect(m.artist == e.artist)
        #expect(m.album == e.album)
        #expect(m.trackNumber == e.track)
        #expect(m.sampleRate == 44100)
    }

    @Test func expectedTableMatchesTheFixtureFile() throws {
        let text = try String(contentsOfFile: Fixtures.media("tags/expected.tsv"), encoding: .utf8)
        let rows = text.split(separator: "\n").dropFirst().map {
            $0.split(separator: "\t", omittingEmptySubsequences: false)
        }
        for row in rows {
            let e = try #require(Self.tagCases.first { $0.file == row[0] })
            #expect((e.title ?? "") == row[1])
            #expect((e.artist ?? "") == row[2])
            #expect((e.album ?? "") == row[3])
        }
    }

    @Test(arguments: [
        ("mp3/cbr128.mp3", 44100, 2), ("mp3/vbr_v2.mp3", 44100, 2), ("mp3/mpeg2_22k.mp3", 22050, 2),
        ("mp3/mpeg25_11k.mp3", 11025, 2), ("mp3/mono.mp3", 44100, 1), ("mp3/cbr_noxing.mp3", 44100, 2),
        ("wav/pcm16_stereo.wav", 44100, 2), ("wav/pcm16_48k_mono.wav", 48000, 1), ("wav/pcm24_stereo.wav", 44100, 2),
    ])
    func formatsAndDurations(_ file: String, _ rate: Int, _ channels: Int) throws {
        let m = try MediaProbe.probe(path: Fixtures.media(file))
        #expect(m.sampleRate == rate)
        let expectedMs: Int64 = file.hasPrefix("wav/pcm24") ? 1000 : file.hasPrefix("wav/") ? 2000 : 3000
        let duration = try #require(m.durationMs)
        #expect(abs(duration - expectedMs) <= (file.contains("noxing") ? 100 : 30), "\(duration)")
        if !file.hasPrefix("mp3/mpeg") { #expect(m.channels == channels) }
    }

    @Test(arguments: ["bad/empty.mp3", "bad/text.mp3", "bad/random.mp3", "bad/truncated.mp3", "bad/notes.txt"])
    func badFilesThrow(_ file: String) {
        #expect(throws: (any Error).self) { try MediaProbe.probe(path: Fixtures.media(file)) }
    }

    @Test func leadingJunkIsAcceptedAfterResync() throws {
        let m = try MediaProbe.probe(path: Fixtures.media("bad/leading_junk.mp3"))
        #expect(m.sampleRate == 44100)
    }

    /// A first scan must not read whole files from the card: the truncation check seeks near
    /// the end approximately instead of reading every frame header up to there.
    @Test func probeOfALongFileReadsOnlyItsEnds() throws {
        let dir = try TemporaryDirectory()
        let long = dir.file("long.mp3")
        let piece = try Data(contentsOf: URL(fileURLWithPath: Fixtures.media("mp3/cbr_noxing.mp3")))
        try Data((0..<60).flatMap { _ in piece }).write(to: URL(fileURLWithPath: long))  // 2.9 MB, 3 min
        let before = bytesReadByThisThread()
        let m = try MediaProbe.probe(path: long)
        let read = bytesReadByThisThread() - before
        print("MediaProbe read \(read) of \(piece.count * 60) bytes")
        #expect(read < 100_000, "read \(read) bytes of a \(piece.count * 60)-byte file")
        let one = try MediaProbe.probe(path: Fixtures.media("mp3/cbr_noxing.mp3"))
        #expect(abs((m.durationMs ?? 0) - 60 * (one.durationMs ?? 0)) < 1000, "\(m.durationMs ?? 0) ms")
    }

    @Test func probeIsFast() throws {
        let files = ["tags/id3v24_utf8_cjk.mp3", "mp3/vbr_v2.mp3", "mp3/cbr128.mp3", "wav/pcm16_stereo.wav"]
        let start = MonotonicClock.nanoseconds()
        for _ in 0..<100 { for f in files { _ = try MediaProbe.probe(path: Fixtures.media(f)) } }
        let perFile = Double(MonotonicClock.nanoseconds() - start) / 400 / 1000
        print("MediaProbe: \(perFile) µs per file (debug build)")
        #expect(perFile < 2000)
    }
}

/// The tags beyond title/artist/album/track, from files written by make-tag-library.sh in
/// every ID3 version (2.2 three-letter frames, 2.3, 2.4) and text encoding (Latin-1, UTF-16
/// with BOM, UTF-16BE, UTF-8), read as MPD 0.23 reads them.
@Suite struct MediaProbeTagTests {
    static let library: TemporaryDirectory = {
        let dir = try! TemporaryDirectory(prefix: "jb-tag-library")
        try! Fixtures.makeTagLibrary(in: dir.path)
        return dir
    }()

    static func tags(_ file: String) throws -> [String] {
        try MediaProbe.probe(path: library.file(file)).tags.map { "\($0.name.rawValue)=\($0.value)" }
    }

    @Test func id3v24UTF8CarriesEveryTag() throws {
        #expect(
            try Self.tags("One/01 First.mp3") == [
                "AlbumArtist=Various", "Date=2001-05-03", "OriginalDate=1999", "Genre=Rock", "Genre=Pop",
                "Composer=Compo", "Conductor=Conductor X", "Comment=A comment", "Disc=1",
                "MUSICBRAINZ_ARTISTID=11111111-1111-1111-1111-111111111111",
                "MUSICBRAINZ_ALBUMID=22222222-2222-2222-2222-222222222222",
                "MUSICBRAINZ_ALBUMARTISTID=33333333-3333-3333-3333-333333333333",
                "MUSICBRAINZ_RELEASETRACKID=44444444-4444-4444-4444-444444444444",
                "MUSICBRAINZ_TRACKID=55555555-5555-5555-5555-555555555555",
            ])
    }

    @Test func id3v23UTF16JoinsYearAndDayAndNamesGenreNumbers() throws {
        #expect(
            try Self.tags("One/02 Second.mp3") == [
                "Date=2001-05-03", "OriginalDate=1999", "Genre=Rock", "Composer=Compo",
            ])
        #expect(try Self.tags("One/03 Third.mp3") == ["Genre=Rock"])
    }

    @Test func id3v24UTF16BigEndianAndLatin1() throws {
        let probed = try MediaProbe.probe(path: Self.library.file("Bee/01 日本語.mp3"))
        #expect(probed.title == "日本語のうた")
        #expect(try Self.tags("Bee/01 日本語.mp3") == ["Date=2010", "Genre=Jazz", "Comment=コメント"])
        #expect(try Self.tags("Bee/03 Three.mp3") == ["Date=2011", "Conductor=Pé Former"])
    }

    @Test func id3v22ThreeLetterFrames() throws {
        #expect(
            try Self.tags("Bee/02 Two.mp3") == [
                "AlbumArtist=Bee & Co", "Date=2011", "Genre=Jazz", "Composer=Zed", "Disc=2",
            ])
    }

    @Test func id3v1YearAndFormats() throws {
        #expect(try Self.tags("Misc/v1.mp3") == ["Date=2026"])
        #expect(try Self.tags("Misc/untagged.mp3") == [])
        #expect(try MediaProbe.probe(path: Self.library.file("Misc/untagged.mp3")).format == "44100:16:1")
        #expect(try MediaProbe.probe(path: Self.library.file("Misc/tone.wav")).format == "44100:16:2")
        #expect(try MediaProbe.probe(path: Fixtures.media("wav/pcm24_stereo.wav")).format == "44100:24:2")
    }
}
