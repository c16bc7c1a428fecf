import CLinuxShims
import Glibc

/// SIGTERM, SIGINT and SIGHUP as a descriptor the control loop polls (signalfd).
public enum TerminationSignals {
    /// Blocks the three signals for the calling thread and the threads it starts later,
    /// ignores SIGPIPE, and returns a non-blocking signalfd that becomes readable when one
    /// arrives. Call before starting any thread.
    public static func open() throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try SystemCall.value("signalfd") { jb_termination_signalfd() }, path: "signalfd")
    }
}

extension FileDescriptor {
    /// The number of the next pending signal on a signalfd, or nil when none is pending.
    public func readSignal() throws(Errno) -> Int32? {
        try callUnlessWouldBlock("read") { jb_read_signal($0) }
    }
}

/// Settings of the C library for the whole process.
public enum ProcessSettings {
    /// At most `count` malloc arenas (mallopt M_ARENA_MAX): fewer arenas, less resident
    /// memory for a process whose threads allocate little. False if the C library refused.
    @discardableResult
    public static func limitMallocArenas(to count: Int) -> Bool {
        jb_set_malloc_arena_max(Int32(count)) == 1
    }

    /// Allocations of at least `bytes` get their own mapping, returned to the kernel when
    /// freed (mallopt M_MMAP_THRESHOLD). Fixed, glibc no longer raises the threshold past a
    /// freed mapped chunk, which made later such chunks come from the heap and stay resident.
    /// False if the C library refused.
    @discardableResult
    public static func mapMallocChunks(ofAtLeast bytes: Int) -> Bool {
        jb_set_malloc_mmap_threshold(Int32(bytes)) == 1
    }

    /// Closes every descriptor from 3 up: for a child started from a process whose libraries
    /// may have opened descriptors without close-on-exec (a helper must not hold the parent's
    /// sockets or devices). False when it could not.
    @discardableResult
    public static func closeInheritedDescriptors() -> Bool {
        jb_close_descriptors_from_three() == 0
    }

    /// Names the calling thread (at most 15 characters are kept): for a process's main thread,
    /// the name `ps` and /proc/PID/comm show.
    public static func nameCurrentThread(_ name: String) {
        name.withCString { jb_set_thread_name($0) }
    }

    /// Gives the kernel back the free pages inside the heap (malloc_trim): glibc returns only
    /// what is free at the heap's top, so a burst of short-lived allocations below long-lived
    /// ones stays resident. True when some memory was released.
    @discardableResult
    public static func returnFreeHeapPages() -> Bool {
        jb_malloc_trim() == 1
    }

    /// Runs this program again in this process (execv of /proc/self/exe) with `arguments`
    /// (the first is argv[0]): the same pid, parent, standard streams, environment and signal
    /// mask (a SIGTERM pending now reaches the new image's signalfd), every other descriptor
    /// closed. Returns only when it failed, with the reason.
    public static func executeSelfAgain(arguments: [String]) -> Errno {
        var pointers = arguments.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        _ = jb_execute_self_again(pointers)
        return Errno(code: errno, call: "execv", path: "/proc/self/exe")
    }
}
