/// What the resume keeper hears about.
public enum ResumeEvent: Sendable, Equatable {
    /// Start-up: the saved state as the database and the journal have it.
    case start(ResumeStart)
    /// The player's `.persist`: `.event` for a pause, seek, skip, volume change, queue or mode
    /// edit, a long track left (its position remembered or forgotten), a track change;
    /// `.progress` for the position moving.
    case changed(PersistKind)
    /// Where to start reading a track to resume it fast, as the pipeline reports it.
    case seekHint(TrackID, SeekHint)
    /// A wake-up of the control loop, with the player as it is now; `positionKnown`: the
    /// pipeline plays the player's current track, so the position is the audio clock's.
    case tick(PlayerMachine.Snapshot, positionKnown: Bool)
    /// A track's first sample reached the device: the journal names it at once.
    case trackStarted(PlayerMachine.Snapshot)
    /// The shutdown button: everything durable now, before the power goes.
    case poweringOff(PlayerMachine.Snapshot)
    /// A clean stop (SIGTERM): everything durable, the position no longer moving.
    case stop(PlayerMachine.Snapshot)
    /// The last transaction failed: what the database holds is not known.
    case saveFailed
}

/// The saved state found on start.
public struct ResumeStart: Sendable, Equatable {
    /// The database's record and queue (nil: none, a first start).
    public var saved: PlayerMachine.Snapshot?
    /// The journal sequence written with the database's record.
    public var savedSequence: UInt64
    /// The newest journal record.
    public var journal: JournalRecord?
    /// Only the card's checkpoint had it: the RAM journal is gone or older, so the machine
    /// restarted (a power cut or a reboot) since it was written.
    public var journalSurvivedRestart: Bool
    /// Long tracks' remembered positions and seek hints, as the database has them.
    public var positions: [TrackID: Int64]
    public var seekHints: [TrackID: SeekHint]
    /// Track durations (ms), for a power cut's shift past a track's end.
    public var durations: [TrackID: Int64]

    public init(
        saved: PlayerMachine.Snapshot?, savedSequence: UInt64, journal: JournalRecord?, journalSurvivedRestart: Bool,
        positions: [TrackID: Int64] = [:], seekHints: [TrackID: SeekHint] = [:], durations: [TrackID: Int64] = [:]
    ) {
        self.saved = saved
        self.savedSequence = savedSequence
        self.journal = journal
        self.journalSurvivedRestart = journalSurvivedRestart
        self.positions = positions
        self.seekHints = seekHints
        self.durations = durations
    }
}

/// Which saved record a start resumes from.
public enum ResumeSource: Sendable, Equatable {
    /// The database's record: no journal record is newer.
    case database
    /// The journal's record as it is: a clean stop (not playing) or a crash (the RAM
    /// record, at most a second old).
    case journal
    /// The card's checkpoint of a power cut while playing, at `checkpointMs`: resumed half a
    /// sync interval after it.
    case powerCut(checkpointMs: Int64)
}

/// What the daemon must do, in order.
public enum ResumeAction: Sendable, Equatable {
    /// The every-second record: one pwrite to RAM.
    case writeRAM(JournalRecord)
    /// The power-cut checkpoint: the record in RAM and on the card, fdatasync'd.
    case writeCheckpoint(JournalRecord)
    /// Rewrite the queue table: entries with their ids, priorities and versions (unsynced;
    /// the commit after it makes it durable).
    case saveQueue([QueueEntry])
    /// A long track's position to keep in the database, with its seek hint.
    case rememberPosition(TrackID, positionMs: Int64, seekHint: SeekHint?)
    case forgetPosition(TrackID)
    /// Commit the playback record, fsync'd when `durable`. Its journal sequence is the one
    /// of the journal write before it in the same list; without one (no current track: the
    /// queue ran out, or its entry was removed), a new number from the journal's counter, so
    /// that every record written before compares older (with 0, the last track's record won
    /// on the next start and the box came back on a track it had left).
    case commit(PlayerMachine.Snapshot, durable: Bool)
    /// Start-up: resume this state.
    case resume(PlayerMachine.Snapshot, from: ResumeSource)
    /// Start-up: nothing to resume (no saved record or an empty queue).
    case startAfresh
}

/// What to save after each event and how durably, as a state machine: events in, actions
/// out, time passed in, no I/O (docs/design/RESUME.md, "Resume and SD-card writes").
///
/// - While the position moves, the RAM record every `journalIntervalMs` and the card's
///   checkpoint every `syncIntervalMs` counted from the last (`CheckpointPolicy`).
/// - After an event, a durable write at once but at most every 2 s; the rest of a burst is
///   saved at once without fsync and made durable when the window closes.
/// - Whatever the journal carries (the queue entry, track, position, volume, playing or
///   paused) costs no transaction; anything else (mode, queue, a skip in shuffle, a stop, a
///   long track's position) is committed to the database, the queue table only when its
///   entries changed.
/// - On start, the newest record wins; a power cut's checkpoint is shifted half an interval.
public struct ResumeKeeper: Sendable, Equatable {
    public let syncIntervalMs: Int64
    private var policy: CheckpointPolicy
    /// An event changed the state since the last save.
    private var eventNotSaved = false
    /// An event changed the state since the last durable commit.
    private var eventSinceDurableSave = false
    /// A transaction was committed without fsync since the last durable one.
    private var commitNotSynced = false
    /// What the database holds (nil until the first save of this run).
    private var saved: PlayerMachine.Snapshot?
    /// The queue's entries as the database has them (nil: not known to be saved). A skip
    /// moves the current entry but leaves these, and the table is not rewritten for it.
    private var savedQueueEntries: [QueueEntry]?
    /// Long tracks' positions as the database has them.
    private var persistedPositions: [TrackID: Int64] = [:]
    /// Where to start reading a track to resume it fast: the current track's latest (it goes
    /// into every journal record) and the long tracks' that keep their own position.
    public private(set) var seekHints: [TrackID: SeekHint] = [:]

