import Glibc
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import SQLite
import Testing

/// Scans in a forked child that is killed with SIGKILL, then checks the database the
/// parent finds. The child opens its own connections (none are inherited) and never returns.
@Suite struct CrashConsistencyTests {
    /// Runs `body` in a child process; waits for it to die, SIGKILLing it after `timeoutMs`.
    /// Returns the signal that ended it (0 for a normal exit).
    func runChild(timeoutMs: Int, _ body: () -> Void) -> Int32 {
        let pid = fork()
        precondition(pid >= 0, "fork failed")
        if pid == 0 {
            body()
            _exit(0)
        }
        var status: Int32 = 0
        let exited = waitUntil(timeout: .milliseconds(timeoutMs), pollingEvery: .milliseconds(1)) {
            waitpid(pid, &status, WNOHANG) != 0
        }
        if !exited {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        return status & 0x7f
    }

    func makeLibrary(_ dir: TemporaryDirectory, files: Int) throws -> LibraryStore {
        for index in 0..<files { writeFile(dir.file("music/d\(index % 10)/\(index).mp3"), "x") }
        makeDirectories(dir.file("empty"))
        return try LibraryStore.open(path: dir.file("jukebox.sqlite"), logger: quietLogger).store
    }

    @Test func killedBetweenBatchesKeepsWholeBatches() throws {
        // A forked child of this multi-threaded test process can hang on a runtime lock that
        // another test's thread held at the fork; such a child never scans (no row written),
        // so it is told apart from a real kill and the scan is forked again.
        for attempt in 1...3 {
            let dir = try TemporaryDirectory()
            let store = try makeLibrary(dir, files: 1000)
            let path = store.path
            let started = MonotonicClock.nanoseconds()
            let signal = runChild(timeoutMs: 10_000) {
                let counter = ProbeCounter()
                let scanner = LibraryScanner(
                    databasePath: path, musicDirectory: dir.file("music"), lyricsDirectory: nil,
                    audioExtensions: ["mp3", "wav"],
                    probe: { _ in
                        if counter.increment() == 450 { raise(SIGKILL) }
                        return ProbedTags()
                    }, logger: quietLogger, batchSize: 100)
                _ = try? scanner.scan()
            }
            let written = try store.trackCount()
            let hung = MonotonicClock.nanoseconds() - started >= 10_000_000_000 && written == 0
            if hung && attempt < 3 { continue }
            #expect(signal == SIGKILL)
            #expect(try store.integrityCheck() == ["ok"])
            #expect(try store.trackCount() == 400)
            let report = try makeScanner(database: path, music: dir.file("music")).scan()
            #expect((report.added, report.unchanged) == (600, 400))
            return
        }
    }

    @Test func killedAtARandomMomentLeavesAConsistentDatabase() throws {
        let dir = try TemporaryDirectory()
        let store = try makeLibrary(dir, files: 2000)
        let path = store.path
        for round in 0..<3 {
            let signal = runChild(timeoutMs: 40 + round * 37) {
                // Fill and empty the library forever, in batches of 50, until killed.
                let fill = makeScanner(database: path, music: dir.file("music"), batchSize: 50)
                let empty = makeScanner(database: path, music: dir.file("empty"), batchSize: 50)
                while true {
                    _ = try? fill.scan()
                    _ = try? empty.scan()
                }
            }
            #expect(signal == SIGKILL)
            let check = try Connection(path: path)
            #expect(try check.strings("PRAGMA integrity_check") == ["ok"])
            let count = try #require(try check.scalarInt("SELECT count(*) FROM tracks"))
            #expect(count % 50 == 0, "a batch was half-committed: \(count) rows")
        }
        let report = try makeScanner(database: path, music: dir.file("music")).scan()
        #expect(report.added + report.unchanged == 2000)
    }
}

/// The scanner on its own thread and connection while the control thread keeps writing.
@Suite struct ConcurrentAccessTests {
    @Test func controlThreadWritesWhileScanning() throws {
        let dir = try TemporaryDirectory()
        for index in 0..<2000 { writeFile(dir.file("music/d\(index % 20)/\(index).mp3"), "x") }
        let store = try LibraryStore.open(path: dir.file("jukebox.sqlite"), logger: quietLogger).store
        let path = store.path
        let music = dir.file("music")
        let outcome = ScanOutcome()
        let thread = NamedThread(name: "jb-scan") {
            let scanner = makeScanner(database: path, music: music, batchSize: 50)
            outcome.set(Result { try scanner.scan() })
        }
        var writes = 0
        while !outcome.isDone || writes < 20 {
            let record = PlaybackRecord(
                queueIndex: 0, trackID: 1, positionMs: Int64(writes), state: "playing", mode: "in-order", volume: 30)
            try store.savePlayback(record, durable: writes % 10 == 0)
            _ = try store.playableTracks().count
            writes += 1
            MonotonicClock.sleep(nanoseconds: 2_000_000)  // a control loop does other things too
        }
        thread.join()
        let report = try outcome.get()
        #expect(report.added == 2000)
        #expect(report.commits == 40)
        #expect(try store.loadPlayback()?.positionMs == Int64(writes - 1))
        #expect(try store.integrityCheck() == ["ok"])
        print("control thread: \(writes) commits while the scanner took \(milliseconds(report.duration)) ms")
    }
}

/// The result of a scan on another thread.
final class ScanOutcome: @unchecked Sendable {
    private let lock = ConditionLock()
    private var result: Result<ScanReport, any Error>?

    func set(_ value: Result<ScanReport, any Error>) { lock.withLock { result = value } }
    var isDone: Bool { lock.withLock { result != nil } }
    func get() throws -> ScanReport { try lock.withLock { result! }.get() }
}
