import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The sleep timer on the real daemon, heard through ALSA's `file` PCM into a paced FIFO:
/// a constant-level track fades without a click and falls silent within one period of the
/// set time; idle power-off saves and runs the power-off command.
@Suite(.serialized) struct SleepTimerDaemonTests {
    static let byteRate = 176_400
    static let level: Int16 = 16000
    static let periodMs = 10

    /// A daemon playing a 60 s constant-level WAV into a paced FIFO, with `sleep` settings;
    /// stopped and cleaned up when released.
    final class SleepBox {
        let directory: TemporaryDirectory
        let sink: PacedFifoSink
        let process: DaemonProcess

        init(sleep: String, shutdownCommand: (String) -> String = { _ in "" }, buttons: String = "") throws {
            directory = try TemporaryDirectory(prefix: "jukeboxd-sleep")
            sink = try PacedFifoSink(bytesPerSecond: SleepTimerDaemonTests.byteRate, pipeSize: 4096)
            try FileManager.default.createDirectory(atPath: directory.file("music"), withIntermediateDirectories: true)
            try InputLatencyProbe.writeFlatWAV(path: directory.file("music/flat.wav"), seconds: 60)
            let config = directory.file("jukebox.toml")
            try DaemonConfig(
                musicDir: "music", device: sink.alsaDevice, pacing: "device",
                periodMs: SleepTimerDaemonTests.periodMs, bufferMs: 40, onStart: "play",
                extra: """

                    [buttons]
                    shutdown_command = "\(shutdownCommand(directory.path))"
                    \(buttons)

                    [sleep]
                    \(sleep)
                    """
            ).write(to: config)
            process = try DaemonProcess(
                executable: Jukeboxd.binary,
                arguments: ["--config", config, "--log-level", "debug", "--console", "stdin"])
            #expect(
                sink.waitForBytes(SleepTimerDaemonTests.byteRate / 2, timeoutSeconds: 20),
                "\(process.text(of: .stderr))")
        }

