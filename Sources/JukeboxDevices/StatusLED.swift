import GPIO
import Glibc
import JukeboxCore
import LinuxSupport

/// The status LED's line (lit = high). On a box, a GPIO output line; for tests (`jukeboxd
/// --led-record FILE`) a file that gets each change as a plain edge line, `seconds line level`
/// on the monotonic clock, the format `input-replay` reads: the mirror of the input replay FIFO.
public final class StatusLED {
    private enum Line {
        case gpio(GPIOOutputLine)
        case record(FileDescriptor, offset: Int)
    }

    private let line: Line

    /// Requests `line` of `chip` as an output, off.
    public init(chip: String, line: Int) throws(GPIOError) {
        self.line = .gpio(try GPIOChip(chip).requestOutput(offset: line, consumer: "jukeboxd status LED", value: false))
    }

    /// Records the changes of line `line` into `path` (created or emptied).
    public init(recordingTo path: String, line: Int) throws(Errno) {
        self.line = .record(
            try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC), offset: line)
    }

    /// Lights the LED or puts it out; `now` stamps a recorded change.
    public func set(_ lit: Bool, now: Instant) throws {
        switch line {
        case .gpio(let output): try output.set(lit)
        case .record(let file, let offset):
            let seconds = now.nanoseconds / 1_000_000_000
            let fraction = String(now.nanoseconds % 1_000_000_000)
            let text =
                "\(seconds).\(String(repeating: "0", count: 9 - fraction.count))\(fraction) \(offset) \(lit ? 1 : 0)\n"
            try file.writeAll(Array(text.utf8))
        }
    }
}
