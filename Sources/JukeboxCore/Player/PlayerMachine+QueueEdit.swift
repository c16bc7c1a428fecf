/// A change to the queue's entries, as MPD clients make them.
public enum QueueEdit: Sendable, Equatable {
    /// Add tracks at `position` (nil: at the end). Past the queue's limit only the first
    /// tracks that fit are added, and at the end (MPD adds what fits, then fails before its move).
    case add([TrackID], at: Int?)
    /// Remove the entries in `range` (positions).
    case remove(Range<Int>)
    /// Move the entries in `range` so that the first of them lands at `to`.
    case move(Range<Int>, to: Int)
    /// Remove every entry (and stop).
    case clear
    /// Shuffle the entries in `range` once, as MPD: a playing or paused current entry in it
    /// goes first and the rest is shuffled after it; stopped, there is no current entry after.
    case shuffle(Range<Int>)
    /// No current entry afterwards (MPD's `random 1` while stopped); no entry changes.
    case leaveCurrent
    /// Exchange two entries (positions).
    case swap(Int, Int)
    /// Set the priority of the entries in `range` (random mode plays higher ones first).
    case prioritize(Range<Int>, priority: UInt8)
}

extension PlayerMachine {
    /// Applies a queue edit. Removing the playing entry goes on with the entry that takes its
    /// place (or stops at the end); the gapless follow-up is recomputed after every edit.
    /// Ranges must be valid (the protocol layer checks them); invalid ones change nothing.
    /// Entries keep their ids through every edit; added tracks get new ones. Each edit raises
    /// the queue version once, as MPD's; an add at a position is MPD's add then move (twice).
    mutating func editQueue(_ edit: QueueEdit, into actions: inout [PlayerAction]) {
        switch edit {
        case .add(let tracks, let position):
            guard !tracks.isEmpty else { return }
            let first = queue.count
            let added = queue.append(tracks)
            if added < tracks.count {
                actions.append(.queueFull(QueueOverflow(added: added, offered: tracks.count, limit: queue.limit)))
                if added == 0 { return }
            } else if let position, position < first {
                queue.move(first..<queue.count, to: position)
            }
        case .remove(let range):
            guard range.lowerBound >= 0, range.upperBound <= queue.count, !range.isEmpty else { return }
            let current = queue.currentIndex
            queue.remove(range)
            if let current, range.contains(current), state != .stopped {
                // As MPD: the entry after it becomes current, playing on, or stopped when paused.
                if range.lowerBound < queue.count {
                    queue.jump(to: range.lowerBound)
                    if state == .paused {
                        stop(into: &actions)
                    } else {
                        startCurrent(from: resumePosition(for: queue.currentTrack), into: &actions)
                    }
                } else {
                    stop(into: &actions)
                }
            } else if let current, range.contains(current) {
                positionMs = 0
            }
        case .move(let range, let to):
            guard range.lowerBound >= 0, range.upperBound <= queue.count, !range.isEmpty, to >= 0,
                to + range.count <= queue.count
            else { return }
            queue.move(range, to: to)
        case .clear:
            if state != .stopped {
                leaveCurrentTrack()
                stop(into: &actions)
            }
            queue.clear()
            positionMs = 0
        case .shuffle(let range):
            guard range.lowerBound >= 0, range.upperBound <= queue.count, range.count > 1 else { return }
            var generator = SplitMix64(seed: queue.random.state ^ UInt64(queue.version))
            var first: [Int] = []
            if state == .stopped {
                queue.leaveCurrent()
            } else if let current = queue.currentIndex, range.contains(current) {
                first = [current]
            }
            var rest = range.filter { !first.contains($0) }
            generator.shuffle(&rest)
            queue.reorder(range, as: first + rest)
        case .leaveCurrent:
            guard state == .stopped else { return }
            queue.leaveCurrent()
        case .swap(let first, let second):
            guard queue.items.indices.contains(first), queue.items.indices.contains(second) else { return }
            queue.swap(first, second)
        case .prioritize(let range, let priority):
            queue.setPriority(priority, of: range)
        }
        if currentRequest != nil { refreshFollowUp(into: &actions, always: true) }
        actions.append(.persist(.event))
    }
}

/// An add that went past the queue's limit: how many of the tracks offered it added.
public struct QueueOverflow: Sendable, Equatable {
    public var added: Int
    public var offered: Int
    /// The queue's limit (`[queue] max_length`).
    public var limit: Int

    public init(added: Int, offered: Int, limit: Int) {
        self.added = added
        self.offered = offered
        self.limit = limit
    }

    /// One line for the log and the console.
    public var message: String {
        "the queue is full: added \(added) of \(offered) tracks (it holds at most \(limit), [queue] max_length)"
    }

    /// The screen's brief message (16 cells).
    public var screenText: String { "Queue full" }
}
