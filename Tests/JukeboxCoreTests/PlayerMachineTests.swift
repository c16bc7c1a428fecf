import Testing

@testable import JukeboxCore

@Suite struct PlayerMachineTests {
    static let minute: Int64 = 60_000
    static let tracks: [TrackInfo] = [
        TrackInfo(id: 101, path: "a.mp3", title: "Alpha", artist: "Ann", durationMs: 3 * minute),
        TrackInfo(id: 102, path: "b.mp3", title: "Beta", artist: "Bob", durationMs: 4 * minute),
        TrackInfo(id: 103, path: "c.mp3", title: "Gamma", durationMs: 20 * minute),
        TrackInfo(id: 104, path: "d.mp3", durationMs: 2 * minute),
    ]

    static func request(_ token: UInt64, _ track: TrackID, _ from: Int64 = 0) -> PlaybackRequest {
        PlaybackRequest(token: token, trackID: track, fromMs: from)
    }

    static func machine(
        mode: PlayMode = .inOrder, maxVolume: Int = 85, startVolume: Int = 40,
        entries: [TrackID] = [101, 102, 103, 104]
    ) -> PlayerMachine {
        var machine = PlayerMachine(
            configuration: .init(maxVolume: maxVolume, startVolume: startVolume, longTrackMs: 10 * minute),
            queue: PlayQueue(entries: entries, mode: mode, seed: 1))
        _ = machine.handle(.tracksDescribed(tracks), now: .zero)
        return machine
    }

    static func command(_ machine: inout PlayerMachine, _ command: Command) -> [PlayerAction] {
        machine.handle(.command(command), now: .zero)
    }

