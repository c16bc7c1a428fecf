import Foundation
import Glibc
import LinuxSupport

/// A jukeboxd running on a `VirtualBoard`, driven over its serial console on the board's
/// second UART (the host's end of it is `uart`), with its files in the board's host folder.
/// The tests and the benchmark start one per scenario; `stop()` (or releasing it) kills it.
public final class BoardJukebox {
    public let board: VirtualBoard
    public let uart: PseudoTerminal
    /// The daemon's process id in the guest.
    public let pid: Int
    /// The daemon's log: the guest's path and the host's.
    public let guestLog: String
    public let hostLog: String
    private var stopped = false

    /// Writes `config` as `<hostFolder>/<name>.toml` (its `console` set to /dev/ttyS1) and
    /// starts `jukeboxd --config` on it in the guest; waits for the console's greeting and
    /// the first library scan.
    /// `prefix` goes before the command in the guest's shell (a timestamp, say).
    public init(
        board: VirtualBoard, uart: PseudoTerminal, name: String, config: DaemonConfig, prefix: String = "",
        timeout: Duration = .seconds(60)
    ) throws {
        guard let folder = board.options.hostFolder else { throw VirtualBoard.Failure("the board has no host folder") }
        self.board = board
        self.uart = uart
        var config = config
        config.console = "/dev/ttyS1"
        try config.write(to: "\(folder)/\(name).toml")
        guestLog = "/host/\(name).log"
        hostLog = "\(folder)/\(name).log"
        uart.discard()
        pid = try board.start("\(prefix)exec jukeboxd --config /host/\(name).toml", log: guestLog)
        guard uart.waitFor("Type 'help' for the commands.\r\n", timeout: timeout) != nil else {
            throw VirtualBoard.Failure("jukeboxd on the board did not greet on ttyS1:\n\(log)")
        }
        guard waitUntil(timeout: timeout, pollingEvery: .milliseconds(20), { log.contains("library scan of") }) else {
            throw VirtualBoard.Failure("jukeboxd on the board did not scan its library:\n\(log)")
        }
    }

    deinit { stop() }

    /// Sends one console line and returns the answer up to its "OK" or "ACK" line.
    @discardableResult
    public func command(_ line: String, timeout: Duration = .seconds(10)) -> String {
        BoardConsole(uart: uart).command(line, timeout: timeout)
    }

    /// Makes the queue `files` (paths under the music folder) and plays it. On a first start
    /// the daemon queues the whole library once its scan is in: that comes first, so that it
    /// cannot land after the `clear`. Returns the answers that were not "OK".
    @discardableResult
    public func play(_ files: [String], timeout: Duration = .seconds(30)) -> [String] {
        waitUntil(timeout: timeout, pollingEvery: .milliseconds(50)) { (status()["playlistlength"] ?? "0") != "0" }
        let answers = ["clear"] + files.map { "add \"\($0)\"" } + ["play"]
        return answers.map { command($0) }.filter { !$0.hasSuffix("OK\r\n") }
    }

    /// The `status` fields.
    public func status() -> [String: String] { BoardConsole(uart: uart).status() }

    /// What the daemon logged so far.
    public var log: String { (try? String(contentsOfFile: hostLog, encoding: .utf8)) ?? "" }

    /// Kills the daemon (SIGKILL) and waits until it is gone.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        _ = try? board.run("kill -KILL \(pid); while kill -0 \(pid) 2>/dev/null; do sleep 0.01; done")
    }
}

/// `arecord` on the capture side of the board's snd-aloop cable (hw:Loopback,1,0): what the
/// daemon plays to hw:Loopback,0,0, as raw S16LE stereo in the host folder.
public final class BoardCapture {
    public let board: VirtualBoard
    public let rate: Int
    public let pid: Int
    /// The raw file, as the host sees it.
    public let hostPath: String

    /// Starts the capture at `rate` and waits until the PCM runs, so that the playback side
    /// must take its rate (a DAC that takes only that rate). `bufferMs`: arecord's buffer
    /// (its default is 500 ms), for a capture that must not overrun while the host stalls the
    /// emulated CPU: an overrun restarts it, and its frames no longer follow its trigger time.
    public init(board: VirtualBoard, name: String, rate: Int, bufferMs: Int? = nil) throws {
        guard let folder = board.options.hostFolder else { throw VirtualBoard.Failure("the board has no host folder") }
        self.board = board
        self.rate = rate
        hostPath = "\(folder)/\(name).raw"
        pid = try board.start(
            "exec arecord -q -D hw:Loopback,1,0 -f S16_LE -c 2 -r \(rate)\(bufferMs.map { " -B \($0 * 1000)" } ?? "") -t raw /host/\(name).raw",
            log: "/host/\(name).arecord.log")
        let running = try waitUntil(timeout: .seconds(20), pollingEvery: .milliseconds(20)) {
            try board.run("grep -q RUNNING /proc/asound/card0/pcm1c/sub0/status").status == 0
        }
        guard running else {
            throw VirtualBoard.Failure(
                "arecord did not start: \(try board.run("cat /host/\(name).arecord.log").output)")
        }
    }

    /// Frames captured so far.
    public var frames: Int {
        var info = stat()
        return stat(hostPath, &info) == 0 ? Int(info.st_size) / 4 : 0
    }

    /// Waits until `seconds` more of audio have come in (the loopback runs in real time).
    @discardableResult
    public func waitFor(seconds: Double, timeout: Duration = .seconds(30)) -> Bool {
        let target = frames + Int(seconds * Double(rate))
        return waitUntil(timeout: timeout, pollingEvery: .milliseconds(20)) { frames >= target }
    }

    /// Stops arecord (SIGINT: it writes what it holds) and returns the interleaved samples.
    public func finish() throws -> [Int16] {
        try board.check("kill -INT \(pid); while kill -0 \(pid) 2>/dev/null; do sleep 0.01; done")
        guard let data = FileManager.default.contents(atPath: hostPath) else {
            throw VirtualBoard.Failure("no capture at \(hostPath)")
        }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}
