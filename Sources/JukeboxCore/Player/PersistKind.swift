/// What a persist request from the player is about.
public enum PersistKind: Sendable, Equatable {
    /// Something the user did or a track change: pause, seek, skip, volume, mode. Save durably soon.
    case event
    /// The position moved during playback.
    case progress
}
