import Testing

@testable import JukeboxCore

@Suite struct CheckpointPolicyTests {
    static func at(_ ms: Int64) -> Instant { .milliseconds(ms) }

    @Test func idlePolicyHasNothingToDo() {
        var policy = CheckpointPolicy()
        #expect(policy.nextDeadline == nil)
        #expect(policy.due(now: Self.at(5000)) == (false, false))
    }

    @Test func anEventIsCommittedAtOnce() {
        var policy = CheckpointPolicy()
        policy.note(.event, now: Self.at(1000))
        #expect(policy.nextDeadline == Self.at(1000))
        #expect(policy.due(now: Self.at(1000)) == (true, true))
        #expect(policy.nextDeadline == nil)
    }

    @Test func aBurstGivesOneCommitNowAndOneWhenTheWindowCloses() {
        var policy = CheckpointPolicy()
        var commits: [Int64] = []
        for ms in stride(from: Int64(0), through: 1500, by: 100) {
            policy.note(.event, now: Self.at(ms))
            if policy.due(now: Self.at(ms)).durable { commits.append(ms) }
        }
        #expect(commits == [0])
        #expect(policy.nextDeadline == Self.at(2000))
        #expect(policy.due(now: Self.at(1999)) == (false, false))
        #expect(policy.due(now: Self.at(2000)) == (true, true))
        #expect(policy.nextDeadline == nil)
    }

    /// A position read only when its record falls due is journaled every interval, on time:
    /// the daemon sleeps until `nextJournalWrite` while playing.
    @Test func readingThePositionWhenItIsDueJournalsItEveryInterval() throws {
        var policy = CheckpointPolicy(journalIntervalMs: 1000, syncIntervalMs: 4000)
        #expect(policy.nextJournalWrite == nil)
        var now: Int64 = 0
        var journaled: [Int64] = []
        for _ in 0..<5 {
            policy.note(.progress, now: Self.at(now))
            if policy.due(now: Self.at(now)).journal { journaled.append(now) }
            let next = try #require(policy.nextJournalWrite)
            now = next.milliseconds(since: Self.at(0))
        }
        #expect(journaled == [0, 1000, 2000, 3000, 4000])
    }

    struct Step: Sendable {
        var at: Int64
        var note: PersistKind?
        var journal: Bool
        var durable: Bool
        var deadline: Int64?
    }

    @Test(arguments: [
        [
            Step(at: 0, note: .progress, journal: true, durable: false, deadline: 30_000),
            Step(at: 500, note: .progress, journal: false, durable: false, deadline: 2000),
            Step(at: 1999, note: nil, journal: false, durable: false, deadline: 2000),
            Step(at: 2000, note: .progress, journal: true, durable: false, deadline: 30_000),
            Step(at: 3000, note: nil, journal: false, durable: false, deadline: 30_000),
            Step(at: 5000, note: .progress, journal: true, durable: false, deadline: 30_000),
        ],
        [
            Step(at: 0, note: .progress, journal: true, durable: false, deadline: 30_000),
            Step(at: 100, note: .progress, journal: false, durable: false, deadline: 2000),
            Step(at: 30_100, note: .progress, journal: true, durable: true, deadline: nil),
            Step(at: 30_200, note: .progress, journal: false, durable: false, deadline: 32_100),
        ],
        [
            Step(at: 0, note: .event, journal: true, durable: true, deadline: nil),
            Step(at: 1000, note: .event, journal: false, durable: false, deadline: 2000),
            Step(at: 1500, note: .progress, journal: false, durable: false, deadline: 1500),
        ],
    ])
    func tables(steps: [Step]) {
        var policy = CheckpointPolicy()
        for step in steps {
            if let note = step.note { policy.note(note, now: Self.at(step.at)) }
            let due = policy.due(now: Self.at(step.at))
            #expect(due.journal == step.journal, "journal at \(step.at)")
            #expect(due.durable == step.durable, "durable at \(step.at)")
            if step.note == .progress, !due.journal, !due.durable {
                #expect(policy.nextDeadline != nil)
            } else {
                #expect(policy.nextDeadline == step.deadline.map(Self.at), "deadline at \(step.at)")
            }
        }
    }

    /// A control loop playing for `durationMs`: position ticks every `tickMs`, a knob burst
    /// (20 volume changes 50 ms apart) every minute, the loop woken by ticks, events and deadlines.
    /// Writes save the exact playback position at that instant (the daemon asks the pipeline).
    struct Simulation {
        var journalWrites: [Int64] = []
        var durableWrites: [Int64] = []
        var worstLossMs: Int64 = 0

