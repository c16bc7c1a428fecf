import CLinuxShims
import Glibc

/// Terminal and serial-line settings (termios) of a descriptor.
extension FileDescriptor {
    /// Whether this is a terminal (isatty).
    public var isTerminal: Bool { isatty(rawValue) == 1 }

    /// Whether this is a pipe or a FIFO: another program connected it to talk to this one.
    public var isPipe: Bool {
        var info = stat()
        return fstat(rawValue, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
    }

    /// Raw mode, 8N1, receiver on, modem lines ignored, reads returning at the first byte,
    /// at `baud` (a standard rate, else EINVAL); pending input is dropped.
    public func configureSerialLine(baud: Int) throws(Errno) {
        _ = try call("tcsetattr") { jb_tty_configure($0, Int32(baud)) }
    }

    public func terminalAttributes() throws(Errno) -> termios {
        var settings = termios()
        _ = try call("tcgetattr") { tcgetattr($0, &settings) }
        return settings
    }

    public func setTerminalAttributes(_ settings: termios) throws(Errno) {
        var settings = settings
        _ = try call("tcsetattr") { tcsetattr($0, TCSANOW, &settings) }
    }

    /// A new pseudo-terminal master (non-blocking) and the path of its slave (/dev/pts/N).
    public static func openPseudoTerminal() throws(Errno) -> (master: FileDescriptor, slavePath: String) {
        var name = [CChar](repeating: 0, count: 128)
        let fd = try SystemCall.value("posix_openpt") { jb_open_pty_master(&name, UInt(name.count)) }
        let slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (FileDescriptor(owning: fd, path: "pty master for \(slavePath)"), slavePath)
    }
}
