import Foundation
import Glibc
import LinuxSupport

/// The virtual board (docs/VIRTUAL-BOARD.md): qemu-system-x86_64 booting Debian's kernel with
/// the initramfs of `Tests/Tools/vboard/make-image.sh` (busybox, the release jukeboxd, ALSA's
/// tools, the modules of real drivers: snd-aloop, 8250, virtio-blk, ext4). The tests and the
/// benchmark talk to it through `run`: a command line goes to the guest's agent on a
/// virtio-serial port (qemu's stdin and stdout here), its output and exit status come back.
/// Files move through `Options.hostFolder` (9p, /host in the guest). Released, qemu is killed.
/// Not thread-safe: one test at a time uses a board (`@Suite(.serialized)`).
public final class VirtualBoard: @unchecked Sendable {
    /// The kernel and initramfs `make-image.sh` made.
    public struct Image: Sendable {
        public var kernel: String
        public var initramfs: String
    }

    /// What goes wrong with a board: the message says what and where to look.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// What the guest gets besides the initramfs.
    public struct Options: Sendable {
        /// A raw disk image (ext4: `makeStateDisk`) as /dev/vda on virtio-blk, mounted at /state.
        public var disk: String?
        /// A host folder shared over 9p, mounted at /host.
        public var hostFolder: String?
        /// A host tty (a pty's slave, `PseudoTerminal.slavePath`) wired to the guest's second
        /// 8250 UART, /dev/ttyS1. (ttyS0 is the kernel's console, logged to `consoleLog`.)
        public var uart: String?
        public var memoryMiB = 512
        /// More words for the kernel command line.
        public var kernelArguments: [String] = []
        /// More qemu arguments (devices).
        public var qemuArguments: [String] = []

        public init(disk: String? = nil, hostFolder: String? = nil, uart: String? = nil) {
            self.disk = disk
            self.hostFolder = hostFolder
            self.uart = uart
        }
    }

    /// A command's combined stdout and stderr and its exit status.
    public struct CommandResult: Sendable {
        public var status: Int32
        public var output: String
    }

    /// Why no board can run here (no qemu-system-x86_64), or nil.
    public static let unavailableReason: String? = {
        guard findProgram("qemu-system-x86_64") != nil else {
            return "qemu-system-x86_64 is not installed (./dev setup installs qemu-system-x86)"
        }
        return nil
    }()

    /// The image, made (or brought up to date) once per process by `make-image.sh`, which
    /// also builds the release jukeboxd (`Board/build-jukeboxd.sh`) unless `JUKEBOXD` names one.
    public static let image: Result<Image, Failure> = {
        let script = Fixtures.path("Tests/Tools/vboard/make-image.sh")
        guard let result = try? JukeboxTestSupport.run([script], timeout: .seconds(1800)), result.status == 0 else {
            return .failure(Failure("\(script) failed; run it by hand to see why"))
        }
        let folder = result.stdoutText.split(separator: "\n").last.map(String.init) ?? ""
        return .success(Image(kernel: folder + "/vmlinux", initramfs: folder + "/initramfs.cpio"))
    }()

    /// Hardware acceleration when /dev/kvm works (the CPU has vmx or svm), else TCG.
    public static let accelerator: String = {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let virtualizes = cpuinfo.contains(" vmx") || cpuinfo.contains(" svm")
        return virtualizes && access("/dev/kvm", R_OK | W_OK) == 0 ? "kvm" : "tcg"
    }()

    public let options: Options
    /// The qemu process.
    public let pid: pid_t
    /// The guest's kernel console (ttyS0) and qemu's own messages.
    public let consoleLog: String
    /// Seconds from qemu's start to the guest's agent answering.
    public private(set) var bootSeconds = 0.0
    private let scratch: TemporaryDirectory
    private var input: FileDescriptor?
    private let output: FileDescriptor
    private var pending: [UInt8] = []
    private var exited = false

