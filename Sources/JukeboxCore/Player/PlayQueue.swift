/// The play queue: an ordered list of tracks, the current entry, the play options (MPD's
/// repeat, random, single and consume flags) and, in random mode, the shuffled order and the
/// history of what was actually played.
///
/// Entries are addressed by position (0-based). `version` is bumped on every change so that
/// observers can tell when to refresh. The shuffle uses a caller-seeded `SplitMix64`, whose
/// state is part of `Snapshot`, so a restored queue continues with the same order.
public struct PlayQueue: Sendable, Equatable {
    /// The most entries the shuffle history keeps for `previous`.
    public static let historyLimit = 1000

    public private(set) var entries: [TrackID] = []
    public private(set) var currentIndex: Int?
    public private(set) var options: PlayOptions
    /// Bumped on every change.
    public private(set) var version: UInt64 = 0

    /// The current shuffle cycle: a permutation of the entry positions.
    public private(set) var shuffleOrder: [Int] = []
    /// The position in `shuffleOrder` of the next entry to draw.
    public private(set) var shuffleCursor: Int = 0
    /// Entry positions played in shuffle mode, oldest first.
    public private(set) var history: [Int] = []
    /// The position in `history` of the current entry (below `history.count - 1` after walking back).
    public private(set) var historyCursor: Int = -1
    public private(set) var random: SplitMix64

    /// A queue with `entries`, no current entry, with `options`, shuffling with a generator seeded by `seed`.
    public init(entries: [TrackID] = [], options: PlayOptions, seed: UInt64) {
        self.entries = entries
        self.options = options
        self.random = SplitMix64(seed: seed)
        reshuffle(avoidingFirst: nil)
    }

    /// A queue with the flags of the preset `mode`.
    public init(entries: [TrackID] = [], mode: PlayMode = .inOrder, seed: UInt64) {
        self.init(entries: entries, options: PlayOptions(mode), seed: seed)
    }

    /// The number of entries.
    public var count: Int { entries.count }
    /// Whether there are no entries.
    public var isEmpty: Bool { entries.isEmpty }

    /// The track of the current entry.
    public var currentTrack: TrackID? { currentIndex.map { entries[$0] } }

    // MARK: editing

    /// Replaces every entry; there is no current entry afterwards.
    public mutating func replaceAll(_ newEntries: [TrackID]) {
        entries = newEntries
        currentIndex = nil
        history = []
        historyCursor = -1
        reshuffle(avoidingFirst: nil)
        version &+= 1
    }

    /// Adds tracks at the end. In random mode they are mixed into the part of the cycle not yet played.
    public mutating func append(_ tracks: [TrackID]) {
        guard !tracks.isEmpty else { return }
        let first = entries.count
        entries.append(contentsOf: tracks)
        for position in first..<entries.count {
            let slot = shuffleCursor + random.next(below: shuffleOrder.count - shuffleCursor + 1)
            shuffleOrder.insert(position, at: slot)
        }
        version &+= 1
    }

    /// Adds one track at the end.
    public mutating func append(_ track: TrackID) {
        append([track])
    }

    /// Removes the entry at `index`. Removing the current entry leaves no current entry.
    @discardableResult
    public mutating func remove(at index: Int) -> TrackID? {
        guard entries.indices.contains(index) else { return nil }
        let removed = entries.remove(at: index)
        remap { position in
            if position == index { return nil }
            return position > index ? position - 1 : position
        }
        version &+= 1
        return removed
    }

    /// Moves the entry at `from` to position `to`; the current entry follows its track.
    public mutating func move(from: Int, to: Int) {
        guard entries.indices.contains(from), entries.indices.contains(to), from != to else { return }
        let track = entries.remove(at: from)
        entries.insert(track, at: to)
        remap { position in
            if position == from { return to }
            if from < to, position > from, position <= to { return position - 1 }
            if to < from, position >= to, position < from { return position + 1 }
            return position
        }
        version &+= 1
    }

    /// Removes every entry.
    public mutating func clear() {
        replaceAll([])
    }

