import JukeboxCore
import Testing

/// The queue's entries as MPD keeps them: an id per entry, a priority for random mode, and
/// the version of each entry's last change for `plchanges`.
@Suite struct QueueEntryTests {
    /// Tracks 10, 20, 10, 30, 40: track 10 queued twice.
    static func queue(_ options: PlayOptions = PlayOptions(), seed: UInt64 = 1) -> PlayQueue {
        PlayQueue(entries: [10, 20, 10, 30, 40], options: options, seed: seed)
    }

    static func ids(_ queue: PlayQueue) -> [UInt32] { queue.items.map(\.id) }

    @Test func everyEntryHasItsOwnIdAndKeepsIt() {
        var queue = Self.queue()
        #expect(Self.ids(queue) == [1, 2, 3, 4, 5])
        #expect(queue.position(ofID: 3) == 2)
        queue.move(0..<2, to: 3)
        #expect(queue.entries == [10, 30, 40, 10, 20])
        #expect(Self.ids(queue) == [3, 4, 5, 1, 2])
        queue.swap(0, 4)
        #expect(Self.ids(queue) == [2, 4, 5, 1, 3])
        queue.remove(1..<3)
        #expect(Self.ids(queue) == [2, 1, 3])
        queue.reorder(0..<3, as: [2, 0, 1])
        #expect(Self.ids(queue) == [3, 2, 1])
        queue.setPriority(200, of: 0..<3)
        #expect(Self.ids(queue) == [3, 2, 1])
        #expect(queue.position(ofID: 4) == nil)
    }

    /// A removed entry's id comes back only after every other id had its turn (MPD's id
    /// table: the next id in turn that no entry holds).
    @Test func idsAreNotReusedSoon() {
        var queue = Self.queue()
        queue.remove(0..<5)
        queue.append([50, 60])
        #expect(Self.ids(queue) == [6, 7])
        queue.clear()
        queue.append([70])
        #expect(Self.ids(queue) == [8])
        // Near the end of the range the ids wrap to 1, skipping those still held.
        var snapshot = queue.snapshot
        snapshot.items = [QueueEntry(id: 1, track: 70), QueueEntry(id: 65534, track: 71)]
        snapshot.nextID = 65534
        var wrapped = PlayQueue(snapshot: snapshot)
        wrapped.append([80, 90])
        #expect(Self.ids(wrapped) == [1, 65534, 65535, 2])
    }

    struct ChangeCase: Sendable, CustomTestStringConvertible {
        var name: String
        var edit: @Sendable (inout PlayQueue) -> Void
        /// Positions `plchanges` reports for the version before the edit, as MPD 0.23 does.
        var changed: [Int]
        var testDescription: String { name }
    }

    /// Which entries count as changed after each edit: MPD stamps what it adds, moves
    /// (and what shifts because of it), swaps, reprioritises and shuffles.
    @Test(arguments: [
        ChangeCase(name: "append", edit: { $0.append([50, 50]) }, changed: [5, 6]),
        ChangeCase(name: "delete 1", edit: { $0.remove(1..<2) }, changed: [1, 2, 3]),
        ChangeCase(name: "delete the last", edit: { $0.remove(4..<5) }, changed: []),
        ChangeCase(name: "move 0:2 3", edit: { $0.move(0..<2, to: 3) }, changed: [0, 1, 2, 3, 4]),
        ChangeCase(name: "move 3 1", edit: { $0.move(3..<4, to: 1) }, changed: [1, 2, 3]),
        ChangeCase(name: "swap 0 3", edit: { $0.swap(0, 3) }, changed: [0, 3]),
        ChangeCase(name: "prio 9 1:3", edit: { $0.setPriority(9, of: 1..<3) }, changed: [1, 2]),
        ChangeCase(name: "prio 0 (unchanged)", edit: { $0.setPriority(0, of: 0..<5) }, changed: []),
        ChangeCase(name: "shuffle 1:4", edit: { $0.reorder(1..<4, as: [3, 1, 2]) }, changed: [1, 2, 3]),
        ChangeCase(
            name: "clear, add",
            edit: {
                $0.clear(); $0.append([1])
            }, changed: [0]),
    ])
    func plchangesReportsWhatAnEditChanged(_ test: ChangeCase) {
        var queue = Self.queue()
        queue.append([99])
        queue.remove(5..<6)
        let before = queue.version
        test.edit(&queue)
        #expect(queue.items.indices.filter { queue.changed(at: $0, since: before) } == test.changed)
        // Nothing is newer than the version after the edit; everything is for an older client.
        #expect(queue.items.indices.filter { queue.changed(at: $0, since: queue.version) } == [])
        #expect(queue.items.indices.filter { queue.changed(at: $0, since: 0) } == Array(queue.items.indices))
        // A version from the future (a client of another run) gets the whole queue.
        #expect(queue.items.indices.allSatisfy { queue.changed(at: $0, since: queue.version + 1) })
    }

