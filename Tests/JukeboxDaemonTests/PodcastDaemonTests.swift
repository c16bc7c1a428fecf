import Foundation
import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Tests/Tools/podcast_fixture.py on a free loopback port, serving a temporary folder, one per
/// suite run.
final class PodcastServer: Sendable {
    static let shared = try! PodcastServer()
    let root: TemporaryDirectory
    let process: DaemonProcess
    let base: String

    private init() throws {
        root = try TemporaryDirectory(prefix: "podcast-server")
        process = try DaemonProcess(
            executable: "/usr/bin/python3", arguments: [Fixtures.path("Tests/Tools/podcast_fixture.py"), root.path])
        let line = process.waitForLine(matching: "port ", on: .stdout) ?? "port 0"
        base = "http://127.0.0.1:" + line.dropFirst(5)
    }

    /// Writes `bytes` at `path` (under the served folder) and returns its URL.
    @discardableResult
    func put(_ path: String, _ bytes: [UInt8]) throws -> String {
        let file = root.file(path)
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return base + "/" + path
    }

    /// The requests for `path` so far, as "PATH RANGE" lines.
    func requests(for path: String) -> [String] {
        let text = (try? String(contentsOfFile: root.file("requests.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("/" + path + " ") }
    }
}

/// Podcasts on the real daemon against a local HTTP server: subscribe, list, download, a
/// connection cut mid-body and a kill -9 mid-download both continued by Range, the cache
/// limit, `clear cache`, malformed feeds, and playing an episode while it downloads.
@Suite(.serialized) struct PodcastDaemonTests {
    let server = PodcastServer.shared

    /// `count` bytes that differ per `seed`.
    static func body(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// An RSS feed whose episodes are (title, enclosure URL, day of January 2024), in that order.
    static func rss(_ title: String, _ episodes: [(String, String, Int)]) -> [UInt8] {
        var text = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(title)</title>"
        for (name, url, day) in episodes {
            let escaped = url.replacingOccurrences(of: "&", with: "&amp;")
            text += "<item><title>\(name)</title><guid>\(name)</guid>"
            text += "<pubDate>\(day < 10 ? "0" : "")\(day) Jan 2024 10:00:00 GMT</pubDate>"
            text += "<enclosure url=\"\(escaped)\" type=\"audio/mpeg\" length=\"1\"/></item>"
        }
        return Array((text + "</channel></rss>").utf8)
    }

    static func daemon(_ extra: String = "", resumeExtra: String = "") throws -> (DaemonHarness, DaemonProcess) {
        let harness = try DaemonHarness(
            tracks: [], configExtra: "[podcasts]\n" + extra, onStart: "off", resumeExtra: resumeExtra)
        let process = try harness.start()
        #expect(process.waitForLine(matching: "jukeboxd", timeout: .seconds(20)) != nil)
        return (harness, process)
    }

    static func cache(_ harness: DaemonHarness, _ name: String) -> String {
        harness.directory.file("state/podcasts/\(name)")
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    @Test func subscribeListDownloadAndClearCache() throws {
        let one = Self.body(300_000, seed: 1)
        let two = Self.body(200_000, seed: 2)
        let urlOne = try server.put("basic/one.mp3", one)
        let urlTwo = try server.put("basic/two.mp3", two)
        let feed = try server.put("basic/feed.xml", Self.rss("Basic Show", [("One", urlOne, 1), ("Two", urlTwo, 2)]))
        let (harness, process) = try Self.daemon()
        harness.send("podcast add \(feed)")
        #expect(
            process.waitForLine(matching: "OK podcast 1: \(feed)", on: .stdout) != nil,
            "\(harness.log) \(process.text(of: .stdout))")
        // The newest episode downloads by itself.
        #expect(
            process.waitForLine(matching: "downloaded Two", on: .stdout, timeout: .seconds(20)) != nil, "\(harness.log)"
        )
        harness.send("podcast list")
        #expect(process.waitForLine(matching: "1. Basic Show (2 episodes, 1 downloaded)", on: .stdout) != nil)
        harness.send("podcast 1")
        #expect(process.waitForLine(matching: "1. Two (2024-01-02) [downloaded]", on: .stdout) != nil)
        #expect(process.waitForLine(matching: "2. One (2024-01-01)", on: .stdout) != nil)
        harness.send("podcast download 1 2")
        #expect(
            process.waitForLine(matching: "downloaded One", on: .stdout, timeout: .seconds(20)) != nil, "\(harness.log)"
        )
        let files = try FileManager.default.contentsOfDirectory(atPath: harness.directory.file("state/podcasts"))
            .filter { !$0.hasPrefix(".") }.sorted()
        #expect(files.count == 2, "\(files)")
        let stored = Set(files.compactMap { Self.contents(Self.cache(harness, $0)) })
        #expect(stored == [one, two])
        harness.send("clear cache")
        #expect(process.waitForLine(matching: "OK cache cleared: 2 episodes", on: .stdout) != nil, "\(harness.log)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: harness.directory.file("state/podcasts"))
                .filter { !$0.hasPrefix(".") } == [])
        harness.send("podcast list")
        #expect(process.waitForLine(matching: "1. Basic Show (2 episodes, 0 downloaded)", on: .stdout) != nil)
    }

    @Test func aConnectionCutMidBodyContinuesByRange() throws {
        let bytes = Self.body(500_000, seed: 3)
        let url = try server.put("cut/ep.mp3", bytes) + "?cut=200000"
        let feed = try server.put("cut/feed.xml", Self.rss("Cut", [("Cut One", url, 3)]))
        let (harness, process) = try Self.daemon("feeds = [\"\(feed)\"]")
        #expect(
            process.waitForLine(matching: "downloaded Cut One", on: .stdout, timeout: .seconds(20)) != nil,
            "\(harness.log)")
        #expect(server.requests(for: "cut/ep.mp3") == ["/cut/ep.mp3 -", "/cut/ep.mp3 bytes=200000-"])
        let files = try FileManager.default.contentsOfDirectory(atPath: harness.directory.file("state/podcasts"))
        #expect(files.compactMap { Self.contents(Self.cache(harness, $0)) } == [bytes])
    }

