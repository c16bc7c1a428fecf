import GPIO

/// The headphone-detect switch of a jack: a GPIO line that reads high while headphones are
/// plugged in. The control loop reads it each tick: a plug needs no edge timing, and the
/// player lowers the volume within a tick of it.
public final class HeadphoneDetect {
    private let request: GPIOLineRequest

    /// Requests `line` of `chip` (bias as the board set it: jack switches bring their own).
    public init(chip: String, line: Int) throws(GPIOError) {
        request = try GPIOChip(chip).requestBothEdges(
            offset: line, consumer: "jukeboxd headphones", bias: .asIs, activeLow: false)
    }

    /// Whether headphones are plugged in now.
    public func plugged() throws(GPIOError) -> Bool { try request.value() }
}
