import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Logging
import Testing

@testable import JukeboxDevices

/// An injectable edge source: a pipe for the poll, and readings queued by the test.
final class ScriptedEdgeSource: EdgeEventSource {
    let name = "scripted"
    private let readEnd: FileDescriptor
    private let writeEnd: FileDescriptor
    var queued: [InputReading] = []
    /// Thrown by the next read (a device that went away).
    var failure: Errno?
    let initialLevels: [InputSignal: Bool] = [:]

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Errno.current("pipe") }
        readEnd = FileDescriptor(owning: ends[0])
        writeEnd = FileDescriptor(owning: ends[1])
    }

    var fds: [Int32] { [readEnd.rawValue] }

    func read(fd: Int32, now: Instant) throws -> [InputReading] {
        if let failure { throw failure }
        defer { queued = [] }
        return queued
    }
}

@Suite struct ControlInputsTests {
    static func actions(_ outputs: [ControlOutput]) -> [String] {
        outputs.compactMap { output in
            guard case .action(let action, _) = output else { return nil }
            return "\(action)"
        }
    }

    @Test func readingsBecomeCommandsAndTimersFire() throws {
        let source = try ScriptedEdgeSource()
        var config = JukeboxConfig(musicDir: "/m")
        // A short-only switch, which acts on the press (not held for scrubbing either).
        config.encoder.gestures["switch_long"] = nil
        config.encoder.scrubButton = .none
        let inputs = ControlInputs(
            sources: [source],
            controller: InputController(map: ControlMap(config: config), settings: .init(config: config)),
            logger: Logger(label: "test"))
        let fd = try #require(source.fds.first)
        #expect(inputs.fds == [fd])
        #expect(inputs.owns(fd))
        #expect(!inputs.owns(fd + 1000))

        // The switch is short-only: the press is the command, once the line has been stable
        // for debounce_ms (5): the read only starts the wait, the timer fires it.
        source.queued = [.edge(.button("switch"), active: true, at: .milliseconds(100))]
        #expect(Self.actions(inputs.read(fd: fd, now: .milliseconds(101))) == [])
        #expect(inputs.nextDeadline == .milliseconds(105), "the end of the stable time")
        #expect(Self.actions(inputs.advance(to: .milliseconds(105))) == ["toggle"])
        source.queued = [.edge(.button("switch"), active: false, at: .milliseconds(160))]
        #expect(Self.actions(inputs.read(fd: fd, now: .milliseconds(161))) == [])
        #expect(Self.actions(inputs.advance(to: .milliseconds(165))) == [])

        // next held: nothing at the press, seek +10 when the long-press timer runs out
        // (800 ms from the press counted at 1005).
        source.queued = [.edge(.button("next"), active: true, at: .milliseconds(1000))]
        #expect(Self.actions(inputs.read(fd: fd, now: .milliseconds(1001))) == [])
        #expect(Self.actions(inputs.advance(to: .milliseconds(1005))) == [])
        #expect(inputs.nextDeadline == .milliseconds(1805))
        #expect(Self.actions(inputs.advance(to: .milliseconds(1804))) == [])
        #expect(Self.actions(inputs.advance(to: .milliseconds(1805))) == ["seek +10"])
        source.queued = [.edge(.button("next"), active: false, at: .milliseconds(1900))]
        #expect(Self.actions(inputs.read(fd: fd, now: .milliseconds(1901))) == [])
        #expect(Self.actions(inputs.advance(to: .milliseconds(1905))) == [])

        // Kernel encoder detents (REL_X): the first acts at once, the rest per output period.
        source.queued = [.detents(1, at: .milliseconds(3000)), .detents(2, at: .milliseconds(3002))]
        #expect(Self.actions(inputs.read(fd: fd, now: .milliseconds(3003))) == ["volume +2"])
        #expect(Self.actions(inputs.advance(to: .milliseconds(3010))) == ["volume +4"])

        // An input device's keys (gpio-keys debounced them): the release is the command in
        // the read that brings it, with no timer left.
        source.queued = [.key("play_pause", pressed: true, at: .milliseconds(3500))]
        #expect(Self.actions(inputs.read(fd: fd, now: .milliseconds(3501))) == [])
        source.queued = [.key("play_pause", pressed: false, at: .milliseconds(3560))]
        #expect(Self.actions(inputs.read(fd: fd, now: .milliseconds(3561))) == ["toggle"])
        #expect(inputs.nextDeadline == nil)

        // A source that fails is dropped; the others (none here) go on.
        source.failure = Errno(code: ENODEV, call: "read")
        #expect(inputs.read(fd: fd, now: .milliseconds(4000)).isEmpty)
        #expect(inputs.fds.isEmpty)
    }

