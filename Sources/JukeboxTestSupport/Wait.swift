import LinuxSupport

/// Polls `condition` (every 2 ms by default) until it holds or `timeout` has passed, and
/// returns whether it held. The tests' one way to wait for what another thread or process
/// does: no fixed sleep that is too short on a loaded machine and too long on an idle one.
@discardableResult
public func waitUntil(
    timeout: Duration = .seconds(5), pollingEvery interval: Duration = .milliseconds(2), _ condition: () throws -> Bool
) rethrows -> Bool {
    let end = deadline(after: timeout)
    let step = nanoseconds(interval)
    while true {
        if try condition() { return true }
        if MonotonicClock.nanoseconds() >= end { return false }
        MonotonicClock.sleep(nanoseconds: step)
    }
}

/// The `MonotonicClock` time `timeout` from now.
public func deadline(after timeout: Duration) -> UInt64 {
    MonotonicClock.nanoseconds() + nanoseconds(timeout)
}

/// A non-negative duration in nanoseconds.
func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
}