        init(durationMs: Int64, tickMs: Int64, syncIntervalMs: Int64 = 30_000, pauses: [ClosedRange<Int64>] = []) {
            var policy = CheckpointPolicy(syncIntervalMs: syncIntervalMs)
            var savedPosition: Int64 = 0
            var position: Int64 = 0
            var lastTime: Int64 = 0
            var events: [Int64] = []
            for minute in stride(from: Int64(10_000), to: durationMs, by: 60_000) {
                events.append(contentsOf: (0..<20).map { minute + $0 * 50 })
            }
            for pause in pauses { events.append(pause.lowerBound); events.append(pause.upperBound) }
            var now: Int64 = 0
            var nextTick: Int64 = 0
            var eventIndex = 0
            events.sort()
            func playing(_ time: Int64) -> Bool { !pauses.contains { $0.contains(time) && time != $0.lowerBound } }
            while now <= durationMs {
                if playing(now) { position += now - lastTime }
                lastTime = now
                worstLossMs = max(worstLossMs, position - savedPosition)
                if now == nextTick {
                    if playing(now) { policy.note(.progress, now: .milliseconds(now)) }
                    nextTick += tickMs
                }
                while eventIndex < events.count, events[eventIndex] == now {
                    policy.note(.event, now: .milliseconds(now))
                    eventIndex += 1
                }
                let due = policy.due(now: .milliseconds(now))
                if due.journal {
                    journalWrites.append(now)
                    savedPosition = position
                }
                if due.durable { durableWrites.append(now) }
                var wake = nextTick
                if eventIndex < events.count { wake = min(wake, events[eventIndex]) }
                if let deadline = policy.nextDeadline {
                    #expect(deadline.nanoseconds / 1_000_000 > now)
                    wake = min(wake, deadline.nanoseconds / 1_000_000)
                }
                // The worst kill is just before the next wake.
                let before = wake - 1
                let loss = position + (playing(before) ? before - now : 0) - savedPosition
                worstLossMs = max(worstLossMs, loss)
                now = wake
            }
        }
    }

    @Test(arguments: [(Int64(250), Int64(30_000)), (1000, 30_000), (333, 2000), (100, 600_000)])
    func aKillAtAnyInstantLosesAtMostTwoSeconds(tickMs: Int64, syncIntervalMs: Int64) {
        let simulation = Simulation(
            durationMs: 10 * 60_000, tickMs: tickMs, syncIntervalMs: syncIntervalMs,
            pauses: [100_000...130_000, 200_500...201_700])
        #expect(simulation.worstLossMs <= 2000)
        #expect(simulation.worstLossMs > 1000)
    }

    @Test func anHourWithAKnobBurstEveryMinuteStaysWithinTheWriteBudget() {
        let simulation = Simulation(durationMs: 3_600_000, tickMs: 250)
        let durable = simulation.durableWrites.count
        #expect(durable <= 1800)
        // Per minute: two per burst (now and when the window closes) and one sync commit 30 s after the
        // last commit; the next burst comes before the second.
        #expect(durable == 3 * 60)
        let journal = simulation.journalWrites.count
        #expect(journal >= 1800 && journal <= 1801 + durable)
        let gaps = zip(simulation.journalWrites.dropFirst(), simulation.journalWrites).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 <= 2000 })
        let durableGaps = zip(simulation.durableWrites.dropFirst(), simulation.durableWrites).map { $0 - $1 }
        #expect(durableGaps.allSatisfy { $0 >= 2000 && $0 <= 30_000 + 250 })
    }

    /// A restart after a power cut shifts the card's checkpoint by half the interval, which is
    /// right only if no checkpoint is older than the interval: the sync deadline counts from
    /// the last durable write, not from the first position tick after it.
    @Test(arguments: [Int64(250), 333, 1000])
    func whilePlayingNoDurableCheckpointIsOlderThanTheSyncInterval(tickMs: Int64) {
        let simulation = Simulation(
            durationMs: 10 * 60_000, tickMs: tickMs, syncIntervalMs: 4000, pauses: [100_000...130_000])
        let gaps = zip(simulation.durableWrites.dropFirst(), simulation.durableWrites).map { ($0, $0 - $1) }
        // Only a pause may leave a longer gap (nothing moves while paused).
        #expect(
            gaps.allSatisfy { $0.1 <= 4000 || (100_000...130_000 + 4000).contains($0.0) },
            "\(gaps.filter { $0.1 > 4000 })")
        #expect(gaps.contains { $0.1 == 4000 })
    }
}
