import JukeboxAudio
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Feedback sounds through the whole output (jb-output, ALSA's `file` PCM, a paced FIFO):
/// each comes out as its notes (frequency, length), over the music, while paused, and while
/// stopped with the device still closed.
@Suite struct FeedbackSoundTests {
    @Test(arguments: [OutputPacing.device, .clock])
    func stoppedTheDeviceOpensForTheSound(pacing: OutputPacing) throws {
        let sink = try PacedFifoSink(bytesPerSecond: 44100 * 4, speed: 8)
        let h = Harness(device: sink.alsaDevice, pacing: pacing)
        h.pipeline.play(.cardRead, level: 1)
        let frames = FeedbackSound.cardRead.frames(rate: 44100)
        #expect(sink.waitForBytes(frames * 4, timeoutSeconds: 5))
        h.pipeline.shutdown()
        sink.stop()
        let bursts = ToneBurst.find(in: sink.samples, rate: 44100)
        #expect(bursts.count == 1, "\(bursts)")
        if let burst = bursts.first {
            #expect(ToneBurst.isNote(burst, hz: 1320, ms: 90, rate: 44100), "\(burst)")
            #expect(abs(burst.peak - 16384) < 200, "\(burst)")
        }
        #expect(h.pipeline.status().state == .stopped)
    }

    @Test func overTheMusicAndWhilePaused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("silence.wav")
        writeWAV(path, rate: 44100, channels: 2, samples: [Int16](repeating: 0, count: 44100 * 2 * 3))
        let sink = try PacedFifoSink(bytesPerSecond: 44100 * 4, speed: 4)
        let h = Harness(device: sink.alsaDevice)
        h.pipeline.setVolume(percent: 100, gain: 1.0)
        h.pipeline.play(PlaybackItem(token: 1, path: path))
        #expect(h.pump { $0.contains(.started(1)) })
        #expect(sink.waitForBytes(44100, timeoutSeconds: 5))
        // Over the music (silence here, so what comes out is the sound alone), at a quarter level.
        h.pipeline.play(.limit, level: 0.25)
        #expect(waitUntil(timeout: .seconds(5)) { ToneBurst.find(in: sink.samples, rate: 44100).count == 1 })
        #expect(waitUntil(timeout: .seconds(5)) { h.pipeline.status().positionMs >= 1000 })
        h.pipeline.pause()
        #expect(waitUntil(timeout: .seconds(2)) { h.pipeline.status().state == .paused })
        // Paused: the two low beeps still sound, and the position stays (read once the first
        // beep came, when the pause before it has surely been applied).
        h.pipeline.play(.unknownCard, level: 1)
        #expect(waitUntil(timeout: .seconds(5)) { ToneBurst.find(in: sink.samples, rate: 44100).count >= 2 })
        let paused = h.pipeline.status().positionMs
        // All of the second beep has come.
        #expect(
            waitUntil(timeout: .seconds(5)) {
                let found = ToneBurst.find(in: sink.samples, rate: 44100)
                return found.count == 3 && sink.byteCount >= (found[2].first + 4408) * 4
            }, "\(ToneBurst.find(in: sink.samples, rate: 44100))")
        #expect(h.pipeline.status().positionMs == paused)
        #expect(h.pipeline.status().state == .paused)
        // Resumed after the sound let the device run dry: the music goes on from there.
        h.pipeline.resume()
        #expect(waitUntil(timeout: .seconds(5)) { h.pipeline.status().positionMs >= paused + 300 })
        #expect(h.pipeline.status().deviceLosses == 0)
        h.pipeline.shutdown()
        sink.stop()
        let bursts = ToneBurst.find(in: sink.samples, rate: 44100)
        #expect(bursts.count == 3, "\(bursts)")
        guard bursts.count == 3 else { return }
        #expect(ToneBurst.isNote(bursts[0], hz: 440, ms: 150, rate: 44100), "\(bursts[0])")
        #expect(abs(bursts[0].peak - 4096) < 100, "\(bursts[0])")
        #expect(ToneBurst.isNote(bursts[1], hz: 660, ms: 100, rate: 44100), "\(bursts[1])")
        #expect(ToneBurst.isNote(bursts[2], hz: 660, ms: 100, rate: 44100), "\(bursts[2])")
        // The rest between the beeps is 60 ms (and the fades' zero ends).
        let gap = bursts[2].first - (bursts[1].first + bursts[1].frames)
        #expect(abs(gap - 60 * 44) <= 50, "gap \(gap) frames")
    }
}
