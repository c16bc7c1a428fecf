import JukeboxAudio
import JukeboxCore
import LinuxSupport
import Logging
import Speech

/// Makes speech on the `jb-speech` thread, one text at a time (the core's `Announcements`
/// asks for the next only when the last is done), and hands the clip to the control loop
/// through the WakeupEvent: espeak-ng takes tens of milliseconds a sentence on a desktop, more
/// on a Pi, which neither the control loop nor the audio thread may wait for. espeak-ng itself
/// runs in the speech helper process (`SpeechHelperProcess`): this process never loads it.
final class SpeechRunner: @unchecked Sendable {
    struct Made {
        var clip: Result<SpeechClip, any Error>
        /// How long making it took (the log's figure).
        var elapsedMs: Int
    }

    /// The longest speech made (a longer text is cut).
    static let maxSeconds = 60

    private let voice: String
    private let wordsPerMinute: Int
    private let wakeup: WakeupEvent
    /// Protects `thread`, `made` and `unavailableReason`.
    private let lock = ConditionLock()
    private var thread: NamedThread?
    private var made: Made?
    private var unavailableReason: String?
    /// Used by the one jb-speech thread running (they run one after another), and by `stop`
    /// once the last was joined.
    private let helper: SpeechHelperProcess

    init(voice: String, wordsPerMinute: Int, wakeup: WakeupEvent, logger: Logger) {
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
        self.wakeup = wakeup
        helper = SpeechHelperProcess(logger: logger)
    }

    /// Why speech cannot be made on this box (libespeak-ng1 is missing), else nil. Known from
    /// the helper's first answer: this process does not load espeak-ng, not even to look.
    var unavailable: String? { lock.withLock { unavailableReason } }

    /// Makes `text`'s speech at `rate` with `rampMs` of silence around it.
    func start(_ text: String, rate: Int, rampMs: Int) {
        lock.lock()
        defer { lock.unlock() }
        thread?.join()
        thread = NamedThread(name: "jb-speech") { [self] in
            let started = MonotonicClock.nanoseconds()
            let clip = Result { () throws -> SpeechClip in
                let request = SpeechHelperFrames.Request(
                    voice: voice, wordsPerMinute: wordsPerMinute, maxSeconds: Self.maxSeconds, text: text)
                let reply = try helper.speak(request)
                switch reply {
                case .spoken(let samples, let sampleRate):
                    return try SpeechClip.speaking(samples, at: sampleRate, rate: rate, rampMs: rampMs)
                case .failed(let message):
                    throw SpeechError(message)
                case .unavailable(let message):
                    lock.withLock { unavailableReason = message }
                    throw SpeechError(message)
                }
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

    /// At shutdown: waits for the speech being made (a sentence: milliseconds), then ends the
    /// helper.
    func stop() {
        lock.withLock {
            thread?.join()
            thread = nil
        }
        helper.stop()
    }
}
