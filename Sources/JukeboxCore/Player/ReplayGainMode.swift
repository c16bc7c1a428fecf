/// Which ReplayGain value the player applies, as MPD's `replay_gain_mode`: none, the track's,
/// the album's, or the album's when playing in order and the track's in random mode (`auto`).
/// The factor it gives a file is `ReplayGain.scale`.
public enum ReplayGainMode: String, Sendable, Equatable, CaseIterable {
    case off
    case track
    case album
    case auto
}
