import JukeboxAudio
import JukeboxCore
import LinuxSupport

// Spoken announcements (control thread). Which text is spoken when is the core's
// `Announcements`; jb-speech makes the speech (`SpeechRunner`, espeak-ng in the speech helper
// process), and the pipeline mixes it over the music, which ducks under the voice and comes
// back (`AudioPipeline.speak`).

extension Daemon {
    /// Silence around the voice, over which the music ducks and comes back.
    static let speechRampMs = 150

    /// `say TEXT` from any front end: nil when taken (spoken now or after what waits), else why not.
    func say(_ text: String) -> String? {
        if let unavailable = speech.unavailable { return unavailable }
        switch announcements.say(text) {
        case .success(let actions):
            performSpeech(actions)
            return nil
        case .failure(let error):
            return error.message
        }
    }

    /// Says `event`'s words when `[speech] events` is on, speech is not turned off and can be
    /// made; false when it is not spoken (its feedback sound is then played instead).
    func announce(_ event: Announcements.Event) -> Bool {
        guard config.speech.enabled, config.speech.events, speech.unavailable == nil else { return false }
        performSpeech(announcements.announce(event))
        return true
    }

    /// `say_address` (a gesture): the box's addresses and the web page's port, aloud and on
    /// the console. Asked for, so spoken whether `[speech] events` is on or not.
    func sayAddress() {
        let addresses = NetworkAddresses.current().map(\.address)
        let event = Announcements.Event.address(
            addresses, webPort: Announcements.webPort(address: config.web.address, port: config.web.port))
        logger.info("speech: the address: \(event.text) (of \(addresses.joined(separator: ", ")))")
        console?.announce(event.text)
        if let refusal = say(event.text) { logger.info("speech: the address is not spoken: \(refusal)") }
    }

    func performSpeech(_ actions: [Announcements.Action]) {
        for action in actions {
            switch action {
            case .synthesize(let text):
                logger.debug("speech: making \"\(text)\"")
                speech.start(text, rate: pipeline.speechRate, rampMs: Self.speechRampMs)
            case .speak:
                guard let clip = madeSpeech else { continue }
                madeSpeech = nil
                // Never louder than the music may be.
                let percent = min(config.speech.volume, machine.volumeRange.upperBound)
                pipeline.speak(clip, level: VolumeCurve.gain(percent: percent), duck: Float(config.speech.duck) / 100)
            }
        }
    }

    /// The speech jb-speech made: spoken, or the next text after a failure.
    func handleSpeechMade() {
        guard let made = speech.take() else { return }
        let now = Instant.now
        switch made.clip {
        case .success(let clip):
            logger.info("speech: \(clip.voiceFrames * 1000 / clip.rate) ms of voice made in \(made.elapsedMs) ms")
            madeSpeech = clip
            performSpeech(announcements.handle(.synthesized(lengthMs: Int64(clip.frames * 1000 / clip.rate)), now: now))
        case .failure(let error):
            logger.error("speech: \(error)")
            console?.announce("speech: \(error)")
            performSpeech(announcements.handle(.failed("\(error)"), now: now))
        }
    }
}
