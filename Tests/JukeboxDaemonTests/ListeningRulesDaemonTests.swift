import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The family's rules on the real daemon, heard through ALSA's `file` PCM into a paced FIFO:
/// a listening budget of seconds warns, then fades and stops, and stays used up after a
/// restart; quiet hours refuse a play (console and MPD client) but let an allowed card play.
@Suite(.serialized) struct ListeningRulesDaemonTests {
    static let byteRate = 176_400
    static let level: Int16 = 16000

    /// A daemon with `[rules]` lines (the system clock trusted) over a 60 s constant-level WAV,
    /// playing into a paced FIFO; stopped and cleaned up when released.
    final class RulesBox {
        let directory: TemporaryDirectory
        let sink: PacedFifoSink
        let config: String
        let port = freeLoopbackPort()
        var process: DaemonProcess

        init(rules: String) throws {
            directory = try TemporaryDirectory(prefix: "jukeboxd-rules")
            sink = try PacedFifoSink(bytesPerSecond: ListeningRulesDaemonTests.byteRate, pipeSize: 4096)
            try FileManager.default.createDirectory(
                atPath: directory.file("music/story"), withIntermediateDirectories: true)
            try InputLatencyProbe.writeFlatWAV(path: directory.file("music/story/flat.wav"), seconds: 60)
            config = directory.file("jukebox.toml")
            try DaemonConfig(
                musicDir: "music", device: sink.alsaDevice, pacing: "device", periodMs: 10, bufferMs: 40,
                onStart: "play",
                extra: """

                    [network]
                    port = \(port)

                    [feedback]
                    sounds = false

                    [rules]
                    clock = "system"
                    \(rules)
                    """
            ).write(to: config)
            process = try Self.start(config)
        }

        static func start(_ config: String) throws -> DaemonProcess {
            try DaemonProcess(
                executable: Jukeboxd.binary,
                arguments: ["--config", config, "--log-level", "debug", "--console", "stdin"])
        }

        /// Stops the daemon and starts it again on the same files.
        func restart() throws {
            _ = process.kill(SIGTERM)
            #expect(process.waitForExit(timeout: .seconds(10)) == 0, "\(process.text(of: .stderr))")
            process = try Self.start(config)
        }

        deinit {
            _ = process.kill(SIGTERM)
            _ = process.waitForExit(timeout: .seconds(5))
            directory.remove()
            sink.stop()
        }
    }

    /// The left channel's sample of a frame.
    static func left(_ bytes: [UInt8], frame: Int) -> Int16 { SleepTimerDaemonTests.left(bytes, frame: frame) }

