import Glibc

// Child processes: posix_spawn with each standard stream placed, and wait4. Used by the
// daemon for its speech helper (`jukeboxd --speech-helper`) and by the tests and the benchmark.

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

    /// Decodes a wait(2) status.
    public init(waitStatus s: Int32) {
        let low = s & 0x7f
        self = low == 0 ? .exited((s >> 8) & 0xff) : .signaled(low)
    }
}

/// Where a child's standard stream goes.
public enum ChildStream: Sendable {
    /// A pipe; the parent keeps the other end (`SpawnedChild`).
    case pipe
    /// /dev/null.
    case null
    /// The parent's own stream.
    case inherit
    /// A file: written (created, truncated) for stdout and stderr; for stdin opened for reading
    /// and writing and never as the controlling terminal, as a pty's slave needs.
    case file(String)
    /// A descriptor the caller owns (dup2'd; the caller closes its copy).
    case descriptor(Int32)
}

/// A started child with the parent's ends of its pipes (nil where the stream is no `.pipe`).
public struct SpawnedChild {
    public var pid: pid_t
    public var stdin: FileDescriptor?
    public var stdout: FileDescriptor?
    public var stderr: FileDescriptor?
}

/// Writing to a pipe whose reader has gone must fail with EPIPE, not kill the parent.
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

/// posix_spawn(p) with each standard stream where `stdin`, `stdout` and `stderr` say. The
/// child gets a clean signal mask and default signal dispositions. A name without "/" is
/// looked up in PATH. `environment` is added to (or, with `inheritEnvironment: false`,
/// replaces) the current environment. The one way the daemon (its speech helper), the tests
/// and the benchmark start a process.
public func spawnChild(
    _ command: [String], stdin: ChildStream = .null, stdout: ChildStream = .pipe, stderr: ChildStream = .pipe,
    environment: [String: String] = [:], inheritEnvironment: Bool = true, workingDirectory: String? = nil
) throws(Errno) -> SpawnedChild {
    _ = ignoreSIGPIPE
    precondition(!command.isEmpty, "spawn: empty command")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var childEnds: [FileDescriptor] = []
    var parentEnds: [Int32: FileDescriptor] = [:]
    for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
        switch stream {
        case .pipe:
            let pipe = try FileDescriptor.pipe()
            let (child, parent) = target == 0 ? (pipe.read, pipe.write) : (pipe.write, pipe.read)
            posix_spawn_file_actions_adddup2(&actions, child.rawValue, target)
            childEnds.append(child)
            parentEnds[target] = parent
        case .null:
            posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
        case .inherit:
            break
        case .file(let path):
            let flags = target == 0 ? O_RDWR | O_NOCTTY : O_WRONLY | O_CREAT | O_TRUNC
            posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o644)
        case .descriptor(let fd):
            posix_spawn_file_actions_adddup2(&actions, fd, target)
        }
    }
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

    var env = inheritEnvironment ? currentEnvironment() : [:]
    env.merge(environment) { _, new in new }
    let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for p in argv { free(p) }
        for p in envp { free(p) }
    }
    var pid: pid_t = 0
    // The child's ends stay open until it has its copies, then close with `childEnds`.
    try withExtendedLifetime(childEnds) { () throws(Errno) in
        try SystemCall.code("posix_spawn", command[0]) {
            command[0].contains("/")
                ? posix_spawn(&pid, command[0], &actions, &attr, argv, envp)
                : posix_spawnp(&pid, command[0], &actions, &attr, argv, envp)
        }
    }
    return SpawnedChild(pid: pid, stdin: parentEnds[0], stdout: parentEnds[1], stderr: parentEnds[2])
}

/// How a child ended and what it used, from wait4.
public struct ChildExit: Sendable {
    public var termination: Termination
    public var userSeconds: Double
    public var systemSeconds: Double
    /// Peak resident memory (ru_maxrss).
    public var maxRSSKiB: Int

    /// User plus system CPU time in seconds.
    public var cpuSeconds: Double { userSeconds + systemSeconds }

    public init(termination: Termination, userSeconds: Double, systemSeconds: Double, maxRSSKiB: Int) {
        self.termination = termination
        self.userSeconds = userSeconds
        self.systemSeconds = systemSeconds
        self.maxRSSKiB = maxRSSKiB
    }
}

/// Reaps `pid` with wait4: blocking, or with `block: false` nil while it still runs. A child
/// that was reaped elsewhere (ECHILD) ends with `.exited(-1)`: its status is lost.
public func reap(_ pid: pid_t, block: Bool = true) -> ChildExit? {
    var status: Int32 = 0
    var usage = rusage()
    while true {
        let reaped = wait4(pid, &status, block ? 0 : WNOHANG, &usage)
        if reaped == pid { break }
        if reaped < 0 && errno == EINTR { continue }
        if reaped < 0 && errno == ECHILD {
            return ChildExit(termination: .exited(-1), userSeconds: 0, systemSeconds: 0, maxRSSKiB: 0)
        }
        return nil
    }
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return ChildExit(
        termination: Termination(waitStatus: status), userSeconds: seconds(usage.ru_utime),
        systemSeconds: seconds(usage.ru_stime), maxRSSKiB: usage.ru_maxrss)
}

/// This process's environment (environ), as names and values.
private func currentEnvironment() -> [String: String] {
    var values: [String: String] = [:]
    var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let equals = text.firstIndex(of: "=") {
            values[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        entry += 1
    }
    return values
}