    /// Consume removes the entry it leaves: an edit, so the entries after it count as changed.
    @Test func consumeIsAnEdit() {
        var queue = Self.queue(PlayOptions(consume: true))
        queue.setPriority(1, of: 4..<5)
        queue.jump(to: 1)
        let before = queue.version
        queue.next(userInitiated: true)
        #expect(queue.version == before + 1)
        #expect(queue.entries == [10, 10, 30, 40])
        #expect(queue.items.indices.filter { queue.changed(at: $0, since: before) } == [1, 2, 3])
    }

    /// At 2^31 - 1 the version starts again at 1 and every entry reads as changed, as in MPD.
    @Test func theVersionWraps() {
        var snapshot = Self.queue().snapshot
        snapshot.version = PlayQueue.versionLimit - 1
        var queue = PlayQueue(snapshot: snapshot)
        queue.swap(0, 1)
        #expect(queue.version == 1)
        #expect(queue.items.allSatisfy { $0.version == 0 })
        #expect(queue.items.indices.allSatisfy { queue.changed(at: $0, since: 1) })
    }

    /// Random mode plays the highest priority first, each priority group in its shuffled
    /// order, then the rest; priorities mean nothing in order.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func randomPlaysHigherPrioritiesFirst(seed: UInt64) {
        var queue = Self.queue(PlayOptions(random: true), seed: seed)
        queue.setPriority(5, of: 3..<4)
        queue.setPriority(9, of: 1..<2)
        queue.setPriority(5, of: 4..<5)
        let played = (0..<5).compactMap { _ in queue.next(userInitiated: false) }
        #expect(played[0] == 1)
        #expect(Set(played[1...2]) == [3, 4])
        #expect(Set(played[3...4]) == [0, 2])
        var inOrder = Self.queue()
        inOrder.setPriority(9, of: 4..<5)
        #expect((0..<5).compactMap { _ in inOrder.next(userInitiated: false) } == [0, 1, 2, 3, 4])
    }

    /// An entry played already in this cycle whose priority rises above the current one's is
    /// played again next (MPD re-enqueues it); one that does not rise above it is not.
    @Test func aPlayedEntryRaisedAboveTheCurrentOneIsPlayedAgain() {
        var queue = Self.queue(PlayOptions(random: true), seed: 7)
        let first = queue.next(userInitiated: false)!
        let second = queue.next(userInitiated: false)!
        queue.setPriority(3, of: second..<second + 1)
        var lower = queue
        lower.setPriority(2, of: first..<first + 1)
        #expect(!(0..<3).contains { _ in lower.next(userInitiated: false) == first })
        queue.setPriority(4, of: first..<first + 1)
        #expect(queue.next(userInitiated: false) == first)
    }

    /// The snapshot keeps ids, priorities, versions and the next id; a damaged one (an id
    /// missing, 0, or held twice) gets new ids for the entries in question, marked changed.
    @Test func snapshotsKeepAndRepairIds() {
        var queue = Self.queue()
        queue.setPriority(8, of: 2..<3)
        queue.remove(0..<1)
        #expect(PlayQueue(snapshot: queue.snapshot) == queue)
        var damaged = queue.snapshot
        damaged.items[1].id = 0
        damaged.items[3].id = damaged.items[0].id
        let repaired = PlayQueue(snapshot: damaged)
        #expect(Set(Self.ids(repaired)).count == 4)
        #expect(Self.ids(repaired) == [2, 6, 4, 7])
        #expect(repaired.items[1].priority == 8)
        #expect(repaired.changed(at: 1, since: repaired.version) && repaired.changed(at: 3, since: repaired.version))
        #expect(!repaired.changed(at: 0, since: repaired.version))
        let old = PlayQueue(snapshot: PlayQueue.Snapshot(entries: [5, 5], currentIndex: 1, options: PlayOptions()))
        #expect(Self.ids(old) == [1, 2])
        #expect(old.currentEntry?.id == 2)
    }
}

