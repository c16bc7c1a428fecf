import Foundation
import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// espeak-ng runs in the speech helper, a child of the daemon (`jukeboxd --speech-helper`):
/// the helper killed between announcements or while speaking costs at most that announcement;
/// the music plays on, the daemon answers, and the next `say` is heard from a new helper.
extension SpeechDaemonTests {
    /// The daemon's speech helpers (its children named jb-speech-help) still running or not
    /// yet reaped, from /proc.
    static func speechHelpers(of daemon: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { return nil }
            let name = stat[stat.index(after: open)..<close]
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard name == "jb-speech-help", fields.count > 1, fields[0] != "Z", pid_t(fields[1]) == daemon else {
                return nil
            }
            return pid
        }
    }

    /// The one helper of `daemon`, once there is one.
    static func waitForOneHelper(of daemon: pid_t, otherThan old: pid_t? = nil) -> pid_t? {
        var found: pid_t?
        _ = waitUntil(timeout: .seconds(20), pollingEvery: .milliseconds(20)) {
            let helpers = speechHelpers(of: daemon).filter { $0 != old }
            found = helpers.count == 1 ? helpers[0] : nil
            return found != nil
        }
        return found
    }

    static func voicesMade(_ process: DaemonProcess) -> Int {
        process.text(of: .stderr).components(separatedBy: "ms of voice made in").count - 1
    }

    /// Waits until the `count`th voice was made, then until a voice is heard after `mark`
    /// (bytes of the sink).
    static func waitForVoice(_ count: Int, after mark: Int, _ process: DaemonProcess, _ sink: PacedFifoSink) -> Bool {
        guard waitUntil(timeout: .seconds(30), { voicesMade(process) >= count }) else { return false }
        return waitUntil(timeout: .seconds(20)) {
            let after = sink.samples.dropFirst(2 * (mark / 4))
            return stride(from: after.startIndex + 1, to: after.endIndex, by: 2).contains { after[$0] != 0 }
        }
    }

    /// The daemon plays on and answers; a second of music follows.
    static func expectMusicPlaysOn(_ process: DaemonProcess, _ sink: PacedFifoSink) throws {
        process.skipOutput()
        try process.send("status")
        #expect(process.waitForOutputLine(matching: "state: play", on: .stdout, timeout: .seconds(10)) != nil)
        #expect(sink.waitForBytes(sink.byteCount + rate * 4, timeoutSeconds: 20), "the music stopped")
        #expect(process.isRunning)
    }

    /// Runs `body` with the saw playing (`playSaw`) in a daemon, killed after it.
    static func withSawPlaying(_ prefix: String, _ body: (DaemonProcess, PacedFifoSink) throws -> Void) throws {
        let directory = try TemporaryDirectory(prefix: prefix)
        defer { directory.remove() }
        let sink = try PacedFifoSink(bytesPerSecond: rate * 4, pipeSize: 4096)
        defer { sink.stop() }
        let process = try playSaw(in: directory, sink: sink)
        defer {
            process.kill(SIGKILL)
            _ = process.waitForExit(timeout: .seconds(5))
        }
        try body(process, sink)
    }

    @Test func theSpeechHelperDyingCostsAtMostOneAnnouncement() throws {
        try Self.withSawPlaying("jukeboxd-speech-helper") { process, sink in
            let daemon = process.pid
            #expect(Self.speechHelpers(of: daemon).isEmpty, "a helper before the first say")
            let before = ProcessStats.read(daemon)?.vmRSSKiB ?? 0

            try process.send("say hello")
            #expect(Self.waitForVoice(1, after: 0, process, sink), "\(process.text(of: .stderr))")
            let first = try #require(Self.waitForOneHelper(of: daemon), "no speech helper")
            let after = ProcessStats.read(daemon)?.vmRSSKiB ?? 0
            print("speech helper: the daemon's RSS \(before) KiB before the first say, \(after) KiB after")
            // espeak-ng is in the helper, not in the daemon.
            let daemonMaps = String(decoding: try readWholeFile("/proc/\(daemon)/maps"), as: UTF8.self)
            let helperMaps = String(decoding: try readWholeFile("/proc/\(first)/maps"), as: UTF8.self)
            #expect(daemonMaps.contains("libsoxr") && !daemonMaps.contains("libespeak-ng"))
            #expect(helperMaps.contains("libespeak-ng"))

            // Killed between announcements: the next is heard from a new helper.
            #expect(kill(first, SIGKILL) == 0)
            var mark = sink.byteCount
            try process.send("say again")
            #expect(Self.waitForVoice(2, after: mark, process, sink), "\(process.text(of: .stderr))")
            #expect(process.text(of: .stderr).contains("speech helper (pid \(first)) had ended (signal 9)"))
            let second = try #require(Self.waitForOneHelper(of: daemon, otherThan: first), "no new helper")

            // Killed (SIGSEGV, as espeak-ng's own fault would) while it has the text: stopped first,
            // so that it dies with the text in hand whatever the machine's speed.
            #expect(kill(second, SIGSTOP) == 0)
            let sent = "the text went to the speech helper (pid \(second))"
            let sentBefore = process.text(of: .stderr).components(separatedBy: sent).count
            try process.send(#"say "this one is lost""#)
            #expect(
                waitUntil(timeout: .seconds(20)) {
                    process.text(of: .stderr).components(separatedBy: sent).count > sentBefore
                }, "\(process.text(of: .stderr))")
            #expect(kill(second, SIGSEGV) == 0)
            #expect(kill(second, SIGCONT) == 0)
            let died = "speech helper died (signal 11) while speaking; it starts again for the next announcement"
            #expect(
                waitUntil(timeout: .seconds(60)) { process.text(of: .stderr).contains(died) },
                "\(process.text(of: .stderr))")
            #expect(process.text(of: .stdout).contains(died), "told on the console")
            #expect(process.text(of: .stderr).components(separatedBy: died).count == 2, "logged once")
            #expect(kill(second, 0) != 0 && errno == ESRCH, "reaped")
            try Self.expectMusicPlaysOn(process, sink)

            // And the next is heard again, from a third helper.
            mark = sink.byteCount
            try process.send(#"say "heard again""#)
            #expect(Self.waitForVoice(3, after: mark, process, sink), "\(process.text(of: .stderr))")
            let third = try #require(Self.waitForOneHelper(of: daemon, otherThan: second), "no new helper")
            #expect(third != first)
            try Self.expectMusicPlaysOn(process, sink)

            // Stopping the daemon ends its helper.
            #expect(process.kill(SIGTERM))
            #expect(process.waitForExit(timeout: .seconds(20)) != nil, "\(process.text(of: .stderr))")
            #expect(
                waitUntil(timeout: .seconds(10)) { kill(third, 0) != 0 && errno == ESRCH },
                "the helper outlived the daemon"
            )
        }
    }

    /// Fuzz finding 10: espeak-ng 1.51 reads freed memory on U+0D5F (with any voice). Said
    /// through the daemon, it reaches the helper only: the daemon answers, the music plays
    /// on, and the next `say` is heard.
    @Test func theFindingTenTextLeavesTheDaemonPlayingAndAnswering() throws {
        try Self.withSawPlaying("jukeboxd-speech-finding10") { process, sink in
            try process.send("say \"\u{D5F} \u{D5F}\u{D5F}\"")
            // Made (whatever it says) or failed in the helper.
            #expect(
                waitUntil(timeout: .seconds(30)) {
                    Self.voicesMade(process) == 1 || process.text(of: .stderr).contains("speech helper died")
                }, "\(process.text(of: .stderr))")
            print("finding 10: \(process.text(of: .stderr).split(separator: "\n").filter { $0.contains("speech") })")
            try Self.expectMusicPlaysOn(process, sink)
            let mark = sink.byteCount
            let made = Self.voicesMade(process)
            try process.send("say hello")
            #expect(Self.waitForVoice(made + 1, after: mark, process, sink), "\(process.text(of: .stderr))")
        }
    }
}
