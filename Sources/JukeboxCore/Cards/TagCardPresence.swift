/// What the NFC/RFID card on the reader means for playback: a state machine over reads,
/// removals and the passing of time (given, never read), returning what to do. Readers lose a
/// card for 300–800 ms now and then, so a removal counts only when the card stays away for
/// `removalDebounceMs`; a card read again before that was never gone.
public struct TagCardPresence: Sendable, Equatable {
    /// How cards are used.
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// Card on = play, card off = pause, the same card back = continue (the default).
        case place
        /// Each read is a swipe; taking a card away does nothing.
        case swipe
    }

    /// What a second swipe of the playing card does (swipe mode).
    public enum SwipeAgain: String, Sendable, Equatable, CaseIterable {
        case toggle, restart, skip, nothing
    }

    /// What happened at the reader.
    public enum Event: Sendable, Equatable {
        /// A card's ID was read (again or for the first time).
        case read(String)
        /// The reader sees no card.
        case removed
        /// Time passed (the debounce deadline may have come).
        case tick
    }

    /// What to do.
    public enum Action: Sendable, Equatable {
        /// Play the card's content (as its place policy says).
        case play(String)
        /// The card whose content is loaded is back: continue where it paused.
        case resume(String)
        /// The card is gone: pause.
        case pause(String)
        /// The playing card was swiped again.
        case swipeAgain(String, SwipeAgain)
    }

    public let mode: Mode
    public let swipeAgain: SwipeAgain
    public let removalDebounceMs: Int64
    /// The card on the reader (in place mode, also during the debounce after its removal).
    public private(set) var present: String?
    /// The card whose content was played last (it stays after a removal, for "continue").
    /// Whether the queue still holds that content (no menu or client replaced it) is the
    /// daemon's to check.
    public private(set) var loaded: String?
    /// When a removal becomes real, if the card is away and not read again yet.
    public private(set) var removalDue: Instant?

    public init(mode: Mode = .place, swipeAgain: SwipeAgain = .toggle, removalDebounceMs: Int64 = 1000) {
        self.mode = mode
        self.swipeAgain = swipeAgain
        self.removalDebounceMs = removalDebounceMs
    }

    /// The next time a `.tick` can change anything.
    public var nextDeadline: Instant? { removalDue }

    public mutating func handle(_ event: Event, now: Instant) -> [Action] {
        var actions = expire(now: now)
        switch (event, mode) {
        case (.tick, _):
            break
        case (.removed, .place):
            if present != nil, removalDue == nil { removalDue = now.adding(milliseconds: removalDebounceMs) }
        case (.removed, .swipe):
            break
        case (.read(let id), .place):
            if id == present {
                removalDue = nil  // a flaky read: it was never gone
            } else {
                removalDue = nil
                present = id
                actions.append(id == loaded ? .resume(id) : .play(id))
                loaded = id
            }
        case (.read(let id), .swipe):
            if id == loaded {
                actions.append(.swipeAgain(id, swipeAgain))
            } else {
                loaded = id
                actions.append(.play(id))
            }
        }
        return actions
    }

    /// The removal whose debounce has run out.
    private mutating func expire(now: Instant) -> [Action] {
        guard let due = removalDue, now >= due, let card = present else { return [] }
        removalDue = nil
        present = nil
        return card == loaded ? [.pause(card)] : []
    }
}
