import Foundation
import Glibc
import JukeboxAudio
import JukeboxTestSupport
import LinuxSupport
import Testing

@Suite(.serialized) struct RadioStreamTests {
    static let icecast = Result { try IcecastServer() }

    /// Whether the sink got `seconds` of sound (not silence) after byte `offset`.
    static func sound(_ sink: PacedFifoSink, after offset: Int, seconds: Double) -> Bool {
        let bytes = sink.bytes
        guard bytes.count >= offset + Int(seconds * 44100 * 4) else { return false }
        return bytes[offset...].withUnsafeBytes { raw in
            raw.bindMemory(to: Int16.self).contains { abs(Int($0)) > 1000 }
        }
    }

    @Test func playsAStationShowsItsTitlesAndComesBackAfterARestart() throws {
        let server = try Self.icecast.get()
        let sink = try PacedFifoSink(bytesPerSecond: 44100 * 4)
        let h = Harness(device: sink.alsaDevice)
        h.pipeline.setVolume(percent: 100, gain: 1)
        h.pipeline.play(PlaybackItem(token: 1, path: server.url))
        #expect(h.pump(timeoutSeconds: 10) { $0.contains(.started(1)) })
        #expect(waitUntil(timeout: .seconds(10)) { Self.sound(sink, after: 0, seconds: 1) })
        #expect(LiveStreams.shared.info(url: server.url)?.name == "Jukebox Test FM")

        try server.setTitle("Ann – Alpha")
        #expect(waitUntil(timeout: .seconds(10)) { LiveStreams.shared.info(url: server.url)?.title == "Ann – Alpha" })
        try server.setTitle("Bob - Beta")
        #expect(waitUntil(timeout: .seconds(10)) { LiveStreams.shared.info(url: server.url)?.title == "Bob - Beta" })

        server.kill()
        #expect(waitUntil(timeout: .seconds(10)) { LiveStreams.shared.info(url: server.url)?.connected == false })
        let restarted = MonotonicClock.nanoseconds()
        try server.start()
        let offset = sink.byteCount
        let back = waitUntil(timeout: .seconds(10)) { Self.sound(sink, after: offset, seconds: 0.5) }
        let seconds = Double(MonotonicClock.nanoseconds() - restarted) / 1e9
        #expect(back && seconds < 5, "playing again after \(seconds) s")
        #expect(LiveStreams.shared.info(url: server.url)?.reconnects ?? 0 >= 1)
        #expect(!h.events.contains { if case .failed = $0 { true } else { false } }, "\(h.events)")

        h.pipeline.stop()
        #expect(waitUntil(timeout: .seconds(5)) { LiveStreams.shared.info(url: server.url) == nil })
    }

    @Test(arguments: [
        ("junk without HTTP", ""),
        ("audio/mpeg that is noise", "HTTP/1.0 200 OK\\r\\nContent-Type: audio/mpeg\\r\\n\\r\\n"),
        ("a web page", "HTTP/1.0 200 OK\\r\\nContent-Type: text/html\\r\\n\\r\\n"),
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
        #expect(waitUntil(timeout: .seconds(5)) { LiveStreams.shared.info(url: garbage.url) == nil }, "\(what)")
    }
}
