import JukeboxCore
import JukeboxStore
import LinuxSupport
import Logging

// Maps between the core's value types and the store's rows. The core knows nothing of
// SQLite and the store nothing of the player, so the daemon translates.

extension PlayerMachine.Snapshot {
    /// The row to save; `sequence` is the journal write that goes with it.
    func record(sequence: UInt64) -> PlaybackRecord {
        PlaybackRecord(
            queueIndex: queue.currentIndex, trackID: currentTrack, positionMs: positionMs, state: state.rawValue,
            mode: queue.options.description, volume: volume,
            shuffleOrder: queue.shuffleOrder.map(Int64.init), shuffleHistory: queue.history.map(Int64.init),
            rngState: [queue.randomState, UInt64(queue.shuffleCursor), UInt64(bitPattern: Int64(queue.historyCursor))],
            queueVersion: Int64(queue.version), journalSequence: sequence, nextEntryID: queue.nextID)
    }

    /// A snapshot from the saved row and queue. `PlayQueue(snapshot:)` repairs anything
    /// inconsistent, so a damaged row cannot crash the player.
    init(record: PlaybackRecord, queue rows: [QueueRecord], fallbackMode: PlayMode) {
        // The mode column holds the flags as `PlayOptions.description` (a preset's name, as
        // older databases hold, or the flags that are on).
        let words = record.rngState
        let queue = PlayQueue.Snapshot(
            items: rows.map(\.entry), currentIndex: record.queueIndex,
            options: PlayOptions(description: record.mode) ?? PlayOptions(fallbackMode),
            shuffleOrder: record.shuffleOrder.map { Int(truncatingIfNeeded: $0) },
            shuffleCursor: words.count > 1 ? Int(truncatingIfNeeded: words[1]) : 0,
            history: record.shuffleHistory.map { Int(truncatingIfNeeded: $0) },
            historyCursor: words.count > 2 ? Int(truncatingIfNeeded: Int64(bitPattern: words[2])) : -1,
            randomState: words.first ?? 0, version: UInt32(truncatingIfNeeded: record.queueVersion),
            nextID: record.nextEntryID)
        self.init(
            queue: queue, currentTrack: record.trackID, positionMs: record.positionMs,
            state: PlayState(rawValue: record.state) ?? .stopped, volume: record.volume)
    }
}

extension QueueRecord {
    /// An entry without an id (a row from before ids) has id 0: the queue gives it a new one.
    var entry: QueueEntry {
        QueueEntry(
            id: entryID ?? 0, track: trackID, priority: UInt8(clamping: priority), version: version)
    }

    init(_ entry: QueueEntry) {
        self.init(trackID: entry.track, entryID: entry.id, priority: Int(entry.priority), version: entry.version)
    }
}

extension TrackRecord {
    var info: TrackInfo {
        TrackInfo(
            id: id, path: path, title: title, artist: artist, album: album, trackNumber: trackNumber,
            durationMs: durationMs, lyricPath: lyricPath, tags: tags, format: format,
            modifiedSeconds: mtimeNs / 1_000_000_000, cue: cue,
            chapters: ChapterList(chapters, durationMs: durationMs))
    }
}

extension JukeboxCore.LogLevel {
    var swiftLogLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }
}

extension Instant {
    /// The monotonic clock, read here in the shell so that the core never reads one.
    static var now: Instant { Instant(nanoseconds: Int64(MonotonicClock.nanoseconds())) }
}
