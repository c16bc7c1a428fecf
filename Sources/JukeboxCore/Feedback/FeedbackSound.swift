/// Short generated sounds that tell a child what the box did when it has no screen: a card
/// was read, a card is unknown, a limit was reached. Each is a few sine notes with short fades
/// (no click), rendered once at the device's rate by the output and mixed over the music.
public enum FeedbackSound: Int, Sendable, Equatable, CaseIterable {
    /// A bright blip: the card was read and its music plays.
    case cardRead
    /// Two low beeps: the box does not know this card (or it has nothing to play).
    case unknownCard
    /// One low beep: the volume is at its maximum or minimum, or locked at rest.
    case limit

    /// One note; a frequency of 0 is a rest.
    public struct Note: Sendable, Equatable {
        public var hz: Double
        public var ms: Int

        public init(hz: Double, ms: Int) {
            self.hz = hz
            self.ms = ms
        }
    }

    /// Each note fades in and out over this long (a sine cut off at full level clicks).
    public static let fadeMs = 5

    public var notes: [Note] {
        switch self {
        case .cardRead: [Note(hz: 1320, ms: 90)]
        case .unknownCard: [Note(hz: 660, ms: 100), Note(hz: 0, ms: 60), Note(hz: 660, ms: 100)]
        case .limit: [Note(hz: 440, ms: 150)]
        }
    }

    public var lengthMs: Int { notes.reduce(0) { $0 + $1.ms } }

    /// Its length in frames at `rate` (each note rounded down on its own, as rendered).
    public func frames(rate: Int) -> Int { notes.reduce(0) { $0 + $1.ms * rate / 1000 } }
}

/// Which sound an event makes (none when sounds are off), and no sound again while the same
/// one still sounds: a knob held against the maximum beeps once per beep, not once per click.
/// Time is given, never read.
public struct FeedbackCues: Sendable {
    /// What happened.
    public enum Event: Sendable, Equatable {
        /// A known card was put on the reader (or swiped again): its music or command runs.
        case cardRead
        /// A card the mapping does not know (the learn flow opens).
        case unknownCard
        /// A known card whose music has nothing in the library.
        case nothingToPlay
        /// A volume request hit a limit.
        case limit(VolumeLimit)
        /// The family's rules refused a start (quiet hours, the listening time used up).
        case refused
        /// The listening time ends soon.
        case listeningTimeWarning
    }

    public let enabled: Bool
    private var last: (sound: FeedbackSound, until: Instant)?

    public init(enabled: Bool) {
        self.enabled = enabled
    }

    /// The sound to play for `event` now, if any.
    public mutating func sound(for event: Event, now: Instant) -> FeedbackSound? {
        guard enabled else { return nil }
        let sound: FeedbackSound
        switch event {
        case .cardRead: sound = .cardRead
        case .unknownCard, .nothingToPlay, .refused: sound = .unknownCard
        case .limit, .listeningTimeWarning: sound = .limit
        }
        if let last, last.sound == sound, now < last.until { return nil }
        last = (sound, now.adding(milliseconds: Int64(sound.lengthMs)))
        return sound
    }
}
