import Glibc
import JukeboxCore
import LinuxSupport
import Logging
import MPDProtocol

/// The serial console: a tty (`/dev/serial0`, `/dev/ttyGS0`, a USB adapter) in raw mode at
/// the configured baud rate, speaking the MPD protocol to a person. It echoes what is typed,
/// handles backspace, Ctrl-U and Ctrl-C, greets with the version and a hint to type `help`,
/// and survives line noise, overlong lines and invalid UTF-8. When the line goes away (EIO,
/// hang-up, end of file: a cable or USB gadget unplugged) it closes the tty and tries to open
/// the path again every second. Used on the control thread only; never blocks (unsent output
/// beyond 64 KiB is dropped rather than waited for).
public final class SerialConsole {
    static let reopenIntervalNanoseconds: UInt64 = 1_000_000_000
    static let maximumPendingOutput = 64 << 10

    let path: String
    let baud: Int
    private let logger: Logger
    private var fd: FileDescriptor?
    private var editor = SerialLineEditor()
    private var session = MPDSession(options: .init(human: true, local: true))
    private var output: [UInt8] = []
    private var nextReopen: UInt64 = 0
    private var reportedOpenFailure = false

    public init(path: String, baud: Int, logger: Logger) {
        self.path = path
        self.baud = baud
        self.logger = logger
        open()
    }

    public func interests() -> [Poller.Interest] {
        guard let fd else { return [] }
        return [Poller.Interest(fd: fd.rawValue, readable: true, writable: !output.isEmpty)]
    }

    public func owns(_ descriptor: Int32) -> Bool { fd?.rawValue == descriptor }

    public func timeoutMilliseconds() -> Int32? {
        guard fd == nil else { return nil }
        let now = MonotonicClock.nanoseconds()
        return nextReopen > now ? Int32((nextReopen - now) / 1_000_000 + 1) : 0
    }

    public func handle(_ readiness: Poller.Readiness, host: MPDPlayerHost) {
        guard let fd else { return }
        if readiness.writable { flush() }
        if readiness.readable {
            let bytes: [UInt8]?
            do {
                bytes = try fd.readIfReady(upTo: 4096)
            } catch {
                lost("\(error.summary)")
                return
            }
            guard let bytes else { return }
            if !bytes.isEmpty {
                let edited = editor.feed(bytes)
                write(edited.echo)
                if !edited.lines.isEmpty {
                    let text = host.runMPD { world -> String in
                        var text = ""
                        for line in edited.lines {
                            switch line {
                            case .text(let line): text += session.handle(line: line, world: &world).text
                            case .tooLong(let bytes):
                                text += MPDError(
                                    .argument,
                                    "line too long (\(bytes) bytes, at most \(SerialLineEditor.maximumLineBytes)); ignored"
                                )
                                .ack(index: 0, command: "")
                            }
                        }
                        return text
                    }
                    write(text)
                }
                flush()
                return
            }
            lost("end of file")
            return
        }
        if readiness.hangup || readiness.error { lost("hang-up") }
    }

    public func notify(_ changes: Set<MPDSubsystem>) {
        guard fd != nil, let text = session.notify(changes) else { return }
        write(text)
        flush()
    }

    public func reopenIfDue(now: UInt64) {
        if fd == nil, now >= nextReopen { open() }
    }

    public func close() {
        fd = nil
    }

    // MARK: private

    private func open() {
        nextReopen = MonotonicClock.nanoseconds() + Self.reopenIntervalNanoseconds
        let opened: FileDescriptor
        do {
            opened = try FileDescriptor(path: path, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
        } catch {
            if !reportedOpenFailure { logger.warning("serial console: \(error); trying again every second") }
            reportedOpenFailure = true
            return
        }
        if opened.isTerminal {
            do {
                try opened.configureSerialLine(baud: baud)
            } catch {
                logger.warning("serial console: cannot configure \(path) at \(baud) baud: \(error.summary)")
            }
        }
        reportedOpenFailure = false
        fd = opened
        editor = SerialLineEditor()
        session = MPDSession(options: .init(human: true, local: true))
        output = []
        logger.info("serial console on \(path) at \(baud) baud")
        write(
            "\nJukebox \(JukeboxVersion.string) ready (MPD protocol \(MPDProtocol.version)). Type 'help' for the commands.\n"
        )
        flush()
    }

    private func lost(_ reason: String) {
        logger.warning("serial console \(path): \(reason); reopening when it comes back")
        fd = nil
        nextReopen = MonotonicClock.nanoseconds() + Self.reopenIntervalNanoseconds
    }

    /// Queues text for the terminal: LF becomes CR LF (the tty's output processing is off).
    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            if byte == 0x0A { bytes.append(0x0D) }
            bytes.append(byte)
        }
        write(bytes)
    }

    private func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if output.count + bytes.count > Self.maximumPendingOutput {
            output = []  // nobody reads: drop rather than grow or block
        }
        output.append(contentsOf: bytes)
    }

    private func flush() {
        guard let fd else { return }
        var offset = 0
        while offset < output.count {
            // Would block, or failed: what is left waits; a line that went away shows up in read.
            let written = output[offset...].withUnsafeBytes { try? fd.writeIfReady($0) }
            guard let n = written ?? nil, n > 0 else { break }
            offset += n
        }
        output.removeFirst(offset)
    }
}

/// Line editing for a person on a raw terminal: echo, backspace/DEL (a whole UTF-8
/// character), Ctrl-U (erase the line), Ctrl-C (drop the line); CR, LF or CR LF end a line;
/// other control bytes are dropped; a line over `maximumLineBytes` is refused whole.
struct SerialLineEditor {
    static let maximumLineBytes = 4096

    enum Line: Equatable {
        case text(String)
        case tooLong(bytes: Int)
    }

    private var line: [UInt8] = []
    private var overflow = 0
    private var lastWasCR = false

    /// Feeds bytes; returns the echo to send back and the finished lines.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> (echo: [UInt8], lines: [Line]) {
        var echo: [UInt8] = []
        var lines: [Line] = []
        for byte in bytes {
            if byte == 0x0A, lastWasCR {
                lastWasCR = false
                continue
            }
            lastWasCR = byte == 0x0D
            switch byte {
            case 0x0D, 0x0A:
                echo += [0x0D, 0x0A]
                lines.append(overflow > 0 ? .tooLong(bytes: overflow) : .text(String(decoding: line, as: UTF8.self)))
                line.removeAll(keepingCapacity: true)
                overflow = 0
            case 0x08, 0x7F:
                guard overflow == 0, !line.isEmpty else { continue }
                while let last = line.popLast(), last & 0xC0 == 0x80, !line.isEmpty {}
                echo += [0x08, 0x20, 0x08]
            case 0x15:
                echo +=
                    Array(repeating: 0x08, count: line.count) + Array(repeating: 0x20, count: line.count)
                    + Array(repeating: 0x08, count: line.count)
                line.removeAll(keepingCapacity: true)
                overflow = 0
            case 0x03:
                echo += Array("^C\r\n".utf8)
                line.removeAll(keepingCapacity: true)
                overflow = 0
            case 0x00..<0x20:
                continue
            default:
                if overflow > 0 {
                    overflow += 1
                    continue
                }
                line.append(byte)
                if line.count > Self.maximumLineBytes {
                    overflow = line.count
                    line.removeAll(keepingCapacity: true)
                    continue
                }
                echo.append(byte)
            }
        }
        return (echo, lines)
    }
}
