import PropertyBased
import TOML
import Testing

@testable import JukeboxCore

/// One edit or move of the queue, from four generated numbers (so it shrinks towards an add
/// of few tracks at small positions). Positions are taken as they come: some are out of
/// range, which must change nothing.
enum QueueStep: Sendable, Equatable, CustomStringConvertible {
    case add(Int)
    case remove(Range<Int>)
    case move(Range<Int>, to: Int)
    case swap(Int, Int)
    /// `reorder` of the range, rotated by the count.
    case reorder(Range<Int>, rotatedBy: Int)
    case prioritize(Range<Int>, UInt8)
    case clear
    case next(userInitiated: Bool)
    case previous
    case jump(Int)
    case leaveCurrent
    case options(PlayOptions)
    /// Persisted and restored (`PlayQueue(snapshot:limit:)`).
    case restore

    /// Every combination of the four flags.
    static let allOptions: [PlayOptions] = [false, true].flatMap { repeatFlag in
        [false, true].flatMap { random in
            SingleMode.allCases.flatMap { single in
                [false, true].map { PlayOptions(repeat: repeatFlag, random: random, single: single, consume: $0) }
            }
        }
    }

    static let kinds = 13

    init(kind: Int, _ a: Int, _ b: Int, _ c: Int) {
        let range = a..<a + max(b, 0)
        switch kind {
        case 0: self = .add(b)
        case 1: self = .remove(range)
        case 2: self = .move(range, to: c)
        case 3: self = .swap(a, c)
        case 4: self = .reorder(range, rotatedBy: c)
        case 5: self = .prioritize(range, UInt8(clamping: c * 40))
        case 6: self = .clear
        case 7: self = .next(userInitiated: c % 2 == 0)
        case 8: self = .previous
        case 9: self = .jump(a)
        case 10: self = .leaveCurrent
        case 11: self = .options(Self.allOptions[(a + 1 + b + c) % Self.allOptions.count])
        default: self = .restore
        }
    }

    /// Steps over a queue of up to ~10 entries: positions -1...10, counts 0...10.
    static let generator = zip(
        Gen.int(in: 0...kinds - 1), Gen.int(in: -1...10), Gen.int(in: 0...10), Gen.int(in: 0...10)
    ).map { QueueStep(kind: $0, $1, $2, $3) }

    /// Whether it is an edit (MPD's version rises) when it changes something.
    var isEdit: Bool {
        switch self {
        case .add, .remove, .move, .swap, .reorder, .prioritize, .clear: true
        case .next, .previous, .jump, .leaveCurrent, .options, .restore: false
        }
    }

    var description: String {
        switch self {
        case .add(let count): "add \(count)"
        case .remove(let range): "remove \(range)"
        case .move(let range, let to): "move \(range) to \(to)"
        case .swap(let a, let b): "swap \(a) \(b)"
        case .reorder(let range, let by): "reorder \(range) rotated by \(by)"
        case .prioritize(let range, let priority): "prio \(priority) \(range)"
        case .clear: "clear"
        case .next(let user): user ? "next" : "advance"
        case .previous: "previous"
        case .jump(let index): "jump \(index)"
        case .leaveCurrent: "leave current"
        case .options(let options): "options \(options)"
        case .restore: "restore"
        }
    }

    /// Applies the step; `nextTrack` numbers the added tracks.
    func apply(to queue: inout PlayQueue, nextTrack: inout TrackID) {
        switch self {
        case .add(let count):
            let tracks = (0..<count).map { nextTrack + TrackID($0) }
            nextTrack += TrackID(count)
            queue.append(tracks)
        case .remove(let range): queue.remove(range)
        case .move(let range, let to): queue.move(range, to: to)
        case .swap(let a, let b): queue.swap(a, b)
        case .reorder(let range, let by):
            let positions = Array(range)
            let order = positions.isEmpty ? [] : positions.indices.map { positions[($0 + by) % positions.count] }
            queue.reorder(range, as: order)
        case .prioritize(let range, let priority): queue.setPriority(priority, of: range)
        case .clear: queue.clear()
        case .next(let user): queue.next(userInitiated: user)
        case .previous: queue.previous()
        case .jump(let index): queue.jump(to: index)
        case .leaveCurrent: queue.leaveCurrent()
        case .options(let options): queue.setOptions(options)
        case .restore: queue = PlayQueue(snapshot: queue.snapshot, limit: queue.limit)
        }
    }
}

