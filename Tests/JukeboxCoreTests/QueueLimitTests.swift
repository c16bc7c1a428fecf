import JukeboxCore
import Testing

/// The queue holds at most its limit (MPD's `max_playlist_length`): an add past it adds what
/// fits and says so; ids never run out however long entries come and go, and are reused as
/// MPD's id table reuses them.
@Suite struct QueueLimitTests {
    static func ids(_ queue: PlayQueue) -> [UInt32] { queue.items.map(\.id) }

    /// Without a limit a first start on a large library queued every track and handed out
    /// every id; the 65,536th add then looked for a free id forever.
    @Test func theDefaultLimitIsMPDs() {
        var queue = PlayQueue(mode: .inOrder, seed: 1)
        queue.append((1...20_000).map(TrackID.init))
        #expect(queue.count == 16_384)
        #expect(queue.entries == (1...16_384).map(TrackID.init))
        #expect(Set(Self.ids(queue)).count == 16_384)
        #expect(Self.ids(queue).allSatisfy { (1..<65_536).contains($0) })
    }

    /// An add past the limit adds the first tracks that fit, in one edit; a full queue adds
    /// nothing and its version stays.
    @Test func anAddPastTheLimitAddsWhatFits() {
        var queue = PlayQueue(entries: [10, 20], mode: .inOrder, seed: 1, limit: 3)
        #expect(queue.room == 1)
        let version = queue.version
        #expect(queue.append([30, 40, 50]) == 1)
        #expect(queue.entries == [10, 20, 30])
        #expect(queue.version == version + 1)
        #expect(queue.append([60]) == 0)
        let fitted = queue.append(TrackID(70))
        #expect(!fitted)
        #expect(queue.version == version + 1)
        queue.remove(at: 0)
        let fittedAgain = queue.append(TrackID(80))
        #expect(fittedAgain)
        #expect(queue.entries == [20, 30, 80])
        #expect(PlayQueue(entries: [1, 2, 3, 4], mode: .inOrder, seed: 1, limit: 2).entries == [1, 2])
        queue.replaceAll([5, 6, 7, 8])
        #expect(queue.entries == [5, 6, 7])
    }

    /// The machine adds what fits at the end (MPD fails before its move) and says how much
    /// it left out; a full queue adds nothing and says so too.
    @Test func theMachineSaysWhatDidNotFit() {
        var machine = PlayerMachine(queue: PlayQueue(entries: [10, 20], mode: .inOrder, seed: 1, limit: 4))
        let now = Instant(nanoseconds: 0)
        let actions = machine.handle(.command(.editQueue(.add([30, 40, 50], at: 0))), now: now)
        let overflow = QueueOverflow(added: 2, offered: 3, limit: 4)
        #expect(actions.contains(.queueFull(overflow)))
        #expect(machine.queue.entries == [10, 20, 30, 40])
        #expect(overflow.message == "the queue is full: added 2 of 3 tracks (it holds at most 4, [queue] max_length)")
        let full = machine.handle(.command(.editQueue(.add([60], at: nil))), now: now)
        #expect(full == [.queueFull(QueueOverflow(added: 0, offered: 1, limit: 4))])
        // What fits goes where it was asked.
        _ = machine.handle(.command(.editQueue(.remove(0..<1))), now: now)
        let fitting = machine.handle(.command(.editQueue(.add([70], at: 0))), now: now)
        #expect(!fitting.contains { if case .queueFull = $0 { true } else { false } })
        #expect(machine.queue.entries == [70, 20, 30, 40])
    }