    @Test func playStartsTheFirstTrackAndSetsTheFollowUp() {
        var machine = Self.machine()
        #expect(
            Self.command(&machine, .play(index: nil)) == [
                .startPlayback(Self.request(1, 101)), .setNext(Self.request(2, 102)), .persist(.event),
            ])
        #expect(machine.state == .playing)
        #expect(machine.handle(.started(token: 1), now: .zero) == [])
        #expect(Self.command(&machine, .play(index: nil)) == [])
    }

    @Test func gaplessAdvanceMovesTheCurrentEntryAndSetsANewFollowUp() {
        var machine = Self.machine(mode: .repeatAll)
        _ = Self.command(&machine, .play(index: 3))
        #expect(machine.nextRequest == Self.request(2, 101))
        _ = machine.handle(.position(ms: 119_000), now: .zero)
        #expect(machine.handle(.finished(token: 1), now: .zero) == [])
        #expect(
            machine.handle(.started(token: 2), now: .zero) == [.setNext(Self.request(3, 102)), .persist(.progress)])
        #expect(machine.queue.currentIndex == 0)
        #expect(machine.positionMs == 0)
        #expect(
            machine.handle(.started(token: 3), now: .zero) == [.setNext(Self.request(4, 103)), .persist(.progress)])
        #expect(machine.queue.currentIndex == 1)
    }

    @Test(arguments: [
        (PlayMode.inOrder, TrackID?.some(102)),
        (.repeatAll, 102),
        (.repeatOne, 101),
        (.shuffle, nil),
    ])
    func followUpDependsOnTheMode(mode: PlayMode, expected: TrackID?) {
        var machine = Self.machine(mode: mode)
        let actions = Self.command(&machine, .play(index: 0))
        guard case .setNext(let next?) = actions[1] else {
            Issue.record("no follow-up in \(actions)")
            return
        }
        if let expected { #expect(next.trackID == expected) }
        #expect(next.trackID != 101 || mode == .repeatOne)
    }

    @Test func changingTheModeUpdatesTheFollowUp() {
        var machine = Self.machine()
        _ = Self.command(&machine, .play(index: 3))
        #expect(machine.nextRequest == nil)
        #expect(
            Self.command(&machine, .setMode(.repeatAll)) == [
                .setNext(Self.request(2, 101)), .persist(.event), .reply("mode: repeat-all"),
            ])
        #expect(
            Self.command(&machine, .cycleMode) == [
                .setNext(Self.request(3, 104)), .persist(.event), .reply("mode: repeat-one"),
            ])
        #expect(Self.command(&machine, .setMode(.repeatOne)) == [.reply("mode: repeat-one")])
    }

    @Test func inOrderStopsAtTheEnd() {
        var machine = Self.machine()
        _ = Self.command(&machine, .play(index: 3))
        _ = machine.handle(.started(token: 1), now: .zero)
        _ = machine.handle(.finished(token: 1), now: .zero)
        #expect(machine.handle(.endOfStream, now: .zero) == [.stop, .log(.info, "end of the queue"), .persist(.event)])
        #expect(machine.state == .stopped)
        #expect(machine.queue.currentIndex == nil)
        #expect(machine.handle(.endOfStream, now: .zero) == [])
        #expect(Self.command(&machine, .play(index: nil)).first == .startPlayback(Self.request(2, 101)))
    }

    @Test func endOfStreamWithoutTheFollowUpContinuesWithTheNextEntry() {
        var machine = Self.machine(mode: .repeatAll)
        _ = Self.command(&machine, .play(index: 0))
        _ = machine.handle(.started(token: 1), now: .zero)
        #expect(machine.handle(.endOfStream, now: .zero).first == .startPlayback(Self.request(3, 102)))
        #expect(machine.queue.currentIndex == 1)
    }

    @Test func aFailedTrackIsSkippedWithALogLine() {
        var machine = Self.machine()
        _ = Self.command(&machine, .play(index: 0))
        #expect(
            machine.handle(.failed(token: 1, message: "not an MP3"), now: .zero) == [
                .log(.warning, "skipping 'a.mp3': not an MP3"), .startPlayback(Self.request(3, 102)),
                .setNext(Self.request(4, 103)), .persist(.event),
            ])
        #expect(machine.consecutiveFailures == 1)
        _ = machine.handle(.started(token: 3), now: .zero)
        #expect(machine.consecutiveFailures == 0)
    }

    @Test func aFailedTrackInRepeatOneStillMovesOn() {
        var machine = Self.machine(mode: .repeatOne)
        _ = Self.command(&machine, .play(index: 1))
        let actions = machine.handle(.failed(token: 1, message: "bad"), now: .zero)
        #expect(actions.contains(.startPlayback(Self.request(3, 103))))
    }

    @Test(arguments: PlayMode.allCases)
    func whenEveryTrackFailsThePlayerStops(mode: PlayMode) {
        var machine = Self.machine(mode: mode)
        var actions = Self.command(&machine, .play(index: nil))
        var attempts = 0
        while case .startPlayback(let request)? = actions.first(where: {
            if case .startPlayback = $0 { true } else { false }
        }) {
            attempts += 1
            #expect(attempts <= 4)
            if attempts > 4 { break }
            actions = machine.handle(.failed(token: request.token, message: "broken"), now: .zero)
        }
        #expect(attempts == 4)
        #expect(machine.state == .stopped)
        #expect(actions.contains(.log(.error, "every track in the queue failed to play; stopped")))
    }

    @Test func aFailedFollowUpIsReplacedWithoutInterruptingTheCurrentTrack() {
        var machine = Self.machine()
        _ = Self.command(&machine, .play(index: 0))
        _ = machine.handle(.started(token: 1), now: .zero)
        #expect(
            machine.handle(.failed(token: 2, message: "truncated"), now: .zero) == [
                .log(.warning, "skipping 'b.mp3': truncated"), .setNext(Self.request(3, 103)),
            ])
        #expect(machine.queue.currentIndex == 0)
        #expect(
            machine.handle(.started(token: 3), now: .zero) == [.setNext(Self.request(4, 104)), .persist(.progress)])
        #expect(machine.queue.currentIndex == 2)
    }

    @Test func staleEventsAreIgnored() {
        var machine = Self.machine()
        _ = Self.command(&machine, .play(index: 0))
        _ = Self.command(&machine, .next)
        #expect(
            machine.handle(.failed(token: 1, message: "x"), now: .zero) == [
                .log(.debug, "ignoring failure of stale request 1: x")
            ])
        #expect(machine.handle(.started(token: 1), now: .zero) == [.log(.debug, "ignoring start of stale request 1")])
        #expect(machine.queue.currentIndex == 1)
    }

    struct PreviousCase: Sendable {
        var start: Int
        var positionMs: Int64
        var expected: PlaybackRequest
        var index: Int
    }

    @Test(arguments: [
        PreviousCase(start: 1, positionMs: 3001, expected: PlayerMachineTests.request(3, 102), index: 1),
        PreviousCase(start: 1, positionMs: 3000, expected: PlayerMachineTests.request(3, 101), index: 0),
        PreviousCase(start: 1, positionMs: 0, expected: PlayerMachineTests.request(3, 101), index: 0),
        PreviousCase(start: 0, positionMs: 1000, expected: PlayerMachineTests.request(3, 101), index: 0),
    ])
    func previousRestartsOrGoesBack(testCase: PreviousCase) {
        var machine = Self.machine()
        _ = Self.command(&machine, .play(index: testCase.start))
        _ = machine.handle(.position(ms: testCase.positionMs), now: .zero)
        #expect(Self.command(&machine, .previous).first == .startPlayback(testCase.expected))
        #expect(machine.queue.currentIndex == testCase.index)
    }

    @Test(arguments: [
        (Command.setVolume(50), 50, [PlayerAction.setVolume(50), .persist(.event), .reply("volume: 50")]),
        (
            .setVolume(100), 85,
            [.setVolume(85), .persist(.event), .limitReached(.maximum), .reply("volume: 85 (the maximum)")]
        ),
        (.changeVolume(5), 45, [.setVolume(45), .persist(.event), .reply("volume: 45")]),
        (.changeVolume(-200), 0, [.setVolume(0), .persist(.event), .reply("volume: 0")]),
        (
            .changeVolume(Int.max), 85,
            [.setVolume(85), .persist(.event), .limitReached(.maximum), .reply("volume: 85 (the maximum)")]
        ),
        (.setVolume(40), 40, [.reply("volume: 40")]),
    ])
    func volumeIsClampedToTheMaximum(command: Command, volume: Int, actions: [PlayerAction]) {
        var machine = Self.machine()
        #expect(Self.command(&machine, command) == actions)
        #expect(machine.volume == volume)
    }

    @Test func pauseResumeToggleAndStop() {
        var machine = Self.machine()
        #expect(Self.command(&machine, .pause) == [])
        _ = Self.command(&machine, .toggle)
        _ = machine.handle(.started(token: 1), now: .zero)
        #expect(Self.command(&machine, .toggle) == [.pause, .persist(.event)])
        #expect(machine.state == .paused)
        #expect(Self.command(&machine, .pause) == [])
        #expect(Self.command(&machine, .resume) == [.resume, .persist(.event)])
        #expect(Self.command(&machine, .pause) == [.pause, .persist(.event)])
        #expect(Self.command(&machine, .play(index: nil)) == [.resume, .persist(.event)])
        #expect(Self.command(&machine, .stop) == [.stop, .persist(.event)])
        #expect(machine.state == .stopped)
        #expect(Self.command(&machine, .stop) == [])
    }

    @Test(arguments: [
        (SeekTarget.absolute(ms: 83_000), Int64(83_000)),
        (.relative(ms: 10_000), 40_000),
        (.relative(ms: -50_000), 0),
        (.absolute(ms: 999 * 60_000), 180_000),
    ])
    func seekIsClampedToTheTrack(target: SeekTarget, expected: Int64) {
        var machine = Self.machine()
        _ = Self.command(&machine, .play(index: 0))
        _ = machine.handle(.position(ms: 30_000), now: .zero)
        #expect(Self.command(&machine, .seek(target)) == [.seek(ms: expected), .persist(.event)])
        #expect(machine.positionMs == expected)
    }

    @Test func seekWhenStoppedExplains() {
        var machine = Self.machine()
        #expect(Self.command(&machine, .seek(.relative(ms: 5000))) == [.reply("seek: nothing is playing")])
    }

    @Test func playingAnEntryOutOfRangeExplains() {
        var machine = Self.machine()
        #expect(Self.command(&machine, .play(index: 9)) == [.reply("play: no entry 10 (the queue has 4)")])
        var empty = Self.machine(entries: [])
        #expect(Self.command(&empty, .play(index: nil)) == [.reply("play: the queue is empty")])
        #expect(Self.command(&empty, .next) == [.reply("next: the queue is empty")])
    }

    @Test func longTracksResumeFromTheirOwnPositionShortOnesFromZero() {
        var machine = Self.machine(mode: .repeatAll)
        _ = Self.command(&machine, .play(index: 2))
        _ = machine.handle(.position(ms: 7 * Self.minute), now: .zero)
        #expect(Self.command(&machine, .next).first == .startPlayback(Self.request(3, 104)))
        #expect(machine.savedPositions[103] == 7 * Self.minute)
        _ = machine.handle(.position(ms: 60_000), now: .zero)
        #expect(Self.command(&machine, .previous).first == .startPlayback(Self.request(5, 104)))
        #expect(Self.command(&machine, .previous).first == .startPlayback(Self.request(7, 103, 7 * Self.minute)))
        _ = machine.handle(.position(ms: 8 * Self.minute), now: .zero)
        #expect(Self.command(&machine, .previous).first == .startPlayback(Self.request(9, 103)))
    }

    @Test func aLongTrackThatEndsForgetsItsPosition() {
        var machine = Self.machine(mode: .repeatAll)
        _ = machine.handle(.savedPositionsLoaded([103: 5 * Self.minute]), now: .zero)
        #expect(
            Self.command(&machine, .play(index: 1)) == [
                .startPlayback(Self.request(1, 102)), .setNext(Self.request(2, 103, 5 * Self.minute)), .persist(.event),
            ])
        _ = machine.handle(.started(token: 2), now: .zero)
        #expect(machine.positionMs == 5 * Self.minute)
        _ = machine.handle(.finished(token: 2), now: .zero)
        #expect(machine.savedPositions[103] == nil)
    }

    @Test(arguments: [
        (ResumeOnStart.play, PlayState.playing),
        (.paused, .paused),
        (.off, .stopped),
    ])
    func restoringResumesTheSameTrackAtTheSamePosition(onStart: ResumeOnStart, state: PlayState) {
        var original = Self.machine(mode: .shuffle)
        _ = Self.command(&original, .play(index: nil))
        _ = Self.command(&original, .next)
        _ = original.handle(.position(ms: 61_234), now: .zero)
        let track = original.queue.currentTrack!
        var restored = Self.machine(startVolume: 30)
        let actions = restored.handle(.restored(original.snapshot, onStart: onStart), now: .zero)
        #expect(restored.state == state)
        #expect(restored.queue == PlayQueue(snapshot: original.queue.snapshot))
        #expect(restored.queue.currentTrack == track)
        #expect(restored.volume == 30)
        #expect(actions.first == .setVolume(30))
        switch onStart {
        case .play:
            #expect(actions.dropFirst().first == .startPlayback(Self.request(1, track, 61_234)))
        case .paused:
            #expect(actions == [.setVolume(30)])
            #expect(restored.positionMs == 61_234)
            #expect(Self.command(&restored, .toggle).first == .startPlayback(Self.request(1, track, 61_234)))
        case .off:
            #expect(actions == [.setVolume(30)])
            #expect(restored.positionMs == 61_234)
        }
    }

    @Test func restoringAStoppedPlayerStaysStopped() {
        var restored = Self.machine()
        let snapshot = PlayerMachine.Snapshot(
            queue: .init(entries: [101, 102], currentIndex: 1, options: PlayOptions(.inOrder)), currentTrack: 102,
            positionMs: 5000,
            state: .stopped, volume: 20)
        #expect(restored.handle(.restored(snapshot, onStart: .play), now: .zero) == [.setVolume(20)])
        #expect(restored.state == .stopped)
    }

    @Test func restoringFollowsTheTrackWhenTheIndexIsStale() {
        var restored = Self.machine()
        let snapshot = PlayerMachine.Snapshot(
            queue: .init(entries: [104, 101, 102], currentIndex: 0, options: PlayOptions(.inOrder)), currentTrack: 102,
            positionMs: 9000,
            state: .playing, volume: 99)
        let actions = restored.handle(.restored(snapshot, onStart: .play), now: .zero)
        #expect(restored.queue.currentIndex == 2)
        #expect(actions.prefix(2) == [.setVolume(40), .startPlayback(Self.request(1, 102, 9000))])
    }

    @Test func restoringGarbageNeverTraps() {
        var restored = Self.machine()
        let snapshot = PlayerMachine.Snapshot(
            queue: .init(
                entries: [101], currentIndex: 12, options: PlayOptions(.shuffle), shuffleOrder: [4, 4],
                shuffleCursor: -2),
            currentTrack: 999, positionMs: -5, state: .playing, volume: -3, savedPositions: [101: -7])
        #expect(restored.handle(.restored(snapshot, onStart: .play), now: .zero) == [.setVolume(0)])
        #expect(restored.state == .stopped)
        #expect(restored.positionMs == 0)
        #expect(Self.command(&restored, .play(index: nil)).first == .startPlayback(Self.request(1, 101)))
    }

    @Test func aRescanDropsTheEntriesOfGoneTracksAndAddsNothing() {
        var machine = Self.machine(entries: [101, 102, 103, 102, 104])
        _ = Self.command(&machine, .play(index: 2))
        _ = machine.handle(.started(token: 1), now: .zero)
        // 105 is new in the library: it is not queued. 102 went: both its entries go.
        let actions = machine.handle(.libraryChanged([101, 103, 104, 105]), now: .zero)
        #expect(machine.queue.entries == [101, 103, 104])
        #expect(machine.queue.currentIndex == 1)
        #expect(machine.state == .playing)
        #expect(!actions.contains { if case .startPlayback = $0 { true } else { false } })
        #expect(machine.nextRequest?.trackID == 104)
        #expect(machine.handle(.libraryChanged([101, 103, 104]), now: .zero) == [])
        // The playing track goes: the entry that takes its place plays, as when it is deleted.
        let gone = machine.handle(.libraryChanged([101, 104]), now: .zero)
        #expect(machine.queue.entries == [101, 104])
        #expect(gone.contains { if case .startPlayback(let request) = $0 { request.trackID == 104 } else { false } })
        // At the end of the queue it stops.
        _ = machine.handle(.libraryChanged([101]), now: .zero)
        #expect(machine.queue.entries == [101])
        #expect(machine.state == .stopped)
    }

    @Test func statusRepliesWithMPDStyleLines() {
        var machine = Self.machine(mode: .repeatOne)
        #expect(
            Self.command(&machine, .status) == [
                .reply(
                    """
                    state: stop
                    volume: 40
                    repeat: 1
                    random: 0
                    single: 1
                    consume: 0
                    playlistlength: 4
                    mode: repeat-one
                    """)
            ])
        _ = Self.command(&machine, .play(index: 1))
        _ = machine.handle(.position(ms: 83_045), now: .zero)
        #expect(
            Self.command(&machine, .status) == [
                .reply(
                    """
                    state: play
                    song: 1
                    songid: 102
                    elapsed: 83.045
                    duration: 240.000
                    volume: 40
                    repeat: 1
                    random: 0
                    single: 1
                    consume: 0
                    playlistlength: 4
                    mode: repeat-one
                    title: Beta
                    artist: Bob
                    """)
            ])
    }

    @Test func helpRepliesWithTheHelpText() {
        var machine = Self.machine()
        #expect(Self.command(&machine, .help) == [.reply(CommandParser.helpText)])
    }

    @Test func positionReportsAskForProgressPersistence() {
        var machine = Self.machine()
        #expect(machine.handle(.position(ms: 500), now: .zero) == [])
        _ = Self.command(&machine, .play(index: 0))
        #expect(machine.handle(.position(ms: 500), now: .zero) == [.persist(.progress)])
        #expect(machine.handle(.position(ms: 500), now: .zero) == [])
    }

    @Test func nextAndPreviousWhileStoppedOnlyMoveTheSelection() {
        var machine = Self.machine()
        _ = Self.command(&machine, .play(index: 0))
        _ = Self.command(&machine, .stop)
        #expect(Self.command(&machine, .next) == [.persist(.event)])
        #expect(machine.queue.currentIndex == 1)
        #expect(machine.state == .stopped)
        #expect(Self.command(&machine, .previous) == [.persist(.event)])
        #expect(machine.queue.currentIndex == 0)
    }

    @Test func shuffleMachineRunsForAWhileWithoutSurprises() {
        var machine = Self.machine(mode: .shuffle)
        var actions = Self.command(&machine, .play(index: nil))
        var played: [TrackID] = []
        for _ in 0..<40 {
            guard case .setNext(let next?)? = actions.first(where: { if case .setNext = $0 { true } else { false } })
            else {
                Issue.record("no follow-up")
                return
            }
            actions = machine.handle(.started(token: next.token), now: .zero)
            played.append(machine.queue.currentTrack!)
        }
        for cycle in stride(from: 3, to: 36, by: 4) {
            #expect(Set(played[cycle..<(cycle + 4)]).count == 4)
        }
    }
}

