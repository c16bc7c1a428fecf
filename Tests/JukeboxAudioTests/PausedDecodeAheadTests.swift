import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

@testable import JukeboxAudio

/// Paused on a file, jb-decode decodes from the paused frame on, so that play writes to the
/// card at once instead of after a seek and a read of the file (on the virtual board a read
/// over 9p on a busy host took 28 ms, most of a button's play latency).
@Suite struct PausedDecodeAheadTests {
    static let rate = DeepBufferTests.rate

    /// Seconds of audio the ring holds.
    static func ringSeconds(_ h: Harness) -> Double {
        Double(h.pipeline.shared.withLock { $0.ringCount } * AudioPipeline.chunkFrames) / Double(rate)
    }

    @Test func playAfterAPauseNeedsNoReadOfTheFile() throws {
        let dir = try TemporaryDirectory()
        let card = SimulatedCard()
        let h = DeepBufferTests.settled(card, dir: dir)
        h.pipeline.pause()
        #expect(waitUntil(timeout: .seconds(2)) { !card.dropTimes.isEmpty })
        #expect(waitUntil(timeout: .seconds(2)) { Self.ringSeconds(h) >= 1 }, "decoded ahead while paused")
        // The file loses its audio (its header stays): play goes on from what was decoded.
        #expect(truncate(dir.file("tone.wav"), 44) == 0)
        let heard = card.played.count / 2
        h.pipeline.resume()
        #expect(
            waitUntil(timeout: .seconds(3)) { card.played.count / 2 >= heard + Self.rate / 2 },
            "\(card.played.count / 2 - heard) frames after play")
        #expect(card.played.allSatisfy { $0 == 16000 }, "the tone, where it was paused")
    }

    @Test func aSpeedSetWhilePausedIsDecodedAgain() throws {
        let dir = try TemporaryDirectory()
        let card = SimulatedCard()
        let h = DeepBufferTests.settled(card, dir: dir)
        h.pipeline.pause()
        #expect(waitUntil(timeout: .seconds(2)) { Self.ringSeconds(h) >= 1 })
        h.pipeline.setSpeed(2)
        let paused = h.pipeline.status().positionFrames
        let heard = card.played.count / 2
        h.pipeline.resume()
        #expect(waitUntil(timeout: .seconds(3)) { card.played.count / 2 >= heard + Self.rate / 2 })
        let moved = Double(h.pipeline.status().positionFrames - paused)
        let played = Double(card.played.count / 2 - heard)
        #expect(moved > 1.6 * played, "\(moved) track frames in \(played) played frames")
    }
}
