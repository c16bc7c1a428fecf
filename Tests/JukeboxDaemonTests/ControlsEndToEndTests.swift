import Foundation
import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Writes recorded-style edges (`seconds line value`, physical levels, bounce of 0.1–2 ms)
/// into the daemon's `--input-replay-fifo`, paced in real time like a hand on the buttons.
final class EdgeWriter {
    let fifo: FileDescriptor
    var random = SplitMix64(seed: 42)

    init(path: String) throws {
        // The daemon holds the FIFO open for reading and writing, so this open does not block.
        fifo = try FileDescriptor(path: path, flags: O_WRONLY | O_NONBLOCK)
    }

    /// One transition of `line` to the physical `level` now, with its bounce burst.
    func transition(_ line: Int, to level: Int) {
        let start = Double(MonotonicClock.nanoseconds()) / 1e9
        let burst = Double(random.next(in: 1...20)) / 10_000  // 0.1–2 ms
        let count = 2 * random.next(in: 1...3)
        var offsets = (0..<(count - 1)).map { _ in Double(random.next(in: 1...99)) / 100 * burst }.sorted()
        offsets.append(burst)
        var text = String(format: "%.9f %d %d\n", start, line, level)
        var current = level
        for offset in offsets {
            current ^= 1
            text += String(format: "%.9f %d %d\n", start + offset, line, current)
        }
        try? fifo.writeAll(Array(text.utf8))
    }

    /// A press of a button to ground (active-low) lasting `ms`.
    func press(_ line: Int, ms: Int) {
        transition(line, to: 0)
        sleepMilliseconds(ms)  // the hand holds the button: pacing, not a synchronisation
        transition(line, to: 1)
    }

    /// Turns the encoder (A = 5, B = 6, to ground) by `detents`, `msPerTransition` apart.
    func turn(_ detents: Int, msPerTransition: Int = 6) {
        // Physical (A, B) at each quarter step clockwise from a detent (both high).
        let clockwise = [(0, 1), (0, 0), (1, 0), (1, 1)]
        let counter = [(1, 0), (0, 0), (0, 1), (1, 1)]
        var state = (1, 1)
        for _ in 0..<abs(detents) {
            for next in detents > 0 ? clockwise : counter {
                if next.0 != state.0 { transition(5, to: next.0) }
                if next.1 != state.1 { transition(6, to: next.1) }
                state = next
                sleepMilliseconds(msPerTransition)  // the hand turns the knob at this pace
            }
        }
    }
}

/// The real daemon driven through its input path: edges → debouncer → gestures → commands.
@Suite(.serialized) struct ControlsEndToEndTests {
    static let pins = """

        [buttons]
        play_pause = 17
        next = 27
        previous = 22

        [encoder]
        a = 5
        b = 6
        switch = 13
        """

    @Test func buttonsAndKnobChangePlayback() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks, configExtra: Self.pins)
        let fifo = harness.directory.file("edges.fifo")
        let process = try harness.start(extraArguments: ["--input-replay-fifo", fifo])
        #expect(process.waitForLine(matching: "playing \"", on: .stderr) != nil, "\(harness.log)")
        // No GPIO chip here: the error names the chip and the daemon goes on.
        #expect(harness.log.contains("gpiochip0: gpiod_chip_open_lookup failed"), "\(harness.log)")
        let writer = try EdgeWriter(path: fifo)
        let first = try #require(harness.status())
        #expect(first.state == "play")

        // play_pause (has a long mapping): a 90 ms press toggles on release.
        writer.press(17, ms: 90)
        #expect(harness.waitForStatus { $0.state == "pause" } != nil, "\(harness.log)")

        // The encoder's switch: a 40 ms press toggles (on the release: its long press opens the menu).
        writer.press(13, ms: 40)
        #expect(harness.waitForStatus { $0.state == "play" } != nil, "\(harness.log)")

        // next: a short press skips.
        writer.press(27, ms: 120)
        #expect(process.waitForLine(matching: "playing \"Café au Lait\"", on: .stderr) != nil, "\(harness.log)")
        let skipped = try #require(harness.status())
        #expect(skipped.songID != first.songID)

        // next held for 1 s: seek +10 at 800 ms (and no skip).
        let before = try #require(harness.status())
        writer.press(27, ms: 1000)
        let sought = try #require(
            harness.waitForStatus { $0.elapsed - before.elapsed >= 10 || $0.songID != before.songID },
            "\(harness.log)")
        #expect(sought.songID == before.songID)
        #expect(sought.elapsed - before.elapsed >= 10, "\(before.elapsed) → \(sought.elapsed)")

        // The knob: 5 detents back, 2 forward, 2 % each, with bounce on both lines.
        writer.turn(-5)
        #expect(harness.waitForStatus { $0.volume == 90 } != nil, "\(harness.log)")
        writer.turn(2)
        #expect(harness.waitForStatus { $0.volume == 94 } != nil, "\(harness.log)")

        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)
    }

    @Test func aChordRunsTheShutdownCommandAfterSavingTheState() throws {
        let harness = try DaemonHarness(
            tracks: DaemonTests.demoTracks,
            configExtra: Self.pins.replacingOccurrences(
                of: "previous = 22",
                with: """
                    previous = 22
                    "play_pause+next" = "shutdown"
                    shutdown_command = "echo shutdown command ran >&2"
                    """))
        let fifo = harness.directory.file("edges.fifo")
        let process = try harness.start(extraArguments: ["--input-replay-fifo", fifo])
        #expect(process.waitForLine(matching: "playing \"", on: .stderr) != nil, "\(harness.log)")
        let writer = try EdgeWriter(path: fifo)
        // play_pause down, next down 150 ms later, both held past long_press_ms, then released
        // (the sleeps pace the hand).
        writer.transition(17, to: 0)
        sleepMilliseconds(150)
        writer.transition(27, to: 0)
        sleepMilliseconds(1000)
        writer.transition(27, to: 1)
        sleepMilliseconds(30)
        writer.transition(17, to: 1)
        #expect(process.waitForLine(matching: "shutdown gesture: running", on: .stderr) != nil, "\(harness.log)")
        // The command inherits the daemon's stderr.
        #expect(process.waitForLine(matching: "shutdown command ran", on: .stderr) != nil, "\(harness.log)")
        // Neither button did its own gesture: still playing the first track.
        #expect(harness.status()?.state == "play")
        #expect(!harness.log.contains("input: -> toggle") && !harness.log.contains("input: -> next"), "\(harness.log)")
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(3)) == 0)
    }
}