    @Test func thePinMapFollowsTheConfig() {
        var config = JukeboxConfig(musicDir: "/m")
        config.buttons.next = 27
        config.encoder.chip = "gpiochip1"
        config.encoder.a = 5
        config.encoder.b = 6
        config.encoder.active = .high
        let pins = PinMap(config: config).pins
        #expect(pins.map(\.line) == [27, 5, 6])
        #expect(pins.map(\.chip) == ["gpiochip0", "gpiochip1", "gpiochip1"])
        #expect(pins.map(\.activeLow) == [true, false, false])
        #expect(pins.map(\.signal) == [.button("next"), .encoderA, .encoderB])
    }

    @Test func noWiringMeansNoControls() {
        #expect(
            ControlInputs.open(config: JukeboxConfig(musicDir: "/m"), replayFifo: nil, logger: Logger(label: "t"))
                == nil)
    }
}

/// The Linux input-event source on a real kernel device, where uinput is offered.
@Test(.enabled(if: VirtualInputDevice.isAvailable, "no writable /dev/uinput here"))
func inputEventsFromAUinputDevice() throws {
    let device = try VirtualInputDevice(name: "jukebox-test-keys", keys: [163, 164, 165, 28])
    let source = try EvdevSource(path: device.eventPath)
    try device.send(type: 1, code: 163, value: 1)
    try device.send(type: 1, code: 163, value: 0)
    try device.send(type: 2, code: 0, value: -1)
    var readings: [InputReading] = []
    let deadline = MonotonicClock.nanoseconds() + 2_000_000_000
    while readings.count < 3, MonotonicClock.nanoseconds() < deadline {
        _ = try Poller.wait([Poller.Interest(fd: source.fds[0])], timeoutMilliseconds: 100)
        readings += try source.read(fd: source.fds[0], now: Instant(nanoseconds: Int64(MonotonicClock.nanoseconds())))
    }
    let kinds = readings.map { reading -> String in
        switch reading {
        case .edge(let signal, let active, _): "edge \(signal) \(active)"
        case .key(let name, let pressed, _): "\(name) \(pressed)"
        case .detents(let count, _): "detents \(count)"
        }
    }
    #expect(kinds == ["next true", "next false", "detents -1"])
}

/// A key of a real input device (as gpio-keys makes it) through the wiring the daemon uses:
/// the kernel debounced it, so its release is the command in the read that brings it.
@Test(.enabled(if: VirtualInputDevice.isAvailable, "no writable /dev/uinput here"))
func aKeyReleaseActsWithoutASecondDebounce() throws {
    let device = try VirtualInputDevice(name: "jukebox-test-playpause", keys: [164])
    var config = JukeboxConfig(musicDir: "/m")
    config.buttons.inputDevice = device.eventPath
    let inputs = try #require(ControlInputs.open(config: config, replayFifo: nil, logger: Logger(label: "test")))
    let fd = try #require(inputs.fds.first)
    try device.send(type: 1, code: 164, value: 1)
    try device.send(type: 1, code: 164, value: 0)
    var actions: [String] = []
    let deadline = MonotonicClock.nanoseconds() + 2_000_000_000
    while actions.isEmpty, MonotonicClock.nanoseconds() < deadline {
        _ = try Poller.wait([Poller.Interest(fd: fd)], timeoutMilliseconds: 100)
        actions += ControlInputsTests.actions(inputs.read(fd: fd, now: .now))
    }
    #expect(actions == ["toggle"])
    #expect(inputs.nextDeadline == nil)
}
