/// Decides when to write the cheap position journal and when to commit a durable (fsync'd)
/// SQLite transaction, bounding both the position lost on power cut and the SD card writes.
///
/// - The journal (pwrite, no fsync) is written every `journalIntervalMs` while the position moves,
///   so a kill loses at most that much.
/// - An event is committed durably at once, but at most one durable commit happens per
///   `minimumDurableIntervalMs`: a burst (a turning volume knob) gives one commit now and one when
///   the window closes, with the latest state.
/// - While playing, a durable commit happens `syncIntervalMs` after the last one.
/// - A durable commit always comes with a journal write, so the journal is never older than the
///   database: on start the daemon may prefer the journal when it names the same track.
///
/// `ResumeKeeper` calls `note` for every `PlayerAction.persist`, then `due(now:)` on every
/// wake-up; the daemon sleeps at most until `nextDeadline`.
public struct CheckpointPolicy: Sendable, Equatable {
    public var journalIntervalMs: Int64
    public var minimumDurableIntervalMs: Int64
    public var syncIntervalMs: Int64

    public private(set) var lastJournal: Instant?
    public private(set) var lastDurable: Instant?
    /// When an event arrived that no durable commit has covered yet.
    public private(set) var pendingEventSince: Instant?
    /// When the position first moved after the last journal write.
    public private(set) var unjournaledProgressSince: Instant?
    /// When the position first moved after the last durable commit.
    public private(set) var undurableProgressSince: Instant?

    /// A policy with the given intervals (the defaults are the documented 2 s / 2 s / 30 s).
    public init(journalIntervalMs: Int64 = 2000, minimumDurableIntervalMs: Int64 = 2000, syncIntervalMs: Int64 = 30_000)
    {
        self.journalIntervalMs = journalIntervalMs
        self.minimumDurableIntervalMs = minimumDurableIntervalMs
        self.syncIntervalMs = syncIntervalMs
    }

    /// Records that something changed.
    public mutating func note(_ kind: PersistKind, now: Instant) {
        switch kind {
        case .event:
            if pendingEventSince == nil { pendingEventSince = now }
        case .progress:
            if unjournaledProgressSince == nil { unjournaledProgressSince = now }
            if undurableProgressSince == nil { undurableProgressSince = now }
        }
    }

    /// What to write now; what it returns counts as written.
    public mutating func due(now: Instant) -> (journal: Bool, durable: Bool) {
        var durable = false
        if let deadline = durableDeadline, deadline <= now {
            durable = true
        }
        var journal = durable
        if let deadline = journalDeadline, deadline <= now {
            journal = true
        }
        if durable {
            lastDurable = now
            pendingEventSince = nil
            undurableProgressSince = nil
        }
        if journal {
            lastJournal = now
            unjournaledProgressSince = nil
        }
        return (journal, durable)
    }

    /// The next instant at which `due(now:)` will have something to write; nil when nothing is pending.
    public var nextDeadline: Instant? {
        switch (journalDeadline, durableDeadline) {
        case (nil, nil): nil
        case (let journal?, nil): journal
        case (nil, let durable?): durable
        case (let journal?, let durable?): min(journal, durable)
        }
    }

    /// When a position that keeps moving is next due in the journal (nil before the first
    /// journal write): reading it more often writes nothing more.
    public var nextJournalWrite: Instant? { lastJournal.map { $0 + journalIntervalMs } }

    private var journalDeadline: Instant? {
        guard let since = unjournaledProgressSince else { return nil }
        guard let last = lastJournal else { return since }
        return max(since, last + journalIntervalMs)
    }

    private var durableDeadline: Instant? {
        var deadline: Instant?
        if let since = pendingEventSince {
            deadline = lastDurable.map { max(since, $0 + minimumDurableIntervalMs) } ?? since
        }
        if let since = undurableProgressSince {
            // Counted from the last durable write, not from the first tick after it: a restart
            // after a power cut relies on the card's checkpoint being at most this old.
            let sync = lastDurable.map { max(since, $0 + syncIntervalMs) } ?? since + syncIntervalMs
            deadline = deadline.map { min($0, sync) } ?? sync
        }
        return deadline
    }
}