    /// Changes the flags. Turning random on starts a new cycle with the current entry as already played.
    public mutating func setOptions(_ newOptions: PlayOptions) {
        guard newOptions != options else { return }
        let wasRandom = options.random
        options = newOptions
        if newOptions.random && !wasRandom {
            reshuffle(avoidingFirst: nil)
            history = []
            historyCursor = -1
            if let current = currentIndex {
                markDrawn(current)
                recordPlayed(current)
            }
        }
        version &+= 1
    }

    // MARK: moving

    /// Makes `index` the current entry. Returns false (and changes nothing) when it is out of range.
    @discardableResult
    public mutating func jump(to index: Int) -> Bool {
        guard entries.indices.contains(index) else { return false }
        currentIndex = index
        if options.random {
            markDrawn(index)
            recordPlayed(index)
        }
        version &+= 1
        return true
    }

    /// Moves to the entry after the current one and returns it; nil at the end (which leaves
    /// no current entry) or when the queue is empty. In consume mode the entry moved away from
    /// is removed (so the returned position is after the removal).
    /// `userInitiated` ignores `single`, as MPD's `next` does: only an automatic advance
    /// replays the current entry.
    @discardableResult
    public mutating func next(userInitiated: Bool) -> Int? {
        let left = currentIndex
        let index = computeNext(userInitiated: userInitiated)
        guard index != nil || left != nil else { return nil }
        currentIndex = index
        if options.consume, let left, left != index {
            remove(at: left)
        }
        version &+= 1
        return currentIndex
    }

    /// Moves to the entry before the current one (in shuffle: the one played before) and returns it;
    /// nil when there is none, in which case nothing changes.
    @discardableResult
    public mutating func previous() -> Int? {
        guard !entries.isEmpty else { return nil }
        let index: Int
        if options.random {
            guard historyCursor > 0 else { return nil }
            historyCursor -= 1
            index = history[historyCursor]
        } else {
            guard let current = currentIndex, current > 0 || options.repeat else { return nil }
            index = current == 0 ? entries.count - 1 : current - 1
        }
        currentIndex = index
        version &+= 1
        return index
    }

    /// The entry that would play automatically after the current one (a position before any
    /// consume removal), without changing anything: MPD's `nextsong`.
    public func following() -> Int? {
        var copy = self
        return copy.computeNext(userInitiated: false)
    }

    /// The entry that would play automatically after the current one with `options`.
    public func following(with options: PlayOptions) -> Int? {
        var copy = self
        copy.setOptions(options)
        return copy.computeNext(userInitiated: false)
    }

    // MARK: persistence

    /// Everything needed to restore the queue exactly, including the shuffle state.
    public struct Snapshot: Sendable, Equatable {
        public var entries: [TrackID]
        public var currentIndex: Int?
        public var options: PlayOptions
        public var shuffleOrder: [Int]
        public var shuffleCursor: Int
        public var history: [Int]
        public var historyCursor: Int
        public var randomState: UInt64
        public var version: UInt64

        /// A snapshot; the shuffle fields may be left out (they are repaired on restore).
        public init(
            entries: [TrackID], currentIndex: Int?, options: PlayOptions, shuffleOrder: [Int] = [],
            shuffleCursor: Int = 0, history: [Int] = [], historyCursor: Int = -1, randomState: UInt64 = 0,
            version: UInt64 = 0
        ) {
            self.entries = entries
            self.currentIndex = currentIndex
            self.options = options
            self.shuffleOrder = shuffleOrder
            self.shuffleCursor = shuffleCursor
            self.history = history
            self.historyCursor = historyCursor
            self.randomState = randomState
            self.version = version
        }
    }

    /// The state to persist.
    public var snapshot: Snapshot {
        Snapshot(
            entries: entries, currentIndex: currentIndex, options: options, shuffleOrder: shuffleOrder,
            shuffleCursor: shuffleCursor, history: history, historyCursor: historyCursor, randomState: random.state,
            version: version)
    }

