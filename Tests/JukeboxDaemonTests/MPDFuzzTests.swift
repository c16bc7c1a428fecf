import Foundation
import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// 100,000 mutated command lines on TCP and on the serial console (a pty): the daemon keeps
/// playing, keeps answering, and its resident memory stays flat.
@Suite(.serialized) struct MPDFuzzTests {
    static let lineCount = 100_000

    /// Commands that do not legitimately stop the music or grow the queue (the fuzz checks
    /// that the daemon survives, so it must not be allowed to simply ask it to stop).
    static let words = [
        "status", "currentsong", "playlistinfo", "playlistid", "plchanges", "find", "search", "list", "lsinfo",
        "listall", "listallinfo", "count", "setvol", "volume", "getvol", "play", "playid", "next", "previous", "seek",
        "seekid", "seekcur", "move", "moveid", "shuffle", "ping", "commands", "notcommands", "tagtypes", "outputs",
        "stats", "idle", "noidle", "command_list_begin", "command_list_ok_begin", "command_list_end", "password",
        "replay_gain_status", "decoders", "urlhandlers", "help", "lyrics", "playlist", "frobnicate", "Status", "x_y",
        "save", "listplaylists", "listplaylist", "listplaylistinfo", "playlistadd", "playlistclear", "playlistdelete",
        "playlistmove", "rename", "rm",
        // MPD 0.24's
        "protocol", "searchcount", "searchplaylist", "playlistfind", "playlistsearch", "playlistlength",
    ]
    static let fragments = [
        "0", "1", "-1", "99999999999999999999", "0:", ":", "1:0", "+5", "-5", "3.5", "nan", "\"", "\"\"", "\"a b\"",
        "\\", "'", "artist", "any", "file", "\"(artist == 'x')\"", "\"((\"", "window", "sort", "group", "..", "/",
        "\"../..\"", "\"/etc/passwd\"", "\u{00e9}", "\u{1F3B5}", "append", "replace", "oneshot", "available",
        "reset", "enable", "hide_playlists_in_root", "\"(title !contains_ci 'a')\"",
    ]

