import Testing

@testable import JukeboxCore

/// The rules of docs/design/RESUME.md, one table row each, on a manual
/// clock: a player run as the daemon runs it, the keeper deciding, and a pretend card and
/// database performing the writes as the daemon does.
@Suite struct ResumeKeeperTests {
    static let minute: Int64 = 60_000
    static let tracks: [TrackInfo] = [
        TrackInfo(id: 101, path: "a.mp3", durationMs: 3 * minute),
        TrackInfo(id: 102, path: "b.mp3", durationMs: 4 * minute),
        TrackInfo(id: 103, path: "c.mp3", durationMs: 20 * minute),
        TrackInfo(id: 104, path: "d.mp3", durationMs: 2 * minute),
    ]
    static let durations = Dictionary(uniqueKeysWithValues: tracks.map { ($0.id, $0.durationMs ?? 0) })
    static let hint = SeekHint(mpegFrame: 11_000, byteOffset: 4_000_000, fileSize: 50_000_000)

    /// What reached the journals and the database, written as the daemon writes them.
    struct Media {
        struct Saved {
            var snapshot: PlayerMachine.Snapshot
            var sequence: UInt64
            var positions: [TrackID: Int64] = [:]
            var hints: [TrackID: SeekHint] = [:]
        }
        var ram: JournalRecord?
        var card: JournalRecord?
        /// Committed: survives a kill (the page cache has it), not a power cut.
        var committed: Saved?
        /// Committed and fsync'd (with every commit before it: WAL order).
        var durable: Saved?
        var sequence: UInt64 = 0

        mutating func perform(_ actions: [ResumeAction]) {
            var written: UInt64?
            var pending =
                committed
                ?? Saved(
                    snapshot: PlayerMachine.Snapshot(
                        queue: PlayQueue(entries: [], mode: .inOrder, seed: 1).snapshot, currentTrack: nil,
                        positionMs: 0, state: .stopped, volume: 0),
                    sequence: 0)
            for action in actions {
                switch action {
                case .writeRAM(var record):
                    sequence += 1
                    record.sequence = sequence
                    ram = record
                    written = sequence
                case .writeCheckpoint(var record):
                    sequence += 1
                    record.sequence = sequence
                    (ram, card) = (record, record)
                    written = sequence
                case .saveQueue: break  // the snapshot in the commit carries the entries
                case .rememberPosition(let track, let positionMs, let hint):
                    pending.positions[track] = positionMs
                    pending.hints[track] = hint
                case .forgetPosition(let track):
                    pending.positions[track] = nil
                    pending.hints[track] = nil
                case .commit(let snapshot, let isDurable):
                    pending.snapshot = snapshot
                    if written == nil { sequence += 1 }
                    pending.sequence = written ?? sequence
                    committed = pending
                    if isDurable { durable = pending }
                case .resume, .startAfresh: break
                }
            }
        }
    }

    /// How the run ends before the restart.
    enum Ending: Sendable, CaseIterable {
        /// SIGTERM: the keeper's stop is written.
        case cleanStop
        /// `kill -9`: the RAM journal and the page cache survive.
        case crash
        /// The RAM and every write not fsync'd are lost.
        case powerCut
    }

    /// The box on a manual clock. The pipeline starts each request at once and plays in real
    /// time; the loop wakes every 250 ms while playing and at the keeper's deadlines.
    struct Box {
        var machine: PlayerMachine
        var keeper: ResumeKeeper
        var media = Media()
        var now: Int64 = 0
        /// Where the audio really is in the current track.
        var playedMs: Int64 = 0
        var writes: [(at: Int64, action: ResumeAction)] = []

        init(
            mode: PlayMode = .inOrder, syncIntervalMs: Int64 = 4000, startAt index: Int? = nil
        ) {
            machine = PlayerMachine(
                configuration: .init(longTrackMs: 10 * ResumeKeeperTests.minute),
                queue: PlayQueue(entries: [101, 102, 103, 104], mode: mode, seed: 1))
            _ = machine.handle(.tracksDescribed(ResumeKeeperTests.tracks), now: .zero)
            keeper = ResumeKeeper(syncIntervalMs: syncIntervalMs)  // the daemon's intervals
            run(.play(index: index))
        }

        var instant: Instant { .milliseconds(now) }

        mutating func perform(_ actions: [ResumeAction]) {
            writes += actions.map { (now, $0) }
            media.perform(actions)
        }

