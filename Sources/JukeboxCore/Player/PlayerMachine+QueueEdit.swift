/// A change to the queue's entries, as MPD clients make them.
public enum QueueEdit: Sendable, Equatable {
    /// Add tracks at `position` (nil: at the end).
    case add([TrackID], at: Int?)
    /// Remove the entries in `range` (positions).
    case remove(Range<Int>)
    /// Move the entries in `range` so that the first of them lands at `to`.
    case move(Range<Int>, to: Int)
    /// Remove every entry (and stop).
    case clear
    /// Shuffle the entries in `range` once (the current entry keeps playing).
    case shuffle(Range<Int>)
}

extension PlayerMachine {
    /// Applies a queue edit. Removing the playing entry goes on with the entry that takes its
    /// place (or stops at the end); the gapless follow-up is recomputed after every edit.
    /// Ranges must be valid (the protocol layer checks them); invalid ones change nothing.
    mutating func editQueue(_ edit: QueueEdit, into actions: inout [PlayerAction]) {
        switch edit {
        case .add(let tracks, let position):
            guard !tracks.isEmpty else { return }
            let first = queue.count
            queue.append(tracks)
            if let position, position < first {
                for offset in 0..<tracks.count { queue.move(from: first + offset, to: position + offset) }
            }
        case .remove(let range):
            guard range.lowerBound >= 0, range.upperBound <= queue.count, !range.isEmpty else { return }
            let current = queue.currentIndex
            for index in range.reversed() { queue.remove(at: index) }
            if let current, range.contains(current), state != .stopped {
                let wasPaused = state == .paused
                if range.lowerBound < queue.count {
                    queue.jump(to: range.lowerBound)
                    startCurrent(from: resumePosition(for: queue.currentTrack), into: &actions)
                    if wasPaused { pause(into: &actions) }
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
            if to < range.lowerBound {
                for offset in 0..<range.count { queue.move(from: range.lowerBound + offset, to: to + offset) }
            } else if to > range.lowerBound {
                for _ in 0..<range.count { queue.move(from: range.lowerBound, to: to + range.count - 1) }
            }
        case .clear:
            if state != .stopped {
                leaveCurrentTrack()
                stop(into: &actions)
            }
            queue.clear()
            positionMs = 0
        case .shuffle(let range):
            guard range.lowerBound >= 0, range.upperBound <= queue.count, range.count > 1 else { return }
            var generator = SplitMix64(seed: queue.random.state ^ queue.version)
            var order = Array(range)
            generator.shuffle(&order)
            var entries = queue.entries
            let picked = order.map { entries[$0] }
            entries.replaceSubrange(range, with: picked)
            let currentSlot = queue.currentIndex.flatMap { index in
                range.contains(index) ? order.firstIndex(of: index).map { range.lowerBound + $0 } : index
            }
            queue.replaceAll(entries)
            if let currentSlot { queue.jump(to: currentSlot) }
        }
        if currentRequest != nil { refreshFollowUp(into: &actions, always: true) }
        actions.append(.persist(.event))
    }
}
