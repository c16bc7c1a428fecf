import Glibc
import LinuxSupport

/// A failed libgpiod (v1) call: the errno it set, the chip and line it was about, and what
/// that means for the person wiring the box. libgpiod v1 returns -1 (or NULL) and sets errno;
/// this is built exactly once, where the call failed.
public struct GPIOError: Error, Equatable, Sendable, CustomStringConvertible {
    public var errno: Errno
    /// The chip as configured (name, path, number or label).
    public var chip: String
    /// The line offset, when the call was about one line.
    public var line: Int?

    public init(errno: Errno, chip: String, line: Int? = nil) {
        self.errno = errno
        self.chip = chip
        self.line = line
    }

    /// The current thread's errno for `call`.
    static func current(_ call: String, chip: String, line: Int? = nil) -> GPIOError {
        GPIOError(errno: Errno.current(call), chip: chip, line: line)
    }

    /// What the errno means here, with what to do about it.
    public var reason: String {
        switch errno.code {
        case ENOENT, ENODEV:
            return line == nil
                ? "no such GPIO chip (gpiodetect lists the chips; on a Pi it is gpiochip0, gpiochip4 on a Pi 5 "
                    + "with older kernels)"
                : "no such line on this chip (gpioinfo \(chip) lists them)"
        case EINVAL where line != nil:
            return "the line cannot be requested this way (no edge detection or bias support on this chip?)"
        case EBUSY:
            return "line busy: another program or a kernel driver (a gpio-keys or rotary-encoder overlay in "
                + "config.txt?) holds it; gpioinfo \(chip) shows the consumer"
        case EACCES, EPERM:
            return "permission denied: add the user to the 'gpio' group (sudo usermod -aG gpio USER, then log in "
                + "again) or run the service as a user in that group"
        case ENOTTY:
            return "not a GPIO character device"
        default:
            return errno.message
        }
    }

    public var description: String {
        let subject = line.map { "\(chip) line \($0)" } ?? chip
        return "\(subject): \(errno.call) failed: \(reason)"
    }
}
