// Edge event sources for the control loop: each offers fds to poll and, when one is
// readable, reads what the kernel (or a test) queued, stamped on the monotonic clock. They
// never block and never sleep: the control loop's poll is the only wait.

import GPIO
import Glibc
import JukeboxCore
import LinuxSupport
import Logging

/// What a source read.
enum InputReading: Sendable, Equatable {
    /// An edge of a line; `active` is its logical level after it (true = pressed).
    case edge(InputSignal, active: Bool, at: Instant)
    /// A press or release of a button that the kernel already debounced (an input device's key).
    case key(String, pressed: Bool, at: Instant)
    /// Detents from a kernel encoder driver (REL_* events), signed.
    case detents(Int, at: Instant)
}

/// A source of input edges with fds for the control loop's poll. Used on `jb-control` only.
protocol EdgeEventSource: AnyObject {
    /// For logs: `gpiochip0`, `/dev/input/event0`.
    var name: String { get }
    /// The fds to poll for reading.
    var fds: [Int32] { get }
    /// The logical levels of the lines when they were requested.
    var initialLevels: [InputSignal: Bool] { get }
    /// Reads what `fd` has (it was reported readable); `now` is the monotonic clock.
    func read(fd: Int32, now: Instant) throws -> [InputReading]
}

/// The lines to request, as the config names them: line offset → signal, per chip.
struct PinMap: Equatable {
    struct Pin: Equatable {
        var chip: String
        var line: Int
        var signal: InputSignal
        var bias: LineBias
        var activeLow: Bool
    }

    var pins: [Pin] = []

    init(config: JukeboxConfig) {
        let buttons = config.buttons
        let encoder = config.encoder
        func add(_ line: Int?, _ chip: String, _ signal: InputSignal, _ bias: LineBias, _ active: LineActive) {
            guard let line else { return }
            pins.append(Pin(chip: chip, line: line, signal: signal, bias: bias, activeLow: active == .low))
        }
        add(buttons.playPause, buttons.chip, .button("play_pause"), buttons.bias, buttons.active)
        add(buttons.next, buttons.chip, .button("next"), buttons.bias, buttons.active)
        add(buttons.previous, buttons.chip, .button("previous"), buttons.bias, buttons.active)
        add(encoder.a, encoder.chip, .encoderA, encoder.bias, encoder.active)
        add(encoder.b, encoder.chip, .encoderB, encoder.bias, encoder.active)
        add(encoder.pushSwitch, encoder.chip, .button("switch"), encoder.bias, encoder.active)
    }
}

/// libgpiod: the configured lines, requested for both-edge events with bias and active-low.
final class GPIOEdgeSource: EdgeEventSource {
    let name: String
    private var requests: [Int32: (request: GPIOLineRequest, signal: InputSignal)] = [:]
    private(set) var initialLevels: [InputSignal: Bool] = [:]

    /// Requests every pin of `chip`; throws the first failure (with chip, line and reason).
    init(chip descriptor: String, pins: [PinMap.Pin]) throws(GPIOError) {
        name = descriptor
        let chip = try GPIOChip(descriptor)
        for pin in pins {
            let bias: GPIOLineRequest.Bias
            switch pin.bias {
            case .pullUp: bias = .pullUp
            case .pullDown: bias = .pullDown
            case .disabled: bias = .disabled
            case .asIs: bias = .asIs
            }
            let request = try chip.requestBothEdges(
                offset: pin.line, consumer: "jukeboxd \(pin.signal)", bias: bias, activeLow: pin.activeLow)
            requests[request.fd] = (request, pin.signal)
            initialLevels[pin.signal] = try request.value()
        }
    }

    var fds: [Int32] { Array(requests.keys).sorted() }