/// The machine's queue edits address entries, not tracks: with a track queued twice,
/// removing or prioritising one entry leaves the other.
@Suite struct QueueEditEntryTests {
    static func machine(_ options: PlayOptions = PlayOptions()) -> PlayerMachine {
        PlayerMachine(queue: PlayQueue(entries: [10, 20, 10, 30], options: options, seed: 3))
    }

    @Test func removingThePlayingDuplicateGoesOnWithTheNextEntry() {
        var machine = Self.machine()
        _ = machine.handle(.command(.play(index: 2)), now: Instant(nanoseconds: 0))
        let playing = machine.queue.currentEntry!
        _ = machine.handle(.command(.editQueue(.remove(2..<3))), now: Instant(nanoseconds: 0))
        #expect(machine.queue.items.map(\.id) == [1, 2, 4])
        #expect(machine.queue.currentEntry?.id == 4)
        #expect(playing.id == 3)
        #expect(machine.state == .playing)
    }

    @Test func addingAtAPositionIsAnAddThenAMove() {
        var machine = Self.machine()
        let before = machine.queue.version
        _ = machine.handle(.command(.editQueue(.add([50, 60], at: 1))), now: Instant(nanoseconds: 0))
        #expect(machine.queue.entries == [10, 50, 60, 20, 10, 30])
        #expect(machine.queue.items.map(\.id) == [1, 5, 6, 2, 3, 4])
        #expect(machine.queue.version == before + 2)
    }

    /// The gapless follow-up in random mode is the entry with the highest priority.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func theFollowUpHonoursPriorities(seed: UInt64) {
        var machine = PlayerMachine(
            queue: PlayQueue(entries: [10, 20, 10, 30], options: PlayOptions(random: true), seed: seed))
        _ = machine.handle(.command(.play(index: 0)), now: Instant(nanoseconds: 0))
        let actions = machine.handle(
            .command(.editQueue(.prioritize(3..<4, priority: 200))), now: Instant(nanoseconds: 0))
        #expect(actions.contains { if case .setNext(let request?) = $0 { request.trackID == 30 } else { false } })
        _ = machine.handle(.command(.next), now: Instant(nanoseconds: 0))
        #expect(machine.queue.currentEntry?.id == 4)
    }

    @Test func swapKeepsTheCurrentEntryPlaying() {
        var machine = Self.machine()
        _ = machine.handle(.command(.play(index: 1)), now: Instant(nanoseconds: 0))
        _ = machine.handle(.command(.editQueue(.swap(1, 3))), now: Instant(nanoseconds: 0))
        #expect(machine.queue.entries == [10, 30, 10, 20])
        #expect(machine.queue.currentIndex == 3)
        #expect(machine.queue.currentEntry?.id == 2)
    }
}