    @Test func killDashNineMidDownloadContinuesByRangeAfterRestart() throws {
        let size = 3 << 20
        let bytes = Self.body(size, seed: 4)
        let url = try server.put("kill/ep.mp3", bytes) + "?rate=800000"
        let feed = try server.put("kill/feed.xml", Self.rss("Kill", [("Long One", url, 4)]))
        let (harness, process) = try Self.daemon("feeds = [\"\(feed)\"]")
        // The first checkpoint past 1 MiB (fdatasync'd, then committed).
        let kept = process.waitForOutputLine(from: 0, on: .stderr, timeout: .seconds(20)) {
            $0.contains("Long One: ") && $0.hasSuffix(" of \(size) bytes kept") && !$0.contains("Long One: 0 of")
        }
        #expect(kept != nil, "\(harness.log)")
        _ = process.kill(SIGKILL)
        _ = process.waitForExit()
        let again = try harness.start()
        #expect(
            again.waitForLine(matching: "downloaded Long One", on: .stdout, timeout: .seconds(30)) != nil,
            "\(harness.log)")
        let requests = server.requests(for: "kill/ep.mp3")
        #expect(requests.first == "/kill/ep.mp3 -")
        // The second start asked from a checkpoint of at least 1 MiB, not from 0.
        let resumedFrom = requests.dropFirst().compactMap {
            $0.split(separator: "=").last.flatMap { Int($0.dropLast()) }
        }
        #expect(resumedFrom.count == 1 && resumedFrom[0] >= 1 << 20, "\(requests)")
        let files = try FileManager.default.contentsOfDirectory(atPath: harness.directory.file("state/podcasts"))
            .filter { !$0.hasPrefix(".") }
        #expect(files.compactMap { Self.contents(Self.cache(harness, $0)) } == [bytes], "\(files)")
    }

    @Test func theCacheLimitDeletesTheOldestFirst() throws {
        let episodes = (1...3).map { Self.body(400_000, seed: UInt64(10 + $0)) }
        let urls = try (1...3).map { try server.put("limit/\($0).mp3", episodes[$0 - 1]) }
        let feed = try server.put(
            "limit/feed.xml", Self.rss("Limit", [("Old", urls[0], 1), ("Middle", urls[1], 2), ("New", urls[2], 3)]))
        let (harness, process) = try Self.daemon("cache_limit_mb = 1\nfeeds = [\"\(feed)\"]")
        #expect(process.waitForLine(matching: "downloaded New", on: .stdout, timeout: .seconds(20)) != nil)
        harness.send("podcast download 1 2")
        #expect(process.waitForLine(matching: "downloaded Middle", on: .stdout, timeout: .seconds(20)) != nil)
        // 1.2 MB do not fit in 1 MiB: the oldest one cached (Middle) goes for Old.
        harness.send("podcast download 1 3")
        #expect(
            process.waitForLine(matching: "podcasts: Middle deleted from the cache to make room", on: .stderr) != nil,
            "\(harness.log)")
        #expect(process.waitForLine(matching: "downloaded Old", on: .stdout, timeout: .seconds(20)) != nil)
        harness.send("podcast 1")
        #expect(process.waitForLine(matching: "1. New (2024-01-03) [downloaded]", on: .stdout) != nil)
        #expect(process.waitForLine(matching: "2. Middle (2024-01-02)", on: .stdout)?.hasSuffix(")") == true)
        #expect(process.waitForLine(matching: "3. Old (2024-01-01) [downloaded]", on: .stdout) != nil)
    }

    @Test func malformedFeedsGiveOneLineAndKeepTheSubscription() throws {
        let good = try server.put("bad/ep.mp3", Self.body(1000, seed: 5))
        let valid = Self.rss("Fine", [("Fine One", good, 5)])
        let feeds: [(String, [UInt8], String)] = [
            ("bad/notxml.xml", Array("this is not XML\n".utf8), "not a well-formed feed"),
            (
                "bad/html.xml", Array("<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>".utf8),
                "not a feed: an HTML page"
            ),
            ("bad/truncated.xml", Array(valid.prefix(valid.count / 2)), "not a well-formed feed"),
            ("bad/none.xml", Self.rss("No Audio", []), "0 episodes"),
            ("bad/huge.xml", [UInt8](repeating: 0x20, count: 9 << 20), "feed larger than 8 MiB"),
        ]
        let (harness, process) = try Self.daemon()
        for (path, bytes, _) in feeds {
            harness.send("podcast add \(try server.put(path, bytes))")
        }
        harness.send("podcast add \(server.base)/bad/missing.xml")
        for (path, _, message) in feeds + [("bad/missing.xml", [], "404")] {
            let line = process.waitForOutputLine(from: 0, on: .stderr, timeout: .seconds(20)) {
                $0.contains("podcasts: \(server.base)/\(path): ")
            }
            #expect(line?.text.contains(message) == true, "\(path): \(line?.text ?? harness.log)")
        }
        harness.send("podcast list")
        #expect(process.waitForLine(matching: "6. ", on: .stdout) != nil, "\(harness.log)")
        harness.send("podcast add \(try server.put("bad/fine.xml", valid))")
        #expect(process.waitForLine(matching: "downloaded Fine One", on: .stdout, timeout: .seconds(20)) != nil)
    }

    @Test func anEpisodeKeepsItsPlaceLikeALongTrack() throws {
        let mp3 = try #require(Fixtures.longMP3)
        let url = try server.put("place/ep.mp3", try #require(Self.contents(mp3)))
        let feed = try server.put("place/feed.xml", Self.rss("Place", [("Place One", url, 6)]))
        let (harness, process) = try Self.daemon("feeds = [\"\(feed)\"]", resumeExtra: "long_track_minutes = 1")
        #expect(process.waitForLine(matching: "downloaded Place One", on: .stdout, timeout: .seconds(20)) != nil)
        harness.send("podcast play 1 1")
        #expect(process.waitForLine(matching: "OK playing Place One", on: .stdout) != nil, "\(harness.log)")
        #expect(harness.waitForStatus { $0.state == "play" && $0.duration.map { $0 > 100 } == true } != nil)
        harness.send("seek 50")
        #expect(harness.waitForStatus { $0.elapsed >= 50 } != nil, "\(harness.log)")
        harness.send("pause")
        #expect(harness.waitForStatus { $0.state == "pause" } != nil)
        _ = process.kill(SIGTERM)
        #expect(process.waitForExit() == 0)
        harness.process?.skipOutput()
        let again = try harness.start()
        #expect(again.waitForLine(matching: "podcast Place: 1 episodes", on: .stdout, timeout: .seconds(20)) != nil)
        harness.send("podcast play 1 1")
        let resumed = harness.waitForStatus { $0.state == "play" && $0.elapsed > 0 }
        #expect(resumed.map { abs($0.elapsed - 50) < 3 } == true, "\(String(describing: resumed)) \(harness.log)")
        // `clear cache` leaves the episode that plays.
        harness.send("clear cache")
        #expect(again.waitForLine(matching: "OK cache cleared: 0 episodes", on: .stdout) != nil, "\(harness.log)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: harness.directory.file("state/podcasts"))
                .filter { !$0.hasPrefix(".") }.count == 1)
        #expect(harness.status()?.state == "play")
        harness.send("podcast 1")
        #expect(again.waitForLine(matching: "1. Place One (2024-01-06) [downloaded]", on: .stdout) != nil)
    }

    /// The frames of S16 stereo `bytes` that are not silent (both channels 0): what the sink
    /// got with the pauses where the output had nothing left out.
    static func soundingFrames(_ bytes: [UInt8]) -> [UInt32] {
        stride(from: 0, to: bytes.count - 3, by: 4).compactMap { i in
            let frame =
                UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
            return frame == 0 ? nil : frame
        }
    }

    /// A sweep over a 330 Hz tone as an MP3 (`lame` with `options`), and libmpg123's decode of
    /// it (`mpg123 -s`) as sounding frames: what the sink's frames are compared with.
    static func sweepMP3(seconds: Int, _ options: [String]) throws -> (bytes: [UInt8], reference: [UInt32]) {
        let media = try TemporaryDirectory(prefix: "podcast-sweep")
        defer { media.remove() }
        let (wav, mp3) = (media.file("ep.wav"), media.file("ep.mp3"))
        _ = try run([
            "sox", "-n", "-r", "44100", "-c", "2", wav, "synth", "\(seconds)", "sine", "200-2000", "sine", "330",
        ])
        _ = try run(["lame", "--quiet"] + options + [wav, mp3])
        let bytes = try #require(contents(mp3))
        return (bytes, soundingFrames(try run(["mpg123", "-q", "-s", mp3]).stdout))
    }

    /// An episode played while it downloads, from a server slower than the MP3 plays (20 kB/s
    /// against ~24 kB/s): the track does not end where the download is; `status` says it is
    /// buffering while it waits; the sink gets the whole file's audio, every frame, bit-exact
    /// with libmpg123's decode of the whole file (`mpg123 -s`), then the track ends.
    @Test(.timeLimit(.minutes(10))) func anEpisodePlaysWhileItDownloads() throws {
        let (bytes, reference) = try Self.sweepMP3(seconds: 10, ["-V", "2"])
        #expect(reference.count > 400_000)
        let url = try server.put("growing/ep.mp3", bytes) + "?rate=20000"
        let feed = try server.put("growing/feed.xml", Self.rss("Growing", [("Growing One", url, 9)]))
        let sink = try PacedFifoSink(bytesPerSecond: 176_400, pipeSize: 4096)
        defer { sink.stop() }
        let harness = try DaemonHarness(
            tracks: [], configExtra: "[podcasts]\nfeeds = [\"\(feed)\"]", onStart: "off", mode: "in-order",
            device: sink.alsaDevice, pacing: "device")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "podcast Growing: 1 episodes", on: .stdout, timeout: .seconds(20)) != nil)
        harness.send("podcast play 1 1")
        #expect(
            process.waitForLine(matching: "OK playing Growing One while it downloads", on: .stdout) != nil,
            "\(harness.log)")
        var buffering = false
        let deadline = MonotonicClock.nanoseconds() + 20_000_000_000
        while !buffering, MonotonicClock.nanoseconds() < deadline {
            harness.send("status")
            buffering =
                process.waitForLine(matching: "buffering: waiting for the download", timeout: .milliseconds(250)) != nil
        }
        #expect(buffering, "\(harness.log)")
        #expect(process.waitForLine(matching: "downloaded Growing One", on: .stdout, timeout: .seconds(30)) != nil)
        #expect(harness.waitForStatus(timeout: .seconds(20)) { $0.state == "stop" } != nil, "\(harness.log)")
        // The drain ended with the last frames in the pipe, as a DAC's FIFO holds them: "stop"
        // comes up to 4 KiB (1,024 frames) before the sink has played them.
        #expect(sink.waitUntilPlayedOut(timeoutSeconds: 2))
        let played = Self.soundingFrames(sink.bytes)
        // Playback caught up with the download: the audio took longer than it lasts, with waits.
        let arrivals = sink.arrivalLog
        let span = seconds(from: arrivals.first?.nanoseconds ?? 0, to: arrivals.last?.nanoseconds ?? 0)
        let audio = Double(reference.count) / 44100
        let gaps = zip(arrivals, arrivals.dropFirst()).map { seconds(from: $0.nanoseconds, to: $1.nanoseconds) }
        let waits = gaps.filter { $0 > 0.1 }.count
        let lost = reference.count - played.count
        print(
            "episode while it downloads: \(audio) s of audio played in \(span) s, \(waits) waits, longest "
                + "\(Int((gaps.max() ?? 0) * 1000)) ms, \(lost) frames short")
        // Every frame, before and after each wait: the output that ran dry lost nothing.
        let firstDifference = played.indices.first { $0 >= reference.count || played[$0] != reference[$0] }
        #expect(
            lost == 0 && firstDifference == nil,
            "\(lost) frames short after \(waits) waits, first difference at frame \(firstDifference ?? played.count)")
        #expect(span > audio + 0.5, "the download was never behind")
    }

    /// kill -9 (or a clean stop) while an episode plays as it downloads, past its first
    /// checkpoint: the restart restores it at its place (within 2 s, as a long track), its
    /// download continues by Range, and the audio goes on from there, bit-exact with
    /// libmpg123's decode of the whole file.
    @Test(.timeLimit(.minutes(10)), arguments: [SIGKILL, SIGTERM])
    func anEpisodeCutOffWhileItDownloadsComesBackAtItsPlace(signal: Int32) throws {
        let (bytes, reference) = try Self.sweepMP3(seconds: 60, ["-b", "320"])
        let url = try server.put("cutoff\(signal)/ep.mp3", bytes) + "?rate=200000"
        let feed = try server.put("cutoff\(signal)/feed.xml", Self.rss("Cutoff", [("Cutoff One", url, 7)]))
        let sink = try PacedFifoSink(bytesPerSecond: 176_400, pipeSize: 4096)
        defer { sink.stop() }
        let harness = try DaemonHarness(
            tracks: [], configExtra: "[podcasts]\nfeeds = [\"\(feed)\"]", mode: "in-order",
            device: sink.alsaDevice, pacing: "device")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "podcast Cutoff: 1 episodes", on: .stdout, timeout: .seconds(20)) != nil)
        harness.send("podcast play 1 1")
        #expect(process.waitForLine(matching: "OK playing Cutoff One while it downloads", on: .stdout) != nil)
        // The first checkpoint (1 MiB) is durable: a restart asks for the rest by Range.
        let kept = process.waitForOutputLine(from: 0, on: .stderr, timeout: .seconds(20)) {
            $0.contains("Cutoff One: ") && $0.contains(" bytes kept") && !$0.contains("Cutoff One: 0 of")
        }
        #expect(kept != nil, "\(harness.log)")
        let before = try #require(harness.waitForStatus { $0.state == "play" && $0.elapsed >= 3 }, "\(harness.log)")
        #expect(!harness.log.contains("downloaded Cutoff One"), "the download ended before the cut")
        let cutAt = MonotonicClock.nanoseconds()
        process.kill(signal)
        #expect(process.waitForExit(timeout: .seconds(5)) == (signal == SIGKILL ? 128 + SIGKILL : 0))
        let restartedAt = sink.byteCount

        let again = try harness.start()
        let resumed = try #require(
            harness.waitForStatus(timeout: .seconds(10)) { $0.state == "play" && $0.elapsed > 0 }, "\(harness.log)")
        let expected = before.elapsed + seconds(from: before.at, to: cutAt)
        print(
            "episode cut off (signal \(signal)) while it downloads: cut at \(expected) s, back at \(resumed.elapsed) s")
        #expect(abs(resumed.elapsed - expected) < 2, "cut at ~\(expected) s, back at \(resumed.elapsed) s")
        harness.send("currentsong")
        #expect(again.waitForLine(matching: "Title: Cutoff One", on: .stdout) != nil, "\(harness.log)")
        #expect(again.waitForLine(matching: "downloaded Cutoff One", on: .stdout, timeout: .seconds(30)) != nil)
        let requests = server.requests(for: "cutoff\(signal)/ep.mp3")
        let resumedFrom = requests.dropFirst().compactMap {
            $0.split(separator: "=").last.flatMap { Int($0.dropLast()) }
        }
        #expect(resumedFrom.count == 1 && resumedFrom[0] >= 1 << 20, "\(requests)")
        // The audio goes on: after the restart the sink gets the episode's frames from where it
        // was (past the few the seek's first MPEG frame garbles), every one to the second after.
        #expect(harness.waitForStatus { $0.elapsed > resumed.elapsed + 2 } != nil, "\(harness.log)")
        let after = Self.soundingFrames(Array(sink.bytes[restartedAt...]))
        let second = try #require(after.count > 2 * 44100 ? Array(after[4096..<(4096 + 44100)]) : nil)
        let around = Int(expected * 44100)
        let found = (max(0, around - 3 * 44100)..<min(reference.count - second.count, around + 3 * 44100)).first {
            reference[$0] == second[0] && reference[$0..<($0 + second.count)].elementsEqual(second)
        }
        #expect(found != nil, "the audio after the restart is not the episode's near \(expected) s")
    }

    @Test func clearCacheEndsADownloadWaitingToTryAgain() throws {
        let feed = try server.put("gone/feed.xml", Self.rss("Gone", [("Gone One", "\(server.base)/gone/ep.mp3", 8)]))
        let (harness, process) = try Self.daemon("feeds = [\"\(feed)\"]")
        // Three 404s: the third failure backs off 4 s.
        #expect(waitUntil(timeout: .seconds(15)) { server.requests(for: "gone/ep.mp3").count == 3 }, "\(harness.log)")
        let asked = MonotonicClock.nanoseconds()
        harness.send("clear cache")
        let answer = process.waitForOutputLine(matching: "OK cache cleared", on: .stdout)
        #expect(answer.map { seconds(from: asked, to: $0.nanoseconds) < 1.5 } == true, "\(harness.log)")
    }
}
