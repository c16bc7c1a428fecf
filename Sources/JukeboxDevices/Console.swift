import Glibc
import JukeboxCore
import LinuxSupport
import Logging

/// What the console read: a command line, or (in key mode) what a key did.
public enum ConsoleEvent: Equatable {
    case line(String)
    case action(ControlAction)
}

/// The text console: standard input/output, or a terminal device given by path.
/// Replies go to the same place the commands came from. Used on the control thread only.
///
/// With `[console] input = "keys"` and a terminal on stdin, single keys act as the box's
/// buttons (`TerminalKeyControls`): the terminal is put in non-canonical mode without echo
/// (Ctrl-C still stops the daemon) and restored by `close()`.
public final class Console {
    public let inputFD: Int32
    private let outputFD: Int32
    private let device: FileDescriptor?
    private var lines = ConsoleLineBuffer()
    private let logger: Logger
    public private(set) var isClosed = false
    /// Key mode: the decoder, the key map and the terminal settings to restore.
    private var keyDecoder = TerminalKeyDecoder()
    private var keys: TerminalKeyControls?
    private var savedTerminal: termios?

    private init(inputFD: Int32, outputFD: Int32, device: FileDescriptor?, logger: Logger) {
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.device = device
        self.logger = logger
    }

    /// Reads single keys as buttons when the input is a terminal; false when it is not.
    public func enableKeys(_ map: ControlMap) -> Bool {
        guard isatty(inputFD) == 1 else { return false }
        var settings = termios()
        guard tcgetattr(inputFD, &settings) == 0 else {
            logger.warning("console: cannot read the terminal settings: \(Errno.current("tcgetattr")); reading lines")
            return false
        }
        savedTerminal = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(inputFD, TCSANOW, &settings) == 0 else {
            logger.warning("console: cannot set the terminal to keys: \(Errno.current("tcsetattr")); reading lines")
            savedTerminal = nil
            return false
        }
        keys = TerminalKeyControls(map: map)
        reply(TerminalKeyControls.help)
        return true
    }

    /// Gives the terminal its settings back.
    public func close() {
        if var saved = savedTerminal { _ = tcsetattr(inputFD, TCSANOW, &saved) }
        savedTerminal = nil
    }

    /// `stdin`, `none`, or a device path. Standard input is read when it is a terminal, or
    /// always with `force` (`--console stdin`): a daemon started by systemd or from a script
    /// does not read what it was not given. A device that cannot be opened is logged and
    /// the daemon goes on without a console.
    public static func open(device: String, force: Bool, logger: Logger) -> Console? {
        switch device {
        case "none", "":
            return nil
        case "stdin", "-":
            guard force || isatty(0) == 1 else { return nil }
            return Console(inputFD: 0, outputFD: 1, device: nil, logger: logger)
        default:
            do {
                let fd = try FileDescriptor(path: device, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
                return Console(inputFD: fd.rawValue, outputFD: fd.rawValue, device: fd, logger: logger)
            } catch {
                logger.error("console: \(error); going on without a console")
                return nil
            }
        }
    }

    public func greet() {
        if keys != nil {
            reply("Jukebox \(JukeboxVersion.string) ready. Keys are the buttons (? lists them); ':' types a command.")
        } else {
            reply("Jukebox \(JukeboxVersion.string) ready. Type 'help' for the commands.")
        }
    }

    /// Reads what is there: complete lines, or in key mode what the keys did.
    public func read() -> [ConsoleEvent] {
        guard var keys else { return readLines().map { .line($0) } }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(inputFD, $0.baseAddress, $0.count) }
        if n <= 0 {
            if n < 0, errno == EAGAIN || errno == EINTR { return [] }
            isClosed = true
            logger.info("console: end of input; going on without a console")
            return []
        }
        var events: [ConsoleEvent] = []
        for key in keyDecoder.feed(buffer[0..<n]) {
            for output in keys.handle(key) {
                switch output {
                case .action(let action): events.append(.action(action))
                case .line(let text): events.append(.line(text))
                case .show(let text): write(Array(text.utf8))
                }
            }
        }
        self.keys = keys
        return events
    }

    /// Reads what is there and returns the complete lines.
    private func readLines() -> [String] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(inputFD, $0.baseAddress, $0.count) }
        if n == 0 {
            isClosed = true
            logger.info("console: end of input; going on without a console")
            return []
        }
        if n < 0 {
            if errno == EAGAIN || errno == EINTR { return [] }
            isClosed = true
            logger.warning("console: \(Errno.current("read")); going on without a console")
            return []
        }
        var result: [String] = []
        for line in lines.feed(buffer[0..<n]) {
            switch line {
            case .text(let text): result.append(text)
            case .tooLong(let bytes): reply("error: line too long (\(bytes) bytes), ignored")
            }
        }
        return result
    }

    public func reply(_ text: String) {
        var bytes = Array(text.utf8)
        if bytes.last != 0x0A { bytes.append(0x0A) }
        write(bytes)
    }

    private func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(outputFD, $0.baseAddress, $0.count) }
            if n <= 0 { return }  // a console that went away must not stop the player
            offset += n
        }
    }

    /// Unsolicited news for a person watching (track changes).
    public func announce(_ text: String) { reply("* \(text)") }
}
