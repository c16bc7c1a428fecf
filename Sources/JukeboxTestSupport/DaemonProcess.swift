import Foundation
import Glibc
import LinuxSupport

/// One line a child printed, with the monotonic time (`MonotonicClock`) it was read at.
public struct OutputLine: Sendable, Equatable {
    public enum Stream: Sendable, Equatable { case stdout, stderr }
    public var stream: Stream
    public var text: String
    public var nanoseconds: UInt64
    /// Position in the merged list of both streams, in arrival order.
    public var index: Int
}

/// A long-running child (the daemon under test) with pipes on stdin, stdout and stderr.
/// Two reader threads collect its output lines with timestamps; tests wait for lines,
/// send console commands, signal it (SIGKILL for power-cut tests) and reap it.
/// Released while running, it is killed with SIGKILL and reaped.
/// Set `JUKEBOX_TEST_ECHO=1` to copy the child's lines to the test's stderr; give `logPath`
/// to keep them, with the command and what was sent, in a file.
public final class DaemonProcess: @unchecked Sendable {
    /// The child's process id.
    public let pid: pid_t
    public let command: [String]
    private var stdin: FileDescriptor?  // protected by `lock`; nil once closed
    private let output: LineCollector
    private let stop: WakeupEvent
    private var readers: [NamedThread] = []
    private let lock = ConditionLock()
    private var exitRecord: ChildExit?  // protected by `lock`
    private let log: FileDescriptor?

