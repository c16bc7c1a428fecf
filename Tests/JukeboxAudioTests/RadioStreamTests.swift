import Foundation
import Glibc
import JukeboxAudio
import JukeboxTestSupport
import LinuxSupport
import Testing

/// One icecast2 for the suite: started before its first test and stopped after its last (a
/// static would outlive the test process).
struct IcecastScope: SuiteTrait, TestScoping {
    @TaskLocal static var server: IcecastServer?

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try IcecastServer()
        try await Self.$server.withValue(server) { try await function() }
    }
}

@Suite(.serialized, IcecastScope()) struct RadioStreamTests {
    static var icecast: Result<IcecastServer, any Error> {
        Result { try #require(IcecastScope.server, "no icecast2 for this suite") }
    }

    /// Whether the sink got `seconds` of sound (not silence) after byte `offset`.
    static func sound(_ sink: PacedFifoSink, after offset: Int, seconds: Double) -> Bool {
        let bytes = sink.bytes
        guard bytes.count >= offset + Int(seconds * 44100 * 4) else { return false }
        return bytes[offset...].withUnsafeBytes { raw in
            raw.bindMemory(to: Int16.self).contains { abs(Int($0)) > 1000 }
        }
    }

    /// A pipeline playing `url` (item 1) into a paced sink, once a second of it sounded.
    static func playing(_ url: String) -> (PacedFifoSink, Harness)? {
        guard let sink = try? PacedFifoSink(bytesPerSecond: 44100 * 4) else { return nil }
        let h = Harness(device: sink.alsaDevice)
        h.pipeline.setVolume(percent: 100, gain: 1)
        h.pipeline.play(PlaybackItem(token: 1, path: url))
        #expect(h.pump(timeoutSeconds: 10) { $0.contains(.started(1)) })
        #expect(waitUntil(timeout: .seconds(10)) { Self.sound(sink, after: 0, seconds: 1) })
        return (sink, h)
    }

    @Test func playsAStationShowsItsTitlesAndComesBackAfterARestart() throws {
        let server = try Self.icecast.get()
        let (sink, h) = try #require(Self.playing(server.url))
        #expect(h.pipeline.streams.info(url: server.url)?.name == "Jukebox Test FM")

        try server.setTitle("Ann – Alpha")
        #expect(waitUntil(timeout: .seconds(10)) { h.pipeline.streams.info(url: server.url)?.title == "Ann – Alpha" })
        try server.setTitle("Bob - Beta")
        #expect(waitUntil(timeout: .seconds(10)) { h.pipeline.streams.info(url: server.url)?.title == "Bob - Beta" })

        server.kill()
        #expect(waitUntil(timeout: .seconds(10)) { h.pipeline.streams.info(url: server.url)?.connected == false })
        let restarted = MonotonicClock.nanoseconds()
        try server.start()
        let offset = sink.byteCount
        let back = waitUntil(timeout: .seconds(10)) { Self.sound(sink, after: offset, seconds: 0.5) }
        let seconds = Double(MonotonicClock.nanoseconds() - restarted) / 1e9
        #expect(back && seconds < 5, "playing again after \(seconds) s")
        print("station playing again \(seconds) s after the server's restart")
        #expect(h.pipeline.streams.info(url: server.url)?.reconnects ?? 0 >= 1)
        #expect(!h.events.contains { if case .failed = $0 { true } else { false } }, "\(h.events)")

        h.pipeline.stop()
        #expect(waitUntil(timeout: .seconds(5)) { h.pipeline.streams.info(url: server.url) == nil })
    }

    /// At power-up the network may come after the box: a station never reached yet is tried
    /// again (no failure) and plays once its server is there; meanwhile other music plays at once.
    @Test func aStationOutOfReachPlaysOnceItIsThereWithoutHoldingUpOtherMusic() throws {
        let server = try Self.icecast.get()
        server.kill()
        let sink = try PacedFifoSink(bytesPerSecond: 44100 * 4)
        let h = Harness(device: sink.alsaDevice)
        h.pipeline.setVolume(percent: 100, gain: 1)
        h.pipeline.play(PlaybackItem(token: 1, path: server.url))
        #expect(waitUntil(timeout: .seconds(10)) { h.pipeline.streams.info(url: server.url)?.reconnects ?? 0 >= 2 })
        h.pump(timeoutSeconds: 0) { _ in false }
        #expect(h.events.isEmpty, "\(h.events)")
        try server.start()
        #expect(h.pump(timeoutSeconds: 10) { $0.contains(.started(1)) }, "\(h.events)")
        #expect(waitUntil(timeout: .seconds(10)) { Self.sound(sink, after: 0, seconds: 0.5) })

        // A station nobody answers for, then a local file: the file starts at once.
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let tone = (0..<44100 * 2).map { Int16(8000 * sin(Double($0 / 2) * 2 * .pi * 440 / 44100)) }
        writeWAV(dir.file("tone.wav"), rate: 44100, channels: 2, samples: tone)
        let nowhere = "http://127.0.0.1:\(freeLoopbackPort())/radio.mp3"
        h.pipeline.play(PlaybackItem(token: 2, path: nowhere))
        #expect(waitUntil(timeout: .seconds(10)) { h.pipeline.streams.info(url: nowhere)?.reconnects ?? 0 >= 1 })
        let asked = MonotonicClock.nanoseconds()
        h.pipeline.play(PlaybackItem(token: 3, path: dir.file("tone.wav")))
        #expect(h.pump(timeoutSeconds: 5) { $0.contains(.started(3)) }, "\(h.events)")
        #expect(Double(MonotonicClock.nanoseconds() - asked) / 1e9 < 1.5)
        #expect(waitUntil(timeout: .seconds(5)) { h.pipeline.streams.info(url: nowhere) == nil })
        h.pipeline.stop()
    }

    /// Ogg Vorbis, Opus and ADTS AAC stations from the same server, decoded from the pipe as
    /// unseekable streams.
    @Test(arguments: [
        ("/live.ogg", ["-c:a", "libvorbis", "-b:a", "96k"], "application/ogg", "ogg"),
        ("/live.opus", ["-c:a", "libopus", "-b:a", "96k"], "audio/ogg", "ogg"),
        ("/live.aac", ["-c:a", "aac", "-b:a", "128k"], "audio/aac", "adts"),
    ])
    func playsOggAndAACStations(mount: String, codec: [String], contentType: String, format: String) throws {
        let server = try Self.icecast.get()
        let url = try server.addSource(mount: mount, codec: codec, contentType: contentType, format: format)
        let sink = try PacedFifoSink(bytesPerSecond: 48000 * 4)
        let h = Harness(device: sink.alsaDevice)
        h.pipeline.setVolume(percent: 100, gain: 1)
        h.pipeline.play(PlaybackItem(token: 1, path: url))
        #expect(h.pump(timeoutSeconds: 10) { $0.contains(.started(1)) }, "\(h.events)")
        #expect(waitUntil(timeout: .seconds(10)) { Self.sound(sink, after: 0, seconds: 1) }, "\(h.events)")
        #expect(h.pipeline.status().format == AudioFormat(rate: 48000, channels: 2))
        h.pipeline.stop()
    }

    @Test(arguments: [
        ("junk without HTTP", ""),
        ("audio/mpeg that is noise", "HTTP/1.0 200 OK\\r\\nContent-Type: audio/mpeg\\r\\n\\r\\n"),
        ("a web page", "HTTP/1.0 200 OK\\r\\nContent-Type: text/html\\r\\n\\r\\n"),
        ("WMA, not played", "HTTP/1.0 200 OK\\r\\nContent-Type: audio/x-ms-wma\\r\\n\\r\\n"),
    ])
    func aServerSendingGarbageFailsTheItemOnce(what: String, reply: String) throws {
        let garbage = try GarbageServer(reply: reply)
        let sink = try PacedFifoSink(bytesPerSecond: 44100 * 4)
        let h = Harness(device: sink.alsaDevice)
        h.pipeline.play(PlaybackItem(token: 1, path: garbage.url))
        #expect(h.pump(timeoutSeconds: 10) { $0.contains(.endOfStream) }, "\(what)")
        let failures = h.events.compactMap { if case .failed(_, let message) = $0 { message } else { nil } }
        #expect(failures.count == 1, "\(what): \(h.events)")
        #expect(failures.first?.contains(garbage.url) == true, "\(what): \(failures)")
        #expect(waitUntil(timeout: .seconds(5)) { h.pipeline.streams.info(url: garbage.url) == nil }, "\(what)")
    }

    /// Pause reaches the DAC as fast on a station as on a local file (the figure of
    /// LatencyTests: what still arrived after the pipe's bytes, within one 10 ms period).
    @Test func pauseOnAStationSilencesWithinOnePeriodAsAFileDoes() throws {
        let server = try Self.icecast.get()
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let tone = (0..<44100 * 6).flatMap { i in
            let v = Int16(8000 * sin(Double(i) * 2 * .pi * 440 / 44100))
            return [v, v]
        }
        writeWAV(dir.file("tone.wav"), rate: 44100, channels: 2, samples: tone)
        let sink = try PacedFifoSink(bytesPerSecond: 44100 * 4, pipeSize: 4096)
        let h = Harness(device: sink.alsaDevice, periodMs: 10, bufferMs: 40)
        h.pipeline.setVolume(percent: 100, gain: 1)
        var figures: [String: Double] = [:]
        for (token, path) in [(UInt64(1), dir.file("tone.wav")), (2, server.url)] {
            h.pipeline.play(PlaybackItem(token: token, path: path))
            #expect(h.pump(timeoutSeconds: 10) { $0.contains(.started(token)) }, "\(h.events)")
            let playing = sink.byteCount
            #expect(waitUntil(timeout: .seconds(10)) { Self.sound(sink, after: playing, seconds: 1) })
            let mark = sink.mark
            h.pipeline.pause()
            #expect(waitUntil(timeout: .seconds(2)) { h.pipeline.status().state == .paused })
            MonotonicClock.sleep(nanoseconds: 300_000_000)
            let after = sink.byteCount
            figures[token == 1 ? "file" : "station"] = Double(after - mark.received - mark.inPipe) / 176.4
            h.pipeline.stop()
        }
        print(
            "pause to silence beyond the DAC's pipe: file \(figures["file"] ?? -1) ms, station \(figures["station"] ?? -1) ms"
        )
        #expect((figures["file"] ?? .infinity) <= 20)
        #expect((figures["station"] ?? .infinity) <= 20)
    }

    /// Resume after a short pause goes on with the same connection, where it stopped; after a
    /// pause longer than the pipe holds (5 s), with a new connection: the live stream.
    @Test func resumeAfterALongPauseContinuesTheLiveStream() throws {
        let server = try Self.icecast.get()
        let (sink, h) = try #require(Self.playing(server.url))
        let first = try #require(h.pipeline.streams.info(url: server.url)?.serial)
        for (pauseMs, sameConnection) in [(1000, true), (6000, false)] {
            h.pipeline.pause()
            MonotonicClock.sleep(nanoseconds: UInt64(pauseMs) * 1_000_000)
            let resumed = MonotonicClock.nanoseconds()
            let offset = sink.byteCount
            h.pipeline.resume()
            #expect(waitUntil(timeout: .seconds(5)) { Self.sound(sink, after: offset, seconds: 0.5) })
            let soundAfter = Double(MonotonicClock.nanoseconds() - resumed) / 1e9
            let serial = h.pipeline.streams.info(url: server.url)?.serial
            print(
                "station resumed after a \(pauseMs) ms pause: sound again \(soundAfter) s later, connection \(serial ?? 0)"
            )
            #expect(
                (serial == first) == sameConnection,
                "pause \(pauseMs) ms: connection \(String(describing: serial)) (first \(first))")
        }
        #expect(!h.events.contains { if case .failed = $0 { true } else { false } }, "\(h.events)")
        h.pipeline.stop()
    }
}