/// What must hold of any queue, whatever was done to it: empty when it holds.
func queueInvariantViolations(_ queue: PlayQueue) -> [String] {
    var problems: [String] = []
    let ids = queue.items.map(\.id)
    let positions = Set(queue.items.indices)
    if queue.count > queue.limit { problems.append("\(queue.count) entries past the limit \(queue.limit)") }
    if Set(ids).count != ids.count { problems.append("duplicate ids \(ids)") }
    if !ids.allSatisfy({ (1..<queue.idLimit).contains($0) }) { problems.append("ids out of range \(ids)") }
    if let current = queue.currentIndex, !positions.contains(current) { problems.append("current \(current)") }
    if queue.shuffleOrder.count != queue.count || Set(queue.shuffleOrder) != positions {
        problems.append("shuffle order \(queue.shuffleOrder) is not a permutation of \(queue.count)")
    }
    if !(0...queue.shuffleOrder.count).contains(queue.shuffleCursor) {
        problems.append("shuffle cursor \(queue.shuffleCursor) of \(queue.shuffleOrder.count)")
    }
    if !queue.history.allSatisfy(positions.contains) { problems.append("history \(queue.history)") }
    if queue.history.count > PlayQueue.historyLimit { problems.append("history of \(queue.history.count)") }
    if queue.history.isEmpty ? queue.historyCursor != -1 : !queue.history.indices.contains(queue.historyCursor) {
        problems.append("history cursor \(queue.historyCursor) of \(queue.history.count)")
    }
    // A new queue's entries carry its first version; an edit stamps the version before its own.
    if !queue.items.allSatisfy({ $0.version <= queue.version }) {
        problems.append("an entry stamped after the version")
    }
    return problems
}

/// The queue under any sequence of edits and moves, at any `[queue] max_length`.
@Suite struct QueuePropertyTests {
    static let cases = 1500

    /// A queue limit as the config file gives it.
    static func limit(configured maxLength: Int) throws -> Int {
        let text = "music_dir = \"/m\"\n[queue]\nmax_length = \(maxLength)\n"
        let document = try TOMLParser.parse(text, fileName: "jukebox.toml").get()
        return try #require(ConfigValidator.validate(document) { _ in nil }.config).queue.maxLength
    }

    /// Checks one sequence; returns the first problem (nil: none), naming the step.
    static func check(limit: Int, steps: [QueueStep], seed: UInt64) -> String? {
        var queue = PlayQueue(options: PlayOptions(), seed: seed, limit: limit)
        var nextTrack: TrackID = 1
        for (number, step) in steps.enumerated() {
            let before = queue
            step.apply(to: &queue, nextTrack: &nextTrack)
            let at = "after step \(number) (\(step))"
            if let problem = queueInvariantViolations(queue).first { return "\(at): \(problem)" }
            // Each entry keeps its id, and its track with it.
            let tracksByID = Dictionary(uniqueKeysWithValues: before.items.map { ($0.id, $0.track) })
            for item in queue.items where tracksByID[item.id].map({ $0 != item.track }) ?? false {
                return "\(at): id \(item.id) changed track"
            }
            // The current entry follows its entry through every edit that keeps it.
            if step.isEdit, let current = before.currentEntry, queue.position(ofID: current.id) != nil,
                queue.currentEntry?.id != current.id
            {
                return "\(at): the current entry \(current.id) lost (now \(String(describing: queue.currentEntry)))"
            }
            if step.isEdit, queue.items != before.items || queue.currentIndex != before.currentIndex {
                if queue.version == before.version { return "\(at): an edit left the version" }
            }
            let consumed = step == .next(userInitiated: true) || step == .next(userInitiated: false)
            if !step.isEdit, queue.version != before.version, step != .restore, !(consumed && before.options.consume) {
                return "\(at): a move changed the version"
            }
            if case .restore = step, queue.snapshot != before.snapshot {
                return "\(at): the restored queue differs: \(queue.snapshot) from \(before.snapshot)"
            }
            if case .add(let count) = step {
                let added = queue.count - before.count
                if added != min(count, before.room) { return "\(at): added \(added) of \(count), room \(before.room)" }
            }
        }
        return nil
    }

    /// Ids unique and in range (never exhausted: the generator would trap), positions
    /// consistent, the limit respected, under any sequence of 60 steps at limits 1 to 12.
    @Test func anySequenceKeepsTheQueueConsistent() async throws {
        var ran = 0
        await propertyCheck(
            count: Self.cases,
            input: Gen.int(in: 1...12), QueueStep.generator.array(of: 0...60), Gen.uint64(in: 0...UInt64.max)
        ) { maxLength, steps, seed in
            ran += 1
            let limit = try Self.limit(configured: maxLength)
            #expect(limit == maxLength)
            let problem = Self.check(limit: limit, steps: steps, seed: seed)
            #expect(problem == nil, "limit \(limit): \(problem ?? "")")
        }
        #expect(ran >= Self.cases)
    }

    /// Ids come back only after a lap of `idLimit`: a long run of adds and removes at a
    /// full queue never runs out of them.
    @Test func idsNeverRunOutAtAFullQueue() async {
        await propertyCheck(count: 100, input: Gen.int(in: 1...6), Gen.int(in: 0...5).array(of: 50...400)) {
            limit, removals in
            var queue = PlayQueue(mode: .shuffle, seed: 7, limit: limit)
            var track: TrackID = 0
            for removal in removals {
                track += 1
                queue.append(Array(repeating: track, count: limit))
                queue.remove(at: removal % max(queue.count, 1))
                #expect(queueInvariantViolations(queue).isEmpty)
            }
        }
    }
}