        /// The player's actions as the daemon and the pipeline carry them out.
        mutating func feed(_ actions: [PlayerAction]) {
            var started: [UInt64] = []
            for action in actions {
                switch action {
                case .persist(let kind): _ = keeper.handle(.changed(kind), now: instant)
                case .startPlayback(let request):
                    playedMs = request.fromMs
                    started.append(request.token)
                case .seek(let ms): playedMs = ms
                default: break
                }
            }
            for token in started {
                feed(machine.handle(.started(token: token), now: instant))
                perform(keeper.handle(.trackStarted(machine.snapshot), now: instant))
            }
        }

        /// A command, then the loop's tick (as after every wake-up).
        mutating func run(_ command: Command) {
            feed(machine.handle(.command(command), now: instant))
            tick()
        }

        mutating func tick() {
            let positionKnown = machine.currentRequest != nil
            if positionKnown, machine.state != .stopped {
                feed(machine.handle(.position(ms: playedMs), now: instant))
            }
            perform(keeper.handle(.tick(machine.snapshot, positionKnown: positionKnown), now: instant))
        }

        /// When the loop wakes next: every 250 ms while playing, and at the keeper's deadline.
        var nextWake: Int64 {
            let wake = now + (machine.state == .playing ? 250 : 60_000)
            guard let deadline = keeper.nextDeadline else { return wake }
            return min(wake, max(now + 1, deadline.nanoseconds / 1_000_000))
        }

        /// Plays on for `ms`; a track's end starts the follow-up, gaplessly.
        mutating func play(for ms: Int64) {
            let end = now + ms
            while now < end {
                let wake = min(end, nextWake)
                if machine.state == .playing { playedMs += wake - now }
                now = wake
                let duration = machine.currentRequest.flatMap { ResumeKeeperTests.durations[$0.trackID] } ?? .max
                if playedMs >= duration, let current = machine.currentRequest, let next = machine.nextRequest {
                    playedMs -= duration
                    feed(machine.handle(.finished(token: current.token), now: instant))
                    feed(machine.handle(.started(token: next.token), now: instant))
                    perform(keeper.handle(.trackStarted(machine.snapshot), now: instant))
                }
                tick()
            }
        }

        /// Forgets the writes so far: a row looks at what its own event causes.
        mutating func settle() {
            play(for: 10_000)
            writes = []
        }

        func times(_ matching: (ResumeAction) -> Bool) -> [Int64] { writes.filter { matching($0.action) }.map(\.at) }
        /// The RAM record's writes (a checkpoint writes it too).
        var ramWrites: [Int64] {
            times {
                switch $0 {
                case .writeRAM, .writeCheckpoint: true
                default: false
                }
            }
        }
        var checkpoints: [Int64] { times { if case .writeCheckpoint = $0 { true } else { false } } }
        var commits: [(at: Int64, durable: Bool)] {
            writes.compactMap { if case .commit(_, let durable) = $0.action { ($0.at, durable) } else { nil } }
        }
        var queueWrites: [Int64] { times { if case .saveQueue = $0 { true } else { false } } }

        /// The restart after `ending`, `gapMs` after the last wake-up but before the next (the
        /// audio moved on until then): what the new keeper resumes, and where the audio was.
        mutating func restart(after ending: Ending, gapMs: Int64 = 0) -> (
            resumed: ResumeAction, track: TrackID?, positionMs: Int64
        ) {
            if machine.state == .playing { playedMs += min(gapMs, nextWake - now - 1) }
            let truth = (machine.queue.currentTrack, playedMs)
            var journal: JournalRecord?
            var survived = false
            var saved = media.committed
            switch ending {
            case .cleanStop, .crash:
                if ending == .cleanStop { perform(keeper.handle(.stop(machine.snapshot), now: instant)) }
                saved = media.committed
                if let card = media.card, card.sequence > media.ram?.sequence ?? 0 {
                    (journal, survived) = (card, true)
                } else {
                    journal = media.ram
                }
            case .powerCut:
                saved = media.durable
                (journal, survived) = (media.card, true)
            }
            var fresh = ResumeKeeper(syncIntervalMs: keeper.syncIntervalMs)
            let start = ResumeStart(
                saved: saved?.snapshot, savedSequence: saved?.sequence ?? 0, journal: journal,
                journalSurvivedRestart: survived, positions: saved?.positions ?? [:], seekHints: saved?.hints ?? [:],
                durations: ResumeKeeperTests.durations)
            let resumed = fresh.handle(.start(start), now: .zero)
            return (resumed.first ?? .startAfresh, truth.0, truth.1)
        }
    }

    // MARK: - writes while playing

