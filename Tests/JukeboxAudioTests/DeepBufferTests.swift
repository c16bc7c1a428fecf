import ALSA
import Foundation
import JukeboxAudio
import JukeboxTestSupport
import LinuxSupport
import Testing

/// A sound card in memory that plays in real time, as a DMA engine does: it grants the deep
/// buffer it is asked for, a write blocks while the buffer is full, and it takes back what
/// it holds (snd_pcm_rewind) unless built with `rewinds: false`. It keeps every sample it
/// played and the time of every write, so that tests see what a listener would hear and
/// how often jb-output woke.
final class SimulatedCard: AudioSink, @unchecked Sendable {
    private let lock = ConditionLock()
    private let rewinds: Bool
    private var rate = 44100
    private var channels = 2
    private var buffer = 0
    /// Frames queued, not played yet (interleaved samples).
    private var queue: [Int16] = []
    private var playedSamples: [Int16] = []
    /// When `queue` was last advanced by the clock.
    private var clockNs: UInt64 = 0
    private var running = false
    private(set) var writeTimes: [UInt64] = []
    private(set) var dropTimes: [UInt64] = []
    /// Frames queued right after each write, and written in all.
    private(set) var queuedAfterWrites: [Int] = []
    private(set) var framesWritten = 0

    init(rewinds: Bool = true) { self.rewinds = rewinds }

    /// Plays what the clock says has been played since the last call.
    private func advance(_ now: UInt64) {
        defer { clockNs = now }
        guard running, now > clockNs else { return }
        let frames = min(queue.count / channels, Int((now - clockNs) * UInt64(rate) / 1_000_000_000))
        guard frames > 0 else { return }
        playedSamples += queue.prefix(frames * channels)
        queue.removeFirst(frames * channels)
        // A whole frame's time is played; the remainder stays on the clock.
        clockNs = now - (now - clockNs) % (1_000_000_000 / UInt64(rate))
        if queue.isEmpty { running = false }
    }

    private func update() { advance(MonotonicClock.nanoseconds()) }

    var played: [Int16] {
        lock.withLock {
            update(); return playedSamples
        }
    }
    var queuedFrames: Int {
        lock.withLock {
            update(); return queue.count / channels
        }
    }

    func open(_ request: PCMRequest) throws(ALSAError) -> SinkGrant {
        lock.withLock {
            rate = Int(request.rate)
            channels = Int(request.channels)
            let ms = max(request.bufferMicroseconds, request.deepBufferMicroseconds)
            buffer = rate * Int(ms) / 1_000_000
            queue = []
            running = false
            return SinkGrant(
                rate: rate, periodFrames: rate * Int(request.periodMicroseconds) / 1_000_000, bufferFrames: buffer,
                swallowsData: false, deep: request.deepBufferMicroseconds > request.bufferMicroseconds)
        }
    }

    func close() {}

    func write(_ samples: UnsafePointer<Int16>, frames: Int) throws(ALSAError) -> Int {
        while true {
            let room = lock.withLock { () -> Int in
                update()
                return buffer - queue.count / channels
            }
            if room >= frames { break }
            MonotonicClock.sleep(nanoseconds: UInt64(frames - room) * 1_000_000_000 / UInt64(rate) + 100_000)
        }
        lock.withLock {
            update()
            writeTimes.append(MonotonicClock.nanoseconds())
            queue += UnsafeBufferPointer(start: samples, count: frames * channels)
            if !running {
                running = true
                clockNs = MonotonicClock.nanoseconds()
            }
            queuedAfterWrites.append(queue.count / channels)
            framesWritten += frames
        }
        return frames
    }

    /// Never called: the card is opened in S16 (the grant's default format).
    func write(wide samples: UnsafePointer<Int32>, frames: Int) throws(ALSAError) -> Int {
        preconditionFailure("SimulatedCard takes S16 only")
    }

    func delay() throws(ALSAError) -> Int { queuedFrames }

    func rewindable() -> Int { rewinds ? queuedFrames : 0 }

    func rewind(_ frames: Int) throws(ALSAError) -> Int {
        lock.withLock {
            update()
            let n = rewinds ? min(frames, queue.count / channels) : 0
            queue.removeLast(n * channels)
            return n
        }
    }

