import Glibc

/// CLOCK_MONOTONIC in nanoseconds: the one clock the daemon reads. The core never reads a
/// clock; the control loop passes this value in.
public enum MonotonicClock {
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Sleeps the calling thread (never call on the control loop or audio threads).
    public static func sleep(nanoseconds: UInt64) {
        let deadline = Self.nanoseconds() + nanoseconds
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
