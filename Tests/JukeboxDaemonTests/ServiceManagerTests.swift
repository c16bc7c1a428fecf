import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// `Type=notify` with `WatchdogSec`: a Unix datagram socket stands in for systemd's
/// $NOTIFY_SOCKET, and the unit in Board/ is checked by `systemd-analyze verify`.
@Suite(.serialized) struct ServiceManagerTests {
    /// READY=1 once the state is restored, WATCHDOG=1 at half the interval both while playing
    /// and while paused (when the loop would otherwise sleep for a minute), STOPPING=1 at SIGTERM.
    @Test func notifiesReadyWatchdogAndStopping() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks)
        let socket = try NotifySocket(path: harness.directory.file("notify"))
        let process = try harness.start(environment: [
            "NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000",
        ])
        #expect(
            waitUntil(timeout: .seconds(10)) { socket.received().contains { $0.hasPrefix("READY=1") } },
            "\(harness.log)")
        // The first message is READY=1, sent once the queue was restored and playback began.
        #expect(socket.messages.first?.text.hasPrefix("READY=1") == true, "\(socket.messages)")
        #expect(
            waitUntil(timeout: .seconds(5)) { harness.log.contains("systemd watchdog: pinging every 200 ms") },
            "\(harness.log)")

        // Read every 5 ms, so that a message's time is when it came.
        func pings(during milliseconds: Int) -> [UInt64] {
            let start = MonotonicClock.nanoseconds()
            for _ in 0..<(milliseconds / 5) {
                sleepMilliseconds(5)
                socket.received()
            }
            return socket.messages.filter { $0.text == "WATCHDOG=1" && $0.at >= start }.map(\.at)
        }
        func longestGapMs(_ times: [UInt64]) -> Double {
            zip(times, times.dropFirst()).map { Double($1 - $0) / 1e6 }.max() ?? .infinity
        }
        // Every gap below WATCHDOG_USEC (400 ms): systemd never sees the deadline pass.
        let playing = pings(during: 1500)
        #expect(
            playing.count >= 5 && longestGapMs(playing) < 400, "\(playing.count) pings, gap \(longestGapMs(playing)) ms"
        )
        harness.send("pause")
        #expect(
            harness.waitForStatus {
                socket.received()  // systemd reads at once; a full queue (10 datagrams) fails sendto
                return $0.state == "pause"
            } != nil, "\(harness.log)")
        let paused = pings(during: 1500)
        #expect(
            paused.count >= 5 && longestGapMs(paused) < 400, "\(paused.count) pings, gap \(longestGapMs(paused)) ms")

        // A control loop that stops (here: the whole process) stops the pings.
        process.kill(SIGSTOP)
        _ = socket.received()
        let stopped = pings(during: 800)
        process.kill(SIGCONT)
        #expect(stopped.isEmpty, "\(stopped.count) pings from a stopped process")
        #expect(waitUntil(timeout: .seconds(2)) { socket.received().last == "WATCHDOG=1" })

        process.closeStdin()
        process.kill(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(5)) == 0, "\(harness.log)")
        _ = socket.received()
        #expect(socket.messages.last?.text == "STOPPING=1", "\(socket.messages.suffix(3))")
    }

    /// Without WATCHDOG_USEC (no `WatchdogSec=`) the daemon still says READY=1, and never pings.
    @Test func readyWithoutWatchdog() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks)
        let socket = try NotifySocket(path: harness.directory.file("notify"))
        let process = try harness.start(environment: ["NOTIFY_SOCKET": socket.path])
        defer {
            process.kill(SIGTERM)
            _ = process.waitForExit(timeout: .seconds(5))
        }
        #expect(
            waitUntil(timeout: .seconds(10)) { socket.received().contains { $0.hasPrefix("READY=1") } },
            "\(harness.log)")
        sleepMilliseconds(500)
        #expect(!socket.received().contains("WATCHDOG=1"))
    }

    /// Board/jukeboxd.service as systemd reads it: no unknown key, no bad value, no missing
    /// command (the ExecStart paths point at the binary under test and the repository's script).
    @Test func unitPassesSystemdAnalyzeVerify() throws {
        guard
            let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            Issue.record("systemd-analyze is missing: install the systemd package (./dev setup)")
            return
        }
        let directory = try TemporaryDirectory(prefix: "jukebox-unit")
        defer { directory.remove() }
        let unit = try String(contentsOfFile: "\(Fixtures.repoRoot)/Board/jukeboxd.service", encoding: .utf8)
        #expect(unit.contains("Type=notify") && unit.contains("WatchdogSec="))
        // The checkpoint device from checkpoint-file.sh, as root, its failure not fatal.
        #expect(unit.contains("ExecStartPre=+-/usr/local/share/jukebox/checkpoint-file.sh "))
        let path = directory.file("jukeboxd.service")
        try unit.replacingOccurrences(of: "/usr/local/bin/jukeboxd", with: Jukeboxd.binary)
            .replacingOccurrences(
                of: "/usr/local/share/jukebox/checkpoint-file.sh", with: "\(Fixtures.repoRoot)/Board/checkpoint-file.sh"
            )
            .write(toFile: path, atomically: true, encoding: .utf8)
        let result = try run([analyze, "verify", path])
        #expect(result.status == 0 && result.stderrText.isEmpty, "\(result.stderrText)")
    }
}

/// A Unix datagram socket bound at `path`, as systemd's notification socket is.
final class NotifySocket {
    let path: String
    private let fd: Int32
    private(set) var messages: [(text: String, at: UInt64)] = []

    init(path: String) throws {
        self.path = path
        fd = socket(
            AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, bound == 0 else { throw Errno(code: errno, call: "bind", path: path) }
    }

    deinit { close(fd) }

    /// Reads every waiting datagram; returns the texts of all received so far.
    @discardableResult
    func received() -> [String] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            messages.append((String(decoding: buffer[..<n], as: UTF8.self), MonotonicClock.nanoseconds()))
        }
        return messages.map(\.text)
    }
}
