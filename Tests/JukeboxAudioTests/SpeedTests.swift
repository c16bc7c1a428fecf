import Foundation
import JukeboxAudio
import JukeboxTestSupport
import Testing

/// Playback speed through the whole pipeline (libsonic on jb-decode) into a paced virtual DAC.
@Suite struct SpeedTests {
    /// A stereo 440 Hz sine at half of full scale.
    static func tone(seconds: Double, rate: Int = 44100) -> [Int16] {
        let frames = Int(seconds * Double(rate))
        var out = [Int16](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let v = Int16((16384 * sin(2 * Double.pi * 440 * Double(i) / Double(rate))).rounded())
            out[2 * i] = v
            out[2 * i + 1] = v
        }
        return out
    }

    /// The left channel's frequency from its rising zero crossings (first to last).
    static func frequency(_ samples: [Int16], rate: Int = 44100) -> Double {
        var crossings: [Int] = []
        var i = 2
        while i < samples.count {
            if samples[i - 2] < 0 && samples[i] >= 0 { crossings.append(i / 2) }
            i += 2
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * Double(rate) / Double(last - first)
    }

    /// The largest step between neighbouring left-channel samples: a cut or a jump shows as
    /// one far above what the sine itself does (16384 · 2π · 440 / 44100 ≈ 1027).
    static func largestStep(_ samples: [Int16]) -> Int {
        var worst = 0
        var i = 2
        while i < samples.count {
            worst = max(worst, abs(Int(samples[i]) - Int(samples[i - 2])))
            i += 2
        }
        return worst
    }

    @Test func twelveSecondsOfToneAtOneAndAHalfLastEightSecondsAtTheSamePitch() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.wav")
        writeWAV(path, rate: 44100, channels: 2, samples: Self.tone(seconds: 12))
        let sink = try PacedFifoSink(bytesPerSecond: 44100 * 4, speed: 4)
        let h = Harness(device: sink.alsaDevice)
        h.pipeline.setSpeed(1.5)
        h.pipeline.play(PlaybackItem(token: 1, path: path), fromMs: 0)
        // Track time runs 1.5 times as fast as the audio the DAC takes.
        #expect(sink.waitForBytes(44100 * 4, timeoutSeconds: 10))
        let before = (h.pipeline.status().positionMs, sink.byteCount - sink.pipeBytes)
        #expect(sink.waitForBytes(5 * 44100 * 4, timeoutSeconds: 10))
        let after = (h.pipeline.status().positionMs, sink.byteCount - sink.pipeBytes)
        let heardMs = Double(after.1 - before.1) / 4 / 44.1
        let rate = Double(after.0 - before.0) / heardMs
        #expect(abs(rate - 1.5) < 0.03, "track ms per heard ms: \(rate)")
        #expect(h.waitForEnd(timeoutSeconds: 20))
        #expect(h.events == [.started(1), .finished(1), .endOfStream])
        // Closing the PCM writes out what ALSA's file plugin still held; the DAC reads it.
        h.pipeline.shutdown()
        #expect(waitUntil { sink.pipeBytes == 0 })
        sink.stop()
        let played = sink.samples
        let seconds = Double(played.count / 2) / 44100
        #expect(abs(seconds - 8) <= 0.08, "lasted \(seconds) s")
        let pitch = Self.frequency(Array(played.dropFirst(44100).prefix(6 * 44100 * 2)))
        #expect(abs(pitch - 440) <= 4.4, "pitch \(pitch) Hz")
        #expect(Self.largestStep(played) < 2000)
    }

    /// 1.0 → 1.5 → 1.0 while playing a FLAC file: each change is heard at once and without a
    /// click (a fade out and in), and from the return to 1.0 the samples are the file's own
    /// again, bit for bit, to the end (libFLAC's seeks are sample-exact; an MP3 would be
    /// libmpg123's seek, a few LSB off a decode from the start with or without a speed change).
    @Test func backAtOneTheSamplesAreTheFilesOwnAgain() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("tone.wav")
        let reference = Self.tone(seconds: 8)
        writeWAV(wav, rate: 44100, channels: 2, samples: reference)
        let flac = dir.file("tone.flac")
        try EncodedMedia.tool(["flac", "--silent", "-o", flac, wav])
        let sink = try PacedFifoSink(bytesPerSecond: 44100 * 4, speed: 4)
        let h = Harness(device: sink.alsaDevice)
        h.pipeline.play(PlaybackItem(token: 1, path: flac), fromMs: 0)
        #expect(sink.waitForBytes(44100 * 4, timeoutSeconds: 10))
        h.pipeline.setSpeed(1.5)
        let changedAt = sink.byteCount
        #expect(sink.waitForBytes(changedAt + 2 * 44100 * 4, timeoutSeconds: 10))
        h.pipeline.setSpeed(1)
        #expect(h.waitForEnd(timeoutSeconds: 20))
        // Closing the PCM writes out what ALSA's file plugin still held; the DAC reads it.
        h.pipeline.shutdown()
        #expect(waitUntil { sink.pipeBytes == 0 })
        sink.stop()
        let played = sink.samples
        // Played in less than the file's length: part of it went by at 1.5.
        let saved = Double(reference.count - played.count) / 2 / 44100
        #expect(saved > 0.5 && saved < 1.2, "\(saved) s saved")
        let tail = 2 * 44100 * 2
        #expect(Array(played.suffix(tail)) == Array(reference.suffix(tail)))
        #expect(Self.largestStep(played) < 2000)
    }
}
