import Foundation
import JukeboxAudio
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Real-time behaviour against a virtual DAC reading a FIFO at 176,400 B/s (44.1 kHz stereo S16).
///
/// How the figures are taken: just before a command, note the bytes the DAC has received (B0)
/// and the bytes the pipe holds (P, FIONREAD). The pipe is the DAC's own FIFO, so the P bytes
/// after B0 are not the player's latency. The latency is the audio that still arrived after
/// them before the change: (first changed byte − B0 − P) / 176.4 ms. The ALSA `file` plugin
/// keeps up to one ALSA buffer in its own memory; the pipeline rewinds it on every command, so
/// it does not count towards P and shows up in the figure if it were not discarded.
@Suite(.serialized) struct LatencyTests {
    static let byteRate = 176_400.0

    struct Measured {
        var b0: Int
        var pipe: Int
        var t0: UInt64
    }

    func mark(_ sink: PacedFifoSink) -> Measured {
        let b0 = sink.byteCount
        let pipe = sink.pipeBytes
        return Measured(b0: b0, pipe: pipe, t0: MonotonicClock.nanoseconds())
    }

    func latencyMs(_ m: Measured, changeAt byte: Int) -> Double {
        Double(byte - m.b0 - m.pipe) / Self.byteRate * 1000
    }

    /// Stereo frames whose both channels count up by one per frame (wrapping).
    static func counter(_ frames: Int, from start: Int = 0) -> [Int16] {
        var s = [Int16](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            s[2 * i] = Int16(truncatingIfNeeded: start + i)
            s[2 * i + 1] = Int16(truncatingIfNeeded: start + i)
        }
        return s
    }

    /// The same figure measured in time: arrival of the first changed byte at the DAC, minus
    /// the command time, minus the time the DAC needed to play what the pipe held.
    func latencyByClockMs(_ m: Measured, changeAt byte: Int, sink: PacedFifoSink) -> Double {
        guard let t = sink.arrivalTime(ofByte: byte) else { return .infinity }
        return Double(t - m.t0) / 1e6 - Double(m.pipe) / Self.byteRate * 1000
    }

    @Test(arguments: [(10, 40), (5, 20)])
    func pauseResumeSkipAndVolumeReachTheDACWithinOnePeriod(periodMs: Int, bufferMs: Int) throws {
        let dir = try TemporaryDirectory()
        let counterPath = dir.file("counter.wav")
        let otherPath = dir.file("other.wav")
        let flatPath = dir.file("flat.wav")
        writeWAV(counterPath, rate: 44100, channels: 2, samples: Self.counter(44100 * 4))
        writeWAV(otherPath, rate: 44100, channels: 2, samples: (0..<44100 * 2).flatMap { _ in [Int16(31420), -31420] })
        writeWAV(flatPath, rate: 44100, channels: 2, samples: [Int16](repeating: 16000, count: 44100 * 2 * 2))

        let sink = try PacedFifoSink(bytesPerSecond: 176_400, pipeSize: 4096)
        let h = Harness(device: sink.alsaDevice, periodMs: periodMs, bufferMs: bufferMs)
        print("pipe capacity \(sink.pipeCapacity) B")

        // Pause.
        h.pipeline.play(PlaybackItem(token: 1, path: counterPath), fromMs: 0)
        #expect(sink.waitForBytes(176_400 / 2, timeoutSeconds: 3))
        let pauseMark = mark(sink)
        h.pipeline.pause()
        MonotonicClock.sleep(nanoseconds: 300_000_000)  // the window in which what still arrives is counted
        let afterPause = sink.byteCount
        let pauseMs = latencyMs(pauseMark, changeAt: afterPause)
        let pausedStatus = h.pipeline.status()
        #expect(pausedStatus.state == .paused)

        // Resume: the stream continues at the next frame, without a gap or a repeat.
        h.pipeline.resume()
        #expect(sink.waitForBytes(afterPause + 176_400 / 4, timeoutSeconds: 3))
        let stream = sink.samples
        var breaks = 0
        for i in stride(from: 2, to: stream.count - 1, by: 2) where stream[i] != stream[i - 2] &+ 1 { breaks += 1 }
        #expect(breaks == 0, "the counter must run on without a gap or a repeat across pause/resume")
        #expect(
            abs(pausedStatus.positionFrames - Int64(afterPause / 4)) <= 441 * 5,
            "\(pausedStatus.positionFrames) vs \(afterPause / 4)")

        // Skip to another item.
        let skipMark = mark(sink)
        h.pipeline.play(PlaybackItem(token: 2, path: otherPath), fromMs: 0)
        #expect(sink.waitForBytes(skipMark.b0 + 176_400 / 4, timeoutSeconds: 3))
        let s2 = sink.samples
        let firstOther = stride(from: skipMark.b0 / 2, to: s2.count - 1, by: 2).first { s2[$0] != s2[$0 + 1] }
        let skipByte = try #require(firstOther) * 2
        let skipMs = latencyMs(skipMark, changeAt: skipByte)
        let skipClockMs = latencyByClockMs(skipMark, changeAt: skipByte, sink: sink)

