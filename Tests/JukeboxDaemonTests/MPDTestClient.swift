import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport

/// A plain blocking MPD client over TCP for tests: send lines, read until OK/ACK, with timeouts.
final class MPDTestClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var greeting = ""

    /// Connects to `host` (an IPv4 address; loopback by default):`port` and reads the greeting line.
    init(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(5)) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Errno.current("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        let connected = waitUntil(timeout: timeout, pollingEvery: .milliseconds(20)) {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }
        guard connected else {
            let error = Errno.current("connect")
            close(fd)
            throw error
        }
        greeting = readLine(timeout: timeout) ?? ""
    }

    deinit { close(fd) }

    func send(_ line: String) { sendBytes(Array((line + "\n").utf8)) }

    func sendBytes(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// One line, or nil on timeout or end of stream.
    func readLine(timeout: Duration = .seconds(5)) -> String? {
        guard fill(until: { $0.contains(0x0A) }, timeout: timeout), let newline = buffer.firstIndex(of: 0x0A) else {
            return nil
        }
        defer { buffer.removeFirst(newline + 1) }
        return String(decoding: buffer[..<newline], as: UTF8.self)
    }

    /// Receives until `enough` holds for what was received; false on timeout or end of stream.
    private func fill(until enough: ([UInt8]) -> Bool, timeout: Duration) -> Bool {
        let end = deadline(after: timeout)
        while !enough(buffer) {
            let now = MonotonicClock.nanoseconds()
            guard now < end else { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, Int32((end - now) / 1_000_000) + 1) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return false }
            buffer += chunk[0..<n]
        }
        return true
    }

    /// Lines up to and including the final `OK` or `ACK ...` line.
    func response(timeout: Duration = .seconds(5)) -> [String] {
        var lines: [String] = []
        while let line = readLine(timeout: timeout) {
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK [") { break }
        }
        return lines
    }

    /// Sends a command whose answer may hold binary chunks (`albumart`, `readpicture`): the
    /// text lines (a chunk as its `binary: N` line) and the chunks' bytes, read by their length.
    func binaryCommand(_ line: String, timeout: Duration = .seconds(5)) -> (lines: [String], binary: [UInt8]) {
        send(line)
        var lines: [String] = []
        var binary: [UInt8] = []
        while let line = readLine(timeout: timeout) {
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK [") { break }
            if line.hasPrefix("binary: "), let count = Int(line.dropFirst(8)) {
                guard let bytes = readBytes(count + 1, timeout: timeout), bytes.last == 0x0A else { break }
                binary += bytes.dropLast()
            }
        }
        return (lines, binary)
    }

    /// Exactly `count` bytes, or nil on timeout or end of stream.
    private func readBytes(_ count: Int, timeout: Duration) -> [UInt8]? {
        guard fill(until: { $0.count >= count }, timeout: timeout) else { return nil }
        defer { buffer.removeFirst(count) }
        return Array(buffer.prefix(count))
    }

    /// Sends a command and returns its response lines.
    func command(_ line: String, timeout: Duration = .seconds(5)) -> [String] {
        send(line)
        return response(timeout: timeout)
    }

    /// `key: value` pairs of a response.
    func fields(_ line: String) -> [String: String] {
        var result: [String: String] = [:]
        for entry in command(line) {
            guard let colon = entry.firstIndex(of: ":") else { continue }
            result[String(entry[..<colon])] = String(entry[entry.index(colon, offsetBy: 2)...])
        }
        return result
    }

    /// Whether the server closed the connection (reads end of stream within `timeout`).
    func isClosed(timeout: Duration = .seconds(3)) -> Bool {
        let end = deadline(after: timeout)
        while MonotonicClock.nanoseconds() < end {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return true }
        }
        return false
    }
}

/// Runs a program to completion (killed after `timeout`); its exit status and what it
/// printed, stdout then stderr.
func runTool(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(20)) throws -> (
    status: Int32, output: String
) {
    let result = try run([executable] + arguments, timeout: timeout)
    return (result.status, result.stdoutText + result.stderrText)
}
