/// Which source the queue holds and where it was left, and what of that to write to the
/// database. Events in, writes out, no I/O. The card is written little: an entry when the box
/// chooses a source, when a client takes the queue over, and where playback stopped moving
/// (pause, stop, shutdown) or a resume commit happens anyway; never on a timer of its own.
public struct PlayHistory: Sendable, Equatable {
    /// Where playback is: a track of `music_dir` and the position in it.
    public struct Place: Sendable, Equatable {
        public var trackPath: String
        public var positionMs: Int64

        public init(trackPath: String, positionMs: Int64) {
            self.trackPath = trackPath
            self.positionMs = positionMs
        }
    }

    /// What the history hears about.
    public enum Event: Sendable, Equatable {
        /// The box filled the queue from `source` (the menu, Favourites, an entry continued),
        /// starting at `place`.
        case chose(PlaySource, at: Place)
        /// An MPD client changed the queue: it is no longer the source's; `place` is where
        /// the source was left (nil: nothing is current).
        case queueTakenOver(at: Place?)
        /// Playback stopped moving (pause, stop, shutdown) or the resume state is committed:
        /// a chance to save where the source is.
        case reached(Place?)
    }

    /// What to write.
    public enum Action: Sendable, Equatable {
        /// Store `entry` as the newest one (replacing its source's older one, keeping
        /// `RecentlyPlayed.limit`); `holdsQueue`: the queue is still this source's.
        case save(RecentlyPlayed.Entry, holdsQueue: Bool)
    }

    /// Newest first.
    public private(set) var recent: RecentlyPlayed
    /// The source the queue holds; nil when none (a client's queue, or the library's on a
    /// first start).
    public private(set) var source: PlaySource?
    /// The current source's entry as the database has it.
    private var saved: RecentlyPlayed.Entry?

    /// The history as stored: `entries` newest first; `newestHoldsQueue`: the queue was
    /// still the newest entry's source when it was saved.
    public init(entries: [RecentlyPlayed.Entry] = [], newestHoldsQueue: Bool = false) {
        recent = RecentlyPlayed(entries: entries)
        if newestHoldsQueue, let newest = recent.entries.first {
            source = newest.source
            saved = newest
        }
    }

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .chose(let chosen, let place):
            let entry = RecentlyPlayed.Entry(
                source: chosen, trackPath: place.trackPath, positionMs: place.positionMs)
            recent.record(entry)
            source = chosen
            saved = entry
            return [.save(entry, holdsQueue: true)]
        case .queueTakenOver(let place):
            guard source != nil, var entry = saved else { return [] }
            source = nil
            saved = nil
            if let place {
                entry.trackPath = place.trackPath
                entry.positionMs = place.positionMs
            }
            recent.record(entry)
            return [.save(entry, holdsQueue: false)]
        case .reached(let place):
            guard source != nil, let place, var entry = saved else { return [] }
            guard entry.trackPath != place.trackPath || entry.positionMs != place.positionMs else { return [] }
            entry.trackPath = place.trackPath
            entry.positionMs = place.positionMs
            recent.record(entry)
            saved = entry
            return [.save(entry, holdsQueue: true)]
        }
    }
}
