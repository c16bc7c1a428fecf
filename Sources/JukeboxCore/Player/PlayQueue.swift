/// The play queue: an ordered list of tracks, the current entry, the play options (MPD's
/// repeat, random, single and consume flags) and, in random mode, the shuffled order and the
/// history of what was actually played.
///
/// The queue holds at most `limit` entries (`[queue] max_length`): an add past it adds what
/// fits and says how many (MPD adds what fits, then fails with "Playlist is too large").
/// Entries are addressed by position (0-based) and by their `QueueEntry.id`, as MPD's queue:
/// an id stays with its entry while it exists and is handed out again only after every other
/// id below `idLimit` had its turn. `version` is MPD's queue version: each edit raises it by
/// one and stamps the entries it added, moved or changed with the version before, so
/// `plchanges V` is the entries stamped V or later; playing (jump, next, previous, the flags)
/// changes no version.
/// The shuffle uses a caller-seeded `SplitMix64`, whose state is part of `Snapshot`, so a
/// restored queue continues with the same order.
public struct PlayQueue: Sendable, Equatable {
    /// The most entries the shuffle history keeps for `previous`.
    public static let historyLimit = 1000
    /// The most entries unless configured otherwise: MPD's default `max_playlist_length`, so a
    /// client sees the same limit on both. It is ample for a queue chosen by hand and small
    /// beside a large library: every edit walks the queue, every entry costs memory on a
    /// 512 MB board, and clients fetch the whole queue (`playlistinfo`) on connecting. A
    /// first start on a larger library queues the first this many tracks.
    public static let defaultLimit = 16_384
    /// The largest `limit` accepted: twice MPD's default; past it the edits and clients'
    /// whole-queue fetches grow with no use for a box played from a knob and cards.
    public static let maxLimit = 32_768
    /// Ids per entry of the limit: MPD's id table holds 4 × `max_playlist_length` ids.
    static let idsPerEntry = 4
    /// The version wraps to 1 here, as MPD's (every entry then counts as changed).
    public static let versionLimit: UInt32 = (1 << 31) - 1

    /// The most entries the queue holds (1 to `maxLimit`).
    public let limit: Int
    public private(set) var items: [QueueEntry] = []
    public private(set) var currentIndex: Int?
    public private(set) var options: PlayOptions
    /// MPD's queue version (`playlist:` in status): raised by one on every edit.
    public private(set) var version: UInt32 = 1
    /// The id the next added entry gets, unless an entry still holds it.
    public private(set) var nextID: UInt32 = 1

    /// The current shuffle cycle: a permutation of the entry positions.
    public private(set) var shuffleOrder: [Int] = []
    /// The position in `shuffleOrder` of the next entry to draw.
    public private(set) var shuffleCursor: Int = 0
    /// Entry positions played in shuffle mode, oldest first.
    public private(set) var history: [Int] = []
    /// The position in `history` of the current entry (below `history.count - 1` after walking back).
    public private(set) var historyCursor: Int = -1
    public private(set) var random: SplitMix64

    /// A queue with `entries` (the first `limit` of them), no current entry, with `options`,
    /// shuffling with a generator seeded by `seed`. A `limit` outside 1...`maxLimit` is clamped.
    public init(entries: [TrackID] = [], options: PlayOptions, seed: UInt64, limit: Int = defaultLimit) {
        self.limit = Self.clamped(limit)
        self.options = options
        self.random = SplitMix64(seed: seed)
        items = makeItems(entries.prefix(self.limit))
        reshuffle(avoidingFirst: nil)
    }

    /// A queue with the flags of the preset `mode`.
    public init(entries: [TrackID] = [], mode: PlayMode = .inOrder, seed: UInt64, limit: Int = defaultLimit) {
        self.init(entries: entries, options: PlayOptions(mode), seed: seed, limit: limit)
    }

    /// Ids run from 1 below this: 4 × `limit`, as MPD's id table (65,536 at the default
    /// limit). With at most `limit` entries there is always a free id, and a removed entry's
    /// id comes back only after at least 3 × `limit` - 1 others were handed out.
    public var idLimit: UInt32 { UInt32(limit * Self.idsPerEntry) }
    /// How many more entries fit.
    public var room: Int { limit - items.count }