    @Test func theRAMRecordIsWrittenEverySecondWhilePlaying() {
        var box = Box()
        box.settle()
        box.play(for: 10_000)
        #expect(box.ramWrites.count >= 9)
        let gaps = zip(box.ramWrites.dropFirst(), box.ramWrites).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 <= 1000 }, "\(gaps)")
        // stopped: the position does not move, nothing is rewritten
        box.run(.stop)
        box.play(for: 5000)
        box.writes = []
        box.play(for: 10_000)
        #expect(box.writes.isEmpty)
    }

    @Test(arguments: [Int64(4000), 8000, 30_000])
    func theCardCheckpointComesEverySyncIntervalCountedFromTheLast(syncIntervalMs: Int64) {
        var box = Box(syncIntervalMs: syncIntervalMs)
        box.settle()
        box.play(for: 4 * syncIntervalMs)
        let gaps = zip(box.checkpoints.dropFirst(), box.checkpoints).map { $0 - $1 }
        #expect(box.checkpoints.count >= 3)
        #expect(gaps.allSatisfy { $0 == syncIntervalMs }, "\(gaps)")
        // the position alone costs no transaction
        #expect(box.commits.isEmpty)
    }

    /// Each of these is a user's action the journal carries: a durable checkpoint at once and
    /// no database transaction.
    static let journalEvents: [(String, Command)] = [
        ("pause", .pause), ("seek", .seek(.absolute(ms: 100_000))), ("seek back", .seek(.relative(ms: -5000))),
        ("next", .next), ("previous", .previous), ("volume", .changeVolume(5)), ("play entry 3", .play(index: 2)),
    ]

    @Test(arguments: journalEvents)
    func anEventIsCheckpointedAtOnceWithoutATransaction(name: String, command: Command) {
        var box = Box()
        box.settle()
        box.play(for: 200)  // the last checkpoint (8 s) is 2 s old or more: the window is open
        let at = box.now
        box.run(command)
        #expect(box.checkpoints == [at], "\(name)")
        // a second event within 2 s waits for the window, saved at once for a crash
        box.play(for: 200)
        let second = box.now
        box.run(.changeVolume(-3))
        box.play(for: 6000)
        #expect(Array(box.checkpoints.prefix(2)) == [at, at + 2000], "\(name): \(box.checkpoints)")
        if box.machine.state == .playing {
            #expect(box.checkpoints.dropFirst(2).first == at + 6000, "\(name): the next counts from the last")
        }
        #expect(box.ramWrites.contains(second), "\(name)")
        #expect(box.commits.isEmpty, "\(name): \(box.commits)")
    }

    @Test func aTrackChangeCostsNoTransaction() {
        var box = Box()
        box.settle()
        box.play(for: 3 * Self.minute)
        #expect(box.machine.queue.currentTrack == 102)
        #expect(box.commits.isEmpty)
        #expect(box.ramWrites.count > 150)
    }

    @Test func aBurstGivesOneDurableWriteNowAndOneWhenTheWindowCloses() {
        var box = Box()
        box.settle()
        box.play(for: 200)
        let at = box.now
        for _ in 0..<20 {
            box.run(.changeVolume(1))
            box.play(for: 50)
        }
        box.play(for: 3000)
        #expect(box.checkpoints.filter { $0 < at + 4000 } == [at, at + 2000])
        #expect(box.machine.volume == 60)
        #expect(box.media.card?.volume == 60)
        // every change after the first reached the RAM record at once
        #expect(Set(box.ramWrites).isSuperset(of: stride(from: at + 50, through: at + 950, by: 50)))
        #expect(box.commits.isEmpty)
    }

    /// These need the database: a transaction at once, fsync'd.
    static let transactionEvents: [(String, PlayMode, Command)] = [
        ("mode", .inOrder, .setMode(.repeatAll)),
        ("cycle mode", .inOrder, .cycleMode),
        ("skip in shuffle", .shuffle, .next),
        ("stop", .inOrder, .stop),
        ("queue add", .inOrder, .editQueue(.add([104], at: nil))),
        ("queue move", .inOrder, .editQueue(.move(2..<3, to: 0))),
    ]

    @Test(arguments: transactionEvents)
    func aModeQueueOrShuffleChangeIsCommittedDurablyAtOnce(name: String, mode: PlayMode, command: Command) {
        var box = Box(mode: mode)
        box.settle()
        box.play(for: 200)
        let at = box.now
        box.run(command)
        #expect(box.commits.first.map { [$0.at: $0.durable] } == [at: true], "\(name): \(box.commits)")
        #expect(box.checkpoints.first == at, "\(name)")
        let queueChanged = if case .editQueue = command { true } else { false }
        #expect(box.queueWrites == (queueChanged ? [at] : []), "\(name): the queue table only when its entries change")
    }

    @Test func aBurstOfTransactionsIsFsyncedOncePerWindowTheRestUnsynced() {
        var box = Box()
        box.settle()
        box.play(for: 200)
        let at = box.now
        for _ in 0..<3 {
            box.run(.cycleMode)
            box.play(for: 100)
        }
        box.play(for: 3000)
        let early = box.commits.filter { $0.at < at + 3000 }
        #expect(early.map(\.at) == [at, at + 100, at + 200, at + 2000])
        #expect(early.map(\.durable) == [true, false, false, true])
        #expect(box.media.durable?.snapshot.queue.options == box.machine.options)
    }

    @Test func aStopWritesADurableRecordMarkedNotPlaying() {
        var box = Box()
        box.settle()
        let actions = box.keeper.handle(.stop(box.machine.snapshot), now: box.instant)
        guard case .writeCheckpoint(let record) = actions.first, case .commit(let snapshot, true) = actions.last else {
            Issue.record("\(actions)")
            return
        }
        #expect(!record.playing && record.positionMs == box.machine.positionMs)
        #expect(snapshot.state == .playing)
    }

    @Test func aLongTrackLeftKeepsItsPositionAndSeekHint() {
        var box = Box(startAt: 2)
        box.play(for: 5 * Self.minute + 2500)  // the last checkpoint (300 s) is 2 s old or more
        _ = box.keeper.handle(.seekHint(103, Self.hint), now: box.instant)
        box.writes = []
        let at = box.now
        box.run(.next)
        let remembered = box.writes.filter {
            if case .rememberPosition = $0.action { true } else { false }
        }
        #expect(remembered.map(\.at) == [at])
        let position = 5 * Self.minute + 2500
        #expect(remembered.first?.action == .rememberPosition(103, positionMs: position, seekHint: Self.hint))
        #expect(box.commits.first.map { [$0.at: $0.durable] } == [at: true])
        // the restart finds it, hint and all
        let restart = box.restart(after: .powerCut)
        guard case .resume(let snapshot, _) = restart.resumed else {
            Issue.record("\(restart.resumed)")
            return
        }
        #expect(snapshot.savedPositions == [103: position])
        // back on it: it starts where it was left
        box.run(.previous)
        #expect(box.machine.currentRequest?.fromMs == position)
        #expect(box.keeper.seekHints[103] == Self.hint, "the pipeline gets the hint to start from")
        #expect(box.media.committed?.hints[103] == Self.hint)
    }

    // MARK: - restart

    /// A run of `playMs`, then `ending` `gapMs` later, then the restart: where it resumes
    /// against where the audio was.
    @Test(arguments: [
        (Ending.cleanStop, Int64(0), Int64(0)),
        (.crash, -1000, 0),
        (.powerCut, -2000, 2000),
    ])
    func aRestartComesBackNearWhereTheAudioWas(ending: Ending, minErrorMs: Int64, maxErrorMs: Int64) {
        for runMs in stride(from: Int64(20_000), to: 60_000, by: 1370) {
            for gapMs: Int64 in ending == .cleanStop ? [0] : [0, 120, 249] {
                var box = Box()
                box.play(for: runMs)
                let restart = box.restart(after: ending, gapMs: gapMs)
                guard case .resume(let snapshot, _) = restart.resumed else {
                    Issue.record("\(restart.resumed)")
                    return
                }
                #expect(snapshot.currentTrack == restart.track)
                let error = snapshot.positionMs - restart.positionMs
                #expect(error >= minErrorMs && error <= maxErrorMs, "\(ending) after \(runMs) + \(gapMs) ms: \(error)")
            }
        }
    }

    @Test func aPowerCutNearATracksEndContinuesIntoTheNext() {
        var box = Box()
        box.play(for: 170_000)
        box.run(.seek(.absolute(ms: 178_900)))  // checkpointed at once
        box.play(for: 1000)
        let restart = box.restart(after: .powerCut)
        #expect(restart.track == 101 && restart.positionMs == 179_900)
        guard case .resume(let snapshot, .powerCut) = restart.resumed else {
            Issue.record("\(restart.resumed)")
            return
        }
        #expect(snapshot.currentTrack == 102 && snapshot.queue.currentIndex == 1)
        #expect(snapshot.positionMs == 900)
    }

    struct StartRow: Sendable, CustomTestStringConvertible {
        var name: String
        var savedSequence: UInt64
        var journal: JournalRecord?
        var survivedRestart: Bool
        var track: TrackID
        var index: Int
        var positionMs: Int64
        var volume: Int
        var source: ResumeSource
        var testDescription: String { name }
    }

    /// The database says entry 0 at 30 s, volume 40, journal sequence 10.
    static let startRows: [StartRow] = [
        StartRow(
            name: "no journal: the database", savedSequence: 10, journal: nil, survivedRestart: false, track: 101,
            index: 0, positionMs: 30_000, volume: 40, source: .database),
        StartRow(
            name: "journal older than the database", savedSequence: 10,
            journal: JournalRecord(trackID: 102, positionMs: 5000, sequence: 9, volume: 70, queueIndex: 1),
            survivedRestart: false, track: 101, index: 0, positionMs: 30_000, volume: 40, source: .database),
        StartRow(
            name: "journal newer (a crash, the RAM record)", savedSequence: 10,
            journal: JournalRecord(
                trackID: 102, positionMs: 5000, sequence: 14, volume: 70, queueIndex: 1, playing: true),
            survivedRestart: false, track: 102, index: 1, positionMs: 5000, volume: 70, source: .journal),
        StartRow(
            name: "clean stop (the same sequence, not playing)", savedSequence: 10,
            journal: JournalRecord(trackID: 101, positionMs: 31_234, sequence: 10, volume: 40, queueIndex: 0),
            survivedRestart: false, track: 101, index: 0, positionMs: 31_234, volume: 40, source: .journal),
        StartRow(
            name: "reboot after a clean stop (card only, not playing)", savedSequence: 10,
            journal: JournalRecord(trackID: 101, positionMs: 31_234, sequence: 10, volume: 40, queueIndex: 0),
            survivedRestart: true, track: 101, index: 0, positionMs: 31_234, volume: 40, source: .journal),
        StartRow(
            name: "power cut while playing: half an interval on", savedSequence: 10,
            journal: JournalRecord(
                trackID: 102, positionMs: 5000, sequence: 12, volume: 70, queueIndex: 1, playing: true),
            survivedRestart: true, track: 102, index: 1, positionMs: 7000, volume: 70,
            source: .powerCut(checkpointMs: 5000)),
        StartRow(
            name: "power cut past the end: into the next track", savedSequence: 10,
            journal: JournalRecord(
                trackID: 101, positionMs: 3 * minute - 1200, sequence: 12, volume: 40, queueIndex: 0, playing: true),
            survivedRestart: true, track: 102, index: 1, positionMs: 800, volume: 40,
            source: .powerCut(checkpointMs: 3 * minute - 1200)),
        StartRow(
            name: "journal entry moved: found by track", savedSequence: 10,
            journal: JournalRecord(trackID: 104, positionMs: 9000, sequence: 11, volume: 40, queueIndex: 0),
            survivedRestart: false, track: 104, index: 3, positionMs: 9000, volume: 40, source: .journal),
    ]

    @Test(arguments: startRows)
    func startTakesTheNewestRecord(row: StartRow) {
        let saved = PlayerMachine.Snapshot(
            queue: PlayQueue(entries: [101, 102, 103, 104], mode: .inOrder, seed: 1).snapshot, currentTrack: 101,
            positionMs: 30_000, state: .playing, volume: 40)
        var keeper = ResumeKeeper(syncIntervalMs: 4000)
        var start = ResumeStart(
            saved: saved, savedSequence: row.savedSequence, journal: row.journal,
            journalSurvivedRestart: row.survivedRestart, durations: Self.durations)
        start.saved?.queue.currentIndex = 0
        let actions = keeper.handle(.start(start), now: .zero)
        guard case .resume(let snapshot, let source) = actions.first, actions.count == 1 else {
            Issue.record("\(actions)")
            return
        }
        #expect(snapshot.currentTrack == row.track)
        #expect(snapshot.queue.currentIndex == row.index)
        #expect(snapshot.positionMs == row.positionMs)
        #expect(snapshot.volume == row.volume)
        #expect(source == row.source)
    }

    @Test func nothingSavedOrAnEmptyQueueStartsAfresh() {
        var keeper = ResumeKeeper(syncIntervalMs: 4000)
        let none = ResumeStart(saved: nil, savedSequence: 0, journal: nil, journalSurvivedRestart: false)
        #expect(keeper.handle(.start(none), now: .zero) == [.startAfresh])
        let empty = ResumeStart(
            saved: PlayerMachine.Snapshot(
                queue: PlayQueue(entries: [], mode: .inOrder, seed: 1).snapshot, currentTrack: nil, positionMs: 0,
                state: .stopped, volume: 40),
            savedSequence: 3, journal: JournalRecord(trackID: 101, positionMs: 5, sequence: 4),
            journalSurvivedRestart: false)
        #expect(keeper.handle(.start(empty), now: .zero) == [.startAfresh])
    }
}
