import Testing

@testable import JukeboxCore

/// MPD's four play flags in the player: what happens when a song ends under each flag set,
/// oneshot, consume, `previous` in random mode, seeking while paused. The expected rows are
/// MPD 0.23's behaviour (checked against the real MPD in `MPDDifferentialTests`).
@Suite struct PlayOptionsTests {
    static let entries: [TrackID] = [101, 102, 103, 104]

    static func machine(_ options: PlayOptions, entries: [TrackID] = entries) -> PlayerMachine {
        var machine = PlayerMachine(queue: PlayQueue(entries: entries, options: options, seed: 3))
        _ = machine.handle(
            .tracksDescribed(entries.map { TrackInfo(id: $0, path: "\($0).mp3", durationMs: 60_000) }), now: .zero)
        return machine
    }

    static func command(_ machine: inout PlayerMachine, _ command: Command) -> [PlayerAction] {
        machine.handle(.command(command), now: .zero)
    }

    /// The pipeline plays the current request to its end: it starts the gapless follow-up
    /// when it has one, else it runs dry.
    static func songEnds(_ machine: inout PlayerMachine) {
        if let next = machine.nextRequest {
            _ = machine.handle(.finished(token: machine.currentRequest!.token), now: .zero)
            _ = machine.handle(.started(token: next.token), now: .zero)
        } else {
            _ = machine.handle(.endOfStream, now: .zero)
        }
    }

    static func started(_ machine: inout PlayerMachine) {
        if let token = machine.currentRequest?.token { _ = machine.handle(.started(token: token), now: .zero) }
    }

    struct SongEnd: CustomStringConvertible, Sendable {
        var options: PlayOptions
        var from: Int
        var state: PlayState
        var current: TrackID?
        var entries: [TrackID]
        /// `single` afterwards (oneshot turns itself off at a border pause only).
        var single: SingleMode
        var description: String { "[\(options)] from \(from)" }
    }

    static let all: [TrackID] = [101, 102, 103, 104]
    static let withoutB: [TrackID] = [101, 103, 104]
    static let withoutD: [TrackID] = [101, 102, 103]

    static func row(
        repeat: Bool, single: SingleMode, consume: Bool, from: Int, _ state: PlayState, _ current: TrackID?,
        _ entries: [TrackID], singleAfter: SingleMode? = nil
    ) -> SongEnd {
        SongEnd(
            options: PlayOptions(repeat: `repeat`, single: single, consume: consume), from: from, state: state,
            current: current, entries: entries, single: singleAfter ?? single)
    }

    /// Every non-random flag set, from the second entry and from the last.
    static let songEnds: [SongEnd] = [
        row(repeat: false, single: .off, consume: false, from: 1, .playing, 103, all),
        row(repeat: false, single: .off, consume: false, from: 3, .stopped, nil, all),
        row(repeat: false, single: .off, consume: true, from: 1, .playing, 103, withoutB),
        row(repeat: false, single: .off, consume: true, from: 3, .stopped, nil, withoutD),
        row(repeat: false, single: .on, consume: false, from: 1, .paused, 103, all),
        row(repeat: false, single: .on, consume: false, from: 3, .stopped, nil, all),
        row(repeat: false, single: .on, consume: true, from: 1, .paused, 103, withoutB),
        row(repeat: false, single: .on, consume: true, from: 3, .stopped, nil, withoutD),
        row(repeat: false, single: .oneshot, consume: false, from: 1, .paused, 103, all, singleAfter: .off),
        row(repeat: false, single: .oneshot, consume: false, from: 3, .stopped, nil, all),
        row(repeat: false, single: .oneshot, consume: true, from: 1, .paused, 103, withoutB, singleAfter: .off),
        row(repeat: false, single: .oneshot, consume: true, from: 3, .stopped, nil, withoutD),
        row(repeat: true, single: .off, consume: false, from: 1, .playing, 103, all),
        row(repeat: true, single: .off, consume: false, from: 3, .playing, 101, all),
        row(repeat: true, single: .off, consume: true, from: 1, .playing, 103, withoutB),
        row(repeat: true, single: .off, consume: true, from: 3, .playing, 101, withoutD),
        row(repeat: true, single: .on, consume: false, from: 1, .playing, 102, all),
        row(repeat: true, single: .on, consume: false, from: 3, .playing, 104, all),
        row(repeat: true, single: .on, consume: true, from: 1, .playing, 103, withoutB),
        row(repeat: true, single: .on, consume: true, from: 3, .playing, 101, withoutD),
        row(repeat: true, single: .oneshot, consume: false, from: 1, .playing, 102, all),
        row(repeat: true, single: .oneshot, consume: false, from: 3, .playing, 104, all),
        row(repeat: true, single: .oneshot, consume: true, from: 1, .playing, 103, withoutB),
        row(repeat: true, single: .oneshot, consume: true, from: 3, .playing, 101, withoutD),
    ]

