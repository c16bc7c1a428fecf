/// Which ReplayGain value the player applies, as MPD's `replay_gain_mode`: none, the track's,
/// the album's, or the album's in random mode and the track's otherwise (`auto`). Kept and
/// reported; the gain itself is applied once decoders read it.
public enum ReplayGainMode: String, Sendable, Equatable, CaseIterable {
    case off
    case track
    case album
    case auto
}
