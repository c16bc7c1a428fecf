/// What is left of "the chapter" for the sleep timer's `end of chapter`: the chapter playing
/// when it is first asked, followed through the user's seeks (a skip to another chapter
/// makes that one the chapter), but not through playing on: once the next chapter has
/// begun by playing into it, nothing is left (0), so the timer expires at the boundary even
/// though the ticks never land on it exactly. Pure.
public struct ChapterEnd: Sendable, Equatable {
    /// The track and chapter index being waited for.
    private var anchor: (track: TrackID, index: Int)?
    /// How soon after a chapter's start a position counts as having played into it.
    public static let crossingMs: Int64 = 1500

    public init() {}

    public static func == (a: ChapterEnd, b: ChapterEnd) -> Bool {
        a.anchor?.track == b.anchor?.track && a.anchor?.index == b.anchor?.index
    }

    /// Forgets the chapter (the timer was set again).
    public mutating func reset() { anchor = nil }

    /// What is left at `positionMs` of `track` (nil: nothing plays). A track without
    /// chapters is one chapter: `trackLeftMs`.
    public mutating func leftMs(
        track: TrackID?, chapters: ChapterList?, positionMs: Int64, trackLeftMs: Int64?
    ) -> Int64? {
        guard let track, trackLeftMs != nil, let chapters else { return trackLeftMs }
        let moment = chapters.moment(at: positionMs)
        if let anchor, anchor.track == track {
            if moment.index == anchor.index { return moment.leftMs ?? trackLeftMs }
            if moment.index == anchor.index + 1 && moment.elapsedMs < Self.crossingMs { return 0 }
        }
        anchor = (track, moment.index)
        return moment.leftMs ?? trackLeftMs
    }
}
