import JukeboxCore

// Playback speed: the machine decides which speed plays (`PlayerMachine+Speed.swift`); the
// daemon stores the choices (a long track's own in `tracks.speed`, the box's in the
// `settings` table) and gives them back at start.

extension Daemon {
    static let speedSetting = "speed"

    /// Gives the machine the stored speeds; a value that is not a speed is left out with one line.
    func loadSpeeds() {
        do {
            let tracks = try store.savedTrackSpeeds().mapValues { PlaybackSpeed(clamping: $0) }
            var box = PlaybackSpeed.normal
            if let text = try store.setting(Self.speedSetting) {
                if let stored = PlaybackSpeed.parse(text) {
                    box = stored
                } else {
                    logger.warning("settings: speed '\(text)' is no speed from 0.5 to 2; playing at 1")
                }
            }
            perform(machine.handle(.savedSpeedsLoaded(tracks, box: box), now: Instant.now))
        } catch {
            logger.error("cannot read the saved speeds, playing at 1: \(error)")
        }
    }

    func rememberSpeed(_ speed: PlaybackSpeed, track: TrackID?) {
        do {
            if let track {
                try store.setSpeed(speed.hundredths, ofTrack: track)
            } else {
                try store.setSetting(Self.speedSetting, to: "\(speed)")
            }
        } catch {
            logger.error("cannot save the speed \(speed): \(error)")
        }
    }
}
