import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The record of the files being read: what a run that died left is read back by the next
/// start in the same boot; a clean stop, a reboot or a cleared slot leave nothing.
@Suite struct InFlightFilesTests {
    @Test func aRunThatDiedLeavesTheFilesItWasReading() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("in-flight")
        do {
            let run = try InFlightFiles(path: path, bootID: "boot-1")
            #expect(run.suspects.isEmpty)
            run.note(.scan, "/music/a.mp3")
            run.note(.decode, "/music/b.mp3")
            run.note(.control, "/music/c.lrc")
            run.note(.control, nil)
            // What the crash handler does; then dropped, as a process that died (the mapping's
            // pages stay).
            run.markCrashed()
        }
        let next = try InFlightFiles(path: path, bootID: "boot-1")
        #expect(
            next.suspects == [
                .init(path: "/music/a.mp3", reader: .scan), .init(path: "/music/b.mp3", reader: .decode),
            ])
        #expect(next.isSuspect("/music/b.mp3"))
        #expect(!next.isSuspect("/music/c.lrc"))
        // This run holds nothing yet: a third start after it died finds nothing.
        let third = try InFlightFiles(path: path, bootID: "boot-1")
        #expect(third.suspects.isEmpty)
    }

    @Test func aCleanStopAKillOrARebootLeavesNothing() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("in-flight")
        do {
            let run = try InFlightFiles(path: path, bootID: "boot-1")
            run.note(.decode, "/music/b.mp3")
            run.markStopped()
        }
        #expect(try InFlightFiles(path: path, bootID: "boot-1").suspects.isEmpty)
        do {
            // Killed (no crash signal, no clean stop): a power cut's stand-in.
            let run = try InFlightFiles(path: path, bootID: "boot-1")
            run.note(.decode, "/music/b.mp3")
        }
        #expect(try InFlightFiles(path: path, bootID: "boot-1").suspects.isEmpty)
        do {
            let run = try InFlightFiles(path: path, bootID: "boot-1")
            run.note(.decode, "/music/b.mp3")
            run.markCrashed()
        }
        // A power cut: the next start is in another boot.
        #expect(try InFlightFiles(path: path, bootID: "boot-2").suspects.isEmpty)
    }

    @Test func aLongPathAndAGarbledFileAreHandled() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("in-flight")
        let long = "/music/" + String(repeating: "ü", count: 2000)
        do {
            let run = try InFlightFiles(path: path, bootID: "boot-1")
            run.note(.scan, long)
            run.markCrashed()
        }
        let next = try InFlightFiles(path: path, bootID: "boot-1")
        // Cut to the slot: it names no file, so nothing is held against the real one.
        #expect(next.suspects.count == 1)
        #expect(!next.isSuspect(long))
        try FileDescriptor(path: path, flags: O_WRONLY | O_TRUNC).writeAll(Array(repeating: 0xFF, count: 100))
        #expect(try InFlightFiles(path: path, bootID: "boot-1").suspects.isEmpty)
    }

    @Test func theBootIDIsReadFromTheKernel() {
        #expect(InFlightFiles.currentBootID()?.count == 36)
    }
}