    func drop() throws(ALSAError) {
        lock.withLock {
            update()
            dropTimes.append(MonotonicClock.nanoseconds())
            queue = []
            running = false
        }
    }

    func drain() throws(ALSAError) {
        while queuedFrames > 0 { MonotonicClock.sleep(nanoseconds: 1_000_000) }
    }

    func prepare() throws(ALSAError) {}
    func resume() throws(ALSAError) {}
}

/// A sound card granted `deep_buffer_ms`: jb-output keeps the buffer full and sleeps until it
/// has drained to `buffer_ms` (a few wake-ups a second instead of one per period), and
/// commands still take effect at once, by taking back what the card holds.
@Suite struct DeepBufferTests {
    static let rate = 44100

    /// A pipeline on `card` with a 40 ms buffer and `deepMs` of deep buffer, playing a
    /// constant tone of `seconds` (level 16000).
    static func playing(_ card: SimulatedCard, deepMs: Int, seconds: Int = 4, dir: TemporaryDirectory) -> Harness {
        let path = dir.file("tone.wav")
        writeWAV(path, rate: rate, channels: 2, samples: [Int16](repeating: 16000, count: rate * 2 * seconds))
        let h = Harness(device: "card", sink: card, periodMs: 10, bufferMs: 40, deepBufferMs: deepMs)
        h.pipeline.setVolume(percent: 100, gain: 1.0)
        h.pipeline.play(PlaybackItem(token: 1, path: path), fromMs: 0)
        return h
    }

    /// `playing`, once the first item started and `ms` more passed.
    static func settled(_ card: SimulatedCard, after ms: UInt64 = 800, dir: TemporaryDirectory) -> Harness {
        let h = playing(card, deepMs: 500, dir: dir)
        #expect(h.pump { $0.contains(.started(1)) })
        MonotonicClock.sleep(nanoseconds: ms * 1_000_000)
        return h
    }

    /// Wake-ups of jb-output in `window`: writes that follow a pause of more than 5 ms.
    static func wakeups(_ times: [UInt64], from start: UInt64, to end: UInt64) -> Int {
        let inside = times.filter { $0 >= start && $0 < end }
        return zip(inside, inside.dropFirst()).filter { $1 - $0 > 5_000_000 }.count + (inside.isEmpty ? 0 : 1)
    }

    @Test func aDeepBufferWakesTheOutputAFewTimesASecond() throws {
        let dir = try TemporaryDirectory()
        for (deepMs, range) in [(500, 1...6), (0, 70...110)] {
            let card = SimulatedCard()
            let h = Self.playing(card, deepMs: deepMs, dir: dir)
            #expect(h.pump { $0.contains(.started(1)) })
            let start = MonotonicClock.nanoseconds() + 300_000_000
            MonotonicClock.sleep(nanoseconds: 1_300_000_000)
            let n = Self.wakeups(card.writeTimes, from: start, to: start + 1_000_000_000)
            #expect(range.contains(n), "deep_buffer_ms \(deepMs): \(n) wake-ups in 1 s")
            h.pipeline.shutdown()
        }
    }

    @Test func aPauseIsHeardAtOnceAndResumesWhereItWas() throws {
        let dir = try TemporaryDirectory()
        let card = SimulatedCard()
        let h = Self.settled(card, dir: dir)
        #expect((card.queuedAfterWrites.max() ?? 0) > Self.rate / 4, "the deep buffer is filled")
        // Between the few writes the reported position follows what is heard.
        for _ in 0..<10 {
            let position = Int(h.pipeline.status().positionFrames), heard = card.played.count / 2
            #expect(abs(position - heard) <= Self.rate / 100, "position \(position), heard \(heard)")
            MonotonicClock.sleep(nanoseconds: 37_000_000)
        }
        let before = card.played.count / 2
        let asked = MonotonicClock.nanoseconds()
        h.pipeline.pause()
        #expect(waitUntil(timeout: .seconds(2)) { !card.dropTimes.isEmpty })
        let dropped = card.dropTimes[0]
        let after = card.played.count / 2
        #expect(dropped - asked < 5_000_000, "pause → drop \(Double(dropped - asked) / 1e6) ms")
        #expect(after - before < Self.rate * 5 / 1000, "\(after - before) frames played after the pause")
        // The position is what was heard, and playback continues there.
        let position = h.pipeline.status().positionFrames
        #expect(abs(Int(position) - after) <= Self.rate / 100, "paused at \(position), heard \(after)")
        h.pipeline.resume()
        #expect(waitUntil(timeout: .seconds(2)) { card.played.count / 2 > after + Self.rate / 10 })
        #expect(card.played.allSatisfy { $0 == 16000 }, "nothing lost or repeated in a constant tone")
    }

