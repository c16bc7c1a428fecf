import Foundation
import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Feedback without a screen on the real daemon: `card ID` injections and a volume request
/// past the maximum come out of the paced sink as their sounds (frequency, length), while
/// playing and while paused; the status LED's changes, recorded, blink as `StatusLight` says.
@Suite(.serialized) struct FeedbackDaemonTests {
    static let rate = 44100

    @Test func cardsAndLimitsSoundAndTheLEDBlinks() throws {
        let directory = try TemporaryDirectory(prefix: "jukeboxd-feedback")
        defer { directory.remove() }
        let sink = try PacedFifoSink(bytesPerSecond: Self.rate * 4, pipeSize: 4096)
        defer { sink.stop() }
        try FileManager.default.createDirectory(atPath: directory.file("music/Kids"), withIntermediateDirectories: true)
        // Silence, so that what the sink gets beside it is the feedback alone.
        try InputLatencyProbe.writeFlatWAV(path: directory.file("music/Kids/quiet.wav"), seconds: 30, level: 0)
        let config = directory.file("jukebox.toml")
        try DaemonConfig(
            musicDir: "music", device: sink.alsaDevice, pacing: "device", periodMs: 10, bufferMs: 40, startVolume: 40,
            maxVolume: 85, onStart: "off",
            extra: "\n[feedback]\nvolume = 50\nled_line = 17\n"
        ).write(to: config)
        let ledRecord = directory.file("led.txt")
        let process = try DaemonProcess(
            executable: Jukeboxd.binary,
            arguments: [
                "--config", config, "--log-level", "debug", "--console", "stdin", "--led-record", ledRecord,
            ])
        defer {
            process.kill(SIGKILL)
            _ = process.waitForExit(timeout: .seconds(5))
        }
        #expect(
            waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(200)) {
                try? process.send(#"lsinfo "Kids""#)
                return process.text(of: .stdout).contains("file: Kids/quiet.wav")
            }, "\(process.text(of: .stderr))")
        func bursts() -> [ToneBurst] { ToneBurst.find(in: sink.samples, rate: Self.rate) }
        /// Waits until `count` bursts came, the last one `ms` long whole, and `then` frames
        /// after it (the music's, so that the next sound cannot join it; a sound asked for
        /// while another sounds replaces it).
        func waitForBursts(_ count: Int, lastMs: Int, then: Int) -> Bool {
            waitUntil(timeout: .seconds(5)) {
                let found = bursts()
                return found.count == count && sink.byteCount >= (found[count - 1].first + lastMs * 44 + then) * 4
            }
        }
        let level = Double(VolumeCurve.gain(percent: 50)) * 16384

        try process.send(#"card assign K folder "Kids""#)
        #expect(waitUntil(timeout: .seconds(10)) { process.text(of: .stdout).contains(#"K folder "Kids""#) })
        // A known card: the music starts, with the blip over it.
        try process.send("card K")
        #expect(waitForBursts(1, lastMs: 90, then: 2205), "\(process.text(of: .stderr))")
        // Past the maximum: one low beep.
        try process.send("volume 100")
        #expect(waitForBursts(2, lastMs: 150, then: 2205), "\(bursts())")
        // Taken off: paused after the debounce; an unknown card then beeps twice, paused.
        try process.send("card none")
        #expect(waitUntil(timeout: .seconds(5)) { process.text(of: .stderr).contains("card: pause") })
        try process.send("card U")
        #expect(waitForBursts(4, lastMs: 100, then: -10), "\(bursts())")

        let found = bursts()
        print("feedback at the sink: \(found)")
        #expect(found.count == 4, "\(found)")
        if found.count == 4 {
            #expect(ToneBurst.isNote(found[0], hz: 1320, ms: 90, rate: Self.rate), "\(found[0])")
            #expect(ToneBurst.isNote(found[1], hz: 440, ms: 150, rate: Self.rate), "\(found[1])")
            #expect(ToneBurst.isNote(found[2], hz: 660, ms: 100, rate: Self.rate), "\(found[2])")
            #expect(ToneBurst.isNote(found[3], hz: 660, ms: 100, rate: Self.rate), "\(found[3])")
            for burst in found { #expect(abs(Double(burst.peak) - level) < level * 0.02 + 2, "\(burst)") }
        }

        // The LED: dark at the start; for card K lit, dark, lit (a blink, then playing); dark at
        // the pause; for card U lit, dark.
        let edges = try EdgeStreamParser.parse(String(contentsOfFile: ledRecord, encoding: .utf8)).get()
        print("status LED: \(edges.map { "\($0.level ? 1 : 0) at \($0.at.milliseconds(since: edges[0].at)) ms" })")
        #expect(edges.allSatisfy { $0.line == 17 })
        #expect(edges.map(\.level) == [false, true, false, true, false, true, false], "\(edges)")
        if edges.count == 7 {
            for (on, off) in [(1, 2), (2, 3), (5, 6)] {
                let ms = edges[off].at.milliseconds(since: edges[on].at)
                #expect(abs(ms - StatusLight.blinkMs) <= 40, "edge \(on) -> \(off): \(ms) ms")
            }
        }
    }
}