    /// Reads every line of the chip, not only `fd`'s, and returns the edges in the order they
    /// happened. Each line has its own fd and queue (uAPI v1): read one after the other, an
    /// encoder's A and B edges came out of order whenever the loop was more than one
    /// transition behind, and the decoder lost the clicks (on the virtual board's gpio-sim,
    /// 1-2 of 5 clicks at 10 ms per transition).
    func read(fd: Int32, now: Instant) throws -> [InputReading] {
        guard requests[fd] != nil else { return [] }
        var edges: [(at: Instant, order: Int, reading: InputReading)] = []
        for (request, signal) in requests.values {
            for event in try request.readEvents() {
                // The kernel stamps line events with CLOCK_MONOTONIC (Linux 5.7 and later), the
                // clock the control loop runs on; an older kernel's realtime stamp is replaced.
                let stamped = Instant(nanoseconds: event.timestampNs)
                let at = abs(now.nanoseconds - stamped.nanoseconds) < 10_000_000_000 ? stamped : now
                edges.append((at, edges.count, .edge(signal, active: event.active, at: at)))
            }
        }
        return edges.sorted { ($0.at, $0.order) < ($1.at, $1.order) }.map(\.reading)
    }
}

/// A Linux input device (`/dev/input/eventN`) from the kernel's `gpio-keys` and
/// `rotary-encoder` overlays: KEY_* presses map to the buttons, REL_* (and volume keys) to
/// detents. The kernel already debounced them: they go to the same gestures without the
/// debouncer's wait.
final class EvdevSource: EdgeEventSource {
    let name: String
    private let device: FileDescriptor
    private var pending: [UInt8] = []
    let initialLevels: [InputSignal: Bool] = [:]

    /// KEY_* codes (linux/input-event-codes.h) → buttons.
    static let keys: [UInt16: String] = [
        164: "play_pause",  // KEY_PLAYPAUSE
        207: "play_pause",  // KEY_PLAY
        119: "play_pause",  // KEY_PAUSE
        163: "next",  // KEY_NEXTSONG
        165: "previous",  // KEY_PREVIOUSSONG
        28: "switch",  // KEY_ENTER
        353: "switch",  // KEY_SELECT
    ]
    /// KEY_VOLUMEUP/KEY_VOLUMEDOWN count as a detent each.
    static let volumeKeys: [UInt16: Int] = [115: 1, 114: -1]
    static let evKey: UInt16 = 1
    static let evRel: UInt16 = 2

    init(path: String) throws(Errno) {
        name = path
        device = try FileDescriptor(path: path, flags: O_RDONLY | O_NONBLOCK)
    }

    var fds: [Int32] { [device.rawValue] }

    func read(fd: Int32, now: Instant) throws -> [InputReading] {
        guard let bytes = try device.readIfReady(upTo: 64 * Self.recordSize) else { return [] }
        pending += bytes
        let readings = Self.decode(&pending, now: now, realtimeNow: Self.realtimeNanoseconds())
        return readings
    }

    static let recordSize = InputEventRecord.size

    /// Decodes whole records from `bytes` (leaving a partial one), converting the kernel's
    /// realtime stamps to the monotonic clock.
    static func decode(_ bytes: inout [UInt8], now: Instant, realtimeNow: Int64) -> [InputReading] {
        var readings: [InputReading] = []
        for record in InputEventRecord.decode(&bytes) {
            let age = max(0, realtimeNow - (record.seconds * 1_000_000_000 + record.microseconds * 1000))
            let at = Instant(nanoseconds: now.nanoseconds - min(age, 1_000_000_000))
            switch record.type {
            case evKey where record.value == 0 || record.value == 1:
                if let button = keys[record.code] {
                    readings.append(.key(button, pressed: record.value == 1, at: at))
                } else if let detent = volumeKeys[record.code], record.value == 1 {
                    readings.append(.detents(detent, at: at))
                }
            case evRel where record.value != 0:
                readings.append(.detents(Int(record.value), at: at))
            default:
                break
            }
        }
        return readings
    }