    @Test func aPauseWhileTheLastItemPlaysOutIsHeardAtOnce() throws {
        let dir = try TemporaryDirectory()
        let card = SimulatedCard()
        // Two seconds and nothing after them: once all is written, the deep buffer plays out.
        let h = Self.playing(card, deepMs: 500, seconds: 2, dir: dir)
        #expect(h.pump { $0.contains(.started(1)) })
        #expect(waitUntil(timeout: .seconds(3)) { card.framesWritten == 2 * Self.rate })
        MonotonicClock.sleep(nanoseconds: 10_000_000)
        #expect(card.queuedFrames > Self.rate / 20, "still playing out")
        let asked = MonotonicClock.nanoseconds()
        h.pipeline.pause()
        #expect(waitUntil(timeout: .seconds(2)) { !card.dropTimes.isEmpty })
        let dropped = card.dropTimes.first ?? .max
        #expect(dropped - asked < 5_000_000, "pause → drop \(Double(dropped) / 1e6 - Double(asked) / 1e6) ms")
    }

    @Test func aVolumeChangeRerendersWhatTheCardHolds() throws {
        let dir = try TemporaryDirectory()
        let card = SimulatedCard()
        let h = Self.settled(card, dir: dir)
        let before = card.played.count / 2
        h.pipeline.setVolume(percent: 50, gain: 0.5)
        MonotonicClock.sleep(nanoseconds: 100_000_000)
        let played = card.played
        // Within 15 ms of the change the new gain is heard (after its 5 ms ramp).
        let heard = (before + Self.rate * 15 / 1000) * 2
        #expect(played.count > heard + 2)
        #expect(played[heard] == 8000, "\(played[heard]) at 15 ms after the change")
    }

    @Test func aCardThatCannotRewindKeepsOnlyTheConfiguredBuffer() throws {
        let dir = try TemporaryDirectory()
        let card = SimulatedCard(rewinds: false)
        let h = Self.settled(card, after: 1500, dir: dir)
        h.pipeline.shutdown()
        let late = card.queuedAfterWrites.suffix(20)
        // buffer_ms (40 ms) and the period written on top of it.
        #expect(late.allSatisfy { $0 <= Self.rate * 55 / 1000 }, "queued after writes: \(Array(late))")
    }

    @Test func theNextItemIsAnnouncedWhenItIsHeard() throws {
        let dir = try TemporaryDirectory()
        let first = dir.file("first.wav"), second = dir.file("second.wav")
        writeWAV(first, rate: Self.rate, channels: 2, samples: [Int16](repeating: 1000, count: Self.rate * 2))
        writeWAV(second, rate: Self.rate, channels: 2, samples: [Int16](repeating: 2000, count: Self.rate * 2))
        let card = SimulatedCard()
        let h = Harness(device: "card", sink: card, periodMs: 10, bufferMs: 40, deepBufferMs: 500)
        h.pipeline.setVolume(percent: 100, gain: 1.0)
        h.pipeline.play(PlaybackItem(token: 1, path: first), fromMs: 0, next: PlaybackItem(token: 2, path: second))
        var playedThen = 0
        #expect(
            h.pump(timeoutSeconds: 5, onEvent: { if $0 == .started(2) { playedThen = card.played.count / 2 } }) {
                $0.contains(.started(2))
            })
        // When it was announced, the card had played (nearly) to the second item's first frame.
        #expect(abs(playedThen - Self.rate) <= Self.rate / 100, "announced after \(playedThen) frames")
        #expect(waitUntil(timeout: .seconds(2)) { card.played.count / 2 > Self.rate + Self.rate / 10 })
        #expect(card.played.firstIndex(of: 2000).map { $0 / 2 } == Self.rate, "the second item follows gaplessly")
    }
}