    @Test func aBudgetOfSecondsWarnsFadesStopsAndStaysUsedAfterARestart() throws {
        let box = try RulesBox(rules: "budget = [\"all 4s\"]\nwarning_s = 2\ngrace_s = 2\nfade_s = 1")
        let (sink, process) = (box.sink, box.process)
        #expect(sink.waitForBytes(Self.byteRate / 2, timeoutSeconds: 20), "\(process.text(of: .stderr))")
        #expect(
            process.waitForLine(matching: "rules: listening time ends in", on: .stderr, timeout: .seconds(10)) != nil,
            "\(process.text(of: .stderr))")
        #expect(
            process.waitForLine(
                matching: "today's listening time is used up; stopping", on: .stderr, timeout: .seconds(10))
                != nil, "\(process.text(of: .stderr))")
        let settled = sink.byteCount + Self.byteRate / 10
        _ = sink.waitForBytes(settled, timeoutSeconds: 2)

        // The track (60 s) is longer than the grace time: it fades over the last second of it.
        let bytes = sink.bytes
        let frames = bytes.count / 4
        let first = try #require((0..<frames).first { Self.left(bytes, frame: $0) == Self.level })
        let fadeStart = try #require((first..<frames).first { Self.left(bytes, frame: $0) < Self.level - 64 })
        let lastAudible = try #require((0..<frames).last { Self.left(bytes, frame: $0) > Self.level / 1000 })
        // Between full level and silence the level passes through the fade, not a cut: its
        // 5 ms means never rise, and the fade takes most of its second.
        let window = 220
        var means: [Double] = []
        for start in stride(from: fadeStart, to: lastAudible - window, by: window) {
            means.append(
                Double((start..<start + window).map { Int(Self.left(bytes, frame: $0)) }.reduce(0, +)) / Double(window))
        }
        let rises = zip(means, means.dropFirst()).filter { $1 > $0 + 0.25 }.count
        #expect(rises == 0, "the fade rose \(rises) times")
        #expect(lastAudible - fadeStart > 44_100 / 2, "the fade lasted \(lastAudible - fadeStart) frames")
        #expect(means.contains { $0 < Double(Self.level) / 2 && $0 > Double(Self.level) / 20 })

        try process.send("status")
        #expect(process.waitForOutputLine(matching: "state: stop", on: .stdout) != nil)
        try process.send("play")
        #expect(
            process.waitForOutputLine(matching: "today's listening time is used up", on: .stdout) != nil,
            "\(process.text(of: .stdout))")
        try process.send("rules")
        #expect(
            process.waitForOutputLine(matching: "budget_left: 0", on: .stdout) != nil, "\(process.text(of: .stdout))")
        let usage = try String(contentsOfFile: box.directory.file("state/jukebox.sqlite.listening"), encoding: .utf8)
        let used = try #require(
            usage.split(separator: " ").last.flatMap {
                Int($0.dropFirst(8).trimmingCharacters(in: .whitespacesAndNewlines))
            })
        #expect(used >= 4000, "\(usage)")

        // Restarted: the budget is still used up, and a play is refused.
        try box.restart()
        try box.process.send("play")
        #expect(
            box.process.waitForOutputLine(matching: "today's listening time is used up", on: .stdout) != nil,
            "\(box.process.text(of: .stdout))\n\(box.process.text(of: .stderr))")
        try box.process.send("rules")
        #expect(box.process.waitForOutputLine(matching: "budget_left: 0", on: .stdout) != nil)
        try box.process.send("status")
        #expect(box.process.waitForOutputLine(matching: "state: stop", on: .stdout) != nil)
    }

    @Test func quietHoursRefuseAPlayButAllowAListedCard() throws {
        let box = try RulesBox(rules: "quiet_hours = [\"all 00:00-24:00\"]\nallowed_cards = [\"5EE9\"]")
        let process = box.process
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil)
        // The first start's play (a scan fills the queue) is refused too.
        #expect(
            process.waitForLine(matching: "rules: quiet hours: nothing starts now", on: .stderr, timeout: .seconds(20))
                != nil, "\(process.text(of: .stderr))")
        try process.send("play")
        #expect(
            process.waitForOutputLine(matching: "quiet hours: nothing starts now", on: .stdout) != nil,
            "\(process.text(of: .stdout))")
        try process.send("rules")
        #expect(process.waitForOutputLine(matching: "quiet_hours: on", on: .stdout) != nil)

        let client = try MPDTestClient(port: box.port)
        let reply = client.command("play")
        #expect(reply == ["ACK [55@0] {play} quiet hours: nothing starts now"], "\(reply)")
        // The box's words that start music are refused alike (they were answered OK once).
        let favourites = client.command("favourites")
        #expect(favourites == ["ACK [55@0] {favourites} quiet hours: nothing starts now"], "\(favourites)")
        #expect(client.fields("status")["state"] == "stop")
        #expect(client.fields("rules")["quiet_hours"] == "on")
        #expect(box.sink.byteCount == 0)

        // A sleep story's card plays.
        #expect(client.command("card assign 5EE9 folder story") == [#"card: 5EE9 folder "story""#, "OK"])
        try process.send("card 5EE9")
        #expect(box.sink.waitForBytes(Self.byteRate / 2, timeoutSeconds: 20), "\(process.text(of: .stderr))")
        #expect(client.fields("status")["state"] == "play")
    }
}
