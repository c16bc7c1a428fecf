import JukeboxAudio
import JukeboxCore
import LinuxSupport
import Speech

/// Makes speech on the `jb-speech` thread, one text at a time (the core's `Announcements`
/// asks for the next only when the last is done), and hands the clip to the control loop
/// through the WakeupEvent: espeak-ng takes tens of milliseconds a sentence on a desktop, more
/// on a Pi, which neither the control loop nor the audio thread may wait for.
final class SpeechRunner: @unchecked Sendable {
    struct Made {
        var clip: Result<SpeechClip, any Error>
        /// How long making it took (the log's figure).
        var elapsedMs: Int
    }

    private let voice: String
    private let wordsPerMinute: Int
    private let wakeup: WakeupEvent
    /// Protects `thread` and `made`.
    private let lock = ConditionLock()
    private var thread: NamedThread?
    private var made: Made?
    /// Used by the one jb-speech thread running (they run one after another).
    private var synthesizer: Result<SpeechSynthesizer, SpeechError>?

    init(voice: String, wordsPerMinute: Int, wakeup: WakeupEvent) {
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
        self.wakeup = wakeup
    }

    /// Why speech cannot be made on this box (libespeak-ng1 is missing), else nil. Opens the
    /// library the first time (a dlopen); espeak-ng's data is read on jb-speech.
    static var missing: String? { SpeechSynthesizer.libraryMissing?.message }

    /// Makes `text`'s speech at `rate` with `rampMs` of silence around it.
    func start(_ text: String, rate: Int, rampMs: Int) {
        lock.lock()
        defer { lock.unlock() }
        thread?.join()
        thread = NamedThread(name: "jb-speech") { [self] in
            let started = MonotonicClock.nanoseconds()
            let clip = Result { () throws -> SpeechClip in
                if synthesizer == nil {
                    synthesizer = Result { () throws(SpeechError) in
                        try SpeechSynthesizer(voice: voice, wordsPerMinute: wordsPerMinute)
                    }
                }
                return try SpeechClip.speaking(text, with: try synthesizer!.get(), rate: rate, rampMs: rampMs)
            }
            let elapsedMs = Int((MonotonicClock.nanoseconds() - started) / 1_000_000)
            lock.withLock { made = Made(clip: clip, elapsedMs: elapsedMs) }
            wakeup.signal()
        }
    }

    /// The speech made, once.
    func take() -> Made? {
        lock.withLock {
            defer { made = nil }
            return made
        }
    }

    /// At shutdown: waits for the speech being made (a sentence: milliseconds).
    func stop() {
        lock.withLock {
            thread?.join()
            thread = nil
        }
    }
}
