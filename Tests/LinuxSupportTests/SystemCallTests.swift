import Glibc
import JukeboxTestSupport
import LinuxSupport
import Synchronization
import Testing

/// The one system-call layer: EINTR retried, EAGAIN as "would block", other errnos thrown
/// naming the call and what it was about, EBADF and EFAULT stopping the process.
@Suite struct SystemCallTests {
    @Test func interruptedCallIsRetriedUntilItIsNot() throws {
        var calls = 0
        let result = try SystemCall.value("read", "stub") { () -> Int in
            calls += 1
            if calls <= 2 {
                errno = EINTR
                return -1
            }
            return 42
        }
        #expect(result == 42)
        #expect(calls == 3)
    }

    @Test func readInterruptedBySignalGoesOnReading() throws {
        // A handler installed without SA_RESTART makes the kernel fail the blocked read with
        // EINTR instead of restarting it.
        _ = signalsCaught.load(ordering: .relaxed)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in signalsCaught.add(1, ordering: .relaxed) }
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        #expect(sigaction(SIGUSR1, &action, &previous) == 0)
        defer { sigaction(SIGUSR1, &previous, nil) }

        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        let reader = BlockedReader(readEnd)
        let thread = NamedThread(name: "jb-test-eintr") { reader.run() }
        defer { thread.join() }
        #expect(waitUntil { reader.threadID.map(isBlockedInRead) == true })

        pthread_kill(reader.handle.withLock { $0! }, SIGUSR1)
        #expect(waitUntil { signalsCaught.load(ordering: .relaxed) >= 1 })
        // Interrupted, it must be back waiting in read, not gone with EINTR.
        #expect(waitUntil { isBlockedInRead(reader.threadID!) || reader.outcome.withLock { !$0.isEmpty } })
        try writeEnd.writeAll([7])
        thread.join()
        #expect(reader.outcome.withLock { $0 } == "read 1 byte: 7")
    }

    @Test func wouldBlockIsAnOutcomeNotAnError() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        defer { withExtendedLifetime(writeEnd) {} }  // open: an empty pipe, not end of file
        try readEnd.setNonBlocking()
        #expect(try readEnd.readIfReady(upTo: 16) == nil)
        #expect {
            var byte: UInt8 = 0
            _ = try readEnd.read(into: &byte, count: 1)
        } throws: { error in
            (error as? Errno)?.isWouldBlock == true
        }
        let stub = try SystemCall.valueUnlessWouldBlock("send") { () -> Int in
            errno = EAGAIN
            return -1
        }
        #expect(stub == nil)
    }

    @Test func otherErrorsNameTheCallAndWhatItWasAbout() throws {
        #expect {
            _ = try SystemCall.value("read", "/dev/ttyGS0") { () -> Int in
                errno = EIO
                return -1
            }
        } throws: { error in
            "\(error)" == "/dev/ttyGS0: read failed: Input/output error"
        }
        let (readEnd, _) = try FileDescriptor.pipe()
        #expect {
            _ = try readEnd.terminalAttributes()
        } throws: { error in
            "\(error)" == "fd \(readEnd.rawValue): tcgetattr failed: Inappropriate ioctl for device"
        }
        #expect {
            try SystemCall.code("pthread_setschedparam(SCHED_FIFO)") { EPERM }
        } throws: { error in
            "\(error)" == "pthread_setschedparam(SCHED_FIFO) failed: Operation not permitted"
        }
    }

    @Test func badDescriptorStopsTheProcessNamingTheCall() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let closed = FileDescriptor(owning: 1000)  // nothing is open there
            var byte: UInt8 = 0
            _ = try? closed.read(into: &byte, count: 1)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("fd 1000: read failed: Bad file descriptor"), "\(stderr)")
    }

    @Test func badPointerStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            _ = try? SystemCall.value("read", "stub") { () -> Int in
                errno = EFAULT
                return -1
            }
        }
    }

    @Test func closedStandardStreamIsReportedNotTrapped() async {
        // The parent may start us with a standard stream closed: that is not our bug.
        await #expect(processExitsWith: .success) {
            // Another thread of this process may open a file between the close and the read and
            // be given fd 0; then the precondition is gone and the close is tried again.
            for _ in 0..<100 {
                close(STDIN_FILENO)
                do throws(Errno) {
                    _ = try FileDescriptor.standardInput.readIfReady(upTo: 1)
                } catch  where error.code != EBADF && fcntl(STDIN_FILENO, F_GETFD) != -1 {
                    continue
                } catch {
                    exit(error.code == EBADF && "\(error)".hasPrefix("standard input: read failed") ? 0 : 1)
                }
                if fcntl(STDIN_FILENO, F_GETFD) == -1 { exit(1) }
            }
            exit(1)
        }
    }
}

private let signalsCaught = Atomic<Int>(0)

/// A thread blocked in a read on a pipe, and what the read gave.
private final class BlockedReader: Sendable {
    let fd: FileDescriptor
    let handle = Mutex<pthread_t?>(nil)
    let id = Mutex<Int32?>(nil)
    let outcome = Mutex("")

    init(_ fd: FileDescriptor) { self.fd = fd }

    var threadID: Int32? { id.withLock { $0 } }

    func run() {
        var unblock = sigset_t()  // the thread starting this one may block it
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGUSR1)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        handle.withLock { $0 = pthread_self() }
        id.withLock { $0 = NamedThread.currentID }
        var byte: UInt8 = 0
        do {
            let n = try fd.read(into: &byte, count: 1)
            outcome.withLock { $0 = "read \(n) byte: \(byte)" }
        } catch {
            outcome.withLock { $0 = "\(error)" }
        }
    }
}

/// Whether thread `id` of this process sleeps in read(2) (/proc/self/task/ID/syscall
/// starts with the number of the call it is in).
private func isBlockedInRead(_ id: Int32) -> Bool {
    #if arch(x86_64)
        let readNumber = "0"
    #elseif arch(arm)
        let readNumber = "3"
    #else
        let readNumber = "63"  // arm64
    #endif
    guard let text = try? readWholeFile("/proc/self/task/\(id)/syscall") else { return false }
    return String(decoding: text, as: UTF8.self).split(separator: " ").first == Substring(readNumber)
}