        deinit {
            _ = process.kill(SIGTERM)
            _ = process.waitForExit(timeout: .seconds(5))
            sink.stop()
            directory.remove()
        }
    }

    static func left(_ bytes: [UInt8], frame: Int) -> Int16 {
        Int16(bitPattern: UInt16(bytes[frame * 4]) | UInt16(bytes[frame * 4 + 1]) << 8)
    }

    @Test func theFadeIsMonotonicClickFreeAndEndsOnTime() throws {
        let box = try SleepBox(sleep: "fade_s = 2")
        let (sink, process) = (box.sink, box.process)
        let sent = MonotonicClock.nanoseconds()
        try process.send("sleep 3s")
        #expect(process.waitForOutputLine(matching: "sleep: 3 s", on: .stdout) != nil)
        #expect(process.waitForLine(matching: "sleep timer: time is up", on: .stderr, timeout: .seconds(10)) != nil)
        // Let what the output had written reach the sink.
        let settled = sink.byteCount + Self.byteRate / 10
        _ = sink.waitForBytes(settled, timeoutSeconds: 2)

        let bytes = sink.bytes
        let frames = bytes.count / 4
        let first = try #require((0..<frames).first { Self.left(bytes, frame: $0) == Self.level })
        let fadeStart = try #require((first..<frames).first { Self.left(bytes, frame: $0) < Self.level })
        // Audible: above -60 dB of the level.
        let lastAudible = try #require((0..<frames).last { Self.left(bytes, frame: $0) > Self.level / 1000 })
        let fadeEnd = min(frames - 1, lastAudible + 4410)
        var largestStep = 0
        for frame in fadeStart..<fadeEnd {
            let step = Int(Self.left(bytes, frame: frame + 1)) - Int(Self.left(bytes, frame: frame))
            largestStep = max(largestStep, abs(step))
        }
        // Each sample carries the gain stage's TPDF dither (±1 LSB): the fade falls in its
        // 5 ms means (whose noise is 0.03 LSB).
        let window = 220
        var rises = 0
        var previous = Double.infinity
        for start in stride(from: fadeStart, to: fadeEnd - window, by: window) {
            let sum = (start..<start + window).map { Int(Self.left(bytes, frame: $0)) }.reduce(0, +)
            let mean = Double(sum) / Double(window)
            if mean > previous + 0.25 { rises += 1 }
            previous = mean
        }
        #expect(rises == 0, "the fade rose \(rises) times")
        // A click would be a jump of thousands; the 20 ms steps ramp over ~5 ms.
        #expect(largestStep <= 64, "largest sample step \(largestStep)")
        let fadeMs = Double(lastAudible - fadeStart) / 44.1
        #expect(fadeMs > 1500 && fadeMs < 2100, "fade lasted \(fadeMs) ms")
        let end = try #require(sink.arrivalTime(ofByte: lastAudible * 4))
        let lateMs = (Double(end) - Double(sent)) / 1e6 - 3000
        #expect(lateMs <= Double(Self.periodMs), "silent \(lateMs) ms after the set time")
        #expect(lateMs > -200, "silent \(-lateMs) ms before the set time")
        try process.send("status")
        #expect(process.waitForOutputLine(matching: "state: stop", on: .stdout) != nil)
    }

    /// At 2× a 6 s timer is 6 s of the track: up after 3 s on the clock.
    @Test func aTimedSleepCountsTrackTimeAtTheSpeed() throws {
        let box = try SleepBox(sleep: "fade_s = 1")
        let process = box.process
        try process.send("speed 2")
        #expect(process.waitForOutputLine(matching: "speed: 2", on: .stdout) != nil)
        let sent = MonotonicClock.nanoseconds()
        try process.send("sleep 6s")
        #expect(process.waitForOutputLine(matching: "sleep: 6 s", on: .stdout) != nil)
        #expect(process.waitForLine(matching: "sleep timer: time is up", on: .stderr, timeout: .seconds(10)) != nil)
        let seconds = Double(MonotonicClock.nanoseconds() - sent) / 1e9
        #expect(seconds > 2.9 && seconds < 4, "up after \(seconds) s on the clock")
    }

    @Test func aGestureSetsTheTimerAndSleepShowsWhatIsLeft() throws {
        let box = try SleepBox(sleep: "fade_s = 1", buttons: "next_long = \"sleep 120s\"")
        let process = box.process
        try process.send("button next long")
        #expect(process.waitForOutputLine(matching: "sleep: 2 min", on: .stdout) != nil, "\(process.text(of: .stdout))")
        try process.send("sleep")
        #expect(process.waitForOutputLine(matching: "sleep: 2 min", on: .stdout) != nil)
        #expect(
            process.waitForOutputLine(matching: "sleep_left: 1", on: .stdout) != nil, "\(process.text(of: .stdout))")
        try process.send("sleep off")
        try process.send("sleep")
        #expect(process.waitForOutputLine(matching: "sleep: off", on: .stdout) != nil)
    }

    @Test func idlePowerOffSavesAndRunsTheCommand() throws {
        let box = try SleepBox(sleep: "idle_power_off_minutes = 0.05") { "touch \($0)/powered-off" }
        let (process, marker) = (box.process, box.directory.file("powered-off"))
        let paused = MonotonicClock.nanoseconds()
        try process.send("pause")
        #expect(process.waitForLine(matching: "idle power-off: running", on: .stderr, timeout: .seconds(10)) != nil)
        // 0.05 min = 3 s after the pause, not before.
        #expect(MonotonicClock.nanoseconds() - paused >= 3_000_000_000)
        let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
        while access(marker, F_OK) != 0, MonotonicClock.nanoseconds() < deadline { sleepMilliseconds(20) }
        #expect(access(marker, F_OK) == 0, "\(process.text(of: .stderr))")
    }
}
