// MPD 0.23 as the peer: a minimal config writer, server start/stop by pid and a tiny
// protocol client (no python-mpd needed).
import Foundation
import Glibc
import JukeboxTestSupport

final class MPDClient {
    private let fd: Int32
    private var buf = [UInt8]()

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket failed") }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard r == 0 else { close(fd); throw BenchError("connect to MPD on port \(port) failed") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(4))
        let hello = try readLine()
        guard hello.hasPrefix("OK MPD") else { close(fd); throw BenchError("not MPD: \(hello)") }
    }

    deinit { close(fd) }

    /// Makes a read that waits longer than `seconds` fail (SO_RCVTIMEO).
    func setReadTimeout(seconds: Int) {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    private func readLine() throws -> String {
        var tmp = [UInt8](repeating: 0, count: 4096)
        while true {
            if let nl = buf.firstIndex(of: 10) {
                let s = String(decoding: buf[..<nl], as: UTF8.self)
                buf.removeSubrange(...nl)
                return s
            }
            let n = read(fd, &tmp, tmp.count)
            if n == -1 && errno == EINTR { continue }
            if n <= 0 { throw BenchError("MPD closed the connection") }
            buf.append(contentsOf: tmp[0..<n])
        }
    }

    @discardableResult
    func cmd(_ c: String) throws -> [String: String] {
        let d = Array((c + "\n").utf8)
        _ = d.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var out = [String: String]()
        while true {
            let l = try readLine()
            if l == "OK" { return out }
            if l.hasPrefix("ACK") { throw BenchError("MPD: \(l)") }
            let parts = l.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { out[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Sends `c` and reads its whole reply unparsed: its size in bytes, and its text when
    /// `keep` (a reply of tens of MB is only counted, so the client's cost stays small).
    func exchange(_ c: String, keep: Bool = false) throws -> (bytes: Int, text: String) {
        let d = Array((c + "\n").utf8)
        _ = d.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var kept = [UInt8](), tail = [UInt8](), bytes = 0
        func take(_ part: ArraySlice<UInt8>) {
            bytes += part.count
            if keep { kept.append(contentsOf: part) }
            tail = Array((tail + part).suffix(512))
        }
        take(buf[...])
        buf.removeAll()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if tail.last == 10 {
                // the reply ends with a line "OK" or "ACK ..."
                let end = tail.index(before: tail.endIndex)
                let start = tail[..<end].lastIndex(of: 10).map { $0 + 1 } ?? tail.startIndex
                let last = String(decoding: tail[start..<end], as: UTF8.self)
                if last == "OK" { return (bytes, String(decoding: kept, as: UTF8.self)) }
                if last.hasPrefix("ACK ") { throw BenchError("\(c): \(last)") }
            }
            let n = read(fd, &chunk, chunk.count)
            if n == -1 && errno == EINTR { continue }
            if n == -1 && errno == EAGAIN { throw BenchError("no reply to '\(c)' within the read timeout") }
            if n <= 0 { throw BenchError("the server closed the connection during '\(c)' after \(bytes) B") }
            take(chunk[0..<n])
        }
    }
}

final class MPDServer {
    let dir: String
    let port: Int
    let child: Child
    let startTime: Double
    var conf: String { "\(dir)/mpd.conf" }
    var dbFile: String { "\(dir)/db" }

    /// Writes a config (music dir, db, null output with real-time `sync`, `mad` disabled like
    /// perf-baseline.sh) and starts `mpd --no-daemon`. `keepDb` false removes the db first, so
    /// MPD starts a full update by itself.
    /// `extraConfig` is appended to the config as it is.
    init(dir: String, musicDir: String, keepDb: Bool, stateFile: Bool = false, extraConfig: String = "") throws {
        guard let mpd = which("mpd") else { throw BenchError("mpd is not installed (apt-get install -y mpd mpc)") }
        self.dir = dir
        try mkdirs(dir + "/playlists")
        port = freeLoopbackPort()
        let text = """
            # written by jukebox-bench (same settings as perf-baseline.sh)
            music_directory    "\(musicDir)"
            playlist_directory "\(dir)/playlists"
            db_file            "\(dir)/db"
            \(stateFile ? "state_file         \"\(dir)/state\"" : "")
            pid_file           "\(dir)/pid"
            log_file           "\(dir)/log"
            bind_to_address    "127.0.0.1"
            port               "\(port)"
            auto_update        "no"
            zeroconf_enabled   "no"
            decoder {
              plugin  "mad"
              enabled "no"
            }
            audio_output {
              type       "null"
              name       "null-paced"
              sync       "yes"
              mixer_type "none"
            }
            \(extraConfig)

            """
        try writeText("\(dir)/mpd.conf", text)
        if !keepDb { removeItem("\(dir)/db") }
        removeItem("\(dir)/state")
        removeItem("\(dir)/pid")
        startTime = Clock.seconds()
        child = try Child.spawn(
            [mpd, "--no-daemon", "\(dir)/mpd.conf"], stdout: .file("\(dir)/stdout.log"),
            stderr: .file("\(dir)/stderr.log"))
    }

    /// Connects as soon as MPD answers (polls every 2 ms).
    func connect(timeout: Double = 20) throws -> MPDClient {
        let end = Clock.seconds() + timeout
        while true {
            if let c = try? MPDClient(port: port), (try? c.cmd("ping")) != nil { return c }
            if !child.isRunning {
                let err = (readText("\(dir)/stderr.log") ?? "") + (readText("\(dir)/log") ?? "")
                throw BenchError("mpd exited: \(err.split(separator: "\n").suffix(3).joined(separator: " / "))")
            }
            if Clock.seconds() > end { throw BenchError("mpd did not answer within \(Int(timeout)) s") }
            Clock.sleep(0.002)
        }
    }

    /// Polls every 5 ms until no update runs and the db holds `songs`; returns that time.
    func waitUpdate(_ c: MPDClient, songs: Int, timeout: Double = 300) throws -> Double {
        let end = Clock.seconds() + timeout
        while Clock.seconds() < end {
            let st = try c.cmd("status")
            if st["updating_db"] == nil, Int(try c.cmd("stats")["songs"] ?? "0") ?? 0 >= songs {
                return Clock.seconds()
            }
            Clock.sleep(0.005)
        }
        throw BenchError("MPD update did not reach \(songs) songs")
    }

    func stop() { child.terminate(grace: 5) }

    /// MPD started on `file`'s folder alone (fresh db), playing `file` for a second; the caller
    /// stops it.
    static func playing(_ file: String, dir: String) throws -> (MPDServer, MPDClient) {
        let srv = try MPDServer(dir: dir, musicDir: (file as NSString).deletingLastPathComponent, keepDb: false)
        do {
            let c = try srv.connect()
            _ = try srv.waitUpdate(c, songs: 1)
            try c.cmd("clear")
            try c.cmd("add \"\((file as NSString).lastPathComponent)\"")
            try c.cmd("play 0")
            Clock.sleep(1)
            return (srv, c)
        } catch {
            srv.stop()
            throw error
        }
    }
}
