import Foundation
import Glibc
import LinuxSupport

/// What a one-shot command printed and how it ended.
public struct RunResult: Sendable {
    public var termination: Termination
    public var stdout: [UInt8]
    public var stderr: [UInt8]

    /// The exit code, or 128 + signal.
    public var status: Int32 { termination.status }
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// Runs a command to completion and collects its output: `try run(["mpg123", "-q", "-s", path])`.
/// `input` is written to its stdin (else stdin is /dev/null). Reads both pipes in one poll
/// loop, so a chatty stderr cannot block it. With `timeout`, a command still running then is
/// killed (SIGKILL). Throws only when the command cannot be started.
public func run(
    _ command: [String], input: [UInt8]? = nil, environment: [String: String] = [:],
    workingDirectory: String? = nil, timeout: Duration? = nil
) throws(Errno) -> RunResult {
    let end = timeout.map { deadline(after: $0) }
    var child = try spawnChild(
        command, stdin: input == nil ? .null : .pipe, environment: environment, workingDirectory: workingDirectory)
    var stdinFD = child.stdin  // the only reference: setting it to nil closes the pipe
    child.stdin = nil
    guard let childStdout = child.stdout, let childStderr = child.stderr else { preconditionFailure("no pipes") }
    if let fd = stdinFD { try? fd.setNonBlocking() }
    var written = 0
    var out: [UInt8] = []
    var err: [UInt8] = []
    var openReads: Set<Int32> = [childStdout.rawValue, childStderr.rawValue]
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !openReads.isEmpty || stdinFD != nil {
        var interests = openReads.map { Poller.Interest(fd: $0) }
        if let fd = stdinFD { interests.append(Poller.Interest(fd: fd.rawValue, readable: false, writable: true)) }
        var waitMilliseconds: Int32 = -1
        if let end {
            let now = MonotonicClock.nanoseconds()
            if now < end {
                waitMilliseconds = Int32(min((end - now) / 1_000_000 + 1, 60_000))
            } else {
                _ = kill(child.pid, SIGKILL)  // (a zombie until reaped below) its pipes close
            }
        }
        let ready = (try? Poller.wait(interests, timeoutMilliseconds: waitMilliseconds)) ?? []
        for r in ready {
            if let fd = stdinFD, r.fd == fd.rawValue {
                let bytes = input ?? []
                var failed = false
                if written < bytes.count {
                    let sent = bytes[written...].withUnsafeBytes { raw in
                        Result { () throws(Errno) in try fd.writeIfReady(raw) }
                    }
                    switch sent {
                    case .success(let n): written += n ?? 0
                    case .failure: failed = true
                    }
                }
                if written >= bytes.count || failed || r.error {
                    stdinFD = nil  // closes it: the child sees end of input
                }
                continue
            }
            let source = r.fd == childStdout.rawValue ? childStdout : childStderr
            switch Result(catching: { () throws(Errno) in try source.readIfReady(into: &buffer) }) {
            case .success(let n?) where n > 0:
                if source === childStdout { out += buffer[0..<n] } else { err += buffer[0..<n] }
            case .success(nil):
                break  // nothing yet
            default:
                openReads.remove(r.fd)  // end of file, or the pipe failed
            }
        }
    }
    let exit = reap(child.pid)
    return RunResult(termination: exit?.termination ?? .exited(-1), stdout: out, stderr: err)
}
