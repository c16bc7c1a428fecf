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

// posix_spawn_file_actions_addchdir_np is GNU-only (glibc hides it without _GNU_SOURCE),
// so Swift's Glibc module does not show it. Looked up once with dlsym; a candidate for
// CLinuxShims. (Tests run in parallel: pipes are close-on-exec from birth,
// `FileDescriptor.pipe()`, or another test's child inherits them and holds them open.)
private typealias AddChdirFunction =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32
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
    // The child's ends close when these are released, after the spawn.
    let input = stdinPipe ? try FileDescriptor.pipe() : nil
    let output = try FileDescriptor.pipe()
    let errors = try FileDescriptor.pipe()

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let input {
        posix_spawn_file_actions_adddup2(&actions, input.read.rawValue, 0)
    } else if let stdinPath {
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDWR | O_NOCTTY, 0)
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    posix_spawn_file_actions_adddup2(&actions, output.write.rawValue, 1)
    posix_spawn_file_actions_adddup2(&actions, errors.write.rawValue, 2)
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
    try withExtendedLifetime((input, output, errors)) { () throws(Errno) in
        try SystemCall.code("posix_spawn", command[0]) {
            command[0].contains("/")
                ? posix_spawn(&pid, command[0], &actions, &attr, argv, envp)
                : posix_spawnp(&pid, command[0], &actions, &attr, argv, envp)
        }
    }
    return SpawnedChild(pid: pid, stdin: input?.write, stdout: output.read, stderr: errors.read)
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
            let source = r.fd == child.stdout.rawValue ? child.stdout : child.stderr
            switch Result(catching: { () throws(Errno) in try source.readIfReady(into: &buffer) }) {
            case .success(let n?) where n > 0:
                if source === child.stdout { out += buffer[0..<n] } else { err += buffer[0..<n] }
            case .success(nil):
                break  // nothing yet
            default:
                openReads.remove(r.fd)  // end of file, or the pipe failed
            }
        }
    }
    var status: Int32 = 0
    _ = try? SystemCall.value("waitpid") { waitpid(child.pid, &status, 0) }
    return RunResult(termination: Termination(waitStatus: status), stdout: out, stderr: err)
}
