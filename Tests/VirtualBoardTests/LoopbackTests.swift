import Foundation
import JukeboxTestSupport
import Testing

/// The ALSA hardware path on a real kernel driver: jukeboxd plays to snd-aloop's
/// hw:Loopback,0,0 on the virtual board, arecord captures the other end (hw:Loopback,1,0).
@Suite(.serialized, .enabled(if: VirtualBoard.unavailableReason == nil, virtualBoardSkip))
struct LoopbackTests {
    static let rig = Result { try BoardRig() }

    /// Plays `files` (paths under the music folder) as the queue, with the capture at `rate`
    /// opened first, until the daemon stops; returns the capture with 0.2 s of silence after.
    static func playAndCapture(
        _ name: String, _ files: [String], rate: Int = 44100, config: DaemonConfig? = nil,
        during: (BoardJukebox, BoardCapture) throws -> Void = { _, _ in }
    ) throws -> (samples: [Int16], daemon: BoardJukebox) {
        let rig = try rig.get()
        let capture = try BoardCapture(board: rig.board, name: name, rate: rate)
        let daemon = try BoardJukebox(
            board: rig.board, uart: rig.uart, name: name, config: config ?? BoardRig.config(name: name))
        daemon.command("clear")
        for file in files { #expect(daemon.command("add \"\(file)\"").hasSuffix("OK\r\n"), "\(daemon.log)") }
        #expect(daemon.command("play").hasSuffix("OK\r\n"))
        try during(daemon, capture)
        let stopped = waitUntil(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            daemon.status()["state"] == "stop"
        }
        #expect(stopped, "\(daemon.log)")
        capture.waitFor(seconds: 0.2)
        let samples = try capture.finish()
        daemon.stop()
        return (samples, daemon)
    }

    /// Whether the silent second after the music (up to its last 50 ms, where the drain
    /// begins) is silent at the capture.
    static func silent(_ captured: [Int16], after end: Int) -> Bool {
        captured.count >= end + 2 * 44100 && captured[end..<end + 2 * (44100 - 2205)].allSatisfy { $0 == 0 }
    }

    /// Each track comes out of the kernel driver sample for sample as mpg123 decodes it, with
    /// nothing before or after it but silence. (A second of silence follows it in the queue:
    /// at the end of the queue the daemon drains the device, and snd-aloop's capture then
    /// loses the last ~16 ms of it; see docs/VIRTUAL-BOARD.md.)
    @Test(arguments: ["cbr128.mp3", "vbr_v2.mp3"])
    func decodeExact(_ file: String) throws {
        let music = try Self.rig.get().folder.file("music/")
        let (captured, daemon) = try Self.playAndCapture("exact-\(file)", [file, "silence.wav"])
        let reference = try referenceDecode([music + file])
        let found = offset(of: reference, in: captured)
        let start = try #require(found, "\(captured.count) samples captured; \(daemon.log)")
        let difference = maxDifference(captured[start..<start + reference.count], reference[...])
        #expect(difference <= 2)
        #expect(Self.silent(captured, after: start + reference.count), "samples after the track")
    }

    /// Three parts of one sweep, queued: one unbroken sweep at the capture (no gap, no
    /// overlap), as `mpg123 --gapless` joins them.
    @Test func gaplessAcrossTracks() throws {
        let music = try Self.rig.get().folder.file("music/gapless/")
        let parts = ["part1.mp3", "part2.mp3", "part3.mp3"]
        let (captured, daemon) = try Self.playAndCapture("gapless", parts.map { "gapless/" + $0 } + ["silence.wav"])
        let reference = try referenceDecode(parts.map { music + $0 })
        let referenceCount = reference.count
        #expect(referenceCount == 264_600 * 2)
        let found = offset(of: reference, in: captured)
        let start = try #require(found, "\(captured.count) samples captured; \(daemon.log)")
        let difference = maxDifference(captured[start..<start + reference.count], reference[...])
        #expect(difference <= 2)
        #expect(Self.silent(captured, after: start + reference.count), "samples after the last part")
    }

    /// The capture side opened first at 48 kHz: the loopback's playback side then takes only
    /// 48 kHz (as a DAC that has one rate), and the daemon resamples the 44.1 kHz sine.
    @Test func aDeviceThatTakesOnly48kHz() throws {
        let (captured, daemon) = try Self.playAndCapture("rate48k", ["sine1k.wav"], rate: 48000)
        let sounding = captured.indices.filter { captured[$0] != 0 }
        let first = try #require(sounding.first, "\(captured.count) samples captured; \(daemon.log)")
        let frames = (sounding.last! - first) / 2 + 1
        #expect(abs(frames - 3 * 48000) < 200, "3 s at 48 kHz: \(frames) frames")
        // 1 kHz still: 2,000 sign changes a second on the left channel (its second second).
        let left = stride(from: first + 96000, to: first + 2 * 96000, by: 2).map { captured[$0] }
        let crossings = zip(left, left.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(abs(crossings - 2000) <= 4, "\(crossings) sign changes in 1 s")
    }
}
