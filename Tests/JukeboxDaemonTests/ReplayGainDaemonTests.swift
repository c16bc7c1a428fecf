import Foundation
import Glibc
import JukeboxTestSupport
import Testing

/// ReplayGain end to end: a tagged MP3 played by the daemon into ALSA's `file` PCM, compared
/// sample by sample with mpg123's decode of the same file times the expected factor.
@Suite(.serialized) struct ReplayGainDaemonTests {
    /// Track gain -6.02 dB (half amplitude); album gain +6 dB, limited by the album peak 0.7
    /// to 1/0.7 (the fixture peaks at 0.675 of full scale, so nothing clips then; without
    /// the guard the album gain would clip it).
    static let tags = [
        "TXXX:REPLAYGAIN_TRACK_GAIN=-6.02 dB", "TXXX:REPLAYGAIN_TRACK_PEAK=0.675",
        "TXXX:REPLAYGAIN_ALBUM_GAIN=+6.00 dB", "TXXX:REPLAYGAIN_ALBUM_PEAK=0.700000",
    ]

    @Test(arguments: [("track", 0.500_034_5), ("album", 1 / 0.7), ("auto", 1 / 0.7), ("off", 1.0)])
    func theModesGainComesOut(mode: String, scale: Double) throws {
        let source = try TemporaryDirectory(prefix: "jb-replaygain")
        defer { source.remove() }
        let tagged = source.file("gain.mp3")
        let wrote = try run(
            [
                "python3", Fixtures.path("Tests/Fixtures/write_id3.py"), "frames", "4", "3",
                Fixtures.media("mp3/cbr128.mp3"), tagged,
            ]
                + Self.tags)
        #expect(wrote.status == 0, "\(wrote.stderrText)")
        let got = try Self.played(tagged, mode: mode, dir: source)

        let reference = Self.samples(try run(["/usr/bin/mpg123", "-q", "--gapless", "-s", tagged]).stdout)
        #expect(got.count == reference.count)
        let worst = Self.largestDifference(got, scaled: reference, by: scale)
        #expect(worst < 1.5, "largest difference from \(scale) × the reference: \(worst)")
        #expect(Int(got.map { abs(Int($0)) }.max() ?? 0) < 32767, "clipped")
    }

    /// Opus's R128 gains (Q7.8 dB, +5 dB to ReplayGain's reference, as MPD 0.23 adds) and
    /// MP4's freeform `----:com.apple.iTunes:replaygain_*` atoms, against `opusdec
    /// --no-dither` and `ffmpeg -f s16le` of the same file times the expected factor.
    @Test(arguments: [
        ("opus", "track", 0.501187), ("opus", "album", 0.891251), ("opus", "off", 1.0),
        ("m4a", "track", 0.500_034_5), ("m4a", "album", 0.707946), ("m4a", "off", 1.0),
    ])
    func opusAndMP4GainsComeOut(format: String, mode: String, scale: Double) throws {
        let source = try TemporaryDirectory(prefix: "jb-replaygain")
        defer { source.remove() }
        let media = EncodedMedia(directory: source.path)
        let wav = try media.wav("gain.wav", rate: format == "opus" ? 48000 : 44100, seconds: 1.5)
        let tagged = source.file("gain.\(format)")
        let reference: [Int16]
        if format == "opus" {
            // -11 dB and -6 dB relative to -23 LUFS: -6 dB and -1 dB as ReplayGain.
            _ = try EncodedMedia.tool(
                ["opusenc", "--quiet", "--comment", "R128_TRACK_GAIN=-2816", "--comment", "R128_ALBUM_GAIN=-1536"]
                    + ["--comment", "REPLAYGAIN_TRACK_GAIN=+10 dB", wav, tagged])
            reference = Self.samples(try run(["opusdec", "--quiet", "--no-dither", tagged, "-"]).stdout)
        } else {
            _ = try EncodedMedia.tool(["ffmpeg", "-nostdin", "-v", "error", "-i", wav, "-c:a", "aac", tagged])
            _ = try EncodedMedia.tool(
                ["/usr/bin/python3", Fixtures.path("Tests/Tools/mp4-freeform.py"), tagged]
                    + ["replaygain_track_gain=-6.02 dB", "replaygain_track_peak=0.9", "REPLAYGAIN_ALBUM_GAIN=-3 dB"])
            // ffmpeg plays AAC's end padding: cut at the exact length.
            reference = Array(
                Self.samples(try run(["ffmpeg", "-nostdin", "-v", "error", "-i", tagged, "-f", "s16le", "-"]).stdout)
                    .prefix(44100 * 3))
        }
        let got = try Self.played(tagged, mode: mode, dir: source)
        #expect(got.count == reference.count && reference.count == (format == "opus" ? 48000 : 44100) * 3)
        let worst = Self.largestDifference(got, scaled: reference, by: scale)
        #expect(worst < 1.5, "\(format) \(mode): largest difference from \(scale) × the reference: \(worst)")
    }

    /// What the daemon plays of `file` in ReplayGain `mode`, into ALSA's `file` PCM.
    static func played(_ file: String, mode: String, dir: TemporaryDirectory) throws -> [Int16] {
        let output = dir.file("out.raw")
        let harness = try DaemonHarness(
            tracks: [file], onStart: "off", mode: "in-order", device: "file:'\(output)',raw", pacing: "device")
        let process = try harness.start()
        #expect(harness.waitForStatus { $0.playlistLength == 1 } != nil, "\(harness.log)")
        harness.send("replay_gain_mode \(mode)")
        harness.send("play")
        #expect(process.waitForLine(matching: "playing", on: .stderr) != nil, "\(harness.log)")
        #expect(harness.waitForStatus { $0.state == "stop" } != nil, "\(harness.log)")
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)
        return samples(FileManager.default.contents(atPath: output) ?? Data())
    }

    /// The largest difference between `got` and `reference` times `scale` (clipped): under
    /// 1.5 when the product is rounded with TPDF dither (±1 LSB of noise, then rounding).
    static func largestDifference(_ got: [Int16], scaled reference: [Int16], by scale: Double) -> Double {
        zip(got, reference).reduce(0) { worst, pair in
            max(worst, abs(Double(pair.0) - max(-32768, min(32767, Double(pair.1) * scale))))
        }
    }

    static func samples(_ bytes: some ContiguousBytes) -> [Int16] {
        bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}
