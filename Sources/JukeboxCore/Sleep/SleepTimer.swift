/// When the sleep timer ends playback.
public enum SleepTarget: Sendable, Equatable, CustomStringConvertible {
    /// After this long in track time, counted from when it was set: at 1.5× a 30 min timer
    /// ends after 20 min on the clock, as 30 min of the book have played (paused time counts
    /// too, at the speed set: a child who paused is asleep too).
    case after(ms: Int64)
    /// At the end of the playing track.
    case endOfTrack
    /// At the end of the playing album (the last queue entry of the current track's album).
    case endOfAlbum
    /// At the end of the playing chapter (of a track without chapters: at its end).
    case endOfChapter

    /// `30 min`, `end of track`, `end of album`, `end of chapter`.
    public var description: String {
        switch self {
        case .after(let ms): ms % 60_000 == 0 ? "\(ms / 60_000) min" : "\(ms / 1000) s"
        case .endOfTrack: "end of track"
        case .endOfAlbum: "end of album"
        case .endOfChapter: "end of chapter"
        }
    }

    /// The argument of `sleep` that `parse` reads back: `30`, `90s`, `track`, `album`, `chapter`.
    public var consoleArgument: String {
        switch self {
        case .after(let ms): ms % 60_000 == 0 ? "\(ms / 60_000)" : "\(ms / 1000)s"
        case .endOfTrack: "track"
        case .endOfAlbum: "album"
        case .endOfChapter: "chapter"
        }
    }

    /// Parses the argument of `sleep`: minutes (`30`), seconds (`90s`), `track`, `album`,
    /// `chapter`; `off` is nil.
    public static func parse(_ word: String) -> Result<SleepTarget?, CommandError> {
        switch word.lowercased() {
        case "off", "0": return .success(nil)
        case "track": return .success(.endOfTrack)
        case "album": return .success(.endOfAlbum)
        case "chapter": return .success(.endOfChapter)
        default:
            if word.hasSuffix("s"), let seconds = Int(word.dropLast()), (1...86_400).contains(seconds) {
                return .success(.after(ms: Int64(seconds) * 1000))
            }
            guard let minutes = Int(word), (1...1440).contains(minutes) else {
                return .failure(
                    .badArgument(
                        command: "sleep",
                        problem:
                            "expected minutes (1 to 1440), seconds like 90s, track, album, chapter or off, found '\(word)'"
                    )
                )
            }
            return .success(.after(ms: Int64(minutes) * 60_000))
        }
    }
}

/// What happens when the sleep timer runs out (`[sleep] then`).
public enum SleepEnd: String, Sendable, Equatable, CaseIterable {
    case stop
    /// Save the state and run `[buttons] shutdown_command`.
    case powerOff = "power-off"
}

/// What the sleep timer wants now.
public enum SleepStep: Sendable, Equatable {
    /// No timer.
    case off
    /// Running; `leftMs` to go, at full volume.
    case running(leftMs: Int64)
    /// Fading out: multiply the output gain by `gain` (1 down to 0, never rising).
    case fading(leftMs: Int64, gain: Float)
    /// The time is up: stop (or power off). The timer is off again.
    case expired
}

/// The sleep timer: ends playback at a time or at the end of the track, album or chapter, fading out
/// over the last `fadeMs`. Pure: the daemon gives it the time and what is left of the track
/// and the album, and applies the step it returns.
public struct SleepTimer: Sendable, Equatable {
    /// The fade-out before the end.
    public let fadeMs: Int64
    public private(set) var target: SleepTarget?
    /// For `.after`: the track time left, in nanoseconds, at `counted`.
    private var afterLeftNs: Int64?
    /// When `afterLeftNs` was last brought up to date.
    private var counted: Instant?
    /// The lowest gain given so far: a track end that moves away (a seek back) never makes
    /// the fade rise again.
    private var lowestGain: Float = 1

    /// An unset timer.
    public init(fadeMs: Int64) {
        self.fadeMs = max(fadeMs, 0)
    }

    /// Sets the timer (nil: off).
    public mutating func set(_ target: SleepTarget?, now: Instant) {
        self.target = target
        lowestGain = 1
        if case .after(let ms) = target {
            afterLeftNs = ms &* 1_000_000
            counted = now
        } else {
            afterLeftNs = nil
            counted = nil
        }
    }

    /// The step at `now`. `speed`: the playback speed since the last step (a timed target runs
    /// down in track time). `trackLeftMs`/`albumLeftMs`/`chapterLeftMs`: what is left to play of
    /// the current track, album and chapter (nil when nothing plays: then only a timed target
    /// runs down; a track without chapters gives its own rest as the chapter's). All `leftMs`
    /// are track time.
    public mutating func step(
        now: Instant, speed: PlaybackSpeed = .normal, trackLeftMs: Int64?, albumLeftMs: Int64?,
        chapterLeftMs: Int64? = nil
    ) -> SleepStep {
        guard let target else { return .off }
        if let leftNs = afterLeftNs, let counted, now > counted {
            let wallNs = now.nanoseconds &- counted.nanoseconds
            afterLeftNs = max(leftNs - wallNs / 100 * Int64(speed.hundredths), 0)
            self.counted = now
        }
        let left: Int64?
        switch target {
        case .after: left = afterLeftNs.map { ($0 + 999_999) / 1_000_000 }
        case .endOfTrack: left = trackLeftMs
        case .endOfAlbum: left = albumLeftMs
        case .endOfChapter: left = chapterLeftMs
        }
        guard let left else { return .running(leftMs: Int64.max) }
        if left <= 0 {
            set(nil, now: now)
            return .expired
        }
        guard left < fadeMs else { return .running(leftMs: left) }
        let fraction = Float(left) / Float(fadeMs)
        // Squared: the fade sounds even to the ear rather than dropping late.
        lowestGain = min(lowestGain, fraction * fraction)
        return .fading(leftMs: left, gain: lowestGain)
    }
}
