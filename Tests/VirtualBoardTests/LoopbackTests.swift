import Foundation
import JukeboxTestSupport
import Testing

/// The ALSA hardware path on a real kernel driver: jukeboxd plays to snd-aloop's
/// hw:Loopback,0,0 on the virtual board, arecord captures the other end (hw:Loopback,1,0).
extension BoardDeviceTests {
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
        let failed = daemon.play(files)
        #expect(failed.isEmpty, "\(failed) \(daemon.log)")
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

    /// `reference` is in `captured` sample for sample (mpg123 and the daemon's libmpg123 may
    /// round differently by 2), to its last sample, with nothing but silence after it.
    static func expectExact(_ captured: [Int16], _ reference: [Int16], _ daemon: BoardJukebox) throws {
        let found = offset(of: reference, in: captured)
        let start = try #require(found, "\(captured.count) samples captured; \(daemon.log)")
        let difference = maxDifference(captured[start..<start + reference.count], reference[...])
        #expect(difference <= 2)
        #expect(silent(captured, after: start + reference.count), "samples after the music")
    }

    /// Whether the capture after the music (at least 0.1 s of it) is silent.
    static func silent(_ captured: [Int16], after end: Int) -> Bool {
        captured.count >= end + 2 * 4410 && captured[end...].allSatisfy { $0 == 0 }
    }

    /// Each track comes out of the kernel driver sample for sample as mpg123 decodes it, with
    /// nothing before or after it but silence. It is the whole queue: the end of the queue
    /// (the device drained) loses nothing either.
    @Test(arguments: ["cbr128.mp3", "vbr_v2.mp3"])
    func decodeExact(_ file: String) throws {
        let music = try Self.rig.get().folder.file("music/")
        let (captured, daemon) = try Self.playAndCapture("exact-\(file)", [file])
        try Self.expectExact(captured, try referenceDecode([music + file]), daemon)
    }

    /// Three parts of one sweep, queued: one unbroken sweep at the capture (no gap, no
    /// overlap), as `mpg123 --gapless` joins them.
    @Test func gaplessAcrossTracks() throws {
        let music = try Self.rig.get().folder.file("music/gapless/")
        let parts = ["part1.mp3", "part2.mp3", "part3.mp3"]
        let (captured, daemon) = try Self.playAndCapture("gapless", parts.map { "gapless/" + $0 })
        let reference = try referenceDecode(parts.map { music + $0 })
        let referenceCount = reference.count
        #expect(referenceCount == 264_600 * 2)
        try Self.expectExact(captured, reference, daemon)
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

    /// The daemon stalls (SIGSTOP) for longer than the 2 s buffer: the driver underruns
    /// and plays silence; once it runs again the daemon recovers the device and the sweep goes
    /// on from the sample where it broke off, to the end.
    @Test func anUnderrunIsRecoveredWhereTheMusicBrokeOff() throws {
        let music = try Self.rig.get().folder.file("music/gapless/")
        let parts = ["part1.mp3", "part2.mp3", "part3.mp3"]
        let (captured, daemon) = try Self.playAndCapture("xrun", parts.map { "gapless/" + $0 } + ["silence.wav"]) {
            daemon, capture in
            capture.waitFor(seconds: 1.5)
            try daemon.board.check("kill -STOP \(daemon.pid); sleep 2.5; kill -CONT \(daemon.pid)")
        }
        let reference = try referenceDecode(parts.map { music + $0 })
        let found = offset(of: reference, in: captured)
        let start = try #require(found, "\(captured.count) samples captured; \(daemon.log)")
        // Where it broke off: the first 50 ms of silence inside the music.
        let music50ms = 2 * 2205
        let broke = try #require(
            stride(from: start, to: start + reference.count - music50ms, by: 2).first { i in
                captured[i..<i + music50ms].allSatisfy { $0 == 0 }
            }, "no underrun: no silence in the music")
        let before = broke - start
        #expect(maxDifference(captured[start..<broke], reference[..<before]) <= 2)
        let resumed = try #require(captured[broke...].firstIndex { $0 != 0 })
        let gapSeconds = Double(resumed - broke) / 88200
        #expect(gapSeconds > 0.2 && gapSeconds < 3, "silence of \(gapSeconds) s")
        let rest = reference[before...]
        #expect(captured.count >= resumed + rest.count)
        let restDifference = maxDifference(captured[resumed..<min(captured.count, resumed + rest.count)], rest)
        #expect(restDifference <= 2, "the music after the underrun is not the rest of the sweep")
    }

    /// `mixer = "Jukebox"` with the softvol PCM of the board's asound.conf: the volume is set
    /// on the ALSA control (amixer sees it) and the samples at the capture are scaled by it,
    /// by the daemon's curve (alsamixer's cubic mapping: 50 % = -36.2 dB on softvol's 51 dB range). ALSA makes a softvol
    /// control at the first open of its PCM, and it stays locked to that open until it closes,
    /// so a board makes it at boot with a first short playback, as here.
    @Test func aSoftvolMixerControlSetsTheVolume() throws {
        try Self.rig.get().board.check("aplay -q -D softvol -f cd -s 1 /dev/zero")
        var config = BoardRig.config(name: "softvol", device: "softvol")
        config.audioExtra = "mixer = \"Jukebox\""
        let (captured, daemon) = try Self.playAndCapture("softvol", ["sine1k.wav"], config: config) {
            daemon, capture in
            capture.waitFor(seconds: 0.5)
            #expect(daemon.command("setvol 50").hasSuffix("OK\r\n"))
        }
        let control = try Self.rig.get().board.check("amixer -c Loopback sget Jukebox")
        #expect(control.contains("Playback 74 [29%] [-36.20dB]"), "\(control)")
        let sounding = captured.indices.filter { captured[$0] != 0 }
        let last = try #require(sounding.last, "\(daemon.log)")
        // The last quarter second of the sine, written to the device after the change (softvol
        // scales what is written): its peak against 0.5 full scale.
        let peak = captured[(last - 22050)...last].map { abs(Int($0)) }.max() ?? 0
        let gain = Double(peak) / (0.5 * 32767)
        let expected = 0.01549  // -36.2 dB
        #expect(abs(gain - expected) < 0.001, "gain \(gain); \(daemon.log)")
        #expect(!daemon.log.contains("hardware mixer unavailable"), "\(daemon.log)")
    }
}