    /// The tracks of the entries, in order.
    public var entries: [TrackID] { items.map(\.track) }
    /// The number of entries.
    public var count: Int { items.count }
    /// Whether there are no entries.
    public var isEmpty: Bool { items.isEmpty }

    /// The track of the current entry.
    public var currentTrack: TrackID? { currentIndex.map { items[$0].track } }
    /// The current entry.
    public var currentEntry: QueueEntry? { currentIndex.map { items[$0] } }

    /// The position of the entry with `id`.
    public func position(ofID id: UInt32) -> Int? {
        items.firstIndex { $0.id == id }
    }

    /// Whether the entry at `position` changed since `clientVersion` (MPD's
    /// `Queue::IsNewerAtPosition`): a version from the future (a client of an older run) or
    /// an entry stamped 0 (after the version wrapped) counts as changed.
    public func changed(at position: Int, since clientVersion: UInt32) -> Bool {
        let stamp = items[position].version
        return clientVersion > version || stamp >= clientVersion || stamp == 0
    }

    // MARK: editing (each call is one MPD edit: the version rises by one)

    /// Replaces every entry (new ids); there is no current entry afterwards. Past `limit`, only the first entries are kept.
    public mutating func replaceAll(_ newEntries: [TrackID]) {
        items = []
        items = makeItems(newEntries.prefix(limit))
        currentIndex = nil
        history = []
        historyCursor = -1
        reshuffle(avoidingFirst: nil)
        raiseVersion()
    }

    /// Adds tracks at the end, each a new entry with a new id, as many as fit below `limit`
    /// (the first ones); returns how many it added. In random mode they are mixed into the
    /// part of the cycle not yet played. Adding nothing is no edit.
    @discardableResult
    public mutating func append(_ tracks: [TrackID]) -> Int {
        let fitting = tracks.prefix(room)
        guard !fitting.isEmpty else { return 0 }
        let first = items.count
        items.append(contentsOf: makeItems(fitting))
        for position in first..<items.count {
            let slot = shuffleCursor + random.next(below: shuffleOrder.count - shuffleCursor + 1)
            shuffleOrder.insert(position, at: slot)
        }
        raiseVersion()
        return fitting.count
    }

    /// Adds one track at the end; false when the queue is full.
    @discardableResult
    public mutating func append(_ track: TrackID) -> Bool {
        append([track]) == 1
    }

    /// Removes the entries in `range`; removing the current entry leaves no current entry.
    /// The entries after them move up, so they count as changed (as in MPD).
    public mutating func remove(_ range: Range<Int>) {
        guard range.lowerBound >= 0, range.upperBound <= items.count, !range.isEmpty else { return }
        items.removeSubrange(range)
        stamp(range.lowerBound..<items.count)
        remap { position in
            if range.contains(position) { return nil }
            return position >= range.upperBound ? position - range.count : position
        }
        raiseVersion()
    }

    /// Removes the entry at `index`. Removing the current entry leaves no current entry.
    @discardableResult
    public mutating func remove(at index: Int) -> TrackID? {
        guard items.indices.contains(index) else { return nil }
        let removed = items[index].track
        remove(index..<index + 1)
        return removed
    }

    /// Moves the entries in `range` so that the first lands at `to`; the current entry
    /// follows its entry. Every entry between the old and new places counts as changed.
    public mutating func move(_ range: Range<Int>, to: Int) {
        guard range.lowerBound >= 0, range.upperBound <= items.count, !range.isEmpty, to >= 0,
            to + range.count <= items.count, to != range.lowerBound
        else { return }
        let moved = Array(items[range])
        items.removeSubrange(range)
        items.insert(contentsOf: moved, at: to)
        let span = min(range.lowerBound, to)..<max(range.upperBound, to + range.count)
        stamp(span)
        remap { position in
            if range.contains(position) { return to + position - range.lowerBound }
            guard span.contains(position) else { return position }
            return to > range.lowerBound ? position - range.count : position + range.count
        }
        raiseVersion()
    }