    /// Starts `executable` with `arguments`. `environment` is added to the inherited one.
    /// With `stdinPath` (a pty's slave, say) stdin is that file instead of a pipe.
    public init(
        executable: String, arguments: [String] = [], environment: [String: String] = [:],
        inheritEnvironment: Bool = true, workingDirectory: String? = nil, stdinPath: String? = nil,
        logPath: String? = nil
    ) throws(Errno) {
        command = [executable] + arguments
        log = try logPath.map { path throws(Errno) in
            try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND)
        }
        try? log?.writeAll(Array("$ \(command.joined(separator: " "))\n".utf8))
        let child = try spawnChild(
            command, stdin: stdinPath.map { .file($0) } ?? .pipe, environment: environment,
            inheritEnvironment: inheritEnvironment, workingDirectory: workingDirectory)
        pid = child.pid
        stdin = child.stdin
        let echo = ProcessInfo.processInfo.environment["JUKEBOX_TEST_ECHO"].map { !$0.isEmpty && $0 != "0" } ?? false
        output = LineCollector(
            echoPrefix: echo ? "[\((executable as NSString).lastPathComponent) \(child.pid)] " : nil, log: log)
        do {
            stop = try WakeupEvent()
        } catch {
            _ = Glibc.kill(child.pid, SIGKILL)
            _ = reap(child.pid)
            throw error
        }
        for (fd, stream) in [(child.stdout!, OutputLine.Stream.stdout), (child.stderr!, .stderr)] {
            let (collector, stop) = (output, stop)
            readers.append(
                NamedThread(name: stream == .stdout ? "jb-test-stdout" : "jb-test-stderr") {
                    readLines(from: fd, stream: stream, into: collector, stop: stop)
                })
        }
    }

    deinit {
        if lock.withLock({ exitRecord == nil }) {
            _ = Glibc.kill(pid, SIGKILL)
            _ = waitForExit(timeout: .seconds(5))
        }
        stop.signal()
        for reader in readers { reader.join() }
    }

    // MARK: input

    /// Writes `line` and a newline to the child's stdin. Throws EPIPE when it has closed it.
    public func send(_ line: String) throws(Errno) {
        // A strong reference: closeStdin cannot close the fd under a write in progress.
        guard let fd = lock.withLock({ stdin }) else { throw Errno(code: EPIPE, call: "write", path: "stdin") }
        try fd.writeAll(Array((line + "\n").utf8))
        try? log?.writeAll(Array("[stdin] \(line)\n".utf8))
    }

    /// Closes the child's stdin (it reads end of file); further `send` calls throw EPIPE.
    public func closeStdin() {
        lock.withLock { stdin = nil }
    }

    // MARK: output

    /// Every line read so far, both streams, in arrival order.
    public var lines: [OutputLine] { output.snapshot() }

    /// The text of one stream so far, lines joined with "\n".
    public func text(of stream: OutputLine.Stream) -> String {
        output.snapshot().filter { $0.stream == stream }.map(\.text).joined(separator: "\n")
    }

    /// Waits for a line containing `substring` (on `stream`, or on either when nil) that
    /// arrived after the line the previous wait matched, and returns it; nil on timeout or
    /// when both streams ended without one. A match moves that cursor past it.
    public func waitForLine(
        matching substring: String, on stream: OutputLine.Stream? = nil, timeout: Duration = .seconds(10)
    ) -> String? {
        waitForOutputLine(matching: substring, on: stream, timeout: timeout)?.text
    }

    /// `waitForLine`, returning the line with its stream and timestamp.
    public func waitForOutputLine(
        matching substring: String, on stream: OutputLine.Stream? = nil, timeout: Duration = .seconds(10)
    ) -> OutputLine? {
        output.waitForLine(deadline: deadline(after: timeout)) { line in
            (stream == nil || line.stream == stream) && (substring.isEmpty || line.text.contains(substring))
        }
    }

    /// Waits for a line from `index` on (of the merged list, `OutputLine.index`) that satisfies
    /// `predicate`; nil on timeout or when both streams ended without one. The search cursor
    /// of `waitForLine` stays where it is.
    public func waitForOutputLine(
        from index: Int, on stream: OutputLine.Stream? = nil, timeout: Duration = .seconds(10),
        where predicate: (String) -> Bool
    ) -> OutputLine? {
        output.waitForLine(from: index, deadline: deadline(after: timeout)) { line in
            (stream == nil || line.stream == stream) && predicate(line.text)
        }
    }

    /// Moves the search cursor past every line read so far (later waits see only new lines).
    public func skipOutput() { output.skipToEnd() }

    // MARK: signals and exit

    /// Sends `signal` (SIGTERM by default; SIGKILL simulates a power cut). False if the
    /// process was already reaped or kill(2) failed.
    @discardableResult
    public func kill(_ signal: Int32 = SIGTERM) -> Bool {
        lock.withLock { exitRecord == nil } && Glibc.kill(pid, signal) == 0
    }

    /// Waits for the child to end and reaps it; returns its exit code (128 + signal when a
    /// signal killed it), or nil on timeout. Then waits, within the same timeout, for the
    /// readers to reach end of file so `lines` is complete.
    public func waitForExit(timeout: Duration = .seconds(10)) -> Int32? {
        waitForTermination(timeout: timeout)?.status
    }

    /// `waitForExit`, telling an exit code from a signal.
    public func waitForTermination(timeout: Duration = .seconds(10)) -> Termination? {
        waitForChildExit(timeout: timeout)?.termination
    }

    /// `waitForExit`, with the CPU time and peak memory the child used.
    public func waitForChildExit(timeout: Duration = .seconds(10)) -> ChildExit? {
        let end = deadline(after: timeout)
        // No wait4 with a timeout: poll it.
        let reaped = waitUntil(timeout: timeout) {
            if lock.withLock({ exitRecord != nil }) { return true }
            guard let exit = reap(pid, block: false) else { return false }
            lock.withLock { exitRecord = exit }
            return true
        }
        guard reaped, let exit = lock.withLock({ exitRecord }) else { return nil }
        output.waitForEndOfFile(deadline: end)
        return exit
    }

    /// How the child ended, once reaped (by `waitForExit` or `isRunning`).
    public var exit: ChildExit? { lock.withLock { exitRecord } }

    /// True until the child has been reaped.
    public var isRunning: Bool {
        if lock.withLock({ exitRecord != nil }) { return false }
        return waitForChildExit(timeout: .zero) == nil
    }
}

