import CLinuxShims
import Glibc

/// A dedicated pthread with a name (shown by top -H and in core dumps). Blocking C calls run
/// on threads like this one, never on Swift's cooperative pool. The owner must `join()` it;
/// deinit traps if it did not ("thread leak", as in NIO).
public final class NamedThread: @unchecked Sendable {
    public let name: String
    private var handle: pthread_t
    private var joined = false

    private final class Box {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread named `name` (at most 15 characters are kept).
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        self.name = name
        let box = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.name.withCString { jb_set_thread_name($0) }
                box.body()
                return nil
            }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        handle = thread
    }

    /// Waits for the thread to finish.
    public func join() {
        guard !joined else { return }
        pthread_join(handle, nil)
        joined = true
    }

    deinit { precondition(joined, "Thread leak: \(name) was not joined") }

    /// The calling thread's kernel id (gettid), as /proc/self/task/ names it.
    public static var currentID: Int32 { jb_thread_id() }

    /// Tries SCHED_FIFO for the calling thread; returns nil or the reason it was refused.
    public static func requestRealtimePriority(_ priority: Int32) -> Errno? {
        do {
            try SystemCall.code("pthread_setschedparam(SCHED_FIFO)") { jb_set_realtime_priority(priority) }
            return nil
        } catch {
            return error
        }
    }
}
