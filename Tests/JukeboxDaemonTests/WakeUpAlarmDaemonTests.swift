import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// A wake-up alarm on the real daemon, heard through ALSA's `file` PCM into a paced FIFO: set
/// for the next minute (the daemon's zone is UTC, the system clock trusted), it starts its
/// folder from silence, the samples' level rises over the fade to the alarm's volume, and a
/// press of play/pause stops it.
@Suite(.serialized) struct WakeUpAlarmDaemonTests {
    static let byteRate = 176_400
    static let level: Int16 = 16000

    /// The mean absolute left sample of `frames` frames from `start`.
    static func meanLevel(_ bytes: [UInt8], from start: Int, frames: Int) -> Double {
        let sum = (start..<start + frames).reduce(0) { $0 + abs(Int(SleepTimerDaemonTests.left(bytes, frame: $1))) }
        return Double(sum) / Double(frames)
    }

    /// Runs `body` on a daemon with alarm "wake" (its folder of a minute's flat tone, volume 40,
    /// a fade of `fadeSeconds`, a snooze of a minute) set for the next minute, once it rings.
    /// `relaunch` starts another daemon on the same config and database (after a power cut).
    static func ringingAlarm(
        fadeSeconds: Int, waitForTheRing: Bool = true,
        _ body:
            (
                _ sink: PacedFifoSink, _ process: DaemonProcess, _ time: String, _ mpdPort: Int,
                _ relaunch: () throws -> DaemonProcess
            ) throws -> Void
    ) throws {
        let directory = try TemporaryDirectory(prefix: "jukeboxd-alarm")
        defer { directory.remove() }
        let sink = try PacedFifoSink(bytesPerSecond: Self.byteRate, pipeSize: 4096)
        defer { sink.stop() }
        try FileManager.default.createDirectory(atPath: directory.file("music/wake"), withIntermediateDirectories: true)
        try InputLatencyProbe.writeFlatWAV(path: directory.file("music/wake/flat.wav"), seconds: 60)
        // The next minute, or the one after when less than 20 s are left: the daemon must be
        // up and looking before it starts (a start that finds an alarm's minute already begun
        // rings it only inside its fade), and a loaded machine starts it slowly.
        let seconds = Int(Date().timeIntervalSince1970)
        let alarmMinute = (seconds / 60 + (60 - seconds % 60 < 20 ? 2 : 1)) % 1440
        let time = String(format: "%02d:%02d", alarmMinute / 60, alarmMinute % 60)
        let config = directory.file("jukebox.toml")
        let port = freeLoopbackPort()
        try DaemonConfig(
            musicDir: "music", device: sink.alsaDevice, pacing: "device", periodMs: 10, bufferMs: 40,
            onStart: "paused",
            extra: """

                [feedback]
                sounds = false

                [network]
                port = \(port)

                [rules]
                clock = "system"

                [[alarm]]
                name = "wake"
                time = "\(time)"
                folder = "wake"
                volume = 40
                fade_s = \(fadeSeconds)
                snooze_minutes = 1
                """
        ).write(to: config)
        var launched: [DaemonProcess] = []
        func launch() throws -> DaemonProcess {
            let process = try DaemonProcess(
                executable: Jukeboxd.binary,
                arguments: ["--config", config, "--log-level", "debug", "--console", "stdin"],
                environment: ["TZ": "UTC"])
            launched.append(process)
            return process
        }
        defer {
            for process in launched {
                _ = process.kill(SIGTERM)
                _ = process.waitForExit(timeout: .seconds(5))
            }
        }
        let process = try launch()
        #expect(process.waitForLine(matching: "library: the scanned", on: .stderr, timeout: .seconds(30)) != nil)
        // Nothing plays before the alarm (on_start = "paused").
        #expect(sink.byteCount == 0)

        // It rings within the minute (the daemon sleeps until it, looking at least every minute).
        try #require(
            !waitForTheRing
                || process.waitForLine(
                    matching: "alarms: alarm wake: folder \"wake\"", on: .stderr, timeout: .seconds(150))
                    != nil,
            "\(process.text(of: .stderr))")
        try body(sink, process, time, port, launch)
    }

    @Test func anAlarmForTheNextMinuteFadesInAndAPressStopsIt() throws {
        let fadeSeconds = 4
        try Self.ringingAlarm(fadeSeconds: fadeSeconds) { sink, process, time, _, _ in
            try process.send("alarms")
            #expect(
                process.waitForOutputLine(matching: "ringing: wake", on: .stdout) != nil, "\(process.text(of: .stdout))"
            )
            // The fade and a second more of the music reach the output.
            #expect(
                sink.waitForBytes((fadeSeconds + 1) * Self.byteRate, timeoutSeconds: 30), "\(process.text(of: .stderr))"
            )
            let bytes = sink.bytes
            let frames = bytes.count / 4
            // The level in tenths of a second from the music's first sample: it starts from silence
            // and rises, never falling, to the alarm's volume (40: the volume curve's gain below 1).
            let window = 4410
            let first = try #require((0..<frames).first { SleepTimerDaemonTests.left(bytes, frame: $0) != 0 })
            var means: [Double] = []
            for start in stride(from: first, to: frames - window, by: window) {
                means.append(Self.meanLevel(bytes, from: start, frames: window))
            }
            let final = try #require(means.last)
            #expect(final > 0 && final < Double(Self.level), "the level reached \(final)")
            #expect(means[0] < final / 2, "the first tenth of a second was at \(means[0]) of \(final): no fade")
            let falls = zip(means, means.dropFirst()).filter { $1 < $0 - 1 }.count
            #expect(falls == 0, "the level fell \(falls) times: \(means)")
            // It rises step by step over most of the fade, not at once.
            let rises = zip(means, means.dropFirst()).filter { $1 > $0 + 1 }.count
            #expect(rises >= fadeSeconds * 5, "the level rose in \(rises) tenths: \(means)")
            let reached = try #require(means.firstIndex { $0 >= final * 0.95 })
            #expect(reached >= fadeSeconds * 5, "the level was up after \(reached) tenths of a second: \(means)")

            // A press of play/pause stops the alarm and its music.
            try process.send("button play_pause short")
            #expect(
                process.waitForLine(matching: "alarms: alarm wake stopped", on: .stderr, timeout: .seconds(10)) != nil,
                "\(process.text(of: .stderr))")
            try process.send("status")
            #expect(
                process.waitForOutputLine(matching: "state: stop", on: .stdout) != nil, "\(process.text(of: .stdout))")
            // It rings no more: `alarms` shows the next one and nothing ringing.
            process.skipOutput()
            let from = process.lines.count
            try process.send("alarms")
            #expect(
                process.waitForOutputLine(matching: "alarm: wake: all \(time)", on: .stdout) != nil,
                "\(process.text(of: .stdout))")
            let reply = process.lines.dropFirst(from).filter { $0.stream == .stdout }.map(\.text)
            #expect(reply.contains { $0.contains("next: ") && $0.hasSuffix("\(time) wake") }, "\(reply)")
            #expect(!reply.contains { $0.contains("ringing") }, "\(reply)")

        }
    }

    /// A volume set from an MPD client or the console while the alarm fades in stays: the fade
    /// ends there, as when the knob turns, and the music plays on at the volume chosen.
    @Test(arguments: ["mpd", "console"]) func aVolumeSetDuringTheFadeStays(from frontEnd: String) throws {
        try Self.ringingAlarm(fadeSeconds: 60) { sink, process, _, port, _ in
            // A few steps of the fade (40 over 60 s: one step each 1.5 s) reach the output.
            #expect(sink.waitForBytes(2 * Self.byteRate, timeoutSeconds: 30), "\(process.text(of: .stderr))")
            if frontEnd == "mpd" {
                #expect(try MPDTestClient(port: port).command("setvol 70") == ["OK"])
            } else {
                try process.send("volume 70")
            }
            #expect(
                process.waitForLine(matching: "alarm wake: the music plays on", on: .stderr, timeout: .seconds(10))
                    != nil, "\(process.text(of: .stderr))")
            // Several of the fade's steps would have come by now; the volume is still the one set.
            let heard = sink.byteCount
            #expect(sink.waitForBytes(heard + 5 * Self.byteRate, timeoutSeconds: 30), "\(process.text(of: .stderr))")
            process.skipOutput()
            try process.send("status")
            // The console's status: state first, then the volume.
            #expect(
                process.waitForOutputLine(matching: "state: play", on: .stdout) != nil, "\(process.text(of: .stdout))")
            #expect(
                process.waitForOutputLine(matching: "volume: 70", on: .stdout) != nil, "\(process.text(of: .stdout))")
        }
    }

    /// A snooze outlives a power cut: the daemon killed during it starts again snoozed (not
    /// ringing at once, as a restart inside an alarm's first minute would without what it
    /// kept), and the alarm rings again when the snooze ends.
    @Test func aSnoozeOutlivesAPowerCut() throws {
        try Self.ringingAlarm(fadeSeconds: 4) { sink, process, _, _, relaunch in
            #expect(sink.waitForBytes(Self.byteRate, timeoutSeconds: 30), "\(process.text(of: .stderr))")
            try process.send("button next short")
            #expect(
                process.waitForLine(
                    matching: "alarms: alarm wake snoozed for 1 min", on: .stderr, timeout: .seconds(10))
                    != nil, "\(process.text(of: .stderr))")
            // The power goes.
            _ = process.kill(SIGKILL)
            _ = process.waitForExit(timeout: .seconds(10))
            let again = try relaunch()
            #expect(again.waitForLine(matching: "library: the scanned", on: .stderr, timeout: .seconds(30)) != nil)
            // It says it is snoozed once its first look has the time (ask until it does).
            let snoozed = try waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(100)) {
                try again.send("alarms")
                return again.waitForOutputLine(matching: "snoozed: wake", on: .stdout, timeout: .seconds(1)) != nil
            }
            #expect(snoozed, "\(again.text(of: .stdout))\n\(again.text(of: .stderr))")
            #expect(!again.text(of: .stderr).contains("alarms: alarm wake: folder"), "\(again.text(of: .stderr))")
            // And rings when the snooze ends.
            #expect(
                again.waitForLine(matching: "alarms: alarm wake: folder \"wake\"", on: .stderr, timeout: .seconds(90))
                    != nil, "\(again.text(of: .stderr))")
        }
    }

    /// `alarms skip NAME` from an MPD client: the next ring is skipped, the skip outlives a power
    /// cut, a mistake is an ACK with its reason, and `unskip` takes it back.
    @Test func anMPDClientSkipsTheNextRing() throws {
        try Self.ringingAlarm(fadeSeconds: 4, waitForTheRing: false) { _, process, time, port, relaunch in
            let client = try MPDTestClient(port: port)
            let reply = client.command("alarms skip wake")
            #expect(reply.last == "OK", "\(reply)")
            #expect(reply.first?.hasPrefix("alarm: alarm wake skipped on ") == true, "\(reply)")
            #expect(reply.first?.hasSuffix(" \(time)") == true, "\(reply)")
            #expect(client.command("alarms skip wake").last?.contains("already skipped") == true)
            let unknown = client.command("alarms skip school")
            #expect(
                unknown.last?.hasPrefix("ACK [2@0] {alarms} alarms skip: no alarm \"school\"") == true, "\(unknown)")
            // The power goes: the new daemon still skips it.
            _ = process.kill(SIGKILL)
            _ = process.waitForExit(timeout: .seconds(10))
            let again = try relaunch()
            #expect(again.waitForLine(matching: "MPD protocol on", on: .stderr, timeout: .seconds(30)) != nil)
            let after = try MPDTestClient(port: port)
            // (Once its first look has the time.)
            var fields: [String] = []
            waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(100)) {
                fields = after.command("alarms")
                return fields.contains { $0.hasPrefix("skipped: ") }
            }
            #expect(fields.contains { $0.hasPrefix("skipped: ") && $0.hasSuffix("\(time) wake") }, "\(fields)")
            #expect(fields.contains { $0.hasPrefix("next: ") && $0.hasSuffix("\(time) wake") }, "\(fields)")
            #expect(after.command("alarms unskip wake").first?.contains("rings again") == true)
            #expect(!after.command("alarms").contains { $0.hasPrefix("skipped: ") })
        }
    }
}
