import Testing

@testable import JukeboxCore

@Suite struct PlaybackSpeedTests {
    @Test(arguments: [
        ("1.5", 150), ("1.5x", 150), ("150%", 150), ("0.5", 50), ("2", 200), (".75", 75), ("1.05", 105),
        ("1", 100),
    ])
    func speedsParse(text: String, hundredths: Int) {
        #expect(PlaybackSpeed.parse(text)?.hundredths == hundredths)
        #expect(PlaybackSpeed.parse(PlaybackSpeed(clamping: hundredths).description)?.hundredths == hundredths)
    }

    @Test(arguments: ["2.5", "0.4", "abc", "1.234", "", "-1", "1..5", "x"])
    func nonSpeedsAreRefused(text: String) {
        #expect(PlaybackSpeed.parse(text) == nil)
    }

    @Test func theConsoleWordsParseAndPrintBack() {
        let cases: [(String, Command)] = [
            ("speed 1.5", .setSpeed(PlaybackSpeed(clamping: 150))), ("speed +0.25", .changeSpeed(25)),
            ("speed -0.1", .changeSpeed(-10)), ("speed cycle", .cycleSpeed),
        ]
        for (line, command) in cases {
            #expect(CommandParser.parse(line) == .success(command))
            #expect(CommandParser.parse(command.consoleText) == .success(command))
        }
        guard case .failure(.badArgument(command: "speed", _)) = CommandParser.parse("speed 3") else {
            Issue.record("speed 3 parsed")
            return
        }
        // A card's or a gesture's command line is the same.
        #expect(ControlAction.parse("speed 1.5") == .success(.command(.setSpeed(PlaybackSpeed(clamping: 150)))))
    }

    /// Track 103 is long (20 min), 101 and 102 short: the book keeps its 1.5, the music
    /// around it the box's speed, and each comes back when its track starts again.
    @Test func aLongTrackKeepsItsOwnSpeedAndOtherTracksTheBoxs() {
        var machine = PlayerMachineTests.machine(entries: [101, 103, 102])
        let fast = PlaybackSpeed(clamping: 150)
        _ = PlayerMachineTests.command(&machine, .play(index: 1))
        let chosen = PlayerMachineTests.command(&machine, .setSpeed(fast))
        #expect(chosen == [.rememberSpeed(fast, track: 103), .setSpeed(fast), .reply("speed: 1.5")])
        #expect(machine.speed == fast && machine.boxSpeed == .normal)
        // Next: a short track, at the box's 1.0.
        #expect(PlayerMachineTests.command(&machine, .next).first == .setSpeed(.normal))
        let slower = PlayerMachineTests.command(&machine, .changeSpeed(-25))
        #expect(slower.first == .rememberSpeed(PlaybackSpeed(clamping: 75), track: nil))
        #expect(machine.boxSpeed == PlaybackSpeed(clamping: 75))
        // Back to the book: its own speed again.
        _ = machine.handle(.position(ms: 0), now: .zero)
        #expect(PlayerMachineTests.command(&machine, .previous).first == .setSpeed(fast))
        // The short track before it, reached by a gapless advance elsewhere: the box's.
        #expect(machine.speed(for: 101) == PlaybackSpeed(clamping: 75))
        #expect(
            PlayerMachineTests.command(&machine, .cycleSpeed).first
                == .rememberSpeed(PlaybackSpeed(clamping: 175), track: 103))
    }

    @Test func storedSpeedsComeBackAtStart() {
        var machine = PlayerMachineTests.machine(entries: [103, 101])
        let slow = PlaybackSpeed(clamping: 75)
        _ = machine.handle(.savedSpeedsLoaded([103: PlaybackSpeed(clamping: 125)], box: slow), now: .zero)
        let started = PlayerMachineTests.command(&machine, .play(index: nil))
        #expect(started.first == .setSpeed(PlaybackSpeed(clamping: 125)))
        // The follow-up becomes current by itself: the box's speed takes over.
        let advanced = machine.handle(.started(token: 2), now: .zero)
        #expect(advanced.first == .setSpeed(slow))
        #expect(machine.statusText.contains("speed: 0.75"))
    }
}
