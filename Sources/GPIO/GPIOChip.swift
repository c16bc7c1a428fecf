import CGPIOD
import Glibc
import LinuxSupport

/// An open GPIO chip (`/dev/gpiochipN`), the one owner of its libgpiod handle. Line requests
/// keep their chip alive: `gpiod_chip_close` "close[s] a GPIO chip handle and release[s] all
/// allocated resources", its lines included (gpiod.h, v1.6). Not thread-safe: the control
/// loop uses it.
public final class GPIOChip {
    private let handle: OpaquePointer
    /// The chip as it was asked for (for messages).
    public let descriptor: String

    /// Opens a chip by name (`gpiochip0`), path (`/dev/gpiochip0`), number (`0`) or label
    /// (`pinctrl-bcm2711`). The corresponding C function is gpiod_chip_open_lookup.
    public init(_ descriptor: String) throws(GPIOError) {
        self.descriptor = descriptor
        Glibc.errno = 0
        guard let chip = gpiod_chip_open_lookup(descriptor) else {
            // open_lookup can fail with errno still 0 when nothing matched the description.
            if Glibc.errno == 0 { Glibc.errno = ENOENT }
            throw GPIOError.current("gpiod_chip_open_lookup", chip: descriptor)
        }
        handle = chip
    }

    deinit { gpiod_chip_close(handle) }

    /// The kernel's name of the chip (`gpiochip0`). The C function is gpiod_chip_name.
    public var name: String { String(cString: gpiod_chip_name(handle)) }

    /// The chip's label (`pinctrl-bcm2711`). The C function is gpiod_chip_label.
    public var label: String { String(cString: gpiod_chip_label(handle)) }

    /// How many lines the chip has. The C function is gpiod_chip_num_lines.
    public var lineCount: Int { Int(gpiod_chip_num_lines(handle)) }

    /// Requests `offset` for events on both edges. See `GPIOLineRequest`.
    public func requestBothEdges(
        offset: Int, consumer: String, bias: GPIOLineRequest.Bias = .pullUp, activeLow: Bool = true
    ) throws(GPIOError) -> GPIOLineRequest {
        try GPIOLineRequest(chip: self, offset: offset, consumer: consumer, bias: bias, activeLow: activeLow)
    }

    /// The line handle for `offset`, owned by the chip (never freed on its own).
    fileprivate func line(_ offset: Int) throws(GPIOError) -> OpaquePointer {
        guard offset >= 0, offset < lineCount else {
            throw GPIOError(errno: Errno(code: ENOENT, call: "gpiod_chip_get_line"), chip: descriptor, line: offset)
        }
        guard let line = gpiod_chip_get_line(handle, UInt32(offset)) else {
            throw GPIOError.current("gpiod_chip_get_line", chip: descriptor, line: offset)
        }
        return line
    }
}

/// One line requested for events on both edges: owns the request (released in deinit) and
/// keeps its chip alive. Its event fd goes into the control loop's poll; `readEvents()` then
/// reads what the kernel queued, with the kernel's timestamps (no sysfs, no polling on a timer).
public final class GPIOLineRequest {
    /// The bias the line is requested with.
    public enum Bias: Sendable, Equatable {
        case pullUp
        case pullDown
        case disabled
        /// Leave the line's bias as it is (set by firmware or an overlay).
        case asIs

        var flag: Int32 {
            switch self {
            case .pullUp: Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
            case .pullDown: Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
            case .disabled: Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
            case .asIs: 0
            }
        }
    }

    /// One edge as the kernel stamped it.
    public struct Event: Sendable, Equatable {
        /// The logical level after the edge (active-low already applied: true = pressed).
        public var active: Bool
        /// The kernel's timestamp (CLOCK_MONOTONIC since Linux 5.7), in nanoseconds.
        public var timestampNs: Int64
    }

    public let chip: GPIOChip
    public let offset: Int
    private let line: OpaquePointer
    /// The event fd; libgpiod owns it and closes it in gpiod_line_release.
    public let fd: Int32

