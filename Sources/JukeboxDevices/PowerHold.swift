import GPIO

/// A power switch's keep-on line (OnOff SHIM, Pololu): driven to `level` while the daemon
/// runs, to the other level at power-off, so the switch cuts power once the system is down.
public final class PowerHold {
    private let line: GPIOOutputLine
    private let level: Bool

    /// Drives `line` of `chip` to `level` (true: high) now.
    public init(chip: String, line: Int, level: Bool) throws(GPIOError) {
        self.line = try GPIOChip(chip).requestOutput(offset: line, consumer: "jukeboxd power hold", value: level)
        self.level = level
    }

    /// Lets go: the other level.
    public func release() throws(GPIOError) { try line.set(!level) }
}
