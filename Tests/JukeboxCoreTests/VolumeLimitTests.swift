import Testing

@testable import JukeboxCore

/// Volume limits a child cannot get around: minimum, maximum, the headphone maximum and the
/// lock at rest hold for every command, whichever front end sent it.
@Suite struct VolumeLimitTests {
    static func machine(
        minVolume: Int = 10, maxVolume: Int = 70, headphoneMax: Int? = 30, locked: Bool = false, start: Int = 40
    ) -> PlayerMachine {
        var machine = PlayerMachine(
            configuration: .init(
                maxVolume: maxVolume, startVolume: start, minVolume: minVolume, headphoneMaxVolume: headphoneMax,
                volumeLockedAtRest: locked),
            queue: PlayQueue(entries: [1, 2], mode: .inOrder, seed: 1))
        _ = machine.handle(
            .tracksDescribed([TrackInfo(id: 1, path: "a.mp3"), TrackInfo(id: 2, path: "b.mp3")]), now: .zero)
        return machine
    }

    static func send(_ machine: inout PlayerMachine, _ command: Command) -> [PlayerAction] {
        machine.handle(.command(command), now: .zero)
    }

    @Test(arguments: [
        (Command.setVolume(0), false, 10, "volume: 10 (the minimum)"),
        (.changeVolume(-100), false, 10, "volume: 10 (the minimum)"),
        (.setVolume(100), false, 70, "volume: 70 (the maximum)"),
        (.changeVolume(Int.max), false, 70, "volume: 70 (the maximum)"),
        (.setVolume(55), false, 55, "volume: 55"),
        (.setVolume(100), true, 30, "volume: 30 (the maximum)"),
        (.changeVolume(5), true, 30, "volume: 30 (the maximum)"),
        (.setVolume(0), true, 10, "volume: 10 (the minimum)"),
    ])
    func everyCommandStaysInsideTheLimits(command: Command, headphones: Bool, volume: Int, reply: String) {
        var machine = Self.machine()
        _ = machine.handle(.headphones(plugged: headphones), now: .zero)
        let actions = Self.send(&machine, command)
        #expect(actions.last == .reply(reply))
        #expect(machine.volume == volume)
        // Where the reply names a limit, the box says it without a screen too.
        let limit: VolumeLimit? =
            reply.hasSuffix("(the maximum)") ? .maximum : reply.hasSuffix("(the minimum)") ? .minimum : nil
        #expect(
            actions.filter { if case .limitReached = $0 { true } else { false } } == limit.map { [.limitReached($0)] }
                ?? [])
    }

    @Test func pluggingHeadphonesInLowersALoudVolumeAndUnpluggingKeepsIt() {
        var machine = Self.machine()
        _ = Self.send(&machine, .setVolume(60))
        #expect(machine.handle(.headphones(plugged: true), now: .zero) == [.setVolume(30), .persist(.event)])
        #expect(machine.handle(.headphones(plugged: false), now: .zero) == [])
        #expect(machine.volume == 30)
        _ = Self.send(&machine, .setVolume(20))
        #expect(machine.handle(.headphones(plugged: true), now: .zero) == [])
        #expect(machine.volume == 20)
    }

    @Test func withoutAHeadphoneMaximumHeadphonesUseTheMaximum() {
        var machine = Self.machine(headphoneMax: nil)
        _ = machine.handle(.headphones(plugged: true), now: .zero)
        _ = Self.send(&machine, .setVolume(100))
        #expect(machine.volume == 70)
    }

    @Test(arguments: [PlayState.stopped, .paused])
    func aLockedVolumeIgnoresChangesAtRest(rest: PlayState) {
        var machine = Self.machine(locked: true)
        if rest == .paused {
            _ = Self.send(&machine, .play(index: nil))
            _ = Self.send(&machine, .pause)
        }
        #expect(machine.state == rest)
        let locked: [PlayerAction] = [.limitReached(.lockedAtRest), .reply("volume: 40 (locked while nothing plays)")]
        #expect(Self.send(&machine, .changeVolume(30)) == locked)
        #expect(Self.send(&machine, .setVolume(70)) == locked)
        #expect(machine.volume == 40)
        _ = Self.send(&machine, rest == .paused ? .resume : .play(index: nil))
        #expect(Self.send(&machine, .changeVolume(5)) == [.setVolume(45), .persist(.event), .reply("volume: 45")])
    }

    @Test func anUnlockedVolumeChangesAtRest() {
        var machine = Self.machine()
        #expect(Self.send(&machine, .setVolume(50)) == [.setVolume(50), .persist(.event), .reply("volume: 50")])
    }

    @Test(arguments: [(5, 10), (50, 40), (35, 35)])
    func restoredVolumeIsAtMostTheStartAndAtLeastTheMinimum(saved: Int, restored: Int) {
        var machine = Self.machine()
        let snapshot = PlayerMachine.Snapshot(
            queue: PlayQueue(entries: [1, 2], mode: .inOrder, seed: 1).snapshot, currentTrack: nil, positionMs: 0,
            state: .stopped, volume: saved)
        #expect(machine.handle(.restored(snapshot, onStart: .off), now: .zero) == [.setVolume(restored)])
    }

    @Test func theStartVolumeIsRaisedToTheMinimum() {
        #expect(Self.machine(minVolume: 20, start: 5).volume == 20)
    }

    /// A rules' profile caps the volume below the configured maximum, sets its start volume,
    /// and gives the configured maximum back when none holds.
    @Test func aProfileCapsTheVolumeAndSetsItsStartVolume() {
        var machine = Self.machine()
        _ = Self.send(&machine, .setVolume(65))
        let evening = machine.handle(.volumeProfile(maxVolume: 40, volume: nil), now: .zero)
        #expect(evening == [.setVolume(40), .persist(.event)])
        #expect(Self.send(&machine, .setVolume(100)).last == .reply("volume: 40 (the maximum)"))
        let morning = machine.handle(.volumeProfile(maxVolume: 90, volume: 25), now: .zero)
        #expect(morning == [.setVolume(25), .persist(.event)])
        #expect(Self.send(&machine, .setVolume(100)).last == .reply("volume: 70 (the maximum)"))
        _ = machine.handle(.volumeProfile(maxVolume: nil, volume: nil), now: .zero)
        #expect(machine.volumeRange == 10...70)
    }
}