    /// `journalIntervalMs`: the RAM record's period; `minimumDurableIntervalMs`: the window
    /// that bounds fsyncs after events.
    public init(syncIntervalMs: Int64, journalIntervalMs: Int64 = 1000, minimumDurableIntervalMs: Int64 = 2000) {
        self.syncIntervalMs = syncIntervalMs
        policy = CheckpointPolicy(
            journalIntervalMs: journalIntervalMs, minimumDurableIntervalMs: minimumDurableIntervalMs,
            syncIntervalMs: syncIntervalMs)
    }

    /// When a tick next has something to write; nil when nothing is pending.
    public var nextDeadline: Instant? { policy.nextDeadline }

    /// While playing: when the position is next worth reading for the journal (a tick then
    /// writes it); nil before the first journal write.
    public var nextPositionRead: Instant? { policy.nextJournalWrite }

    public mutating func handle(_ event: ResumeEvent, now: Instant) -> [ResumeAction] {
        switch event {
        case .start(let start):
            return [restore(start)]
        case .changed(let kind):
            policy.note(kind, now: now)
            if kind == .event {
                eventNotSaved = true
                eventSinceDurableSave = true
            }
            return []
        case .seekHint(let track, let hint):
            seekHints[track] = hint
            return []
        case .tick(let player, let positionKnown):
            if player.state == .playing || player.state == .paused, positionKnown {
                policy.note(.progress, now: now)
            }
            return tick(player, now: now)
        case .trackStarted(let player):
            return journalRecord(player).map { [.writeRAM($0)] } ?? []
        case .poweringOff(let player):
            return save(player, durable: true)
        case .stop(let player):
            return save(player, durable: true, stopping: true)
        case .saveFailed:
            saved = nil
            savedQueueEntries = nil
            return []
        }
    }

    private mutating func tick(_ player: PlayerMachine.Snapshot, now: Instant) -> [ResumeAction] {
        let due = policy.due(now: now)
        if due.durable {
            // The rest of a burst was committed unsynced: this commit syncs it.
            if commitNotSynced || eventSinceDurableSave && !journalCoversChanges(player) {
                return save(player, durable: true)
            }
            // Only the position, the volume or play/pause changed: the journal carries them,
            // so making them durable is one sector and an fdatasync, not a transaction.
            eventNotSaved = false
            eventSinceDurableSave = false
            return journalRecord(player).map { [.writeCheckpoint($0)] } ?? []
        }
        if eventNotSaved {
            // Saved at once for a crash (it reaches the kernel); the fsync follows when the
            // policy's 2 s window closes, so a turning knob costs one fsync, not twenty.
            guard journalCoversChanges(player) else { return save(player, durable: false) }
            eventNotSaved = false
            return journalRecord(player).map { [.writeRAM($0)] } ?? []
        }
        if due.journal { return journalRecord(player).map { [.writeRAM($0)] } ?? [] }
        return []
    }

    /// The journal record for `player` (nil: no current track). `stopping`: the position stops
    /// moving here (a clean exit), so a restart must not add time to it.
    private func journalRecord(_ player: PlayerMachine.Snapshot, stopping: Bool = false) -> JournalRecord? {
        guard let track = player.currentTrack else { return nil }
        return JournalRecord(
            trackID: track, positionMs: player.positionMs, sequence: 0, volume: player.volume,
            queueIndex: player.queue.currentIndex, playing: player.state == .playing && !stopping,
            seekHint: seekHints[track])
    }

    /// Whether everything that changed since the last database save is in the journal
    /// (queue entry, track, position, volume; playing and paused restore alike): a seek, a
    /// pause, a volume change, a skip or a track change outside shuffle. A mode or queue
    /// change, a stop, a skip in shuffle (its cursor and history move), or a long track's
    /// remembered position needs a transaction, and so does leaving the current entry (no
    /// journal record says "none": a stopped `next` past the end was lost on a crash).
    private func journalCoversChanges(_ player: PlayerMachine.Snapshot) -> Bool {
        guard let saved, player.savedPositions == persistedPositions, player.queue.items == savedQueueEntries,
            player.currentTrack != nil || saved.currentTrack == nil
        else { return false }
        func essentials(_ snapshot: PlayerMachine.Snapshot) -> PlayerMachine.Snapshot {
            var snapshot = snapshot
            snapshot.positionMs = 0
            snapshot.volume = 0
            snapshot.savedPositions = [:]
            // The journal has the entry.
            snapshot.queue.currentIndex = nil
            snapshot.currentTrack = nil
            if snapshot.state == .paused { snapshot.state = .playing }
            return snapshot
        }
        return essentials(player) == essentials(saved)
    }

