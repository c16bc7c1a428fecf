import Glibc

/// A pthread mutex with one condition variable, for threads that must wait for each other
/// (decode thread waiting for room, output thread waiting for data). Fields it protects are
/// named at the point of use.
public final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    @inlinable
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits for a broadcast; call with the lock held. Spurious wakeups happen: loop on a predicate.
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits at most `nanoseconds`; returns false on timeout. Call with the lock held.
    @discardableResult
    public func wait(nanoseconds: UInt64) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + nanoseconds
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(cond, mutex, &ts) != ETIMEDOUT
    }

    /// Wakes every waiter. May be called with or without the lock held.
    public func broadcast() { pthread_cond_broadcast(cond) }
}
