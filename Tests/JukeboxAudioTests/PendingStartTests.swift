import ALSA
import Foundation
import JukeboxAudio
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The real sink, but a write can be held: while it is, jb-output sits in that write and
/// the commands the control thread sends wait in the queue, as they do when jb-output is not
/// scheduled (a loaded machine, SCHED_FIFO refused).
final class HeldSink: AudioSink, @unchecked Sendable {
    private var real = ALSASink()
    private let gate = ConditionLock()
    private var holdNext = false
    private var holding = false

    /// Holds the next write until `release()`.
    func hold() { gate.withLock { holdNext = true } }

    /// Waits until jb-output is held in a write (or `timeoutMs`).
    func waitUntilHolding(timeoutMs: UInt64) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + timeoutMs * 1_000_000
        return gate.withLock {
            while !holding {
                let now = MonotonicClock.nanoseconds()
                if now >= deadline { return false }
                _ = gate.wait(nanoseconds: deadline - now)
            }
            return true
        }
    }

    func release() {
        gate.withLock { holdNext = false }
        gate.broadcast()
    }

    func open(_ request: PCMRequest) throws(ALSAError) -> SinkGrant { try real.open(request) }
    func close() { real.close() }

    func write(_ samples: UnsafePointer<Int16>, frames: Int) throws(ALSAError) -> Int {
        waitWhileHeld()
        return try real.write(samples, frames: frames)
    }

    func write(wide samples: UnsafePointer<Int32>, frames: Int) throws(ALSAError) -> Int {
        waitWhileHeld()
        return try real.write(wide: samples, frames: frames)
    }

    /// Waits while `holdNext` is set.
    private func waitWhileHeld() {
        gate.withLock {
            guard holdNext else { return }
            holding = true
            gate.broadcast()
            while holdNext { gate.wait() }
            holding = false
        }
    }

    func delay() throws(ALSAError) -> Int { try real.delay() }
    func rewindable() -> Int { real.rewindable() }
    func rewind(_ frames: Int) throws(ALSAError) -> Int { try real.rewind(frames) }
    func drop() throws(ALSAError) { try real.drop() }
    func drain() throws(ALSAError) { try real.drain() }
    func prepare() throws(ALSAError) { try real.prepare() }
    func resume() throws(ALSAError) { try real.resume() }
}

/// Before jb-output has taken up a `play(fromMs:)`, the status must say where the new item
/// starts, never 0: the control loop takes the position of the current request from it and
/// journals it (a restart after a kill resumed at 0:00 instead of the paused 0:12).
@Suite struct PendingStartTests {
    @Test func aStartNotYetTakenUpReportsItsStartPosition() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.wav")
        writeWAV(path, rate: 44100, channels: 2, samples: [Int16](repeating: 1000, count: 44100 * 2 * 20))
        let sink = HeldSink()
        let h = Harness(device: "null", sink: sink)
        h.pipeline.play(PlaybackItem(token: 1, path: path), fromMs: 0)
        #expect(h.pump { $0.contains(.started(1)) })
        sink.hold()
        #expect(sink.waitUntilHolding(timeoutMs: 5000))

        h.pipeline.play(PlaybackItem(token: 2, path: path), fromMs: 12_000)
        let starting = h.pipeline.status()
        #expect(
            starting.token != 2 || starting.positionMs == 12_000, "\(starting.token ?? 0) at \(starting.positionMs) ms")
        h.pipeline.pause()
        let pausing = h.pipeline.status()
        #expect(pausing.token != 2 || pausing.positionMs == 12_000, "\(pausing.token ?? 0) at \(pausing.positionMs) ms")

        sink.release()
        #expect(waitUntil { h.pipeline.status().token == 2 })
        let settled = h.pipeline.status()
        #expect(settled.state == .paused && settled.positionMs == 12_000, "\(settled.positionMs) ms")
        h.pipeline.shutdown()
    }
}