    /// A saved queue longer than the limit (a database from before it, or a smaller limit
    /// configured) keeps the limit's worth from the current entry on, or the last ones when
    /// fewer follow it; the shuffle positions follow their entries.
    @Test func aSnapshotPastTheLimitKeepsTheCurrentEntry() {
        let entries = (0..<10).map { TrackID($0 * 10) }
        let options = PlayOptions(random: true)
        var snapshot = PlayQueue.Snapshot(
            entries: entries, currentIndex: 3, options: options, shuffleOrder: [9, 3, 4, 0, 5, 6, 1, 2, 7, 8],
            shuffleCursor: 2, history: [9, 3], historyCursor: 1)
        let queue = PlayQueue(snapshot: snapshot, limit: 4)
        #expect(queue.entries == [30, 40, 50, 60])
        #expect(queue.currentIndex == 0)
        #expect(queue.shuffleOrder == [0, 1, 2, 3])
        #expect(queue.shuffleCursor == 1)
        #expect(queue.history == [0])
        snapshot.currentIndex = 8
        #expect(PlayQueue(snapshot: snapshot, limit: 4).entries == [60, 70, 80, 90])
        #expect(PlayQueue(snapshot: snapshot, limit: 4).currentIndex == 2)
        // Entries without ids (an old database): new ones, within the ids.
        let old = PlayQueue(
            snapshot: PlayQueue.Snapshot(entries: (1...20_000).map(TrackID.init), currentIndex: 0, options: options))
        #expect(old.count == 16_384)
        #expect(Set(Self.ids(old)).count == 16_384)
    }

    /// The player says when it restored fewer entries than were saved.
    @Test func theMachineSaysWhatItDroppedOnRestore() {
        var machine = PlayerMachine(queue: PlayQueue(mode: .inOrder, seed: 1, limit: 2))
        let snapshot = PlayerMachine.Snapshot(
            queue: PlayQueue.Snapshot(entries: [1, 2, 3], currentIndex: 1, options: PlayOptions()), currentTrack: 2,
            positionMs: 0, state: .stopped, volume: 40)
        let actions = machine.handle(.restored(snapshot, onStart: .off), now: Instant(nanoseconds: 0))
        #expect(machine.queue.entries == [2, 3])
        #expect(machine.queue.currentTrack == 2)
        let warning = "the saved queue held 3 entries, past the limit: kept 2, the current one among them"
        #expect(actions.contains(.log(.warning, warning)))
    }

    /// A million deletes and adds on a full queue (a random entry out, a new one in): ids stay
    /// unique and within the id table, and come back as MPD's do: an id is handed out again
    /// only after the turn passed every other id, skipping the ones entries hold.
    @Test func idsNeverRunOut() {
        let limit = 16
        var queue = PlayQueue(entries: (0..<limit).map(TrackID.init), mode: .inOrder, seed: 1, limit: limit)
        let idCount = Int(queue.idLimit) - 1
        #expect(idCount == 4 * limit - 1)
        // Per id: whether an entry holds it, and the add that last handed it out.
        var held = [Bool](repeating: false, count: Int(queue.idLimit))
        var issued = [Int](repeating: -1, count: Int(queue.idLimit))
        for id in Self.ids(queue) { (held[Int(id)], issued[Int(id)]) = (true, 0) }
        var random = SplitMix64(seed: 7)
        var reused = 0
        var problems: [String] = []
        for cycle in 1...1_000_000 {
            let position = random.next(below: limit)
            held[Int(queue.items[position].id)] = false
            queue.remove(at: position)
            guard queue.append(TrackID(cycle)) else {
                problems.append("cycle \(cycle): the add did not fit")
                break
            }
            let id = queue.items[limit - 1].id
            guard (1...UInt32(idCount)).contains(id), !held[Int(id)] else {
                problems.append("cycle \(cycle): id \(id) out of range or held")
                break
            }
            held[Int(id)] = true
            // Between two turns of one id every other id had its turn: handed out, or skipped
            // while an entry held it (at most limit - 1 of them).
            if issued[Int(id)] >= 0 {
                reused += 1
                if cycle - issued[Int(id)] < idCount - limit {
                    problems.append("cycle \(cycle): id \(id) again after \(cycle - issued[Int(id)]) adds")
                    break
                }
            }
            issued[Int(id)] = cycle
        }
        #expect(problems == [])
        #expect(reused > 900_000)
        #expect(Set(Self.ids(queue)).count == limit)
    }
}
