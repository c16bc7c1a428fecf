import JukeboxCore
import Synchronization

/// What jb-output played, handed to a slower thread (the Snapcast writer) without a lock and
/// without ever making jb-output wait: a single-producer, single-consumer ring of slots, each
/// up to `slotFrames` stereo S16 frames at the rate they played at. jb-output publishes a
/// frame once it can no longer be rewound (it has played, or was drained), so a listener gets
/// exactly what the box's own device played. When the consumer falls behind and the ring is
/// full, jb-output drops the frames and counts them: it never blocks, allocates or locks here.
public final class PlayedAudioRing: @unchecked Sendable {
    public static let slotFrames = 1024
    public let slotCount: Int
    /// `slotCount` slots of `slotFrames * 2` samples; a slot belongs to the producer until
    /// `committed` passes it, then to the consumer until `consumed` passes it.
    private let samples: UnsafeMutablePointer<Int16>
    private let frames: UnsafeMutablePointer<Int>
    private let rates: UnsafeMutablePointer<Int>
    private let committed = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let enabled: Atomic<Bool>

    /// `slotCount` slots: 128 hold at least 1.3 s of 10 ms periods.
    public init(slotCount: Int = 128, enabled: Bool = true) {
        self.slotCount = slotCount
        samples = .allocate(capacity: slotCount * Self.slotFrames * 2)
        samples.initialize(repeating: 0, count: slotCount * Self.slotFrames * 2)
        frames = .allocate(capacity: slotCount)
        frames.initialize(repeating: 0, count: slotCount)
        rates = .allocate(capacity: slotCount)
        rates.initialize(repeating: 0, count: slotCount)
        self.enabled = Atomic(enabled)
    }

    deinit {
        samples.deallocate()
        frames.deallocate()
        rates.deallocate()
    }

    /// Whether jb-output publishes (the MPD output switch); off, the frames are not copied.
    public var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// Frames dropped so far because the ring was full.
    public var droppedFrames: Int { dropped.load(ordering: .relaxed) }

    /// Producer (jb-output): copies `count` frames of `channels` (1 or 2) at `rate`, times
    /// `gain` (rounded to 16 bits with `dither`), as stereo. Drops what does not fit.
    func publish(
        _ source: UnsafePointer<Int16>, count: Int, channels: Int, rate: Int, gain: Float, dither: inout TPDFDither
    ) {
        publishSlots(count: count, rate: rate) { target, done, n in
            let from = source + done * channels
            for i in 0..<n {
                target[2 * i] = from[i * channels]
                target[2 * i + 1] = from[i * channels + channels - 1]
            }
            if gain != 1 { dither.scale(target, count: 2 * n, by: Double(gain)) }
        }
    }

    /// As `publish`, from 32-bit samples (the value in the top bits), narrowed with `dither`
    /// where they have bits below 16.
    func publish(
        wide source: UnsafePointer<Int32>, count: Int, channels: Int, rate: Int, gain: Float,
        dither: inout TPDFDither
    ) {
        let factor = Double(gain)
        publishSlots(count: count, rate: rate) { target, done, n in
            let from = source + done * channels
            for i in 0..<n {
                for side in 0..<2 {
                    let v = from[i * channels + side * (channels - 1)]
                    let scaled = gain == 1 ? v : Int32(clamping: Int64((Double(v) * factor).rounded()))
                    // A 16-bit source widened has nothing below 16 bits: exact, no noise added.
                    target[2 * i + side] = scaled & 0xFFFF == 0 ? Int16(scaled >> 16) : dither.narrow(scaled)
                }
            }
        }
    }

    /// Fills and commits slots for `count` frames at `rate`: `fill(target, done, n)` writes
    /// frames `done..<done + n` as stereo into a slot. Drops what does not fit.
    private func publishSlots(count: Int, rate: Int, _ fill: (UnsafeMutablePointer<Int16>, Int, Int) -> Void) {
        guard isEnabled else { return }
        var done = 0
        var slot = committed.load(ordering: .relaxed)
        while done < count {
            guard slot - consumed.load(ordering: .acquiring) < slotCount else {
                dropped.add(count - done, ordering: .relaxed)
                return
            }
            let index = slot % slotCount
            let n = min(Self.slotFrames, count - done)
            fill(samples + index * Self.slotFrames * 2, done, n)
            frames[index] = n
            rates[index] = rate
            slot += 1
            committed.store(slot, ordering: .releasing)
            done += n
        }
    }

    /// Consumer: hands each published slot (stereo samples, frames, rate) to `body`, oldest
    /// first, and releases it. Returns the frames handed over.
    @discardableResult
    public func consume(_ body: (UnsafePointer<Int16>, Int, Int) -> Void) -> Int {
        var slot = consumed.load(ordering: .relaxed)
        let end = committed.load(ordering: .acquiring)
        var total = 0
        while slot < end {
            let index = slot % slotCount
            body(samples + index * Self.slotFrames * 2, frames[index], rates[index])
            total += frames[index]
            slot += 1
            consumed.store(slot, ordering: .releasing)
        }
        return total
    }
}
