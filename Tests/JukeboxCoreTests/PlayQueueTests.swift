import Testing

@testable import JukeboxCore

@Suite struct PlayQueueTests {
    struct Walk: Sendable, CustomTestStringConvertible {
        var mode: PlayMode
        var count: Int
        var start: Int?
        var userInitiated: Bool
        var expected: [Int?]
        var testDescription: String {
            "\(mode.rawValue) n=\(count) from \(String(describing: start)) user=\(userInitiated)"
        }
    }

    @Test(arguments: [
        Walk(mode: .inOrder, count: 3, start: nil, userInitiated: false, expected: [0, 1, 2, nil, 0]),
        Walk(mode: .inOrder, count: 3, start: 1, userInitiated: true, expected: [2, nil, 0]),
        Walk(mode: .repeatAll, count: 3, start: nil, userInitiated: false, expected: [0, 1, 2, 0, 1]),
        Walk(mode: .repeatAll, count: 1, start: 0, userInitiated: false, expected: [0, 0]),
        Walk(mode: .repeatOne, count: 3, start: 1, userInitiated: false, expected: [1, 1, 1]),
        Walk(mode: .repeatOne, count: 3, start: 1, userInitiated: true, expected: [2, 0, 1]),
        Walk(mode: .repeatOne, count: 3, start: nil, userInitiated: false, expected: [0, 0]),
        Walk(mode: .inOrder, count: 0, start: nil, userInitiated: true, expected: [nil, nil]),
        Walk(mode: .shuffle, count: 0, start: nil, userInitiated: true, expected: [nil]),
    ])
    func nextWalks(walk: Walk) {
        var queue = PlayQueue(entries: (0..<walk.count).map { TrackID($0 + 100) }, mode: walk.mode, seed: 1)
        if let start = walk.start { queue.jump(to: start) }
        var seen: [Int?] = []
        for _ in walk.expected {
            let predicted = queue.following()
            let index = queue.next(userInitiated: walk.userInitiated)
            if !walk.userInitiated { #expect(predicted == index) }
            seen.append(index)
            #expect(queue.currentIndex == index)
        }
        #expect(seen == walk.expected)
    }

    @Test(arguments: [
        (PlayMode.inOrder, 0, Int?.none, 0),
        (.inOrder, 2, 1, 1),
        (.repeatAll, 0, 3, 3),
        (.repeatOne, 0, 3, 3),
        (.repeatAll, 2, 1, 1),
    ])
    func previousInSequentialModes(mode: PlayMode, start: Int, expected: Int?, currentAfter: Int) {
        var queue = PlayQueue(entries: [1, 2, 3, 4], mode: mode, seed: 1)
        queue.jump(to: start)
        #expect(queue.previous() == expected)
        #expect(queue.currentIndex == currentAfter)
    }

    @Test(arguments: [1, 2, 3, 17, 50])
    func shufflePlaysEveryEntryOncePerCycle(count: Int) {
        var queue = PlayQueue(entries: (0..<count).map { TrackID($0) }, mode: .shuffle, seed: UInt64(count))
        var previous: Int?
        for _ in 0..<4 {
            var cycle: [Int] = []
            for _ in 0..<count {
                let index = queue.next(userInitiated: false)!
                if count > 1 { #expect(index != previous) }
                previous = index
                cycle.append(index)
            }
            #expect(cycle.sorted() == Array(0..<count))
        }
    }

    @Test func shuffleWalksBackThroughWhatWasPlayedAndForwardAgain() {
        var queue = PlayQueue(entries: Array(1...10), mode: .shuffle, seed: 99)
        var played: [Int] = []
        for _ in 0..<15 { played.append(queue.next(userInitiated: true)!) }
        for expected in played.dropLast().reversed().prefix(12) {
            #expect(queue.previous() == expected)
        }
        let back = queue.currentIndex
        let replay = (0..<5).map { _ in queue.next(userInitiated: true) }
        let position = played.firstIndex(of: back!)!
        #expect(replay.map { $0! } == Array(played[(position + 1)...].prefix(5)))
    }

    @Test(arguments: [(PlayMode.inOrder, Int?.none), (.repeatAll, 0), (.repeatOne, 2)])
    func followingInAnotherModeChangesNothing(mode: PlayMode, expected: Int?) {
        var queue = PlayQueue(entries: [1, 2, 3], mode: .inOrder, seed: 1)
        queue.jump(to: 2)
        let before = queue
        #expect(queue.following(with: PlayOptions(mode)) == expected)
        #expect(queue == before)
    }

    @Test func shuffleWalkBackStopsAtTheStart() {
        var queue = PlayQueue(entries: [1, 2, 3], mode: .shuffle, seed: 5)
        let first = queue.next(userInitiated: true)
        #expect(queue.previous() == nil)
        #expect(queue.currentIndex == first)
    }

    @Test func shuffleIsDeterministicForASeedAndDiffersAcrossSeeds() {
        func order(seed: UInt64) -> [Int] {
            var queue = PlayQueue(entries: Array(1...20), mode: .shuffle, seed: seed)
            return (0..<40).map { _ in queue.next(userInitiated: false)! }
        }
        #expect(order(seed: 1) == order(seed: 1))
        #expect(order(seed: 1) != order(seed: 2))
    }

    @Test func snapshotRestoresTheSameFuture() {
        var queue = PlayQueue(entries: Array(1...12), mode: .shuffle, seed: 3)
        for _ in 0..<17 { queue.next(userInitiated: false) }
        queue.previous()
        var restored = PlayQueue(snapshot: queue.snapshot)
        #expect(restored == queue)
        for _ in 0..<30 {
            #expect(restored.next(userInitiated: false) == queue.next(userInitiated: false))
        }
    }

    @Test func jumpInShuffleIsNotDrawnAgainInTheCycle() {
        var queue = PlayQueue(entries: Array(1...6), mode: .shuffle, seed: 11)
        queue.jump(to: 4)
        var rest: [Int] = []
        for _ in 0..<5 { rest.append(queue.next(userInitiated: false)!) }
        #expect(!rest.contains(4))
        #expect(Set(rest).count == 5)
        #expect(queue.history.first == 4)
    }

    @Test func enteringShuffleCountsTheCurrentEntryAsPlayed() {
        var queue = PlayQueue(entries: Array(1...5), mode: .inOrder, seed: 2)
        queue.jump(to: 2)
        queue.setOptions(PlayOptions(.shuffle))
        let rest = (0..<4).map { _ in queue.next(userInitiated: false)! }
        #expect(Set(rest) == [0, 1, 3, 4])
        for expected in rest.dropLast().reversed() { #expect(queue.previous() == expected) }
        #expect(queue.previous() == 2)
    }

    /// MPD's queue version: one step per edit; playing through the queue, the flags and a
    /// look ahead change nothing.
    @Test func versionRisesOncePerEdit() {
        var queue = PlayQueue(entries: [1, 2, 3], seed: 1)
        var last = queue.version
        func raised(_ change: (inout PlayQueue) -> Void) -> UInt32 {
            change(&queue)
            defer { last = queue.version }
            return queue.version - last
        }
        #expect(raised { $0.append([4, 4]) } == 1)
        #expect(raised { $0.jump(to: 1) } == 0)
        #expect(raised { $0.next(userInitiated: true) } == 0)
        #expect(raised { $0.previous() } == 0)
        #expect(raised { $0.setOptions(PlayOptions(.shuffle)) } == 0)
        #expect(raised { _ = $0.following() } == 0)
        #expect(raised { $0.move(0..<2, to: 3) } == 1)
        #expect(raised { $0.swap(0, 4) } == 1)
        #expect(raised { $0.setPriority(7, of: 0..<2) } == 1)
        #expect(raised { $0.setPriority(7, of: 0..<2) } == 1)
        #expect(raised { $0.remove(0..<2) } == 1)
        #expect(raised { $0.replaceAll([9, 8]) } == 1)
        #expect(raised { $0.clear() } == 1)
        #expect(raised { $0.jump(to: 5) } == 0)
        #expect(raised { $0.move(0..<1, to: 0) } == 0)
    }

    struct Edit: Sendable, CustomTestStringConvertible {
        var name: String
        var apply: @Sendable (inout PlayQueue) -> Void
        var entries: [TrackID]
        var current: Int?
        var testDescription: String { name }
    }

    @Test(arguments: [
        Edit(name: "remove before current", apply: { $0.remove(at: 0) }, entries: [20, 30, 40], current: 1),
        Edit(name: "remove current", apply: { $0.remove(at: 2) }, entries: [10, 20, 40], current: nil),
        Edit(name: "remove after current", apply: { $0.remove(at: 3) }, entries: [10, 20, 30], current: 2),
        Edit(name: "remove out of range", apply: { $0.remove(at: 9) }, entries: [10, 20, 30, 40], current: 2),
        Edit(name: "move current forward", apply: { $0.move(from: 2, to: 3) }, entries: [10, 20, 40, 30], current: 3),
        Edit(name: "move over current", apply: { $0.move(from: 0, to: 3) }, entries: [20, 30, 40, 10], current: 1),
        Edit(name: "move to front", apply: { $0.move(from: 3, to: 0) }, entries: [40, 10, 20, 30], current: 3),
        Edit(name: "append", apply: { $0.append([50, 60]) }, entries: [10, 20, 30, 40, 50, 60], current: 2),
        Edit(name: "clear", apply: { $0.clear() }, entries: [], current: nil),
    ])
    func editsKeepTheCurrentTrack(edit: Edit) {
        for mode in PlayMode.allCases {
            var queue = PlayQueue(entries: [10, 20, 30, 40], mode: mode, seed: 4)
            queue.next(userInitiated: true)
            queue.jump(to: 2)
            edit.apply(&queue)
            #expect(queue.entries == edit.entries)
            #expect(queue.currentIndex == edit.current)
            #expect(queue.shuffleOrder.sorted() == Array(queue.entries.indices))
            #expect(queue.history.allSatisfy { queue.entries.indices.contains($0) })
            for _ in 0..<10 { queue.next(userInitiated: false) }
            for _ in 0..<10 { queue.previous() }
        }
    }

    @Test func shuffleAfterAppendDrawsTheNewEntries() {
        var queue = PlayQueue(entries: [1, 2, 3], mode: .shuffle, seed: 8)
        queue.next(userInitiated: false)
        queue.append([4, 5])
        let rest = (0..<4).map { _ in queue.next(userInitiated: false)! }
        #expect(Set(rest + [queue.history[0]]) == [0, 1, 2, 3, 4])
    }

    struct Broken: Sendable, CustomTestStringConvertible {
        var name: String
        var snapshot: PlayQueue.Snapshot
        var current: Int?
        var testDescription: String { name }
    }

    @Test(arguments: [
        Broken(
            name: "current out of range",
            snapshot: .init(entries: [1, 2], currentIndex: 7, options: PlayOptions(.repeatAll)), current: nil),
        Broken(
            name: "negative current",
            snapshot: .init(entries: [1, 2], currentIndex: -1, options: PlayOptions(.inOrder)), current: nil),
        Broken(
            name: "garbage shuffle",
            snapshot: .init(
                entries: [1, 2, 3], currentIndex: 1, options: PlayOptions(.shuffle), shuffleOrder: [5, 1, 1, -3, 0],
                shuffleCursor: 99,
                history: [8, 2, 2, -1], historyCursor: 40, randomState: 77),
            current: 1),
        Broken(
            name: "negative cursors",
            snapshot: .init(
                entries: [1, 2, 3], currentIndex: 0, options: PlayOptions(.shuffle), shuffleOrder: [2, 1, 0],
                shuffleCursor: -4,
                history: [0], historyCursor: -9),
            current: 0),
        Broken(
            name: "empty with leftovers",
            snapshot: .init(
                entries: [], currentIndex: 0, options: PlayOptions(.shuffle), shuffleOrder: [0, 1], shuffleCursor: 1,
                history: [0],
                historyCursor: 0),
            current: nil),
    ])
    func restoringInconsistentSnapshotsNeverTraps(broken: Broken) {
        var queue = PlayQueue(snapshot: broken.snapshot)
        #expect(queue.currentIndex == broken.current)
        #expect(queue.shuffleOrder.sorted() == Array(queue.entries.indices))
        #expect((0...queue.shuffleOrder.count).contains(queue.shuffleCursor))
        for mode in PlayMode.allCases {
            queue.setOptions(PlayOptions(mode))
            for _ in 0..<8 {
                if let index = queue.next(userInitiated: false) { #expect(queue.entries.indices.contains(index)) }
                _ = queue.following()
            }
            for _ in 0..<8 {
                if let index = queue.previous() { #expect(queue.entries.indices.contains(index)) }
            }
        }
    }
}
