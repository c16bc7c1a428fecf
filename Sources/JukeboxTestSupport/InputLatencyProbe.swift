import Foundation
import Glibc
import JukeboxCore
import LinuxSupport

/// Measures how long an input edge takes to change the audio, through the real daemon:
/// `jukeboxd --input-replay-fifo` takes the edges (as GPIO lines would give them, with
/// kernel-style timestamps and contact bounce), its audio goes to a `PacedFifoSink` (a
/// virtual DAC). Used by a test and by `jukebox-bench --only input`.
///
/// The DAC takes one period per period time, as a sound card written a period at a time:
/// it plays 88.2 kHz stereo S16 (352,800 B/s), so a 10 ms period (3,528 B) fills the FIFO's
/// one 4 KiB page and the next is taken only when that one has played. (At 44.1 kHz two
/// periods fit the page and the DAC took them two at a time, 20 ms apart: a press confirmed
/// in the debounce window after the page emptied let two periods through, 26 ms p95.)
///
/// The figure is the one `LatencyTests` uses for console commands: just before the edge,
/// note the bytes the DAC has received (B0) and what its pipe holds (P); the latency is the
/// audio that still arrived unchanged after those, (first changed byte − B0 − P) / byte rate.
/// The DAC's own FIFO is not the player's latency; ALSA's buffer and period are.
public enum InputLatencyProbe {
    /// Milliseconds from the edge to the first changed audio, per sample.
    public struct Result: Sendable {
        /// Encoder detent → the first sample at the new volume.
        public var volumeMs: [Double] = []
        /// Push-switch press (short-only: acts on the press edge) → the last sample played.
        public var pauseMs: [Double] = []
        /// The daemon's log, for failures.
        public var log: String = ""
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The DAC's rate (see above): the daemon plays the file at it, as a card that takes it.
    public static let dacRate = 88_200
    public static let level: Int16 = 16000

