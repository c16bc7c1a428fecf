import Foundation
import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// `say` on the real daemon with the real libespeak-ng, through ALSA's file plugin into the
/// paced sink: the voice is mixed over the music, the music ducks under it (to `[speech] duck`)
/// and comes back, and none of the music's samples is lost or moved (it plays on under the
/// voice). The music is a sawtooth on the left channel only, each frame's value its index
/// (mod its period), so that the right channel carries the voice alone and the left minus the
/// right the music as it was mixed.
@Suite(.serialized) struct SpeechDaemonTests {
    static let rate = 44100
    static let period = 16000
    /// The music's left sample at frame `index` (the right one is 0).
    static func saw(_ index: Int) -> Int { index % period - period / 2 }

    static func writeSawWAV(path: String, seconds: Int) throws {
        try InputLatencyProbe.writeStereoWAV(path: path, rate: rate, frames: rate * seconds) { (Int16(saw($0)), 0) }
    }

    /// jukeboxd with the saw playing at volume 100 (the music passes the gain stage as it is,
    /// so that each of its samples can be found) for a second, into `sink`.
    static func playSaw(in directory: TemporaryDirectory, sink: PacedFifoSink, extra: String = "") throws
        -> DaemonProcess
    {
        try FileManager.default.createDirectory(atPath: directory.file("music/Kids"), withIntermediateDirectories: true)
        try writeSawWAV(path: directory.file("music/Kids/saw.wav"), seconds: 30)
        let config = directory.file("jukebox.toml")
        try DaemonConfig(
            musicDir: "music", device: sink.alsaDevice, pacing: "device", periodMs: 10, bufferMs: 40, startVolume: 100,
            maxVolume: 100, onStart: "off",
            extra: "\n[feedback]\nsounds = false\n\n[speech]\nvolume = 60\nduck = 25\n" + extra
        ).write(to: config)
        let process = try DaemonProcess(
            executable: Jukeboxd.binary, arguments: ["--config", config, "--log-level", "debug", "--console", "stdin"])
        #expect(
            waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(200)) {
                try? process.send(#"lsinfo "Kids""#)
                return process.text(of: .stdout).contains("file: Kids/saw.wav")
            }, "\(process.text(of: .stderr))")
        try process.send(#"add "Kids/saw.wav""#)
        try process.send("play")
        #expect(sink.waitForBytes(rate * 4, timeoutSeconds: 10), "\(process.text(of: .stderr))")
        return process
    }

    /// Waits until a voice was heard (on the right channel) and a second of output followed it.
    static func waitForVoiceThenASecond(_ sink: PacedFifoSink) -> Bool {
        waitUntil(timeout: .seconds(20)) {
            let samples = sink.samples
            guard let last = stride(from: samples.count - 1, to: 0, by: -2).first(where: { samples[$0] != 0 }) else {
                return false
            }
            return samples.count / 2 - last / 2 > rate
        }
    }

