import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

@Test func wakeupEventWakesPoll() throws {
    let wake = try WakeupEvent()
    let thread = NamedThread(name: "jb-test") {
        MonotonicClock.sleep(nanoseconds: 20_000_000)  // the event comes later: the wait is what is timed
        wake.signal()
    }
    let start = MonotonicClock.nanoseconds()
    let ready = try Poller.wait([.init(fd: wake.fd.rawValue)], timeoutMilliseconds: 2000)
    let waited = MonotonicClock.nanoseconds() - start
    thread.join()
    #expect(ready.count == 1 && ready[0].readable)
    #expect(waited >= 15_000_000 && waited < 1_000_000_000)
    wake.drain()
    #expect(try Poller.wait([.init(fd: wake.fd.rawValue)], timeoutMilliseconds: 0).isEmpty)
}

@Test func errnoCarriesCallAndPath() {
    #expect(throws: Errno.self) { try FileDescriptor(path: "/nonexistent/x", flags: O_RDONLY) }
    do {
        _ = try FileDescriptor(path: "/nonexistent/x", flags: O_RDONLY)
    } catch {
        #expect(error.code == ENOENT)
        #expect(error.description == "/nonexistent/x: open failed: No such file or directory")
    }
}

@Test func conditionLockTimesOut() {
    let lock = ConditionLock()
    lock.lock()
    let woke = lock.wait(nanoseconds: 5_000_000)
    lock.unlock()
    #expect(!woke)
}

@Test func syncFolderSyncsTheFolderOfAPathAndNamesAMissingOne() throws {
    let directory = try TemporaryDirectory(prefix: "jb-syncfolder")
    let dir = directory.path
    try FileDescriptor.syncFolder(containing: dir + "/not-yet-there")
    try FileDescriptor.syncFolder(containing: "relative-name")  // the current folder
    #expect {
        try FileDescriptor.syncFolder(containing: dir + "/gone/x")
    } throws: { error in
        (error as? Errno)?.description.contains(dir + "/gone") == true
    }
}
