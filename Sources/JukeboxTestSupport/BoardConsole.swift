import LinuxSupport

/// The serial console of a jukeboxd on a `VirtualBoard`: its config's `[console]` is the
/// board's ttyS1, whose host end is `uart`.
public struct BoardConsole {
    public let uart: PseudoTerminal

    public init(uart: PseudoTerminal) { self.uart = uart }

    /// Sends one console line and returns the answer up to its "OK" or "ACK" line.
    @discardableResult
    public func command(_ line: String, timeout: Duration = .seconds(10)) -> String {
        uart.discard()
        uart.write(line + "\r")
        let end = deadline(after: timeout)
        var answer = ""
        while MonotonicClock.nanoseconds() < end {
            guard let part = uart.waitFor("\r\n", timeout: .milliseconds(200)) else { continue }
            answer += part
            if part.hasPrefix("OK") || part.hasPrefix("ACK") { return answer }
        }
        return answer
    }

    /// The `status` fields.
    public func status() -> [String: String] {
        var fields: [String: String] = [:]
        for line in command("status").split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = String(line[line.index(colon, offsetBy: 2)...])
        }
        return fields
    }
}
