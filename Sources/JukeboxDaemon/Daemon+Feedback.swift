import JukeboxCore
import JukeboxDevices

// Feedback without a screen (control thread). Which event makes which sound is the core's
// `FeedbackCues`; the pipeline mixes the sound into the output, also when paused or stopped.
// The status LED follows the core's `StatusLight`, set only when its level changes.

extension Daemon {
    /// Sounds `event`'s feedback, if it makes one (not while an MPD client disabled the output).
    func feedback(_ event: FeedbackCues.Event) {
        guard mpd.host.outputEnabled, let sound = cues.sound(for: event, now: Instant.now) else { return }
        // Never louder than the music may be.
        let percent = min(config.feedback.volume, machine.volumeRange.upperBound)
        logger.debug("feedback: \(sound) at volume \(percent)")
        pipeline.play(sound, level: VolumeCurve.gain(percent: percent))
    }

    /// Sets the LED to what `StatusLight` says now.
    func updateLight(now: Instant) {
        guard let statusLED else { return }
        light.handle(.playing(machine.state == .playing), now: now)
        let lit = light.isOn(at: now)
        guard lit != ledLit else { return }
        do {
            try statusLED.set(lit, now: now)
            ledLit = lit
        } catch {
            logger.error("status LED: \(error); it stays as it is")
            self.statusLED = nil
        }
    }
}
