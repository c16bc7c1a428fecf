import Foundation
import Glibc
import LinuxSupport

/// How a child process ended: its exit code, or the signal that killed it.
public enum Termination: Sendable, Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    /// The shell's convention: the exit code, or 128 + the signal number.
    public var status: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }

    public var description: String {
        switch self {
        case .exited(let code): "exit \(code)"
        case .signaled(let signal): "signal \(signal)"
        }
    }

    init(waitStatus s: Int32) {
        let low = s & 0x7f
        self = low == 0 ? .exited((s >> 8) & 0xff) : .signaled(low)
    }
}

/// A started child with the parent's ends of its pipes (nil where /dev/null was given).
struct SpawnedChild {
    var pid: pid_t
    var stdin: FileDescriptor?
    var stdout: FileDescriptor
    var stderr: FileDescriptor
}

/// Writing to a pipe whose reader has gone must fail with EPIPE, not kill the test runner.
private let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

// pipe2 and posix_spawn_file_actions_addchdir_np are GNU-only (glibc hides them without
// _GNU_SOURCE), so Swift's Glibc module does not show them. Tests run in parallel: a pipe
// must be close-on-exec from birth, or another test's child inherits it and holds our
// pipe open. Looked up once with dlsym; candidates for CLinuxShims.
private typealias Pipe2Function = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
private typealias AddChdirFunction =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32
private let pipe2Function: Pipe2Function? = dlsym(nil, "pipe2").map { unsafeBitCast($0, to: Pipe2Function.self) }
private let addChdirFunction: AddChdirFunction? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
    unsafeBitCast($0, to: AddChdirFunction.self)
}

/// posix_spawn(p) with stdout and stderr on pipes and stdin on a pipe, a file (a pty's
/// slave, say) or /dev/null. The child
/// gets a clean signal mask and default signal dispositions. A name without "/" is looked
/// up in PATH. `environment` is added to (or, with `inheritEnvironment: false`, replaces)
/// the current environment.
func spawnChild(
    _ command: [String], environment: [String: String], inheritEnvironment: Bool,
    workingDirectory: String?, stdinPipe: Bool, stdinPath: String? = nil
) throws(Errno) -> SpawnedChild {
    _ = ignoreSIGPIPE
    precondition(!command.isEmpty, "spawn: empty command")
    func makePipe() throws(Errno) -> (read: Int32, write: Int32) {
        guard let pipe2 = pipe2Function else { throw Errno(code: ENOSYS, call: "pipe2") }
        var fds: [Int32] = [-1, -1]
        if pipe2(&fds, O_CLOEXEC) != 0 { throw Errno.current("pipe2") }
        return (fds[0], fds[1])
    }
    var opened: [Int32] = []
    defer { for fd in opened { close(fd) } }  // the child's ends (and ours on failure)
    let input = stdinPipe ? try makePipe() : nil
    if let input { opened += [input.read, input.write] }
    let output = try makePipe()
    opened += [output.read, output.write]
    let errors = try makePipe()
    opened += [errors.read, errors.write]

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let input {
        posix_spawn_file_actions_adddup2(&actions, input.read, 0)
    } else if let stdinPath {
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDWR | O_NOCTTY, 0)
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    posix_spawn_file_actions_adddup2(&actions, output.write, 1)
    posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
    if let workingDirectory {
        guard let addChdir = addChdirFunction else {
            throw Errno(code: ENOSYS, call: "posix_spawn_file_actions_addchdir_np", path: workingDirectory)
        }
        _ = addChdir(&actions, workingDirectory)
    }

    var attr = posix_spawnattr_t()
    posix_spawnattr_init(&attr)
    defer { posix_spawnattr_destroy(&attr) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attr, &mask)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for sig in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD] {
        sigaddset(&defaults, sig)
    }
    posix_spawnattr_setsigdefault(&attr, &defaults)
    posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    var env = inheritEnvironment ? ProcessInfo.processInfo.environment : [:]
    env.merge(environment) { _, new in new }
    let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for p in argv { free(p) }
        for p in envp { free(p) }
    }
    var pid: pid_t = 0
    let rc =
        command[0].contains("/")
        ? posix_spawn(&pid, command[0], &actions, &attr, argv, envp)
        : posix_spawnp(&pid, command[0], &actions, &attr, argv, envp)
    if rc != 0 { throw Errno(code: rc, call: "posix_spawn", path: command[0]) }

    // Keep the parent's ends: take them out of the close-on-return list.
    var keep = [output.read, errors.read]
    if let input { keep.append(input.write) }
    opened.removeAll { keep.contains($0) }
    return SpawnedChild(
        pid: pid,
        stdin: input.map { FileDescriptor(owning: $0.write) },
        stdout: FileDescriptor(owning: output.read),
        stderr: FileDescriptor(owning: errors.read))
}

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
/// loop, so a chatty stderr cannot block it. Throws only when the command cannot be started.
public func run(
    _ command: [String], input: [UInt8]? = nil, environment: [String: String] = [:],
    workingDirectory: String? = nil
) throws(Errno) -> RunResult {
    var child = try spawnChild(
        command, environment: environment, inheritEnvironment: true,
        workingDirectory: workingDirectory, stdinPipe: input != nil)
    var stdinFD = child.stdin  // the only reference: setting it to nil closes the pipe
    child.stdin = nil
    if let fd = stdinFD { try? fd.setNonBlocking() }
    var written = 0
    var out: [UInt8] = []
    var err: [UInt8] = []
    var openReads: Set<Int32> = [child.stdout.rawValue, child.stderr.rawValue]
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !openReads.isEmpty || stdinFD != nil {
        var interests = openReads.map { Poller.Interest(fd: $0) }
        if let fd = stdinFD { interests.append(Poller.Interest(fd: fd.rawValue, readable: false, writable: true)) }
        let ready = (try? Poller.wait(interests, timeoutMilliseconds: -1)) ?? []
        for r in ready {
            if let fd = stdinFD, r.fd == fd.rawValue {
                let bytes = input ?? []
                let n =
                    written < bytes.count
                    ? bytes.withUnsafeBytes { Glibc.write(fd.rawValue, $0.baseAddress! + written, $0.count - written) }
                    : 0
                if n > 0 { written += n }
                if written >= bytes.count || (n < 0 && errno != EAGAIN && errno != EINTR) || r.error {
                    stdinFD = nil  // closes it: the child sees end of input
                }
                continue
            }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(r.fd, $0.baseAddress!, $0.count) }
            if n > 0 {
                if r.fd == child.stdout.rawValue { out += buffer[0..<n] } else { err += buffer[0..<n] }
            } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                openReads.remove(r.fd)
            }
        }
    }
    var status: Int32 = 0
    while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
    return RunResult(termination: Termination(waitStatus: status), stdout: out, stderr: err)
}
