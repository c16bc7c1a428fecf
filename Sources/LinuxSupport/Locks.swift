import CLinuxShims
import Glibc

/// A pthread mutex with one condition variable, for threads that must wait for each other
/// (decode thread waiting for room, output thread waiting for data). Fields it protects are
/// named at the point of use.
public final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = LockCondition()

    public init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
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
    public func wait() { _ = condition.wait(mutex, nanoseconds: nil) }

    /// Waits at most `nanoseconds`; returns false on timeout. Call with the lock held.
    @discardableResult
    public func wait(nanoseconds: UInt64) -> Bool { condition.wait(mutex, nanoseconds: nanoseconds) != ETIMEDOUT }

    /// Wakes every waiter. May be called with or without the lock held.
    public func broadcast() { condition.broadcast() }
}

/// A mutex with priority inheritance that owns the state it guards: the state is reachable
/// only inside `withLock`, so "call with the lock held" is checked by the compiler, not by a
/// comment. Priority inheritance (PTHREAD_PRIO_INHERIT) lets a SCHED_FIFO thread that waits
/// for the lock lend its priority to the ordinary thread that holds it. The mutex is also
/// error-checking, so waiting on a condition without holding it, or locking it twice, traps.
public final class PILock<State: ~Copyable>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Unchecked: the mutex already makes access exclusive (and traps when it is taken twice),
    /// so the runtime's dynamic check would cost twice per lock for nothing.
    @exclusivity(unchecked) @usableFromInline var state: State

    public init(_ state: consuming State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        var attr = pthread_mutexattr_t()
        pthread_mutexattr_init(&attr)
        pthread_mutexattr_setprotocol(&attr, Int32(PTHREAD_PRIO_INHERIT))
        pthread_mutexattr_settype(&attr, Int32(PTHREAD_MUTEX_ERRORCHECK))
        let rc = pthread_mutex_init(mutex, &attr)
        pthread_mutexattr_destroy(&attr)
        precondition(rc == 0, "pthread_mutex_init(PTHREAD_PRIO_INHERIT) failed: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held and the state lent to it.
    @inlinable
    public func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        let rc = pthread_mutex_lock(mutex)
        precondition(rc == 0, "pthread_mutex_lock failed: \(rc)")
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Waits on `condition` inside `withLock` (the state is passed to show that it is held);
    /// at most `nanoseconds` when given. Returns false on timeout. Spurious wakeups happen:
    /// loop on the condition's predicate.
    @discardableResult
    public func wait(
        _ condition: LockCondition, _ state: inout State, nanoseconds: UInt64? = nil
    ) -> Bool {
        let rc = withUnsafeMutablePointer(to: &state) { condition.wait(mutex, nanoseconds: nanoseconds, guarded: $0) }
        precondition(rc == 0 || rc == ETIMEDOUT, "pthread_cond_wait outside withLock: \(rc)")
        return rc == 0
    }
}

/// A condition variable for one predicate of a `PILock`'s state ("the ring has room", "the
/// output has work"), so that a signal wakes only the thread waiting for that predicate.
/// Waits are `PILock.wait(_:_:nanoseconds:)`; timeouts use CLOCK_MONOTONIC.
public final class LockCondition: @unchecked Sendable {
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        cond = .allocate(capacity: 1)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
    }

    /// Wakes the waiters. May be called with or without the lock held.
    public func broadcast() { pthread_cond_broadcast(cond) }

    /// pthread_cond_wait on `mutex` (held by the caller), or pthread_cond_timedwait for at
    /// most `nanoseconds`; returns its result (ETIMEDOUT on timeout). `guarded`, the state the
    /// mutex guards, is fenced by the wait (see jb_cond_wait).
    func wait(
        _ mutex: UnsafeMutablePointer<pthread_mutex_t>, nanoseconds: UInt64?, guarded: UnsafeMutableRawPointer? = nil
    ) -> Int32 {
        guard let nanoseconds else { return jb_cond_wait(cond, mutex, nil, guarded) }
        let deadline = MonotonicClock.nanoseconds() + nanoseconds
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return jb_cond_wait(cond, mutex, &ts, guarded)
    }
}