    /// Boots the board and waits (at most `timeout`) until its agent answers.
    public init(_ options: Options = Options(), timeout: Duration = .seconds(180)) throws {
        if let reason = Self.unavailableReason { throw Failure(reason) }
        let image = try Self.image.get()
        self.options = options
        scratch = try TemporaryDirectory(prefix: "jukebox-vboard")
        consoleLog = scratch.file("console.log")
        // no_timer_check: on a loaded host the kernel's early check of the emulated 8254 timer
        // fails now and then ("IO-APIC + timer doesn't work!", a panic at 0.03 s).
        let kernelLine =
            ["console=ttyS0", "quiet", "panic=-1", "no_timer_check", "vboard.agent"] + options.kernelArguments
        var arguments = [
            "qemu-system-x86_64", "-accel", Self.accelerator, "-cpu", Self.accelerator == "kvm" ? "host" : "max",
            "-m", "\(options.memoryMiB)M", "-smp", "1", "-nodefaults", "-no-user-config", "-display", "none",
            "-no-reboot", "-kernel", image.kernel, "-initrd", image.initramfs,
            "-append", kernelLine.joined(separator: " "),
            "-serial", "file:" + consoleLog,
            "-device", "virtio-serial-pci", "-chardev", "stdio,id=control,signal=off",
            "-device", "virtserialport,chardev=control,name=org.jukebox.control",
        ]
        if let uart = options.uart { arguments += ["-serial", uart] }
        if let disk = options.disk {
            arguments += ["-drive", "file=\(disk),format=raw,if=virtio,cache=writeback"]
        }
        if let folder = options.hostFolder {
            arguments += ["-virtfs", "local,path=\(folder),mount_tag=host,security_model=none,id=host"]
        }
        arguments += options.qemuArguments
        let started = MonotonicClock.nanoseconds()
        let child = try spawnChild(arguments, stdin: .pipe, stdout: .pipe, stderr: .file(scratch.file("qemu.log")))
        pid = child.pid
        input = child.stdin
        output = child.stdout!
        do {
            let ready = try nextAnswer(deadline: deadline(after: timeout))
            guard ready.status == -1 else { throw Failure("the agent did not say ready: \(ready.output)") }
        } catch {
            let log = (try? String(contentsOfFile: consoleLog, encoding: .utf8)) ?? ""
            kill()
            throw Failure("the board did not boot: \(error)\n\(qemuMessages)\n\(log)")
        }
        bootSeconds = Double(MonotonicClock.nanoseconds() - started) / 1e9
    }

    deinit { kill() }

    /// Runs `command` with `sh -c` in the guest (stdin /dev/null) and returns what it printed
    /// and its exit status. A command that outlives `timeout` makes the board unusable: it
    /// throws, and the board should be released.
    public func run(_ command: String, timeout: Duration = .seconds(60)) throws -> CommandResult {
        precondition(!command.contains("\n"), "VirtualBoard.run: one line")
        guard let input else { throw Failure("the board is off") }
        try input.writeAll(Array((command + "\n").utf8))
        return try nextAnswer(deadline: deadline(after: timeout))
    }

    /// `run`, throwing when the command fails; returns its output.
    @discardableResult
    public func check(_ command: String, timeout: Duration = .seconds(60)) throws -> String {
        let result = try run(command, timeout: timeout)
        guard result.status == 0 else {
            throw Failure("`\(command)` on the board: exit \(result.status): \(result.output)")
        }
        return result.output
    }

    /// Starts `command` in the background in the guest, its output to `log` (a guest path);
    /// returns its process id there.
    public func start(_ command: String, log: String) throws -> Int {
        let output = try check("\(command) > \(log) 2>&1 & echo $!")
        guard let pid = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure("`\(command)`: no process id: \(output)")
        }
        return pid
    }

    /// Pulls the plug: qemu is killed (SIGKILL). Whatever the guest had not written to its
    /// virtual disk is lost; what it wrote is in the disk image.
    public func kill() {
        guard !exited else { return }
        exited = true
        input = nil
        _ = Glibc.kill(pid, SIGKILL)
        _ = reap(pid)
    }

    /// What qemu printed on its stderr.
    public var qemuMessages: String {
        (try? String(contentsOfFile: scratch.file("qemu.log"), encoding: .utf8)) ?? ""
    }

    /// The kernel's console so far.
    public var console: String {
        (try? String(contentsOfFile: consoleLog, encoding: .utf8)) ?? ""
    }

    /// Makes a raw disk image of `megabytes` with an ext4 file system (4 KiB blocks, journaled,
    /// as a card's root file system) for `Options.disk`.
    public static func makeStateDisk(at path: String, megabytes: Int = 64) throws {
        let result = try JukeboxTestSupport.run(
            ["mkfs.ext4", "-q", "-F", "-b", "4096", "-L", "jukebox-state", path, "\(megabytes)M"])
        guard result.status == 0 else { throw Failure("mkfs.ext4 \(path): \(result.stderrText)") }
    }

    /// Reads the agent's next answer: output up to 0x1E, then the status line ("ready" is -1).
    private func nextAnswer(deadline end: UInt64) throws -> CommandResult {
        while true {
            if let separator = pending.firstIndex(of: 0x1E),
                let newline = pending[separator...].firstIndex(of: 0x0A)
            {
                let text = String(decoding: pending[..<separator], as: UTF8.self)
                let word = String(decoding: pending[(separator + 1)..<newline], as: UTF8.self)
                pending.removeFirst(newline + 1)
                return CommandResult(status: word == "ready" ? -1 : Int32(word) ?? -2, output: text)
            }
            let now = MonotonicClock.nanoseconds()
            guard now < end else { throw Failure("no answer from the board in time; so far: \(text(pending))") }
            let timeout = Int32(min((end - now) / 1_000_000 + 1, 1000))
            _ = try Poller.wait([Poller.Interest(fd: output.rawValue)], timeoutMilliseconds: timeout)
            guard let chunk = try output.readIfReady(upTo: 65536) else { continue }
            guard !chunk.isEmpty else { throw Failure("qemu exited: \(qemuMessages)") }
            pending += chunk
        }
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes.suffix(2000), as: UTF8.self) }

    private static func findProgram(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
