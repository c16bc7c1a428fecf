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
