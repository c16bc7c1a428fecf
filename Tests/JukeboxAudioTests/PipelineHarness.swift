import ALSA
import Foundation
import JukeboxAudio
import JukeboxTestSupport
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
    init<Sink: AudioSink>(
        device: String, sink: Sink, periodMs: Int = 10, bufferMs: Int = 40, deepBufferMs: Int = 0,
        pacing: OutputPacing = .auto
    ) {
        let collector = EventCollector()
        self.collector = collector
        pipeline = AudioPipeline(
            config: AudioOutputConfig(
                device: device, periodMs: periodMs, bufferMs: bufferMs, deepBufferMs: deepBufferMs, pacing: pacing),
            sink: sink,
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

/// What a paced virtual DAC got from a queue played to its end.
struct QueuePlayback {
    var ended: Bool
    var events: [PipelineEvent]
    var samples: [Int16]
    /// Where the PCM was (re)opened in the sample stream: [0] when it stayed open throughout.
    var segmentOffsets: [Int]

    /// The events of every part started and finished in order, then the end of the queue.
    static func expectedEvents(parts: Int) -> [PipelineEvent] {
        (1...UInt64(parts)).flatMap { [PipelineEvent.started($0), .finished($0)] } + [PipelineEvent.endOfStream]
    }
}

/// Plays `parts` as a queue on a paced virtual DAC (stereo S16 at `rate`) at 8x real time:
/// each part's successor is set when the part before it starts, as the daemon does. The pace
/// matters: the part playing is the daemon's time to set the next one (an unpaced device can
/// play a part out before its `.started` is even seen). `restrict` narrows what the DAC
/// takes (`RestrictedSink`, e.g. only 48 kHz).
func playAsQueue(
    _ parts: [String], rate: Int, expectedFrames: Int, restrict: (@Sendable (inout PCMRequest) -> Void)? = nil
) throws -> QueuePlayback {
    let sink = try PacedFifoSink(bytesPerSecond: rate * 4, speed: 8)
    let h =
        restrict.map { Harness(device: sink.alsaDevice, sink: RestrictedSink($0), periodMs: 10, bufferMs: 40) }
        ?? Harness(device: sink.alsaDevice, periodMs: 10, bufferMs: 40)
    h.pipeline.setVolume(percent: 100, gain: 1.0)
    h.pipeline.play(PlaybackItem(token: 1, path: parts[0]), fromMs: 0, next: PlaybackItem(token: 2, path: parts[1]))
    let ended = h.pump(
        timeoutSeconds: 10,
        onEvent: { event in
            if case .started(let token) = event, token >= 2, Int(token) < parts.count {
                h.pipeline.setNext(PlaybackItem(token: token + 1, path: parts[Int(token)]))
            }
        },
        until: { $0.contains(.endOfStream) })
    sink.waitForBytes(expectedFrames * 4, timeoutSeconds: 3)
    h.pipeline.shutdown()
    sink.stop()
    return QueuePlayback(ended: ended, events: h.events, samples: sink.samples, segmentOffsets: sink.segmentOffsets)
}

/// Writes a 16-bit PCM WAV file (interleaved samples).
func writeWAV(_ path: String, rate: Int, channels: Int, samples: [Int16]) {
    writeWAV(path, rate: rate, channels: channels, bits: 16, data: samples.withUnsafeBytes { Array($0) })
}

/// Writes a 24-bit PCM WAV file (interleaved samples, the low 24 bits of each).
func writeWAV(_ path: String, rate: Int, channels: Int, samples24: [Int32]) {
    let data = samples24.flatMap { s in (0..<3).map { UInt8(truncatingIfNeeded: s >> (8 * $0)) } }
    writeWAV(path, rate: rate, channels: channels, bits: 24, data: data)
}

private func writeWAV(_ path: String, rate: Int, channels: Int, bits: Int, data samples: [UInt8]) {
    var d = Data()
    func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
    func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
    d.append(contentsOf: Array("RIFF".utf8))
    u32(36 + samples.count)
    d.append(contentsOf: Array("WAVEfmt ".utf8))
    u32(16)
    u16(1)
    u16(channels)
    u32(rate)
    u32(rate * channels * bits / 8)
    u16(channels * bits / 8)
    u16(bits)
    d.append(contentsOf: Array("data".utf8))
    u32(samples.count)
    d.append(contentsOf: samples)
    _ = FileManager.default.createFile(atPath: path, contents: d)
}

/// A DAC that takes only some parameters (a fixed rate, as a USB or I2S device at 48 kHz; only
/// S32_LE, as some I2S DACs): the real ALSA PCM opened with the request narrowed by
/// `restrict`, and the grant says what it took. alsa-lib's user-space plugins refuse nothing
/// without a sound card: `null` and `file` take any rate and format, `rate`, `plug` and
/// `linear` convert.
struct RestrictedSink: AudioSink {
    let restrict: @Sendable (inout PCMRequest) -> Void
    private var real = ALSASink()

    init(_ restrict: @escaping @Sendable (inout PCMRequest) -> Void) { self.restrict = restrict }

    mutating func open(_ request: PCMRequest) throws(ALSAError) -> SinkGrant {
        var restricted = request
        restrict(&restricted)
        return try real.open(restricted)
    }

    mutating func close() { real.close() }
    mutating func write(_ samples: UnsafePointer<Int16>, frames: Int) throws(ALSAError) -> Int {
        try real.write(samples, frames: frames)
    }
    mutating func write(wide samples: UnsafePointer<Int32>, frames: Int) throws(ALSAError) -> Int {
        try real.write(wide: samples, frames: frames)
    }
    mutating func delay() throws(ALSAError) -> Int { try real.delay() }
    mutating func rewindable() -> Int { real.rewindable() }
    mutating func rewind(_ frames: Int) throws(ALSAError) -> Int { try real.rewind(frames) }
    mutating func drop() throws(ALSAError) { try real.drop() }
    mutating func drain() throws(ALSAError) { try real.drain() }
    mutating func prepare() throws(ALSAError) { try real.prepare() }
    mutating func resume() throws(ALSAError) { try real.resume() }
}