    @Test func sayDucksTheMusicUnderTheVoiceAndItsSamplesGoOnWhereTheyWere() throws {
        let directory = try TemporaryDirectory(prefix: "jukeboxd-speech")
        defer { directory.remove() }
        let sink = try PacedFifoSink(bytesPerSecond: Self.rate * 4, pipeSize: 4096)
        defer { sink.stop() }
        let process = try Self.playSaw(in: directory, sink: sink)
        defer {
            process.kill(SIGKILL)
            _ = process.waitForExit(timeout: .seconds(5))
        }
        // A second of music, then the voice.
        try process.send(#"say "Good night, the jukebox is going to sleep now""#)
        #expect(
            waitUntil(timeout: .seconds(20)) { process.text(of: .stderr).contains("ms of voice made in") },
            "\(process.text(of: .stderr))")
        let made = process.text(of: .stderr).split(separator: "\n").first { $0.contains("ms of voice made in") }
        print("speech: \(made.map(String.init) ?? "?")")
        // Until the voice was heard and a second of music followed it.
        #expect(Self.waitForVoiceThenASecond(sink), "\(process.text(of: .stderr))")

        let samples = sink.samples
        let frames = samples.count / 2
        let left = { (f: Int) in Int(samples[2 * f]) }
        let right = { (f: Int) in Int(samples[2 * f + 1]) }
        let first = try #require((0..<frames).first { left($0) != 0 }, "no music came")
        let voiced = (first..<frames).filter { right($0) != 0 }
        let voiceStart = try #require(voiced.first, "no voice came")
        let voiceEnd = try #require(voiced.last)
        // The voice: at least a second of it, with a level that is speech, not noise.
        let energy = voiced.reduce(0.0) { $0 + Double(right($1) * right($1)) } / Double(voiced.count)
        print(
            "voice: \(Double(voiceEnd - voiceStart) / Double(Self.rate)) s, rms \(energy.squareRoot()), "
                + "\(voiced.count) frames not silent")
        #expect(voiceEnd - voiceStart > Self.rate)
        #expect(energy.squareRoot() > 300)
        // Under the voice, the music is at a quarter of its level: left − right is the
        // duck times its sample (each sum rounded once).
        var unducked = 0
        for f in voiced where abs(left(f) - right(f) - Int((0.25 * Double(Self.saw(f - first))).rounded())) > 1 {
            unducked += 1
        }
        #expect(unducked == 0, "\(unducked) of \(voiced.count) voiced frames do not have the music at 25 %")
        // Away from the voice and its ramps, every frame is the music's next sample: before it,
        // and after it at the same place (none lost, none repeated).
        let ramp = Int(0.15 * Double(Self.rate)) + 1
        var moved: [Int] = []
        for f in first..<frames where f < voiceStart - ramp || f > voiceEnd + ramp {
            if left(f) != Self.saw(f - first) || right(f) != 0 { moved.append(f) }
        }
        #expect(moved.isEmpty, "\(moved.count) frames differ from the music, the first at \(moved.prefix(3))")
        #expect(frames - (voiceEnd + ramp) > Self.rate / 2, "the music came back after the voice")

        // Paused: the voice alone, over silence (the output writes it, then stops again).
        try process.send("pause")
        #expect(
            waitUntil(timeout: .seconds(5)) {
                try? process.send("status")
                return process.text(of: .stdout).contains("state: pause")
            })
        let mark = sink.byteCount / 4
        try process.send("say hello")
        let alone = waitUntil(timeout: .seconds(20)) {
            let after = sink.samples.dropFirst(2 * mark)
            return stride(from: after.startIndex + 1, to: after.endIndex, by: 2).filter { after[$0] != 0 }.count
                > Self.rate / 10
        }
        #expect(alone, "\(process.text(of: .stderr))")
        let after = Array(sink.samples.dropFirst(2 * mark))
        let voicedAfter = stride(from: 0, to: after.count - 1, by: 2).filter { after[$0 + 1] != 0 }
        #expect(voicedAfter.allSatisfy { after[$0] == after[$0 + 1] }, "music under the voice while paused")
    }

    /// `say_address` on a long press (injected as the console's `button play_pause long`): the
    /// box's addresses as the system lists them are said over the music, which plays on.
    @Test func aLongPressSaysTheAddressOverTheMusic() throws {
        let directory = try TemporaryDirectory(prefix: "jukeboxd-address")
        defer { directory.remove() }
        let sink = try PacedFifoSink(bytesPerSecond: Self.rate * 4, pipeSize: 4096)
        defer { sink.stop() }
        let process = try Self.playSaw(
            in: directory, sink: sink, extra: "\n[buttons]\nplay_pause_long = \"say_address\"\n\n[web]\nport = 8123\n")
        defer {
            process.kill(SIGKILL)
            _ = process.waitForExit(timeout: .seconds(5))
        }
        let words = Announcements.Event.address(NetworkAddresses.current().map(\.address), webPort: 8123).text
        try process.send("button play_pause long")
        #expect(
            waitUntil(timeout: .seconds(20)) { process.text(of: .stderr).contains("ms of voice made in") },
            "\(process.text(of: .stderr))")
        #expect(process.text(of: .stderr).contains("speech: the address: \(words) ("), "\(process.text(of: .stderr))")
        #expect(process.text(of: .stdout).contains(words))
        print("address: \(words)")
        #expect(Self.waitForVoiceThenASecond(sink), "\(process.text(of: .stderr))")

        // The voice came, and the music under it and after it went on where it was.
        let samples = sink.samples
        let frames = samples.count / 2
        let first = try #require((0..<frames).first { samples[2 * $0] != 0 }, "no music came")
        let voiced = (first..<frames).filter { samples[2 * $0 + 1] != 0 }
        let voiceEnd = try #require(voiced.last, "no voice came")
        #expect(voiced.count > Self.rate / 10, "\(voiced.count) frames of voice")
        let ramp = Int(0.15 * Double(Self.rate)) + 1
        let after = (voiceEnd + ramp)..<frames
        #expect(after.count > Self.rate / 2, "the music came back after the voice")
        #expect(after.allSatisfy { Int(samples[2 * $0]) == Self.saw($0 - first) && samples[2 * $0 + 1] == 0 })
        try process.send("status")
        #expect(process.waitForOutputLine(matching: "state: play", on: .stdout, timeout: .seconds(5)) != nil)
    }
}