    /// One transaction with everything (fsync'd when `durable`); the queue rides along
    /// (unsynced) only when it changed, and the commit after it makes it durable too (WAL
    /// order). A durable save puts the same record on the card's journal, so that after a
    /// power cut the newest checkpoint still says whether playback was moving on.
    private mutating func save(
        _ player: PlayerMachine.Snapshot, durable: Bool, stopping: Bool = false
    ) -> [ResumeAction] {
        eventNotSaved = false
        if durable { eventSinceDurableSave = false }
        var actions: [ResumeAction] = []
        if let record = journalRecord(player, stopping: stopping) {
            actions.append(durable ? .writeCheckpoint(record) : .writeRAM(record))
        }
        if player.queue.items != savedQueueEntries {
            actions.append(.saveQueue(player.queue.items))
            savedQueueEntries = player.queue.items
        }
        // Long tracks keep their own position (audiobooks); only changed ones are written.
        for (track, position) in player.savedPositions.sorted(by: { $0.key < $1.key })
        where persistedPositions[track] != position {
            actions.append(.rememberPosition(track, positionMs: position, seekHint: seekHints[track]))
            persistedPositions[track] = position
        }
        for track in persistedPositions.keys.sorted() where player.savedPositions[track] == nil {
            actions.append(.forgetPosition(track))
            persistedPositions[track] = nil
        }
        // Hints for the current track and for tracks that keep their own position only.
        seekHints = seekHints.filter { $0.key == player.currentTrack || player.savedPositions[$0.key] != nil }
        actions.append(.commit(player, durable: durable))
        commitNotSynced = !durable
        saved = player
        return actions
    }

    /// The start-up decision. The journal is newer than the last database save after a crash
    /// or a power cut: it has the track, the queue entry, the position and the volume since
    /// then; with the same sequence (a durable save wrote both) it adds whether it moved on.
    private mutating func restore(_ start: ResumeStart) -> ResumeAction {
        persistedPositions = start.positions
        seekHints = start.seekHints
        guard var resumed = start.saved else { return .startAfresh }
        var source = ResumeSource.database
        if let entry = start.journal {
            if let hint = entry.seekHint { seekHints[entry.trackID] = hint }
            if entry.sequence >= start.savedSequence {
                let entries = resumed.queue.entries
                if let index = entry.queueIndex, entries.indices.contains(index), entries[index] == entry.trackID {
                    resumed.queue.currentIndex = index
                } else if entry.trackID != resumed.currentTrack {
                    resumed.queue.currentIndex = entries.firstIndex(of: entry.trackID) ?? resumed.queue.currentIndex
                }
                resumed.currentTrack = entry.trackID
                resumed.positionMs = entry.positionMs
                source = .journal
                if start.journalSurvivedRestart && entry.playing,
                    let duration = start.durations[entry.trackID]
                {
                    afterPowerCut(&resumed, checkpointMs: entry.positionMs, duration: duration, start: start)
                    source = .powerCut(checkpointMs: entry.positionMs)
                }
                if let volume = entry.volume { resumed.volume = volume }
            }
        }
        guard !resumed.queue.entries.isEmpty else { return .startAfresh }
        resumed.savedPositions = start.positions
        return .resume(resumed, from: source)
    }

    /// Where to resume after a power cut while playing. The last checkpoint on the card is
    /// 0 to `sync_interval_s` old, and nothing tells when the power went, so the middle of
    /// that window is the best guess: it puts the resume within half an interval (2 s by
    /// default) either side of where playback stopped, with half the card writes that a
    /// checkpoint every 2 s taken as-is would need for the same bound. Past the track's end
    /// it continues into the track that followed it, as playback did.
    private func afterPowerCut(
        _ resumed: inout PlayerMachine.Snapshot, checkpointMs: Int64, duration: Int64, start: ResumeStart
    ) {
        let shifted = checkpointMs + syncIntervalMs / 2
        if shifted < duration - 500 {
            resumed.positionMs = shifted
            return
        }
        // The largest limit, so that positions stay the snapshot's (the player keeps its
        // limit's worth around the current entry when it restores).
        guard let next = PlayQueue(snapshot: resumed.queue, limit: PlayQueue.maxLimit).following() else {
            // The queue's last track: as close to the shifted guess as its end allows (left at
            // the checkpoint, a cut in its last seconds came back up to a whole interval early).
            resumed.positionMs = max(checkpointMs, min(shifted, duration - 500))
            return
        }
        let track = resumed.queue.entries[next]
        resumed.queue.currentIndex = next
        resumed.currentTrack = track
        let into = max(0, shifted - duration)
        resumed.positionMs = into < (start.durations[track] ?? 0) - 500 ? into : 0
    }
}
