import CLinuxShims
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

/// The wall clock, for the family's rules (times of day): never for timing, which is
/// `MonotonicClock`'s.
public enum WallClock {
    /// Seconds since 1970 (UTC) and the local zone's offset from UTC at that moment
    /// (localtime_r: the system's zone, TZ or /etc/localtime, daylight saving included).
    public static func local() -> (utcSeconds: Int64, utcOffsetSeconds: Int64) {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return (Int64(now), Int64(parts.tm_gmtoff))
    }

    /// Whether the kernel says its clock was synchronised (NTP); false when it cannot be asked.
    /// A Pi has no clock battery: until then the clock starts where it last stopped, or in 1970.
    public static var isSynchronized: Bool { jb_clock_synchronized() == 1 }
}
