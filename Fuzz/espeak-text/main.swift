import CESpeak
import JukeboxCore

// A text spoken by libespeak-ng as `say` hands it over (Speech's SpeechSynthesizer): the
// refusal passed (`Announcements.refusal`), then `Announcements.speakable`; synchronous mode,
// plain UTF-8 (espeakCHARS_UTF8, no SSML, no phoneme input), the samples collected up to the
// daemon's limit. Any MPD client or console can send the text, so a crash here would be the
// daemon's. The first byte picks the voice and the rate; the rest is the text (repaired
// UTF-8, as the daemon's line readers give it). libespeak-ng is Debian's, not built with
// coverage or ASan: a crash or a hang is a finding, an overrun inside it only where ASan
// intercepts (memcpy, memcmp...).

let voices = ["en", "de", "fr", "es", "it", "nl", "cmn", "ru"]
/// SpeechSynthesizer.maxSeconds at espeak's rate.
let sampleLimit = 60 * 22050
nonisolated(unsafe) var voice = -1
nonisolated(unsafe) var collected = 0

let initialized: Bool = {
    guard espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, nil, 0) > 0 else {
        fatalError("espeak-ng could not start (espeak-ng-data missing?)")
    }
    espeak_SetSynthCallback { wav, count, _ in
        guard wav != nil, count > 0 else { return 0 }
        collected += Int(count)
        return collected >= sampleLimit ? 1 : 0
    }
    return true
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first, initialized else { return 0 }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    // Not a text `say` would take: not kept.
    guard Announcements.refusal(of: text) == nil else { return -1 }
    let spoken = Announcements.speakable(text)
    guard !spoken.allSatisfy(\.isWhitespace) else { return -1 }
    let chosen = Int(first & 7)
    if chosen != voice {
        guard espeak_SetVoiceByName(voices[chosen]) == EE_OK else { fatalError("no voice \(voices[chosen])") }
        voice = chosen
    }
    _ = espeak_SetParameter(espeakRATE, 80 + Int32(first >> 3) * 12, 0)  // 80 to 452 words a minute
    collected = 0
    _ = spoken.withCString { chars in
        espeak_Synth(chars, spoken.utf8.count + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
    }
    return 0
}
