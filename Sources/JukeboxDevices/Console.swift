import Glibc
import JukeboxCore
import LinuxSupport
import Logging

/// What the console read: a command line, or (in key mode) what a key did.
public enum ConsoleEvent: Equatable {
    case line(String)
    case action(ControlAction)
    /// A knob turn or gesture made with a key.
    case input(InjectedInput)
}

/// The text console: standard input/output, or a terminal device given by path.
/// Replies go to the same place the commands came from. Used on the control thread only.
///
/// With `[console] input = "keys"` and a terminal on stdin, single keys act as the box's
/// buttons (`TerminalKeyControls`): the terminal is put in non-canonical mode without echo
/// (Ctrl-C still stops the daemon) and restored by `close()`.
public final class Console {
    private let input: FileDescriptor
    private let output: FileDescriptor
    private var lines = ConsoleLineBuffer()
    private let logger: Logger
    public private(set) var isClosed = false
    /// Key mode: the decoder, the key map and the terminal settings to restore.
    private var keyDecoder = TerminalKeyDecoder()
    private var keys: TerminalKeyControls?
    private var savedTerminal: termios?

    private init(input: FileDescriptor, output: FileDescriptor, logger: Logger) {
        self.input = input
        self.output = output
        self.logger = logger
    }

    public var inputFD: Int32 { input.rawValue }

    /// Reads single keys as buttons when the input is a terminal; false when it is not.
    public func enableKeys(_ map: ControlMap) -> Bool {
        guard input.isTerminal else { return false }
        var settings: termios
        do {
            settings = try input.terminalAttributes()
        } catch {
            logger.warning("console: cannot read the terminal settings: \(error.summary); reading lines")
            return false
        }
        savedTerminal = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        do {
            try input.setTerminalAttributes(settings)
        } catch {
            logger.warning("console: cannot set the terminal to keys: \(error.summary); reading lines")
            savedTerminal = nil
            return false
        }
        keys = TerminalKeyControls(map: map)
        reply(TerminalKeyControls.help)
        return true
    }

    /// Gives the terminal its settings back.
    public func close() {
        if let saved = savedTerminal { try? input.setTerminalAttributes(saved) }
        savedTerminal = nil
    }

    /// `stdin`, `none`, or a device path. Standard input is read when it is a terminal or a
    /// pipe (a program talks to the daemon), or always with `force` (`--console stdin`): a
    /// daemon started by systemd (stdin is /dev/null) or with a file on stdin does not read
    /// what it was not given. A device that cannot be opened is logged and the daemon goes on
    /// without a console.
    public static func open(device: String, force: Bool, logger: Logger) -> Console? {
        switch device {
        case "none", "":
            return nil
        case "stdin", "-":
            let input = FileDescriptor.standardInput
            guard force || input.isTerminal || input.isPipe else { return nil }
            return Console(input: .standardInput, output: .standardOutput, logger: logger)
        default:
            do {
                let fd = try FileDescriptor(path: device, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
                return Console(input: fd, output: fd, logger: logger)
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
        let read: [UInt8]?
        do {
            read = try input.readIfReady(upTo: 256)
        } catch {
            read = []  // as before: a failed read in key mode counts as the end of input
        }
        guard let bytes = read else { return [] }
        if bytes.isEmpty {
            isClosed = true
            logger.info("console: end of input; going on without a console")
            return []
        }
        var events: [ConsoleEvent] = []
        for key in keyDecoder.feed(bytes) {
            for output in keys.handle(key) {
                switch output {
                case .action(let action): events.append(.action(action))
                case .input(let input): events.append(.input(input))
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
        let read: [UInt8]?
        do {
            read = try input.readIfReady(upTo: 4096)
        } catch {
            isClosed = true
            logger.warning("console: \(error); going on without a console")
            return []
        }
        guard let bytes = read else { return [] }
        if bytes.isEmpty {
            isClosed = true
            logger.info("console: end of input; going on without a console")
            return []
        }
        var result: [String] = []
        for line in lines.feed(bytes) {
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
            // A console that went away (or is full) must not stop the player.
            let written = bytes[offset...].withUnsafeBytes { try? output.writeIfReady($0) }
            guard let n = written ?? nil, n > 0 else { return }
            offset += n
        }
    }

    /// Unsolicited news for a person watching (track changes).
    public func announce(_ text: String) { reply("* \(text)") }
}