    /// Restores a queue from a snapshot, repairing whatever is inconsistent (out-of-range or
    /// duplicate positions are dropped, missing ones appended, cursors clamped). Never traps.
    public init(snapshot: Snapshot) {
        entries = snapshot.entries
        options = snapshot.options
        version = snapshot.version
        random = SplitMix64(seed: snapshot.randomState)
        let valid = entries.indices
        if let current = snapshot.currentIndex, valid.contains(current) {
            currentIndex = current
        }
        var seen = Set<Int>()
        var order: [Int] = []
        var cursor = 0
        for (offset, position) in snapshot.shuffleOrder.enumerated()
        where valid.contains(position) && seen.insert(position).inserted {
            order.append(position)
            if offset < snapshot.shuffleCursor { cursor += 1 }
        }
        for position in valid where !seen.contains(position) {
            order.append(position)
        }
        shuffleOrder = order
        shuffleCursor = min(max(cursor, 0), order.count)
        var kept: [Int] = []
        var keptCursor = -1
        for (offset, position) in snapshot.history.enumerated() where valid.contains(position) {
            kept.append(position)
            if offset <= snapshot.historyCursor { keptCursor = kept.count - 1 }
        }
        history = kept
        historyCursor = kept.isEmpty ? -1 : min(max(keptCursor, 0), kept.count - 1)
        if options.random, let current = currentIndex, historyCursor < 0 || history[historyCursor] != current {
            history.append(current)
            historyCursor = history.count - 1
        }
    }

    // MARK: private

    /// MPD's `Queue::GetNextOrder` over positions (or, in random mode, the shuffle cycle).
    private mutating func computeNext(userInitiated: Bool) -> Int? {
        guard !entries.isEmpty else { return nil }
        if !userInitiated, options.replaysCurrent, let current = currentIndex { return current }
        // After the last entry: again from the first, unless consume would leave nothing to repeat.
        let wraps = options.repeat && (entries.count > 1 || !options.consume)
        guard options.random else {
            guard let current = currentIndex else { return 0 }
            if current + 1 < entries.count { return current + 1 }
            return wraps ? 0 : nil
        }
        if historyCursor >= 0, historyCursor + 1 < history.count {
            historyCursor += 1
            return history[historyCursor]
        }
        if shuffleCursor >= shuffleOrder.count {
            // A cycle played through: a new one when repeating (or starting afresh), else the end.
            guard wraps || currentIndex == nil else { return nil }
            reshuffle(avoidingFirst: currentIndex)
        }
        let index = shuffleOrder[shuffleCursor]
        shuffleCursor += 1
        recordPlayed(index)
        return index
    }

    /// A new shuffle cycle over all entries; `avoidingFirst` is not drawn first (when there is a choice).
    private mutating func reshuffle(avoidingFirst avoided: Int?) {
        var order = Array(entries.indices)
        random.shuffle(&order)
        if let avoided, order.count > 1, order[0] == avoided {
            let swapWith = 1 + random.next(below: order.count - 1)
            order.swapAt(0, swapWith)
        }
        shuffleOrder = order
        shuffleCursor = 0
    }

    /// Moves `index` into the drawn part of the current cycle so it is not drawn again.
    private mutating func markDrawn(_ index: Int) {
        guard let slot = shuffleOrder.firstIndex(of: index) else { return }
        if slot >= shuffleCursor {
            shuffleOrder.swapAt(slot, shuffleCursor)
            shuffleCursor += 1
        }
    }

    /// Appends `index` to the history, dropping anything after the cursor (a new branch).
    private mutating func recordPlayed(_ index: Int) {
        if historyCursor + 1 < history.count {
            history.removeSubrange((historyCursor + 1)...)
        }
        history.append(index)
        if history.count > Self.historyLimit {
            history.removeFirst(history.count - Self.historyLimit)
        }
        historyCursor = history.count - 1
    }

    /// Applies a position mapping (nil = removed) to every stored position.
    private mutating func remap(_ transform: (Int) -> Int?) {
        currentIndex = currentIndex.flatMap(transform)
        var order: [Int] = []
        var cursor = 0
        for (offset, position) in shuffleOrder.enumerated() {
            guard let mapped = transform(position) else { continue }
            order.append(mapped)
            if offset < shuffleCursor { cursor += 1 }
        }
        shuffleOrder = order
        shuffleCursor = cursor
        var kept: [Int] = []
        var keptCursor = -1
        for (offset, position) in history.enumerated() {
            guard let mapped = transform(position) else { continue }
            kept.append(mapped)
            if offset <= historyCursor { keptCursor = kept.count - 1 }
        }
        history = kept
        historyCursor = kept.isEmpty ? -1 : max(keptCursor, 0)
        if options.random, currentIndex == nil {
            historyCursor = history.count - 1
        }
    }
}
