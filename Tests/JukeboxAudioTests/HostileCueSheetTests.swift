import Glibc
import JukeboxAudio
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// A FLAC CUESHEET block's 64-bit sample offsets as the file gives them (libFLAC does not
/// check them): a track whose offset is past Int64.max is held there and left out of the
/// sheet the probe gives, the other tracks are kept.
@Suite struct HostileCueSheetTests {
    @Test func aTrackOffsetPastInt64MaxIsLeftOut() throws {
        let dir = try TemporaryDirectory()
        let wav = try EncodedMedia(directory: dir.path).wav("album.wav", seconds: 3)
        let cue = dir.file("album.cue")
        try FileDescriptor(path: cue, flags: O_WRONLY | O_CREAT | O_TRUNC).writeAll(
            Array(
                """
                FILE "album.wav" WAVE
                  TRACK 01 AUDIO
                    INDEX 01 00:00:00
                  TRACK 02 AUDIO
                    INDEX 01 00:01:00
                  TRACK 03 AUDIO
                    INDEX 01 00:02:00

                """.utf8))
        let flac = dir.file("album.flac")
        try EncodedMedia.tool(["flac", "-s", "--cuesheet=" + cue, wav, "-o", flac])
        var bytes = Array(try readWholeFile(flac))
        // Track 2's offset, 44,100 samples, as the block stores it: 8 bytes, big-endian.
        let offset: [UInt8] = [0, 0, 0, 0, 0, 0, 0xAC, 0x44]
        let places = (0...bytes.count - 8).filter { Array(bytes[$0..<$0 + 8]) == offset }
        try #require(places.count == 1)
        bytes.replaceSubrange(places[0]..<places[0] + 8, with: [UInt8](repeating: 0xFF, count: 8))
        let hostile = dir.file("hostile.flac")
        try FileDescriptor(path: hostile, flags: O_WRONLY | O_CREAT | O_TRUNC).writeAll(bytes)

        let sheet = try #require(try MediaProbe.probe(path: hostile).cueSheet)
        #expect(
            sheet == """
                FILE "" WAVE
                TRACK 01 AUDIO
                INDEX 01 00:00:00
                TRACK 03 AUDIO
                INDEX 01 00:02:00

                """)
    }
}
