import Foundation
import JukeboxAudio
import LinuxSupport
import Testing

/// Collects pipeline events; the pipeline's `wakeup` closure pokes it.
final class EventCollector: @unchecked Sendable {
    private let lock = ConditionLock()
    private var pokes = 0

    func poke() {
        lock.withLock { pokes += 1 }
        lock.broadcast()
    }

    /// Waits for a wakeup (or `timeoutMs`).
    func waitForPoke(timeoutMs: UInt64) {
        lock.withLock {
            if pokes == 0 { lock.wait(nanoseconds: timeoutMs * 1_000_000) }
            pokes = 0
        }
    }
}

/// A pipeline plus its event log, for tests.
final class Harness {
    let pipeline: AudioPipeline
    let collector: EventCollector
    var events: [PipelineEvent] = []

    init(device: String, periodMs: Int = 10, bufferMs: Int = 40, pacing: OutputPacing = .device) {
        let collector = EventCollector()
        self.collector = collector
        pipeline = AudioPipeline(
            config: AudioOutputConfig(device: device, periodMs: periodMs, bufferMs: bufferMs, pacing: pacing),
            wakeup: { collector.poke() })
    }

    /// A pipeline writing to `sink` (opened on `device`).
    init<Sink: AudioSink>(device: String, sink: Sink, periodMs: Int = 10, bufferMs: Int = 40) {
        let collector = EventCollector()
        self.collector = collector
        pipeline = AudioPipeline(
            config: AudioOutputConfig(device: device, periodMs: periodMs, bufferMs: bufferMs), sink: sink,
            wakeup: { collector.poke() })
    }

    deinit { pipeline.shutdown() }

    /// Pumps events until `predicate` holds for the log, calling `onEvent` for each new event.
    @discardableResult
    func pump(
        timeoutSeconds: Double = 10, onEvent: (PipelineEvent) -> Void = { _ in },
        until predicate: ([PipelineEvent]) -> Bool
    ) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(timeoutSeconds * 1e9)
        while MonotonicClock.nanoseconds() < deadline {
            for e in pipeline.takeEvents() {
                events.append(e)
                onEvent(e)
            }
            if predicate(events) { return true }
            collector.waitForPoke(timeoutMs: 5)
        }
        return predicate(events)
    }

    func waitForEnd(timeoutSeconds: Double = 10) -> Bool {
        pump(timeoutSeconds: timeoutSeconds) { $0.contains(.endOfStream) }
    }
}

/// Writes a 16-bit PCM WAV file (interleaved samples).
func writeWAV(_ path: String, rate: Int, channels: Int, samples: [Int16]) {
    var d = Data()
    func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
    func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
    d.append(contentsOf: Array("RIFF".utf8))
    u32(36 + samples.count * 2)
    d.append(contentsOf: Array("WAVEfmt ".utf8))
    u32(16)
    u16(1)
    u16(channels)
    u32(rate)
    u32(rate * channels * 2)
    u16(channels * 2)
    u16(16)
    d.append(contentsOf: Array("data".utf8))
    u32(samples.count * 2)
    samples.withUnsafeBytes { d.append(contentsOf: $0) }
    _ = FileManager.default.createFile(atPath: path, contents: d)
}
