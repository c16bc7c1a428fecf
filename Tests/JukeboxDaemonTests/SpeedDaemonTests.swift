import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Playback speed in the real daemon: track time runs 1.5 s per second at 1.5×, and after
/// `kill -9` the book comes back at its place and at its speed; a card sets it back to 1.
@Suite(.serialized) struct SpeedDaemonTests {
    @Test(.timeLimit(.minutes(10)))
    func aLongTrackAtOneAndAHalfResumesAfterKillNineWhereItWasAtItsSpeed() throws {
        let media = try TemporaryDirectory(prefix: "jukebox-speed")
        let encoded = EncodedMedia(directory: media.path)
        let book = try encoded.encode(try encoded.wav("book.wav", seconds: 60), as: .flac)
        // A long track from 30 s on, so that the 60 s file keeps its own place and speed.
        let harness = try DaemonHarness(tracks: [book], mode: "in-order", resumeExtra: "long_track_minutes = 0.5")
        var process = try harness.start()
        let playing = harness.waitForStatus(timeout: .seconds(10)) { $0.state == "play" && $0.elapsed >= 1 }
        let song = try #require(playing?.songID, "no playback:\n\(harness.log)")
        harness.send("speed 1.5")
        let fast = try #require(harness.waitForStatus { $0.speed == "1.5" }, "\(harness.log)")
        let later = try #require(harness.waitForStatus { $0.elapsed >= fast.elapsed + 3 })
        let rate = (later.elapsed - fast.elapsed) / seconds(from: fast.at, to: later.at)
        #expect(abs(rate - 1.5) < 0.15, "track seconds per second: \(rate)")

        let before = try #require(harness.status())
        let killedAt = MonotonicClock.nanoseconds()
        process.kill(SIGKILL)
        #expect(process.waitForExit(timeout: .seconds(5)) == 128 + SIGKILL)
        let position = before.elapsed + 1.5 * seconds(from: before.at, to: killedAt)

        process = try harness.start()
        let back = process.waitForOutputLine(matching: "playing", on: .stderr, timeout: .seconds(10))
        try #require(back != nil, "no playback after the restart:\n\(harness.log)")
        let status = try #require(harness.status())
        let resumedAt = status.elapsed - 1.5 * seconds(from: back!.nanoseconds, to: status.at)
        #expect(status.songID == song)
        #expect(status.speed == "1.5", "\(harness.log)")
        #expect(abs(position - resumedAt) <= 2, "\(position) s before, resumed at \(resumedAt) s")
        // A card whose command sets the speed (the card command path runs console lines).
        harness.send("card assign 04A1B2 command \"speed 1\"")
        harness.send("card 04A1B2")
        #expect(harness.waitForStatus { $0.speed == "1" } != nil, "\(harness.log)")
        process.kill(SIGTERM)
        _ = process.waitForExit(timeout: .seconds(5))
    }
}
