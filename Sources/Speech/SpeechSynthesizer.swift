import CESpeak
import CLazyLibraries

/// Why speech cannot be made: the library is missing, the voice unknown, or espeak-ng failed.
public struct SpeechError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// espeak-ng (libespeak-ng1, opened on first use: see CLazyLibraries) in its synchronous
/// mode: text in, mono S16 samples at espeak's own rate (22050 Hz) out, through its synth
/// callback into a buffer. espeak-ng keeps its state per process and is not thread-safe: one
/// synthesizer, used by one thread (the daemon's jb-speech).
public final class SpeechSynthesizer {
    /// espeak's output rate.
    public let sampleRate: Int
    /// The longest speech kept: a text that would be longer is cut here.
    public let maxSeconds: Int

    /// Loads libespeak-ng and its data (once per process), then sets `voice` (espeak-ng's
    /// names: "en", "de", "fr", "en-us"…) and `wordsPerMinute` (80 to 450).
    /// The corresponding C functions are espeak_Initialize, espeak_SetVoiceByName and espeak_SetParameter.
    public init(voice: String, wordsPerMinute: Int, maxSeconds: Int = 60) throws(SpeechError) {
        let rate = try espeakRate.get()
        if espeak_SetVoiceByName(voice) != EE_OK {
            throw SpeechError("espeak-ng has no voice \"\(voice)\" (espeak-ng --voices lists them)")
        }
        _ = espeak_SetParameter(espeakRATE, Int32(min(max(wordsPerMinute, 80), 450)), 0)
        sampleRate = rate
        self.maxSeconds = maxSeconds
    }

    /// Why speech cannot be made on this machine (libespeak-ng1 missing), else nil. Opens the
    /// library (once; any thread), without reading espeak-ng's data.
    public static var libraryMissing: SpeechError? {
        jb_lazy_load(Int32(JB_LIB_ESPEAK)).map { SpeechError(missingText(String(cString: $0))) }
    }

    static func missingText(_ loader: String) -> String { "speech needs libespeak-ng1 (\(loader))" }

    /// The samples of `text` spoken (UTF-8, plain text), mono at `sampleRate`. The
    /// corresponding C function is espeak_Synth.
    public func synthesize(_ text: String) throws(SpeechError) -> [Int16] {
        let collected = Collected(limit: maxSeconds * sampleRate)
        let context = Unmanaged.passRetained(collected)
        defer { context.release() }
        let status = text.withCString { chars in
            espeak_Synth(
                chars, text.utf8.count + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil,
                context.toOpaque())
        }
        guard status == EE_OK else {
            throw SpeechError("espeak-ng could not speak the text (error \(status.rawValue))")
        }
        return collected.samples
    }
}

/// The samples espeak hands to the callback, for one `espeak_Synth`.
private final class Collected {
    var samples: [Int16] = []
    let limit: Int

    init(limit: Int) { self.limit = limit }
}

/// espeak-ng's synth callback: appends each buffer; 1 (stop) once the limit is reached.
private let collect:
    @convention(c) (UnsafeMutablePointer<Int16>?, Int32, UnsafeMutablePointer<espeak_EVENT>?) ->
        Int32 = { wav, count, events in
            guard let events, let context = events.pointee.user_data else { return 0 }
            let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
            guard let wav, count > 0 else { return 0 }
            let room = collected.limit - collected.samples.count
            collected.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: min(Int(count), max(room, 0))))
            return room > Int(count) ? 0 : 1
        }

/// libespeak-ng loaded and initialised, once per process: its output rate, or why not.
private let espeakRate: Result<Int, SpeechError> = {
    if let failure = jb_lazy_load(Int32(JB_LIB_ESPEAK)) {
        return .failure(SpeechError(SpeechSynthesizer.missingText(String(cString: failure))))
    }
    // 200 ms buffers; the data from its default place (Debian's espeak-ng-data).
    let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, nil, 0)
    guard rate > 0 else {
        return .failure(SpeechError("espeak-ng could not start (is espeak-ng-data installed?)"))
    }
    espeak_SetSynthCallback(collect)
    return .success(Int(rate))
}()
