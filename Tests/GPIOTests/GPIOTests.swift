import Foundation
import GPIO
import Glibc
import LinuxSupport
import Testing

/// The libgpiod wrapper: error paths everywhere, real edges where the kernel offers gpio-sim.
@Suite struct GPIOTests {
    @Test func aMissingChipIsNamedWithTheReason() {
        do {
            _ = try GPIOChip("gpiochip97")
            Issue.record("opened a chip that does not exist")
        } catch {
            #expect(error.chip == "gpiochip97")
            #expect(error.line == nil)
            #expect(error.errno.code == ENOENT || error.errno.code == ENODEV, "\(error.errno)")
            #expect("\(error)".hasPrefix("gpiochip97: gpiod_chip_open_lookup failed: no such GPIO chip"), "\(error)")
        }
    }

    @Test func aPathThatIsNotAChipIsRefused() {
        for path in ["/dev/null", "/nonexistent/gpiochip0"] {
            do {
                _ = try GPIOChip(path)
                Issue.record("opened \(path) as a GPIO chip")
            } catch {
                #expect(error.chip == path)
                #expect("\(error)".hasPrefix("\(path): gpiod_chip_open_lookup failed"), "\(error)")
            }
        }
    }

    struct ReasonCase: Sendable {
        var code: Int32
        var line: Int?
        var expected: String
    }

    @Test(arguments: [
        ReasonCase(
            code: EACCES, line: 17,
            expected:
                "gpiochip0 line 17: gpiod_line_request_both_edges_events_flags failed: permission denied: add the user to the 'gpio' group"
        ),
        ReasonCase(
            code: EPERM, line: nil,
            expected:
                "gpiochip0: gpiod_line_request_both_edges_events_flags failed: permission denied: add the user to the 'gpio' group"
        ),
        ReasonCase(
            code: EBUSY, line: 27,
            expected:
                "gpiochip0 line 27: gpiod_line_request_both_edges_events_flags failed: line busy: another program or a kernel driver"
        ),
        ReasonCase(
            code: ENOENT, line: 99,
            expected: "gpiochip0 line 99: gpiod_line_request_both_edges_events_flags failed: no such line on this chip"),
        ReasonCase(
            code: EIO, line: 5,
            expected: "gpiochip0 line 5: gpiod_line_request_both_edges_events_flags failed: Input/output error"),
    ])
    func errorsSayWhatToDo(_ reasonCase: ReasonCase) {
        let error = GPIOError(
            errno: Errno(code: reasonCase.code, call: "gpiod_line_request_both_edges_events_flags"), chip: "gpiochip0",
            line: reasonCase.line)
        #expect("\(error)".hasPrefix(reasonCase.expected), "\(error)")
    }

    static let simRoot = "/sys/kernel/config/gpio-sim"
    static var simAvailable: Bool { access(simRoot, W_OK) == 0 }

    /// With gpio-sim (configfs, root): request a simulated line, pull it up and down, read the edges.
    @Test(.enabled(if: simAvailable, "gpio-sim is not available (no /sys/kernel/config/gpio-sim or not root)"))
    func edgesFromGPIOSim() throws {
        let name = "jukebox-test-\(getpid())"
        let device = "\(Self.simRoot)/\(name)"
        let files = FileManager.default
        try files.createDirectory(atPath: device, withIntermediateDirectories: false)
        try files.createDirectory(atPath: "\(device)/bank0", withIntermediateDirectories: false)
        defer {
            try? "0".write(toFile: "\(device)/live", atomically: false, encoding: .utf8)
            try? files.removeItem(atPath: "\(device)/bank0")
            rmdir("\(device)/bank0")
            rmdir(device)
        }
        try "8".write(toFile: "\(device)/bank0/num_lines", atomically: false, encoding: .utf8)
        try "1".write(toFile: "\(device)/live", atomically: false, encoding: .utf8)
        let devName = try String(contentsOfFile: "\(device)/dev_name", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let chipName = try String(contentsOfFile: "\(device)/bank0/chip_name", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let pull = "/sys/devices/platform/\(devName)/\(chipName)/sim_gpio3/pull"

        let chip = try GPIOChip(chipName)
        #expect(chip.lineCount == 8)
        let request = try chip.requestBothEdges(offset: 3, consumer: "jukebox-test", bias: .pullDown, activeLow: false)
        #expect(try request.value() == false)
        #expect(try request.readEvents().isEmpty)
        try "pull-up".write(toFile: pull, atomically: false, encoding: .utf8)
        try "pull-down".write(toFile: pull, atomically: false, encoding: .utf8)
        var events: [GPIOLineRequest.Event] = []
        let deadline = MonotonicClock.nanoseconds() + 2_000_000_000
        while events.count < 2, MonotonicClock.nanoseconds() < deadline {
            _ = try Poller.wait([Poller.Interest(fd: request.fd)], timeoutMilliseconds: 100)
            events += try request.readEvents()
        }
        #expect(events.map(\.active) == [true, false])
        if events.count == 2 { #expect(events[0].timestampNs <= events[1].timestampNs) }

        // A second request of the same line is busy, and says so.
        do {
            _ = try chip.requestBothEdges(offset: 3, consumer: "jukebox-test-2")
            Issue.record("requested a busy line")
        } catch {
            #expect(error.errno.code == EBUSY)
            #expect(error.line == 3)
        }
        // A line that is not on the chip.
        #expect(throws: GPIOError.self) { try chip.requestBothEdges(offset: 8, consumer: "jukebox-test") }
    }
}