        // Volume on a flat signal.
        h.pipeline.play(PlaybackItem(token: 3, path: flatPath), fromMs: 0)
        #expect(sink.waitForBytes(sink.byteCount + 176_400 * 3 / 10, timeoutSeconds: 3))  // the flat signal plays
        let volumeMark = mark(sink)
        h.pipeline.setVolume(percent: 50, gain: 0.5)
        #expect(sink.waitForBytes(volumeMark.b0 + 176_400 / 4, timeoutSeconds: 3))
        let s3 = sink.samples
        let firstQuiet = stride(from: volumeMark.b0 / 2, to: s3.count, by: 2).first { s3[$0] < 16000 }
        let volumeByte = try #require(firstQuiet) * 2
        let volumeMs = latencyMs(volumeMark, changeAt: volumeByte)
        let volumeClockMs = latencyByClockMs(volumeMark, changeAt: volumeByte, sink: sink)
        let firstHalf = stride(from: volumeByte / 2, to: s3.count, by: 2).first { s3[$0] == 8000 } ?? s3.count
        let rampFrames = (firstHalf - volumeByte / 2) / 2
        var monotonic = true
        for i in stride(from: volumeByte / 2, to: firstHalf, by: 2) where i >= 2 && s3[i] > s3[i - 2] {
            monotonic = false
        }
        let status = h.pipeline.status()
        h.pipeline.shutdown()
        sink.stop()

        print(
            """
            latency beyond the DAC's pipe (period \(status.periodFrames) frames, buffer \(status.bufferFrames) frames): \
            pause \(pauseMs) ms, skip \(skipMs) ms, volume \(volumeMs) ms \
            (by arrival time: skip \(skipClockMs) ms, volume \(volumeClockMs) ms); \
            pipe held \(pauseMark.pipe)/\(skipMark.pipe)/\(volumeMark.pipe) B; volume ramp \(rampFrames) frames; \
            partial DAC ticks (incl. the transitions) \(sink.underruns)
            """)
        #expect(pauseMs <= 20)
        #expect(skipMs <= 20)
        #expect(volumeMs <= 20)
        #expect(skipClockMs <= 25)
        #expect(volumeClockMs <= 25)
        #expect(monotonic && rampFrames > 100 && rampFrames < 400, "ramp of \(rampFrames) frames")
    }

    /// ALSA's `file` PCM passes each write on to its FIFO as it comes: what a write that the
    /// FIFO holds up carries can no longer be taken back, and jb-output sees a command only
    /// once that write returns. With a DAC that has stopped reading, a pause lets out that one
    /// write and nothing more (the plugin's own buffer is taken back): a quarter period, where
    /// a whole period got out when jb-output wrote a period at a time.
    @Test func aPauseLetsOutOnlyTheWriteTheFIFOHeldUp() throws {
        let dir = try TemporaryDirectory()
        let flatPath = dir.file("flat.wav")
        writeWAV(flatPath, rate: 44100, channels: 2, samples: [Int16](repeating: 16000, count: 44100 * 2 * 4))
        let fifoPath = dir.file("dac.fifo")
        try FileSystem.makeFIFO(fifoPath)
        let dac = try FileDescriptor(path: fifoPath, flags: O_RDONLY | O_NONBLOCK)
        _ = try dac.setPipeCapacity(4096)
        let h = Harness(device: "file:'\(fifoPath)',raw", periodMs: 10, bufferMs: 40)
        h.pipeline.play(PlaybackItem(token: 1, path: flatPath), fromMs: 0)
        // Nobody reads: once the plugin's buffer and the pipe are full, a write is held up.
        var last = -1
        var unchanged = 0
        let held = try waitUntil(timeout: .seconds(5), pollingEvery: .milliseconds(50)) {
            let now = try dac.bytesReadable()
            unchanged = now > 0 && now == last ? unchanged + 1 : 0
            last = now
            return unchanged >= 4
        }
        #expect(held)
        let inPipe = try dac.bytesReadable()
        h.pipeline.pause()
        var received = 0
        var quietSince = MonotonicClock.nanoseconds()
        while MonotonicClock.nanoseconds() - quietSince < 300_000_000 {
            if let bytes = try dac.readIfReady(upTo: 65536), !bytes.isEmpty {
                received += bytes.count
                quietSince = MonotonicClock.nanoseconds()
            } else {
                MonotonicClock.sleep(nanoseconds: 1_000_000)  // the DAC's pace; it synchronises nothing
            }
        }
        let quarterPeriod = 441 / 4 * 4
        #expect(h.pipeline.status().state == .paused)
        #expect(
            received - inPipe == quarterPeriod, "\(received - inPipe) B after the pause beyond the pipe's \(inPipe) B")
    }
}
