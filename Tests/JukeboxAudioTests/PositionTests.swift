import Foundation
import JukeboxAudio
import JukeboxTestSupport
import LinuxSupport
import Testing

@Suite struct PositionTests {
    @Test(arguments: ["mp3/cbr128.mp3", "mp3/vbr_v2.mp3", "wav/pcm16_stereo.wav", "mp3/mpeg2_22k.mp3"])
    func playFromAPositionIsSampleAccurate(_ file: String) throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("seek.raw")
        let h = Harness(device: "file:'\(out)',raw")
        h.pipeline.play(PlaybackItem(token: 1, path: Fixtures.media(file)), fromMs: 1000)
        #expect(h.waitForEnd())
        let rate = h.pipeline.status().format?.rate ?? 0
        h.pipeline.shutdown()
        let full =
            file.hasSuffix(".wav")
            ? samples(of: try run(["/usr/bin/sox", Fixtures.media(file), "-t", "raw", "-"]).stdout)
            : try referenceDecode([Fixtures.media(file)])
        let expected = Array(full.dropFirst(rate * 2))
        let got = samples(ofFile: out)
        #expect(got.count == expected.count)
        #expect(maxDifference(got, expected) <= 2)
    }

    @Test func clockPacedNullDeviceReportsThePlayedPosition() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.wav")
        writeWAV(path, rate: 44100, channels: 2, samples: [Int16](repeating: 1000, count: 44100 * 2 * 3))
        let h = Harness(device: "null", periodMs: 10, bufferMs: 40, pacing: .auto)
        let start = MonotonicClock.nanoseconds()
        h.pipeline.play(PlaybackItem(token: 1, path: path), fromMs: 0)
        MonotonicClock.sleep(nanoseconds: 400_000_000)  // 400 ms of real time: the span measured
        var st = h.pipeline.status()
        #expect(st.pacing == .clock)
        #expect(st.state == .playing && st.token == 1)
        #expect(abs(st.positionMs - 400) <= 60, "\(st.positionMs)")

        h.pipeline.seek(toMs: 1500)
        MonotonicClock.sleep(nanoseconds: 200_000_000)  // 200 ms of real time: the span measured
        st = h.pipeline.status()
        #expect(abs(st.positionMs - 1700) <= 60, "\(st.positionMs)")

        h.pipeline.pause()
        // jb-output settles the paused position (rewinds what ALSA holds) a moment after the
        // state flips, and the status does not say when: a fixed wait remains here.
        MonotonicClock.sleep(nanoseconds: 20_000_000)
        let paused = h.pipeline.status()
        MonotonicClock.sleep(nanoseconds: 200_000_000)  // an interval in which nothing may move
        #expect(h.pipeline.status().positionFrames == paused.positionFrames)
        #expect(paused.state == .paused)

        let resumedAt = MonotonicClock.nanoseconds()
        h.pipeline.resume()
        #expect(h.waitForEnd(timeoutSeconds: 5))
        let remainingMs = Double(MonotonicClock.nanoseconds() - resumedAt) / 1e6
        #expect(abs(remainingMs - Double(3000 - paused.positionMs)) <= 80, "\(remainingMs) ms for the rest")
        #expect(h.events == [.started(1), .finished(1), .endOfStream])
        #expect(Double(MonotonicClock.nanoseconds() - start) / 1e6 > 2000)
        h.pipeline.shutdown()
    }

    @Test func devicePacingOnNullRunsAsFastAsTheCPU() throws {
        let h = Harness(device: "null", pacing: .device)
        let start = MonotonicClock.nanoseconds()
        h.pipeline.play(PlaybackItem(token: 1, path: Fixtures.media("mp3/vbr_v2.mp3")), fromMs: 0)
        #expect(h.waitForEnd())
        let ms = Double(MonotonicClock.nanoseconds() - start) / 1e6
        print("3 s of V2 MP3 through the pipeline to the unpaced null PCM: \(ms) ms")
        #expect(ms < 1500)
        #expect(h.pipeline.status().pacing == .device)
        h.pipeline.shutdown()
    }
}