    /// Runs `volumeSamples` knob clicks (alternately down and up) and `pauseSamples`
    /// pause/resume presses against `jukeboxd` (a binary path), in `directory`.
    public static func run(
        jukeboxd: String, directory: String, volumeSamples: Int, pauseSamples: Int, periodMs: Int = 10,
        bufferMs: Int = 40, rate: Int = dacRate
    ) throws -> Result {
        let byteRate = Double(rate * 4)
        let music = directory + "/music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try writeFlatWAV(path: music + "/flat.wav", seconds: 60, rate: rate)
        let sink = try PacedFifoSink(bytesPerSecond: Int(byteRate), pipeSize: 4096)
        defer { sink.stop() }
        let fifo = directory + "/edges.fifo"
        unlink(fifo)
        try FileSystem.makeFIFO(fifo)
        let config = directory + "/jukebox.toml"
        try DaemonConfig(
            musicDir: "music", device: sink.alsaDevice, pacing: "device", periodMs: periodMs, bufferMs: bufferMs,
            onStart: "play", console: "none",
            extra: """

                [buttons]
                chip = "none-jukebox-probe"

                [encoder]
                chip = "none-jukebox-probe"
                a = 5
                b = 6
                switch = 13
                # A short-only switch acts on the press edge, which is what is measured; the
                # default's switch_long = "menu" and scrub_button = "switch" (hold and turn)
                # make it act on the release.
                switch_long = "none"
                scrub_button = "none"
                """
        ).write(to: config)
        let process = try DaemonProcess(
            executable: jukeboxd, arguments: ["--config", config, "--log-level", "info", "--input-replay-fifo", fifo])
        defer {
            _ = process.kill(SIGTERM)
            if process.waitForExit(timeout: .seconds(3)) == nil {
                _ = process.kill(SIGKILL)
                _ = process.waitForExit(timeout: .seconds(3))
            }
        }
        var result = Result()
        guard process.waitForLine(matching: "replaying edges", on: .stderr, timeout: .seconds(10)) != nil,
            sink.waitForBytes(Int(byteRate) / 2, timeoutSeconds: 20)
        else {
            throw Failure(description: "jukeboxd did not start playing:\n\(process.text(of: .stderr))")
        }
        let writer = try FileDescriptor(path: fifo, flags: O_WRONLY | O_NONBLOCK)
        var random = SplitMix64(seed: 7)  // reproducible bounce
        func edge(_ line: Int, _ level: Int) {
            let start = Double(MonotonicClock.nanoseconds()) / 1e9
            var text = String(format: "%.9f %d %d\n", start, line, level)
            // Contact bounce: an even number of extra toggles within 0.1–2 ms, ending on `level`.
            let burst = 0.0001 + Double(random.next() % 1900) / 1e6
            let toggles = 2 * Int(1 + random.next() % 3)
            var current = level
            for index in 1...toggles {
                current ^= 1
                text += String(format: "%.9f %d %d\n", start + burst * Double(index) / Double(toggles), line, current)
            }
            try? writer.writeAll(Array(text.utf8))
        }

        // The knob: one detent = four transitions of A (5) and B (6), both high at rest.
        let down = [(1, 0), (0, 0), (0, 1), (1, 1)]
        let up = [(0, 1), (0, 0), (1, 0), (1, 1)]
        var state = (1, 1)
        for sample in 0..<volumeSamples {
            let steps = sample % 2 == 0 ? down : up
            MonotonicClock.sleep(nanoseconds: 150_000_000)  // the hand's pace (these sleeps synchronise nothing)
            let before = sink.byteCount
            let previous = sampleValue(sink.bytes, at: before - 4)
            var mark = (b0: 0, pipe: 0)
            for (index, next) in steps.enumerated() {
                if index == steps.count - 1 { mark = (sink.byteCount, sink.pipeBytes) }
                if next.0 != state.0 { edge(5, next.0) }
                if next.1 != state.1 { edge(6, next.1) }
                state = next
                // The knob turns at this pace.
                if index < steps.count - 1 { MonotonicClock.sleep(nanoseconds: 6_000_000) }
            }
            guard sink.waitForBytes(mark.b0 + Int(byteRate) / 5, timeoutSeconds: 3) else {
                throw Failure(description: "the audio stopped after a knob click:\n\(process.text(of: .stderr))")
            }
            let bytes = sink.bytes
            var offset = mark.b0 & ~3
            while offset + 4 <= bytes.count, abs(Int(sampleValue(bytes, at: offset)) - Int(previous)) <= 2 {
                offset += 4
            }
            guard offset + 4 <= bytes.count else {
                throw Failure(
                    description: "no volume change after knob click \(sample + 1):\n\(process.text(of: .stderr))")
            }
            result.volumeMs.append(Double(offset - mark.b0 - mark.pipe) / byteRate * 1000)
        }

        // The encoder's push switch (short-only here): toggle on the press edge.
        for _ in 0..<pauseSamples {
            // The hand's pace, and a random part of a period more, so that presses fall at
            // every phase of the output's periods (the resume before set that phase).
            MonotonicClock.sleep(nanoseconds: 200_000_000 + random.next() % UInt64(periodMs * 1_000_000))
            let mark = (b0: sink.byteCount, pipe: sink.pipeBytes)
            edge(13, 0)
            MonotonicClock.sleep(nanoseconds: 250_000_000)  // the window in which what still arrives counts
            let stopped = sink.byteCount
            MonotonicClock.sleep(nanoseconds: 50_000_000)  // and one in which nothing may arrive
            guard sink.byteCount == stopped else {
                throw Failure(description: "the audio did not pause:\n\(process.text(of: .stderr))")
            }
            result.pauseMs.append(Double(stopped - mark.b0 - mark.pipe) / byteRate * 1000)
            edge(13, 1)
            MonotonicClock.sleep(nanoseconds: 50_000_000)  // the hand's pace
            edge(13, 0)
            guard sink.waitForBytes(stopped + Int(byteRate) / 10, timeoutSeconds: 3) else {
                throw Failure(description: "the audio did not resume:\n\(process.text(of: .stderr))")
            }
            edge(13, 1)
        }
        result.log = process.text(of: .stderr)
        return result
    }

    /// The left sample of the frame at byte `offset` (S16LE).
    static func sampleValue(_ bytes: [UInt8], at offset: Int) -> Int16 {
        guard offset >= 0, offset + 1 < bytes.count else { return level }
        return Int16(bitPattern: UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8)
    }

    /// A constant stereo S16 WAV, 44.1 kHz unless told (by default a level where any volume
    /// change shows).
    public static func writeFlatWAV(path: String, seconds: Int, level: Int16 = level, rate: Int = 44_100) throws {
        try writeStereoWAV(path: path, rate: rate, frames: rate * seconds) { _ in (level, level) }
    }

    /// A stereo S16LE WAV of `frames` frames, each made by `frame` from its index.
    public static func writeStereoWAV(
        path: String, rate: Int, frames: Int, frame: (Int) -> (left: Int16, right: Int16)
    ) throws {
        var data = [UInt8]()
        data.reserveCapacity(44 + frames * 4)
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data += $0 } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data += $0 } }
        data += Array("RIFF".utf8)
        u32(UInt32(36 + frames * 4))
        data += Array("WAVEfmt ".utf8)
        u32(16)
        u16(1)
        u16(2)
        u32(UInt32(rate))
        u32(UInt32(rate * 4))
        u16(4)
        u16(16)
        data += Array("data".utf8)
        u32(UInt32(frames * 4))
        for index in 0..<frames {
            let (left, right) = frame(index)
            u16(UInt16(bitPattern: left))
            u16(UInt16(bitPattern: right))
        }
        try Data(data).write(to: URL(fileURLWithPath: path))
    }

    /// The p-th percentile (0...100) by the nearest-rank method.
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