@Suite struct PlayerMachineEdgeTests {
    typealias T = PlayerMachineTests

    @Test func aLongTrackInRepeatOneLoopsFromTheStart() {
        var machine = T.machine(mode: .repeatOne)
        _ = machine.handle(.savedPositionsLoaded([103: 5 * T.minute]), now: .zero)
        #expect(
            T.command(&machine, .play(index: 2)) == [
                .startPlayback(T.request(1, 103, 5 * T.minute)), .setNext(T.request(2, 103, 0)), .persist(.event),
            ])
        #expect(machine.handle(.started(token: 2), now: .zero) == [.setNext(T.request(3, 103, 0)), .persist(.event)])
    }

    @Test func stopThenPlayResumesALongTrackFromWhereItStopped() {
        var machine = T.machine()
        _ = T.command(&machine, .play(index: 2))
        _ = machine.handle(.position(ms: 9 * T.minute), now: .zero)
        _ = T.command(&machine, .stop)
        #expect(machine.positionMs == 9 * T.minute)
        #expect(T.command(&machine, .play(index: nil)).first == .startPlayback(T.request(3, 103, 9 * T.minute)))
    }

    @Test func stopThenPlayStartsAShortTrackFromZero() {
        var machine = T.machine()
        _ = T.command(&machine, .play(index: 1))
        _ = machine.handle(.position(ms: 90_000), now: .zero)
        _ = T.command(&machine, .stop)
        #expect(T.command(&machine, .play(index: nil)).first == .startPlayback(T.request(3, 102)))
    }

    @Test func aSupersededFollowUpThatStartedIsCorrected() {
        var machine = T.machine()
        _ = T.command(&machine, .play(index: 0))
        _ = machine.handle(.started(token: 1), now: .zero)
        _ = T.command(&machine, .setMode(.repeatOne))
        #expect(machine.nextRequest == T.request(3, 101))
        let actions = machine.handle(.started(token: 2), now: .zero)
        #expect(actions.contains(.startPlayback(T.request(4, 101))))
        #expect(machine.queue.currentIndex == 0)
    }

    @Test func everyFollowUpFailingStopsAfterTheCurrentTrack() {
        var machine = T.machine(mode: .repeatAll, entries: [101, 102, 103])
        _ = T.command(&machine, .play(index: 0))
        _ = machine.handle(.started(token: 1), now: .zero)
        #expect(
            machine.handle(.failed(token: 2, message: "bad"), now: .zero) == [
                .log(.warning, "skipping 'b.mp3': bad"), .setNext(T.request(3, 103)),
            ])
        #expect(
            machine.handle(.failed(token: 3, message: "bad"), now: .zero) == [
                .log(.warning, "skipping 'c.mp3': bad"), .setNext(T.request(4, 101, 0)),
            ])
        #expect(
            machine.handle(.failed(token: 4, message: "bad"), now: .zero) == [
                .log(.warning, "skipping 'a.mp3': bad"), .setNext(nil),
                .log(.error, "every track in the queue failed to play; stopping after this one"),
            ])
        #expect(machine.state == .playing)
        #expect(machine.handle(.endOfStream, now: .zero).first == .stop)
        #expect(machine.state == .stopped)
    }
}