    /// Moves the entry at `from` to position `to`; the current entry follows its track.
    public mutating func move(from: Int, to: Int) {
        move(from..<from + 1, to: to)
    }

    /// Exchanges the entries at `first` and `second` (MPD's `swap`); both count as changed.
    public mutating func swap(_ first: Int, _ second: Int) {
        guard items.indices.contains(first), items.indices.contains(second) else { return }
        items.swapAt(first, second)
        stamp(first..<first + 1)
        stamp(second..<second + 1)
        remap { position in position == first ? second : position == second ? first : position }
        raiseVersion()
    }

    /// Puts the entries of `range` in the order `order` (positions inside `range`, each once),
    /// keeping their ids; the current entry follows its entry. Every entry of the range counts
    /// as changed.
    public mutating func reorder(_ range: Range<Int>, as order: [Int]) {
        guard range.lowerBound >= 0, range.upperBound <= items.count, order.count == range.count,
            Set(order) == Set(range)
        else { return }
        let reordered = order.map { items[$0] }
        items.replaceSubrange(range, with: reordered)
        stamp(range)
        var target: [Int: Int] = [:]
        for (offset, source) in order.enumerated() { target[source] = range.lowerBound + offset }
        remap { position in target[position] ?? position }
        raiseVersion()
    }

    /// Sets the priority of the entries in `range` (MPD's `prio`); the changed ones count as
    /// changed. In random mode the highest priority not yet played comes next; an entry played
    /// already in this cycle whose priority rises above the current entry's is played again,
    /// as MPD re-enqueues it.
    public mutating func setPriority(_ priority: UInt8, of range: Range<Int>) {
        guard range.lowerBound >= 0, range.upperBound <= items.count, !range.isEmpty else { return }
        let currentPriority = currentEntry?.priority
        // One pass over the cycle, not a search per entry: `prio 1 0:` over a long queue.
        let drawn = options.random ? Set(shuffleOrder[..<shuffleCursor]) : []
        var raised: [Int] = []
        for position in range where items[position].priority != priority {
            let old = items[position].priority
            items[position].priority = priority
            items[position].version = version
            guard options.random, position != currentIndex, priority > old,
                priority > currentPriority ?? 0 || currentIndex == nil, drawn.contains(position)
            else { continue }
            raised.append(position)
        }
        if !raised.isEmpty {
            // Each goes back to the head of the part not yet drawn, the last raised first.
            let moved = Set(raised)
            let kept = shuffleOrder[..<shuffleCursor].filter { !moved.contains($0) }
            shuffleOrder = kept + raised.reversed() + shuffleOrder[shuffleCursor...]
            shuffleCursor = kept.count
        }
        raiseVersion()
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
    }

    // MARK: moving

    /// Leaves no current entry; no entry changes.
    public mutating func leaveCurrent() { currentIndex = nil }