    /// One mutated line (without its newline). `terminal`: a line after which MPD may close
    /// the connection (garbage where the command word should be, over 4 KiB, idle).
    static func line(_ random: inout SplitMix64) -> (bytes: [UInt8], terminal: Bool) {
        let roll = random.next() % 100
        if roll < 3 {  // a long line, over MPD's 4 KiB limit or just under it
            let length = 4000 + Int(random.next() % 2000)
            return ((0..<length).map { _ in UInt8(0x21 + random.next() % 90) }, true)
        }
        if roll < 10 {  // random bytes (invalid UTF-8, controls, NULs)
            let length = Int(random.next() % 80)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            return (bytes.filter { $0 != 0x0A && $0 != 0x0D }, true)
        }
        if roll < 20 {  // random bytes after a command word: argument errors
            let length = Int(random.next() % 80)
            let bytes = Array("status ".utf8) + (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            return (bytes.filter { $0 != 0x0A && $0 != 0x0D }, false)
        }
        let mutated = mutatedCommand(&random)
        let word = mutated.prefix { $0 != 0x20 && !(0x09...0x0D).contains($0) }
        let isLetter = { (byte: UInt8) in (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        let wordIsValid =
            word.first.map(isLetter) == true
            && word.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "_") }
        return (mutated, !wordIsValid || word.elementsEqual("idle".utf8))
    }

    static func mutatedCommand(_ random: inout SplitMix64) -> [UInt8] {
        var bytes = Array(words[Int(random.next() % UInt64(words.count))].utf8)
        for _ in 0..<Int(random.next() % 4) {
            bytes.append(0x20)
            bytes += Array(fragments[Int(random.next() % UInt64(fragments.count))].utf8)
        }
        if random.next() % 5 == 0 {  // flip, insert or cut a byte
            let position = Int(random.next() % UInt64(bytes.count + 1))
            switch random.next() % 3 {
            case 0 where position < bytes.count: bytes[position] ^= UInt8(truncatingIfNeeded: 1 << (random.next() % 8))
            case 1: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
            default: bytes = Array(bytes.prefix(position))
            }
            bytes.removeAll { $0 == 0x0A || $0 == 0x0D }
        }
        return bytes
    }

    static func rssKiB(_ harness: DaemonHarness) -> Int {
        harness.process.flatMap { ProcessStats.read($0.pid) }?.vmRSSKiB ?? 0
    }

    @Test func hundredThousandMutatedLinesOnTCP() throws {
        let (harness, port) = try MPDDaemonTests.start()
        defer { MPDDaemonTests.stop(harness) }
        var random = SplitMix64(seed: 0x5EED_0001)
        var connections = 0
        var rssAfterWarmUp = 0
        var sent = 0
        var sink = [UInt8](repeating: 0, count: 65536)
        var client: Int32 = -1
        while sent < Self.lineCount {
            if client < 0 {
                client = try MPDTestClient.connectRaw(port: port)
                connections += 1
            }
            // A batch ends with the first line after which MPD may close the connection; then
            // the test half-closes and reads to the end, so the daemon sees every line.
            var batch: [UInt8] = []
            var terminal = false
            while sent < Self.lineCount, batch.count < 8192, !terminal {
                let line = Self.line(&random)
                batch += line.bytes + [0x0A]
                sent += 1
                terminal = line.terminal
            }
            var offset = 0
            var lost = false
            while !lost {
                var fds = [
                    pollfd(fd: client, events: Int16(offset < batch.count ? POLLIN | POLLOUT : POLLIN), revents: 0)
                ]
                let ready = poll(&fds, 1, offset < batch.count ? 1000 : 0)
                if ready > 0, fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    let n = sink.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    if n == 0 || (n < 0 && errno != EAGAIN) { lost = true }
                }
                if offset < batch.count, !lost, ready > 0, fds[0].revents & Int16(POLLOUT) != 0 {
                    let n = batch[offset...].withUnsafeBytes {
                        Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                    if n > 0 { offset += n } else if errno != EAGAIN { lost = true }
                }
                if offset == batch.count { break }
            }
            if terminal || lost {
                shutdown(client, Int32(SHUT_WR))
                while true {
                    var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0)]
                    guard poll(&fds, 1, 5000) > 0 else { break }
                    let n = sink.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { break }
                }
                close(client)
                client = -1
            }
            if sent >= 10_000, rssAfterWarmUp == 0 { rssAfterWarmUp = Self.rssKiB(harness) }
        }
        if client >= 0 { close(client) }
        let checker = try MPDTestClient(port: port)
        let status = checker.fields("status")
        #expect(status["state"] == "play", "\(status)\n\(harness.log.suffix(2000))")
        let rss = Self.rssKiB(harness)
        #expect(rss - rssAfterWarmUp < 4096, "VmRSS grew from \(rssAfterWarmUp) KiB to \(rss) KiB")
        #expect(connections > 1000)
        print("TCP fuzz: \(sent) lines, \(connections) connections, VmRSS \(rssAfterWarmUp) -> \(rss) KiB")
    }

    @Test func hundredThousandMutatedLinesOnTheSerialConsole() throws {
        let pty = try PseudoTerminal()
        let scratch = try TemporaryDirectory(prefix: "jukebox-fuzz")
        let link = scratch.file("serial")
        #expect(symlink(pty.slavePath, link) == 0)
        let (harness, port) = try MPDDaemonTests.start(console: link)
        defer { MPDDaemonTests.stop(harness) }
        #expect(pty.waitFor("Type 'help'") != nil)
        var random = SplitMix64(seed: 0x5EED_0002)
        var rssAfterWarmUp = 0
        var batch: [UInt8] = []
        for index in 0..<Self.lineCount {
            var line = Self.line(&random).bytes
            // Ctrl-C, backspace and Ctrl-U are editing keys on a terminal; keep a few.
            if random.next() % 50 == 0 { line.append([0x03, 0x08, 0x7F, 0x15][Int(random.next() % 4)]) }
            batch += line + [random.next() % 2 == 0 ? 0x0D : 0x0A]
            if batch.count > 2048 {
                pty.writeBytes(batch)
                pty.discard()
                batch = []
            }
            if index == 10_000 { rssAfterWarmUp = Self.rssKiB(harness) }
        }
        pty.writeBytes(batch + Array("\rcommand_list_end\rnoidle\rping\r".utf8))
        var quiet = 0
        let caughtUp = waitUntil(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            quiet = pty.drain() == 0 ? quiet + 1 : 0
            return quiet == 3  // the daemon has worked through the input and its echo
        }
        #expect(caughtUp, "the serial console still echoes after 60 s")
        pty.discard()
        pty.write("status\r")
        let status = pty.waitFor("OK\r\n", timeout: .seconds(20)) ?? ""
        #expect(status.contains("state: play"), "\(status.suffix(500))\n\(harness.log.suffix(2000))")
        #expect(try MPDTestClient(port: port).fields("status")["state"] == "play")
        let rss = Self.rssKiB(harness)
        #expect(rss - rssAfterWarmUp < 4096, "VmRSS grew from \(rssAfterWarmUp) KiB to \(rss) KiB")
        print("serial fuzz: \(Self.lineCount) lines, VmRSS \(rssAfterWarmUp) -> \(rss) KiB")
    }
}

extension MPDTestClient {
    /// A connected non-blocking socket (the greeting is left unread).
    static func connectRaw(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Errno.current("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw Errno.current("connect")
        }
        return fd
    }
}