    @Test(arguments: songEnds)
    func whenASongEnds(_ row: SongEnd) {
        var machine = Self.machine(row.options)
        _ = Self.command(&machine, .play(index: row.from))
        Self.started(&machine)
        Self.songEnds(&machine)
        #expect(machine.state == row.state)
        #expect(machine.queue.currentTrack == row.current)
        #expect(machine.queue.entries == row.entries)
        #expect(machine.options.single == row.single)
        // Paused at the border, play goes on from the start of the new current entry.
        if row.state == .paused {
            #expect(machine.currentRequest == nil && machine.positionMs == 0)
            #expect(Self.command(&machine, .play(index: nil)).first == .startPlayback(machine.currentRequest!))
            #expect(machine.currentRequest?.trackID == row.current && machine.currentRequest?.fromMs == 0)
        }
    }

    /// MPD 0.24's `consume oneshot`: the song that ends is removed and consume turns off, so
    /// the next song's end removes nothing; a user `next` consumes the same way.
    @Test(arguments: [false, true])
    func consumeOneshotConsumesOneSong(userNext: Bool) {
        var machine = Self.machine(PlayOptions(consume: true, consumeOneshot: true))
        _ = Self.command(&machine, .play(index: 1))
        Self.started(&machine)
        if userNext { _ = Self.command(&machine, .next) } else { Self.songEnds(&machine) }
        #expect(machine.queue.entries == Self.withoutB)
        #expect(machine.queue.currentTrack == 103)
        #expect(machine.options == PlayOptions())
        Self.started(&machine)
        if userNext { _ = Self.command(&machine, .next) } else { Self.songEnds(&machine) }
        #expect(machine.queue.entries == Self.withoutB)
        #expect(machine.queue.currentTrack == 104 && machine.state == .playing)
    }

    @Test func singleWithoutRepeatPreloadsNothing() {
        var machine = Self.machine(PlayOptions(single: .on))
        #expect(Self.command(&machine, .play(index: 0)).contains(.setNext(nil)))
        #expect(machine.queue.following() == 1)  // status's nextsong, as MPD reports it
        // Repeat on: the same song follows gaplessly from 0.
        _ = Self.command(&machine, .setOptions(PlayOptions(repeat: true, single: .on)))
        #expect(machine.nextRequest?.trackID == 101 && machine.nextRequest?.fromMs == 0)
    }

    @Test func userNextIgnoresSingleAndConsumesTheEntryLeft() {
        var machine = Self.machine(PlayOptions(repeat: true, single: .on, consume: true))
        _ = Self.command(&machine, .play(index: 1))
        _ = Self.command(&machine, .next)
        #expect(machine.queue.entries == [101, 103, 104] && machine.queue.currentTrack == 103)
        #expect(machine.state == .playing)
        // previous, play N and stop consume nothing.
        _ = Self.command(&machine, .previous)
        _ = Self.command(&machine, .play(index: 2))
        _ = Self.command(&machine, .stop)
        #expect(machine.queue.entries == [101, 103, 104])
        // With repeat, next from the last entry wraps to the first; the last one is consumed.
        _ = Self.command(&machine, .play(index: 2))
        _ = Self.command(&machine, .next)
        #expect(machine.queue.entries == [101, 103] && machine.queue.currentTrack == 101)
    }

    @Test func consumeWithRepeatStopsOnceTheLastEntryIsPlayed() {
        var machine = Self.machine(PlayOptions(repeat: true, consume: true), entries: [101])
        _ = Self.command(&machine, .play(index: 0))
        Self.started(&machine)
        #expect(machine.nextRequest == nil)
        Self.songEnds(&machine)
        #expect(machine.state == .stopped && machine.queue.isEmpty)
    }

