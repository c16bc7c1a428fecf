/// When to try the broker again: at once the first time, then after 1, 2, 4, ... seconds up
/// to a minute while it stays away; a connection the broker accepted starts the series over.
/// Times are milliseconds of a monotonic clock the caller reads.
public struct ReconnectBackoff: Sendable, Equatable {
    public static let firstDelayMs: Int64 = 1000
    public static let longestDelayMs: Int64 = 60_000

    /// Failures since the last accepted connection.
    public private(set) var failures = 0

    public init() {}

    /// The delay after one more failure.
    public mutating func failed() -> Int64 {
        failures += 1
        let doublings = min(failures - 1, 16)
        return min(Self.firstDelayMs << Int64(doublings), Self.longestDelayMs)
    }

    public mutating func connected() {
        failures = 0
    }
}
