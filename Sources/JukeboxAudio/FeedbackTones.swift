import Glibc
import JukeboxCore

/// The feedback sounds (`FeedbackSound`) as samples at the device's rate, one after another,
/// mono (jb-output adds each sample to every channel). The memory is allocated once, when
/// jb-output starts, for the longest rate it renders (`maxRate`); the sounds are rendered
/// there and again only when a device opens at another rate, never per period. jb-output is
/// its only user. Only what a rate renders is written: the rest of the 192 kB (a mapping of
/// its own, malloc's threshold being 128 kB) stays untouched, so not resident: 144 kB less
/// at 44.1 kHz.
struct FeedbackTones: ~Copyable {
    /// Above this rate the sounds are cut short (the buffer holds them at 192 kHz).
    static let maxRate = 192_000
    /// The notes' peak before the level: half of full scale, so that a cue over loud music
    /// clips less.
    static let peak = 0.5 * 32767.0

    let samples: UnsafeMutablePointer<Int16>
    let capacity: Int
    /// Where each sound starts in `samples`, by its raw value; the entry after the last is the end.
    private let bounds: UnsafeMutablePointer<Int>
    private(set) var rate = 0

    init() {
        capacity = FeedbackSound.allCases.reduce(0) { $0 + $1.frames(rate: Self.maxRate) }
        samples = .allocate(capacity: capacity)
        bounds = .allocate(capacity: FeedbackSound.allCases.count + 1)
        bounds.initialize(repeating: 0, count: FeedbackSound.allCases.count + 1)
    }

    deinit {
        samples.deallocate()
        bounds.deallocate()
    }

    /// Renders every sound at `rate` (nothing to do when it already is): sines with a linear
    /// fade of `FeedbackSound.fadeMs` at each end of each note, rests as zeros.
    mutating func render(rate: Int) {
        guard rate != self.rate, rate > 0 else { return }
        self.rate = rate
        var at = 0
        for sound in FeedbackSound.allCases {
            bounds[sound.rawValue] = at
            for note in sound.notes {
                let frames = min(note.ms * rate / 1000, capacity - at)
                let fade = Double(max(1, FeedbackSound.fadeMs * rate / 1000))
                let step = 2 * Double.pi * note.hz / Double(rate)
                for i in 0..<frames {
                    let envelope = min(1, Double(min(i, frames - 1 - i)) / fade)
                    samples[at + i] = note.hz > 0 ? Int16((sin(step * Double(i)) * envelope * Self.peak).rounded()) : 0
                }
                at += frames
            }
        }
        bounds[FeedbackSound.allCases.count] = at
    }

    /// Where `sound` is in `samples`.
    func range(_ sound: FeedbackSound) -> Range<Int> { bounds[sound.rawValue]..<bounds[sound.rawValue + 1] }
}