    fileprivate init(chip: GPIOChip, offset: Int, consumer: String, bias: Bias, activeLow: Bool) throws(GPIOError) {
        self.chip = chip
        self.offset = offset
        line = try chip.line(offset)
        var flags = bias.flag
        if activeLow { flags |= Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) }
        if gpiod_line_request_both_edges_events_flags(line, consumer, flags) != 0 {
            throw GPIOError.current("gpiod_line_request_both_edges_events_flags", chip: chip.descriptor, line: offset)
        }
        let fd = gpiod_line_event_get_fd(line)
        guard fd >= 0 else {
            let error = GPIOError.current("gpiod_line_event_get_fd", chip: chip.descriptor, line: offset)
            gpiod_line_release(line)
            throw error
        }
        // poll() says when to read; a read must never block the control loop.
        do {
            let flagsNow = try SystemCall.value("fcntl(O_NONBLOCK)") { fcntl(fd, F_GETFL) }
            _ = try SystemCall.value("fcntl(O_NONBLOCK)") { fcntl(fd, F_SETFL, flagsNow | O_NONBLOCK) }
        } catch {
            gpiod_line_release(line)
            throw GPIOError(errno: error, chip: chip.descriptor, line: offset)
        }
        self.fd = fd
    }

    deinit { gpiod_line_release(line) }

    /// The line's current logical level. The C function is gpiod_line_get_value.
    public func value() throws(GPIOError) -> Bool {
        let value = gpiod_line_get_value(line)
        if value < 0 { throw GPIOError.current("gpiod_line_get_value", chip: chip.descriptor, line: offset) }
        return value == 1
    }

    /// Reads every queued event (none when nothing is queued). The C function is
    /// gpiod_line_event_read_fd_multiple.
    public func readEvents() throws(GPIOError) -> [Event] {
        var buffer = [gpiod_line_event](repeating: gpiod_line_event(), count: 16)
        var events: [Event] = []
        while true {
            let read: Int32?
            do {
                read = try SystemCall.valueUnlessWouldBlock("gpiod_line_event_read_fd_multiple") {
                    buffer.withUnsafeMutableBufferPointer {
                        gpiod_line_event_read_fd_multiple(fd, $0.baseAddress, UInt32($0.count))
                    }
                }
            } catch {
                throw GPIOError(errno: error, chip: chip.descriptor, line: offset)
            }
            guard let count = read else { return events }
            for event in buffer[0..<Int(count)] {
                events.append(
                    Event(
                        active: event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE),
                        timestampNs: Int64(event.ts.tv_sec) * 1_000_000_000 + Int64(event.ts.tv_nsec)))
            }
            if count < buffer.count { return events }
        }
    }
}

extension GPIOChip {
    /// Requests `offset` as an output at `value`. See `GPIOOutputLine`.
    public func requestOutput(offset: Int, consumer: String, value: Bool) throws(GPIOError) -> GPIOOutputLine {
        try GPIOOutputLine(chip: self, line: line(offset), offset: offset, consumer: consumer, value: value)
    }
}

/// One line requested as an output: owns the request (released in deinit, when the kernel
/// lets the line go back to its default) and keeps its chip alive.
public final class GPIOOutputLine {
    private let chip: GPIOChip
    public let offset: Int
    private let line: OpaquePointer

    fileprivate init(chip: GPIOChip, line: OpaquePointer, offset: Int, consumer: String, value: Bool)
        throws(GPIOError)
    {
        self.chip = chip
        self.offset = offset
        self.line = line
        if gpiod_line_request_output(line, consumer, value ? 1 : 0) != 0 {
            throw GPIOError.current("gpiod_line_request_output", chip: chip.descriptor, line: offset)
        }
    }

    deinit { gpiod_line_release(line) }

    /// Drives the line. The C function is gpiod_line_set_value.
    public func set(_ value: Bool) throws(GPIOError) {
        if gpiod_line_set_value(line, value ? 1 : 0) != 0 {
            throw GPIOError.current("gpiod_line_set_value", chip: chip.descriptor, line: offset)
        }
    }
}
