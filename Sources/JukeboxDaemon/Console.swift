import Glibc
import LinuxSupport
import Logging

/// The text console: standard input/output, or a terminal device given by path.
/// Replies go to the same place the commands came from. Used on the control thread only.
final class Console {
    let inputFD: Int32
    private let outputFD: Int32
    private let device: FileDescriptor?
    private var lines = ConsoleLineBuffer()
    private let logger: Logger
    private(set) var isClosed = false

    private init(inputFD: Int32, outputFD: Int32, device: FileDescriptor?, logger: Logger) {
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.device = device
        self.logger = logger
    }

    /// `stdin`, `none`, or a device path. Standard input is read when it is a terminal, or
    /// always with `force` (`--console stdin`): a daemon started by systemd or from a script
    /// does not read what it was not given. A device that cannot be opened is logged and
    /// the daemon goes on without a console.
    static func open(device: String, force: Bool, logger: Logger) -> Console? {
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

    func greet() {
        reply("Jukebox \(JukeboxVersion.string) ready. Type 'help' for the commands.")
    }

    /// Reads what is there and returns the complete lines.
    func readLines() -> [String] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(inputFD, $0.baseAddress, $0.count) }
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

    func reply(_ text: String) {
        var bytes = Array(text.utf8)
        if bytes.last != 0x0A { bytes.append(0x0A) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(outputFD, $0.baseAddress, $0.count) }
            if n <= 0 { return }  // a console that went away must not stop the player
            offset += n
        }
    }

    /// Unsolicited news for a person watching (track changes).
    func announce(_ text: String) { reply("* \(text)") }
}