    static func realtimeNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// Test and bench injection (`jukeboxd --input-replay-fifo PATH`): edge lines in the
/// `input-replay` formats written to a FIFO drive the real input path. Times on this
/// machine's monotonic clock (within 10 s of now at the first edge) are taken as they are,
/// as the kernel's GPIO edge timestamps are: the debouncer's stable time then runs from the
/// real edge, however late the loop reads it. Other times (a recording) are anchored: the
/// first edge's time to its arrival; a writer that falls behind is re-anchored, so each
/// burst keeps its own spacing (bounce) and none is stamped in the past.
final class ReplayFifoSource: EdgeEventSource {
    let name: String
    private let fifo: FileDescriptor
    private var buffer = ConsoleLineBuffer()
    private let pins: [Int: (signal: InputSignal, activeLow: Bool)]
    private var anchor: (recorded: Instant, local: Instant)?
    /// The writer stamps edges with this machine's monotonic clock.
    private var sameClock: Bool?
    private let logger: Logger
    let initialLevels: [InputSignal: Bool] = [:]

    init(path: String, config: JukeboxConfig, logger: Logger) throws(Errno) {
        name = path
        self.logger = logger
        if !FileSystem.exists(path) { try FileSystem.makeFIFO(path) }
        // O_RDWR keeps a writer open, so a test closing its end is no end of file (no POLLHUP storm).
        fifo = try FileDescriptor(path: path, flags: O_RDWR | O_NONBLOCK)
        pins = EdgeReplay(config: config).pins
    }

    var fds: [Int32] { [fifo.rawValue] }

    func read(fd: Int32, now: Instant) throws -> [InputReading] {
        guard let bytes = try fifo.readIfReady(upTo: 4096) else { return [] }
        var readings: [InputReading] = []
        for case .text(let line) in buffer.feed(bytes) {
            switch EdgeStreamParser.parseLine(Substring(line)) {
            case .success(nil):
                continue
            case .failure(let error):
                logger.warning("input replay: \(error)")
            case .success(let edge?):
                guard let pin = pins[edge.line] else {
                    logger.warning("input replay: line \(edge.line) is not in the pin map")
                    continue
                }
                if sameClock == nil { sameClock = abs(edge.at.nanoseconds - now.nanoseconds) < 10_000_000_000 }
                if sameClock == true {
                    readings.append(.edge(pin.signal, active: edge.level != pin.activeLow, at: edge.at))
                    continue
                }
                if let current = anchor {
                    let mapped = current.local.adding(nanoseconds: edge.at.nanoseconds - current.recorded.nanoseconds)
                    if mapped.milliseconds(since: now) < -5 { anchor = (edge.at, now) }
                } else {
                    anchor = (edge.at, now)
                }
                let at = anchor!.local.adding(nanoseconds: edge.at.nanoseconds - anchor!.recorded.nanoseconds)
                readings.append(.edge(pin.signal, active: edge.level != pin.activeLow, at: at))
            }
        }
        return readings
    }
}

/// One `struct input_event` of an evdev device: a `struct timeval`, then type (u16), code
/// (u16), value (s32).
struct InputEventRecord: Equatable {
    static let size = MemoryLayout<timeval>.size + 8
    /// EV_KEY.
    static let key: UInt16 = 1

    var seconds: Int64
    var microseconds: Int64
    var type: UInt16
    var code: UInt16
    var value: Int32

    /// Decodes the whole records at the start of `bytes` and removes them (a partial one stays).
    static func decode(_ bytes: inout [UInt8]) -> [InputEventRecord] {
        var records: [InputEventRecord] = []
        var offset = 0
        let timeSize = MemoryLayout<timeval>.size
        while bytes.count - offset >= size {
            let record = bytes[offset..<(offset + size)]
            offset += size
            records.append(
                record.withUnsafeBytes { raw in
                    let tv = raw.loadUnaligned(as: timeval.self)
                    return InputEventRecord(
                        seconds: Int64(tv.tv_sec), microseconds: Int64(tv.tv_usec),
                        type: raw.loadUnaligned(fromByteOffset: timeSize, as: UInt16.self),
                        code: raw.loadUnaligned(fromByteOffset: timeSize + 2, as: UInt16.self),
                        value: raw.loadUnaligned(fromByteOffset: timeSize + 4, as: Int32.self))
                })
        }
        bytes.removeFirst(offset)
        return records
    }
}