    /// Makes `index` the current entry. Returns false (and changes nothing) when it is out of range.
    @discardableResult
    public mutating func jump(to index: Int) -> Bool {
        guard items.indices.contains(index) else { return false }
        currentIndex = index
        if options.random {
            markDrawn(index)
            recordPlayed(index)
        }
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
            // MPD 0.24's `consume oneshot`: one entry consumed, then consume is off.
            if options.consumeOneshot {
                options.consume = false
                options.consumeOneshot = false
            }
        }
        return currentIndex
    }

    /// Moves to the entry before the current one (in shuffle: the one played before) and returns it;
    /// nil when there is none, in which case nothing changes.
    @discardableResult
    public mutating func previous() -> Int? {
        guard !items.isEmpty else { return nil }
        let index: Int
        if options.random {
            guard historyCursor > 0 else { return nil }
            historyCursor -= 1
            index = history[historyCursor]
        } else {
            guard let current = currentIndex, current > 0 || options.repeat else { return nil }
            index = current == 0 ? items.count - 1 : current - 1
        }
        currentIndex = index
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

    /// Everything needed to restore the queue exactly, including the ids, versions and the
    /// shuffle state.
    public struct Snapshot: Sendable, Equatable {
        public var items: [QueueEntry]
        public var currentIndex: Int?
        public var options: PlayOptions
        public var shuffleOrder: [Int]
        public var shuffleCursor: Int
        public var history: [Int]
        public var historyCursor: Int
        public var randomState: UInt64
        public var version: UInt32
        public var nextID: UInt32

        /// A snapshot; the shuffle fields may be left out (they are repaired on restore).
        public init(
            items: [QueueEntry], currentIndex: Int?, options: PlayOptions, shuffleOrder: [Int] = [],
            shuffleCursor: Int = 0, history: [Int] = [], historyCursor: Int = -1, randomState: UInt64 = 0,
            version: UInt32 = 1, nextID: UInt32 = 1
        ) {
            self.items = items
            self.currentIndex = currentIndex
            self.options = options
            self.shuffleOrder = shuffleOrder
            self.shuffleCursor = shuffleCursor
            self.history = history
            self.historyCursor = historyCursor
            self.randomState = randomState
            self.version = version
            self.nextID = nextID
        }

        /// A snapshot of entries without ids (a database from before ids): ids 0, which
        /// `PlayQueue(snapshot:)` replaces with new ones.
        public init(
            entries: [TrackID], currentIndex: Int?, options: PlayOptions, shuffleOrder: [Int] = [],
            shuffleCursor: Int = 0, history: [Int] = [], historyCursor: Int = -1, randomState: UInt64 = 0,
            version: UInt32 = 1
        ) {
            self.init(
                items: entries.map { QueueEntry(id: 0, track: $0) }, currentIndex: currentIndex, options: options,
                shuffleOrder: shuffleOrder, shuffleCursor: shuffleCursor, history: history,
                historyCursor: historyCursor, randomState: randomState, version: version)
        }

        /// The tracks of the entries, in order.
        public var entries: [TrackID] { items.map(\.track) }
    }

    /// The state to persist.
    public var snapshot: Snapshot {
        Snapshot(
            items: items, currentIndex: currentIndex, options: options, shuffleOrder: shuffleOrder,
            shuffleCursor: shuffleCursor, history: history, historyCursor: historyCursor, randomState: random.state,
            version: version, nextID: nextID)
    }

    /// Restores a queue from a snapshot, repairing whatever is inconsistent (out-of-range or
    /// duplicate positions are dropped, missing ones appended, cursors clamped; an entry
    /// without an id or with another's gets a new one). A snapshot of more than `limit`
    /// entries (a database from before the limit, or a smaller limit configured) keeps
    /// `limit` of them from the current entry on (fewer after it: the last `limit`); the
    /// positions of the others are dropped as out of range. Never traps.
    public init(snapshot: Snapshot, limit: Int = defaultLimit) {
        self.limit = Self.clamped(limit)
        var snapshot = snapshot
        if snapshot.items.count > self.limit {
            let current = snapshot.currentIndex.flatMap { snapshot.items.indices.contains($0) ? $0 : nil } ?? 0
            let start = min(current, snapshot.items.count - self.limit)
            let kept = start..<start + self.limit
            let shift = { (position: Int) in kept.contains(position) ? position - kept.lowerBound : -1 }
            snapshot.items = Array(snapshot.items[kept])
            snapshot.currentIndex = snapshot.currentIndex.map(shift)
            snapshot.shuffleOrder = snapshot.shuffleOrder.map(shift)
            snapshot.history = snapshot.history.map(shift)
        }
        options = snapshot.options
        version = min(max(snapshot.version, 1), Self.versionLimit - 1)
        let ids = 1..<UInt32(self.limit * Self.idsPerEntry)
        nextID = ids.contains(snapshot.nextID) ? snapshot.nextID : 1
        random = SplitMix64(seed: snapshot.randomState)
        var seenIDs = HeldIDs(below: ids.upperBound)
        var fixed = snapshot.items
        var needIDs: [Int] = []
        for (position, item) in fixed.enumerated() {
            fixed[position].version = min(item.version, version)
            if !ids.contains(item.id) || !seenIDs.insert(item.id) { needIDs.append(position) }
        }
        for position in needIDs {
            fixed[position].id = generateID(avoiding: &seenIDs)
            fixed[position].version = 0
        }
        items = fixed
        let valid = items.indices
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
        guard !items.isEmpty else { return nil }
        if !userInitiated, options.replaysCurrent, let current = currentIndex { return current }
        // After the last entry: again from the first, unless consume would leave nothing to repeat.
        let wraps = options.repeat && (items.count > 1 || !options.consume)
        guard options.random else {
            guard let current = currentIndex else { return 0 }
            if current + 1 < items.count { return current + 1 }
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
        // The highest priority not yet drawn comes first; within one priority, the cycle's order.
        var slot = shuffleCursor
        for candidate in shuffleCursor..<shuffleOrder.count
        where items[shuffleOrder[candidate]].priority > items[shuffleOrder[slot]].priority {
            slot = candidate
        }
        let index = shuffleOrder.remove(at: slot)
        shuffleOrder.insert(index, at: shuffleCursor)
        shuffleCursor += 1
        recordPlayed(index)
        return index
    }

    /// A new shuffle cycle over all entries; `avoidingFirst` is not drawn first (when there is a choice).
    private mutating func reshuffle(avoidingFirst avoided: Int?) {
        var order = Array(items.indices)
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

    /// `limit` within 1...`maxLimit`.
    private static func clamped(_ limit: Int) -> Int { min(max(limit, 1), maxLimit) }

    /// New entries for `tracks` (which fit: at most `room` of them), with new ids, stamped
    /// with the current version.
    private mutating func makeItems(_ tracks: ArraySlice<TrackID>) -> [QueueEntry] {
        guard !tracks.isEmpty else { return [] }
        var used = HeldIDs(below: idLimit)
        for item in items { _ = used.insert(item.id) }
        return tracks.map { QueueEntry(id: generateID(avoiding: &used), track: $0, version: version) }
    }

    /// MPD's `IdTable::GenerateId`: the next id in turn that no entry holds (added to `used`).
    /// `used` holds at most `limit` of the `idLimit - 1` ids, so a free one comes within
    /// `limit + 1` steps; each lap of the ids hands out at least 3 × `limit` - 1 of them and
    /// skips each held one once, so a new id takes O(1) steps amortised.
    private mutating func generateID(avoiding used: inout HeldIDs) -> UInt32 {
        for _ in 1..<idLimit {
            let id = nextID
            nextID = nextID + 1 == idLimit ? 1 : nextID + 1
            if used.insert(id) { return id }
        }
        preconditionFailure("all \(idLimit - 1) ids held by a queue of at most \(limit) entries")
    }

    /// Marks the entries at `positions` as changed in this edit.
    private mutating func stamp(_ positions: Range<Int>) {
        for position in positions { items[position].version = version }
    }

    /// The end of an edit (MPD's `Queue::IncrementVersion`).
    private mutating func raiseVersion() {
        version += 1
        if version >= Self.versionLimit {
            for position in items.indices { items[position].version = 0 }
            version = 1
        }
    }
}

/// The ids entries hold, one bit per id below a queue's `idLimit` (8 KiB at the default
/// limit): cheaper to fill from the entries on each add than a hashed set.
private struct HeldIDs {
    private var words: [UInt64]

    /// No id held, for ids below `limit`.
    init(below limit: UInt32) {
        words = Array(repeating: 0, count: (Int(limit) + 63) / 64)
    }

    /// Marks `id` (below the limit) held; false when it was held already.
    mutating func insert(_ id: UInt32) -> Bool {
        let word = Int(id / 64)
        let bit = UInt64(1) << (id % 64)
        guard words[word] & bit == 0 else { return false }
        words[word] |= bit
        return true
    }
}

/// One entry of the queue: a track, with what MPD keeps per entry.
public struct QueueEntry: Sendable, Equatable {
    /// MPD's song id: unique among the entries, the same while the entry exists.
    public var id: UInt32
    public var track: TrackID
    /// 0-255: in random mode, higher priorities play first.
    public var priority: UInt8
    /// The queue version of the edit that last added, moved or changed it (0: unknown, always
    /// reported as changed).
    public var version: UInt32

    public init(id: UInt32, track: TrackID, priority: UInt8 = 0, version: UInt32 = 0) {
        self.id = id
        self.track = track
        self.priority = priority
        self.version = version
    }
}