/// The reader thread's loop: poll the pipe and the stop event, split into lines.
private func readLines(
    from fd: FileDescriptor, stream: OutputLine.Stream, into collector: LineCollector, stop: WakeupEvent
) {
    var buffer = [UInt8](repeating: 0, count: 16384)
    var pending: [UInt8] = []
    reading: while true {
        let ready: [Poller.Readiness]
        do {
            ready = try Poller.wait(
                [Poller.Interest(fd: fd.rawValue), Poller.Interest(fd: stop.fd.rawValue)], timeoutMilliseconds: -1)
        } catch {
            break
        }
        if ready.contains(where: { $0.fd == stop.fd.rawValue }) { break }
        guard ready.contains(where: { $0.fd == fd.rawValue }) else { continue }
        guard case .success(let read) = Result(catching: { () throws(Errno) in try fd.readIfReady(into: &buffer) })
        else { break }
        guard let n = read else { continue }
        if n == 0 { break }
        pending += buffer[0..<n]
        var start = 0
        var lines: [String] = []
        while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var end = newline
            if end > start && pending[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            lines.append(String(decoding: pending[start..<end], as: UTF8.self))
            start = newline + 1
        }
        if start > 0 { pending.removeFirst(start) }
        if !lines.isEmpty { collector.append(lines, stream: stream) }
    }
    if !pending.isEmpty { collector.append([String(decoding: pending, as: UTF8.self)], stream: stream) }
    collector.finish()
}

/// Lines of both streams, a search cursor and the end-of-file count, behind one lock.
private final class LineCollector: @unchecked Sendable {
    private let lock = ConditionLock()
    private var lines: [OutputLine] = []  // protected by `lock`
    private var cursor = 0  // protected by `lock`: the first line the next wait looks at
    private var finishedStreams = 0  // protected by `lock`
    private let echoPrefix: String?
    private let log: FileDescriptor?

    init(echoPrefix: String?, log: FileDescriptor?) {
        self.echoPrefix = echoPrefix
        self.log = log
    }

    func append(_ texts: [String], stream: OutputLine.Stream) {
        let now = MonotonicClock.nanoseconds()
        lock.withLock {
            for text in texts {
                lines.append(OutputLine(stream: stream, text: text, nanoseconds: now, index: lines.count))
            }
        }
        lock.broadcast()
        if let echoPrefix {
            var bytes: [UInt8] = []
            for text in texts { bytes += Array("\(echoPrefix)\(stream == .stderr ? "! " : "")\(text)\n".utf8) }
            try? FileDescriptor.standardError.writeAll(bytes)
        }
        if let log {
            try? log.writeAll(texts.flatMap { Array("\(stream == .stdout ? "[stdout] " : "")\($0)\n".utf8) })
        }
    }

    func finish() {
        lock.withLock { finishedStreams += 1 }
        lock.broadcast()
    }

    func snapshot() -> [OutputLine] { lock.withLock { lines } }

    func skipToEnd() { lock.withLock { cursor = lines.count } }

    /// The first line from `start` (else from the cursor, which a match then moves past) that
    /// satisfies `predicate`, waiting for more until `deadline`.
    func waitForLine(from start: Int? = nil, deadline: UInt64, where predicate: (OutputLine) -> Bool) -> OutputLine? {
        lock.lock()
        defer { lock.unlock() }
        var next = start ?? cursor
        while true {
            while next < lines.count {
                if predicate(lines[next]) {
                    if start == nil { cursor = next + 1 }
                    return lines[next]
                }
                next += 1
            }
            let now = MonotonicClock.nanoseconds()
            if finishedStreams == 2 || now >= deadline { return nil }
            lock.wait(nanoseconds: deadline - now)
        }
    }

    func waitForEndOfFile(deadline: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        while finishedStreams < 2 {
            let now = MonotonicClock.nanoseconds()
            if now >= deadline { return }
            lock.wait(nanoseconds: deadline - now)
        }
    }
}
