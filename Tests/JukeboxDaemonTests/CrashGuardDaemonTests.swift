import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// A file that made the box die (a crash, or a hang the watchdog killed) is skipped at the
/// next start, which says so and plays the rest, instead of dying on it at every start.
@Suite(.serialized) struct CrashGuardDaemonTests {
    /// Aborted (SIGABRT: what glibc's heap checks raise, and what systemd's watchdog sends a
    /// hung daemon) while it plays: the next start names the file jb-decode was reading (the
    /// playing track, or the follow-up it had opened ahead), skips it and plays another. A
    /// kill -9 (a power cut's stand-in) is no crash: nothing is skipped after it.
    @Test func aStartAfterDyingOnAFileSkipsItAndPlaysOn() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks)
        let first = try harness.start()
        #expect(first.waitForLine(matching: "playing", on: .stderr, timeout: .seconds(30)) != nil, "\(harness.log)")
        first.kill(SIGABRT)
        _ = first.waitForExit(timeout: .seconds(30))

        let again = try harness.start()
        let prefix = "stopped abnormally while reading \(harness.musicDir)/"
        let named = try #require(
            again.waitForLine(matching: prefix, on: .stderr, timeout: .seconds(30)), "\(harness.log)")
        let tail = named[named.range(of: prefix)!.upperBound...]
        let file = String(tail[..<(tail.range(of: " (decode)")?.lowerBound ?? tail.endIndex)])
        #expect(DaemonTests.demoTracks.contains { $0.hasSuffix("/" + file) }, "\(named)")
        #expect(
            again.waitForLine(matching: "skipping '\(file)'", on: .stderr, timeout: .seconds(30)) != nil,
            "\(harness.log)")
        // The next track it plays is another one.
        #expect(again.waitForLine(matching: "playing", on: .stderr, timeout: .seconds(30)) != nil, "\(harness.log)")
        #expect(harness.waitForStatus { $0.state == "play" } != nil, "\(harness.log)")
        again.kill(SIGTERM)
        #expect(again.waitForExit(timeout: .seconds(30)) == 0, "\(harness.log)")

        // A clean stop holds nothing against any file: the third start names none; nor does a
        // kill -9 of it, for the fourth.
        let third = try harness.start()
        #expect(third.waitForLine(matching: "playing", on: .stderr, timeout: .seconds(30)) != nil)
        third.kill(SIGTERM)
        #expect(third.waitForExit(timeout: .seconds(30)) == 0)
        #expect(!third.text(of: .stderr).contains("stopped abnormally"), "\(third.text(of: .stderr))")
        let fourth = try harness.start()
        #expect(fourth.waitForLine(matching: "playing", on: .stderr, timeout: .seconds(30)) != nil)
        fourth.kill(SIGKILL)
        _ = fourth.waitForExit(timeout: .seconds(30))
        let fifth = try harness.start()
        #expect(fifth.waitForLine(matching: "playing", on: .stderr, timeout: .seconds(30)) != nil)
        #expect(!fifth.text(of: .stderr).contains("stopped abnormally"), "\(fifth.text(of: .stderr))")
        fifth.kill(SIGTERM)
        #expect(fifth.waitForExit(timeout: .seconds(30)) == 0)
    }

    /// `jukeboxd scan` that died probing a file leaves it named: the next scan records it as
    /// not playable (and leaves it alone while it is unchanged); changed, it is probed again.
    @Test func aScanThatDiedOnAFileSkipsItUntilItChanges() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks)
        let suspect = harness.musicDir + "/02 Cafe au Lait.mp3"
        try FileManager.default.createDirectory(
            atPath: (harness.database as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        do {
            // What a scan that died inside this file's probe leaves behind (same boot).
            let died = try InFlightFiles(path: harness.database + ".scan-in-flight")
            died.note(.scan, suspect)
            died.markCrashed()
        }
        var result = try Jukeboxd.run(["scan", "--config", harness.configPath])
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("not playable: 02 Cafe au Lait.mp3: ") }
        #expect(
            line?.hasSuffix("skipped: the box's previous start stopped abnormally while reading this file") == true,
            "\(result.stdout)")
        #expect(result.stdout.contains("1 not playable"), "\(result.stdout)")

        result = try Jukeboxd.run(["scan", "--config", harness.configPath])
        #expect(!result.stdout.contains("not playable: "), "\(result.stdout)")

        // A new copy of the file: probed again, playable.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 10)], ofItemAtPath: suspect)
        result = try Jukeboxd.run(["scan", "--config", harness.configPath])
        #expect(result.stdout.contains("0 not playable"), "\(result.stdout)")
        #expect(result.stdout.contains("1 updated"), "\(result.stdout)")
    }
}