    @Test func randomWithoutRepeatPlaysEachEntryOnceAndPreviousWalksBack() {
        var machine = Self.machine(PlayOptions(random: true))
        _ = Self.command(&machine, .play(index: nil))
        Self.started(&machine)
        var played = [machine.queue.currentTrack!]
        for _ in 1..<4 {
            Self.songEnds(&machine)
            played.append(machine.queue.currentTrack!)
        }
        #expect(Set(played) == Set(Self.entries))
        #expect(machine.nextRequest == nil)
        // Back through what was played, newest first, then forward again the same way.
        for expected in played.dropLast().reversed() {
            _ = Self.command(&machine, .previous)
            #expect(machine.queue.currentTrack == expected)
        }
        for expected in played.dropFirst() {
            _ = Self.command(&machine, .next)
            #expect(machine.queue.currentTrack == expected)
        }
        // The cycle is over: without repeat the queue ends.
        Self.started(&machine)
        Self.songEnds(&machine)
        #expect(machine.state == .stopped && machine.queue.currentIndex == nil)
        // Playing again starts a new cycle.
        _ = Self.command(&machine, .play(index: nil))
        #expect(machine.state == .playing && machine.queue.currentTrack != nil)
    }

    @Test func randomWithRepeatGoesOnForever() {
        var machine = Self.machine(PlayOptions(.shuffle))
        _ = Self.command(&machine, .play(index: nil))
        for _ in 0..<12 {
            Self.started(&machine)
            Self.songEnds(&machine)
            #expect(machine.state == .playing)
        }
    }

    @Test func turningRandomOffKeepsTheCurrentEntryAndGoesOnInOrder() {
        var machine = Self.machine(PlayOptions(random: true))
        _ = Self.command(&machine, .play(index: 2))
        _ = Self.command(&machine, .setOptions(PlayOptions()))
        #expect(machine.queue.currentIndex == 2 && machine.nextRequest?.trackID == 104)
    }

    @Test(arguments: [PlayState.paused, .playing, .stopped])
    func seekingToAnotherEntry(from state: PlayState) {
        var machine = Self.machine(PlayOptions())
        _ = Self.command(&machine, .play(index: 0))
        Self.started(&machine)
        if state == .paused { _ = Self.command(&machine, .pause) }
        if state == .stopped { _ = Self.command(&machine, .stop) }
        let actions = Self.command(&machine, .seekEntry(index: 2, ms: 30_000))
        #expect(machine.queue.currentIndex == 2 && machine.positionMs == 30_000)
        if state == .paused {
            // MPD stays paused, on any song.
            #expect(machine.state == .paused)
            #expect(!actions.contains { if case .startPlayback = $0 { true } else { false } })
            #expect(
                Self.command(&machine, .resume).first
                    == .startPlayback(
                        PlaybackRequest(token: machine.currentRequest!.token, trackID: 103, fromMs: 30_000))
            )
        } else {
            #expect(machine.state == .playing)
            #expect(machine.currentRequest?.trackID == 103 && machine.currentRequest?.fromMs == 30_000)
        }
    }

    @Test func seekingTheCurrentEntryWhilePausedStaysPaused() {
        var machine = Self.machine(PlayOptions())
        _ = Self.command(&machine, .play(index: 1))
        Self.started(&machine)
        _ = Self.command(&machine, .pause)
        #expect(Self.command(&machine, .seekEntry(index: 1, ms: 5000)) == [.seek(ms: 5000), .persist(.event)])
        #expect(machine.state == .paused)
    }

    static let allOptions: [PlayOptions] = [false, true].flatMap { r in
        [false, true].flatMap { z in
            SingleMode.allCases.flatMap { y in
                [false, true].map { c in PlayOptions(repeat: r, random: z, single: y, consume: c) }
            }
        }
    }

    @Test func everyFlagSetHasANameThatReadsBack() {
        #expect(Self.allOptions.count == 24)
        #expect(Set(Self.allOptions.map(\.description)).count == 24)
        for options in Self.allOptions { #expect(PlayOptions(description: options.description) == options) }
        #expect(PlayOptions(random: true, single: .oneshot).description == "random single-oneshot")
        #expect(PlayOptions(description: "repeat-all") == PlayOptions(repeat: true))
        #expect(PlayOptions(description: "loop") == nil && PlayOptions(description: "") == nil)
    }

    @Test func presetsAreFlagSetsAndTheModeKeyCyclesThem() {
        #expect(PlayMode.allCases.map { PlayOptions($0).preset } == PlayMode.allCases)
        #expect(PlayOptions(.shuffle) == PlayOptions(repeat: true, random: true))
        #expect(PlayOptions(.repeatOne) == PlayOptions(repeat: true, single: .on))
        var machine = Self.machine(PlayOptions(random: true, consume: true))
        #expect(machine.options.preset == nil)
        #expect(Self.command(&machine, .cycleMode) == [.persist(.event), .reply("mode: in-order")])
        for expected in [PlayMode.repeatAll, .repeatOne, .shuffle, .inOrder] {
            _ = Self.command(&machine, .cycleMode)
            #expect(machine.options.preset == expected)
        }
    }
}
