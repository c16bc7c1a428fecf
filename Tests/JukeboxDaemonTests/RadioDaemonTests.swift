import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Web radio in the real daemon, against a real Icecast server fed by ffmpeg: `add URL` over
/// MPD, the station's name and StreamTitle in `currentsong` and on the screen, the station kept
/// in the saved queue across a restart.
@Suite(.serialized) struct RadioDaemonTests {
    @Test(.timeLimit(.minutes(10)))
    func aStationPlaysWithItsTitleInCurrentsongAndOnTheScreen() throws {
        let icecast = try IcecastServer()
        try icecast.setTitle("Ann - Alpha")
        // A first start queues the library once it is scanned (then plays): the station
        // replaces that queue.
        let (harness, port) = try MPDDaemonTests.start(extra: DisplayDaemonTests.display)
        let process = try #require(harness.process)
        // libcurl is mapped only once a station plays (a box that never streams never loads it).
        let maps = { (try? run(["/bin/cat", "/proc/\(process.pid)/maps"]))?.stdoutText ?? "" }
        #expect(!maps().contains("libcurl"))
        let local = ProcessStats.read(process.pid)
        let client = try MPDTestClient(port: port)
        #expect(client.command("clear") == ["OK"])
        #expect(client.command("add \"\(icecast.url)\"") == ["OK"])
        #expect(client.command("play 0") == ["OK"])

        let song = { client.fields("currentsong") }
        let named = waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(100)) {
            song()["Name"] == "Jukebox Test FM" && song()["Title"] == "Ann - Alpha"
        }
        #expect(named, "\(song())\n\(harness.log)")
        #expect(song()["file"] == icecast.url)
        #expect(maps().contains("/libcurl.so"))
        let streaming = ProcessStats.read(process.pid)
        print(
            "jukeboxd RSS playing an MP3 file: \(local?.vmRSSKiB ?? 0) KiB (anon \(local?.rssAnonKiB ?? 0)); "
                + "playing a station: \(streaming?.vmRSSKiB ?? 0) KiB (anon \(streaming?.rssAnonKiB ?? 0))")
        #expect(client.fields("status")["state"] == "play")
        // A terminal display on a pipe prints a changed frame at most once a second and drops
        // faster changes: the next title comes a second after its last line.
        let quiet = waitUntil(timeout: .seconds(5), pollingEvery: .milliseconds(50)) {
            let last = process.lines.last { $0.text.contains("lcd|") }?.nanoseconds ?? 0
            return MonotonicClock.nanoseconds() - last > 1_100_000_000
        }
        #expect(quiet)
        try icecast.setTitle("Bob - Beta")
        #expect(
            waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(100)) { song()["Title"] == "Bob - Beta" },
            "\(song())")
        #expect(
            process.waitForLine(matching: "lcd| Jukebox Test FM | Bob - Beta", on: .stderr, timeout: .seconds(5))
                != nil,
            "\(harness.log)")

        // A stored playlist keeps the station's URL (as MPD writes it) and loads it back.
        #expect(client.command("save Radio") == ["OK"])
        let saved = try String(contentsOfFile: harness.directory.file("state/playlists/Radio.m3u"), encoding: .utf8)
        #expect(saved == icecast.url + "\n")
        #expect(client.command("playlistadd Radio \"\(icecast.url)?b\"") == ["OK"])
        #expect(client.command("load Radio") == ["OK"])
        #expect(
            client.command("playlist") == [
                "0:file: \(icecast.url)", "1:file: \(icecast.url)", "2:file: \(icecast.url)?b", "OK",
            ])
        #expect(client.command("delete 1:3") == ["OK"])

        // The saved queue keeps the station: it plays again after a restart.
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(5)) == 0)
        let again = try harness.start()
        #expect(again.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        let after = try MPDTestClient(port: port)
        let back = waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(100)) {
            after.fields("currentsong")["file"] == icecast.url && after.fields("status")["state"] == "play"
                && after.fields("currentsong")["Name"] == "Jukebox Test FM"
        }
        #expect(back, "\(after.fields("currentsong"))\n\(harness.log)")
        // A card assigned the station's URL plays it (the queue becomes the station).
        let card = icecast.url + "?card"
        #expect(after.command("card assign R1 url \"\(card)\"") == ["card: R1 url \"\(card)\"", "OK"])
        harness.send("card R1")
        let carded = waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(100)) {
            after.fields("currentsong")["file"] == card && after.fields("status")["state"] == "play"
        }
        #expect(carded, "\(after.fields("currentsong"))\n\(harness.log)")
        #expect(after.command("playlist") == ["0:file: \(card)", "OK"])
        again.kill(SIGTERM)
        #expect(again.waitForExit(timeout: .seconds(5)) == 0)
    }

    /// An Ogg station: no ICY metadata, each song a new link of the chained stream whose
    /// comments are its title, in `currentsong` and on the screen as a StreamTitle is.
    @Test(.timeLimit(.minutes(10)))
    func anOggStationsTitlesComeFromEachLinksComments() throws {
        let icecast = try IcecastServer()
        let url = try icecast.addOggChain(
            mount: "/chain.ogg", songs: [("Ann", "Alpha"), ("Bob", "Beta"), ("Cid", "Gamma")])
        let (harness, port) = try MPDDaemonTests.start(extra: DisplayDaemonTests.display)
        let process = try #require(harness.process)
        let client = try MPDTestClient(port: port)
        #expect(client.command("clear") == ["OK"])
        #expect(client.command("add \"\(url)\"") == ["OK"])
        #expect(client.command("play 0") == ["OK"])
        // Three 3 s songs in a loop: each title comes within 10 s, in the chain's order.
        var seen: [String] = []
        let deadline = MonotonicClock.nanoseconds() + 20_000_000_000
        while seen.count < 4, MonotonicClock.nanoseconds() < deadline {
            if let title = client.fields("currentsong")["Title"], title != seen.last { seen.append(title) }
            sleepMilliseconds(100)
        }
        let order = ["Ann - Alpha", "Bob - Beta", "Cid - Gamma"]
        let start = order.firstIndex(of: seen.first ?? "") ?? 0
        #expect(seen == (0..<4).map { order[(start + $0) % 3] }, "\(seen)\n\(harness.log)")
        #expect(client.fields("currentsong")["file"] == url)
        #expect(client.fields("status")["state"] == "play")
        // The screen: the station's name as the title, the song as the lyric line.
        let shown = process.waitForOutputLine(from: 0, on: .stderr, timeout: .seconds(5)) { line in
            line.contains("lcd| Jukebox Ogg FM | ") && order.contains { line.contains("| \($0)") }
        }
        #expect(shown != nil, "\(harness.log)")
    }

    /// Pause on a station against a local file in the daemon (the default deep buffer): what
    /// reached the DAC beyond the pipe's bytes once the pipeline had the pause (the daemon's
    /// `status` reply after `pause`), i.e. what jb-output still let out. Not from the send: the
    /// daemon plays a station just in time (its pipe held 24-216 B at the send, a file's
    /// 400-3,600), so a stream chunk landing between the send and the pause refills the 4 KiB
    /// pipe at once, 23 ms of DAC buffer that a file keeps full anyway (24.0 and 25.7 ms were
    /// measured so under load). If this thread was held up after the reply, what the DAC read
    /// meanwhile would count as the daemon's, so that pause is measured again.
    @Test(.timeLimit(.minutes(10)))
    func pauseOnAStationSilencesAsFastAsOnAFile() throws {
        let icecast = try IcecastServer()
        let sink = try PacedFifoSink(bytesPerSecond: 176_400, pipeSize: 4096)
        defer { sink.stop() }
        let media = try TemporaryDirectory(prefix: "radio-pause")
        defer { media.remove() }
        try InputLatencyProbe.writeFlatWAV(path: media.file("flat.wav"), seconds: 60)
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(
            tracks: [media.file("flat.wav")], configExtra: "[network]\nport = \(port)", device: sink.alsaDevice,
            pacing: "device")
        let process = try harness.start()
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        #expect(sink.waitForBytes(176_400, timeoutSeconds: 20), "\(harness.log)")
        let client = try MPDTestClient(port: port)
        #expect(client.command("add \"\(icecast.url)\"") == ["OK"])
        var figures: [String] = []
        for (index, source) in ["file", "station"].enumerated() {
            #expect(client.command("play \(index)") == ["OK"])
            var figure: Double?
            var attempts = 0
            while figure == nil && attempts < 5 {
                // Again after a measurement this thread spoiled: play on from the pause.
                if attempts > 0 { #expect(client.command("pause 0") == ["OK"]) }
                attempts += 1
                let from = sink.byteCount
                let sounding = waitUntil(timeout: .seconds(10)) {
                    let id = harness.status()?.songID ?? 0
                    return sink.byteCount > from + 176_400 * 2 && (index == 0 ? id > 0 : id < 0)
                }
                #expect(sounding, "\(source): \(String(describing: harness.status())) \(sink.byteCount - from) B")
                harness.send("pause")
                let paused = harness.status()
                let mark = sink.mark
                let markedAt = MonotonicClock.nanoseconds()
                #expect(paused?.state == "pause", "\(source): \(String(describing: paused))")
                #expect(sink.waitUntilPlayedOut(timeoutSeconds: 5), "\(source): the DAC still gets audio")
                if let paused, markedAt - paused.at < 2_000_000 {
                    figure = Double(sink.byteCount - mark.received - mark.inPipe) / 176.4
                }
            }
            figures.append("\(source) \(figure.map { "\($0) ms" } ?? "not measured") (\(attempts) attempts)")
            print("daemon: pause to silence beyond the DAC's pipe: \(figures.last!)")
            #expect((figure ?? .infinity) <= 20, "\(figures)")
        }
    }
}
