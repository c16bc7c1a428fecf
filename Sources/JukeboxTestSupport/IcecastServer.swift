import Foundation
import Glibc
import LinuxSupport

/// A fixture that did not come up.
public struct FixtureFailure: Error, CustomStringConvertible {
    public let description: String
}

func require(_ condition: Bool, _ message: String) throws {
    if !condition { throw FixtureFailure(description: message) }
}

/// A real Icecast server (Debian's icecast2) on a free loopback port, with a generated config
/// in a temporary folder (not the system service), fed a 440 Hz tone as 128 kbit/s MP3 by
/// ffmpeg, a real source client.
public final class IcecastServer: @unchecked Sendable {
    let dir: TemporaryDirectory
    public private(set) var port = freeLoopbackPort()
    private var server: DaemonProcess?
    private var source: DaemonProcess?
    /// Sources `addSource` started (stopped by `kill`).
    private var extraSources: [DaemonProcess] = []
    static let mount = "/live.mp3"

    public init() throws {
        dir = try TemporaryDirectory(prefix: "jb-icecast")
        // icecast2 refuses to run as root unless it changes owner; the folder is its.
        _ = chmod(dir.path, 0o777)
        // A port chosen free can be taken before icecast2 binds it (ephemeral ports are shared
        // with every outgoing connection of the tests running beside it); icecast2 then exits:
        // try another port, twice at most. A server that runs but does not answer is an error.
        for attempt in 1... {
            try writeConfig()
            do {
                try start()
                break
            } catch  where attempt < 3 && server?.isRunning == false {
                port = freeLoopbackPort()
            }
        }
    }

    private func writeConfig() throws {
        let config = """
            <icecast>
              <limits><clients>20</clients><sources>5</sources><queue-size>524288</queue-size>
                <client-timeout>30</client-timeout><header-timeout>15</header-timeout>
                <source-timeout>10</source-timeout><burst-size>65535</burst-size></limits>
              <authentication><source-password>hackme</source-password><admin-user>admin</admin-user>
                <admin-password>hackme</admin-password></authentication>
              <hostname>127.0.0.1</hostname>
              <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
              <fileserve>0</fileserve>
              <paths><basedir>\(dir.path)</basedir><logdir>\(dir.path)</logdir>
                <webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot></paths>
              <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>2</loglevel></logging>
              <security><chroot>0</chroot>\(getuid() == 0 ? "<changeowner><user>nobody</user><group>nogroup</group></changeowner>" : "")</security>
            </icecast>
            """
        try config.write(toFile: dir.file("icecast.xml"), atomically: true, encoding: .utf8)
    }

    public var url: String { "http://127.0.0.1:\(port)\(Self.mount)" }

    /// Starts the server and the source, and waits until the mount plays.
    public func start() throws {
        server = try DaemonProcess(executable: "/usr/bin/icecast2", arguments: ["-c", dir.file("icecast.xml")])
        try require(
            waitUntil(timeout: .seconds(10)) { (try? curlStatus("/status-json.xsl")) == "200" },
            "icecast2 did not start on port \(port) (running: \(server?.isRunning ?? false)): "
                + "\(server?.text(of: .stderr) ?? "") \((try? String(contentsOfFile: dir.file("error.log"), encoding: .utf8)) ?? "")"
        )
        source = try DaemonProcess(
            executable: "/usr/bin/ffmpeg",
            arguments: [
                "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-ac",
                "2",
                "-c:a", "libmp3lame", "-b:a", "128k", "-content_type", "audio/mpeg", "-ice_name", "Jukebox Test FM",
                "-f", "mp3", "icecast://source:hackme@127.0.0.1:\(port)\(Self.mount)",
            ])
        try require(
            waitUntil(timeout: .seconds(10)) { (try? curlStatus(Self.mount)) == "200" },
            "ffmpeg's mount did not come up")
    }

    /// Starts another ffmpeg source of the tone on `mount` with `codec` (ffmpeg's arguments),
    /// sent as `contentType` in container `format`, and waits until it plays; returns its URL.
    public func addSource(mount: String, codec: [String], contentType: String, format: String) throws -> String {
        extraSources.append(
            try DaemonProcess(
                executable: "/usr/bin/ffmpeg",
                arguments: [
                    "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                    "-ac", "2",
                ] + codec + [
                    "-content_type", contentType, "-f", format, "icecast://source:hackme@127.0.0.1:\(port)\(mount)",
                ]))
        try require(
            waitUntil(timeout: .seconds(10)) { (try? curlStatus(mount)) == "200" }, "ffmpeg's \(mount) did not come up")
        return "http://127.0.0.1:\(port)\(mount)"
    }

    /// Starts a source of Ogg Vorbis songs on `mount` as Icecast gets them from ices2: one
    /// chained stream, each song (a 3 s tone with these ARTIST and TITLE comments, made by
    /// ffmpeg) a new link, in a loop at real-time rate (Tests/Tools/ogg_chain_source.py); waits
    /// until it plays and returns its URL.
    public func addOggChain(mount: String, songs: [(artist: String, title: String)]) throws -> String {
        var files: [String] = []
        for (index, song) in songs.enumerated() {
            let file = dir.file("song\(index).ogg")
            let made = try run([
                "/usr/bin/ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "sine=frequency=\(440 + 110 * index):sample_rate=48000:duration=3", "-ac", "2", "-c:a", "libvorbis",
                "-metadata", "ARTIST=\(song.artist)", "-metadata", "TITLE=\(song.title)", file,
            ])
            try require(made.status == 0, "ffmpeg could not make \(file): \(made.stderrText)")
            files.append(file)
        }
        extraSources.append(
            try DaemonProcess(
                executable: "/usr/bin/python3",
                arguments: [Fixtures.path("Tests/Tools/ogg_chain_source.py"), "127.0.0.1", "\(port)", mount] + files))
        try require(
            waitUntil(timeout: .seconds(10)) { (try? curlStatus(mount)) == "200" },
            "the Ogg chain on \(mount) did not come up")
        return "http://127.0.0.1:\(port)\(mount)"
    }

    public func kill() {
        for extra in extraSources {
            _ = extra.kill(SIGKILL)
            _ = extra.waitForTermination()
        }
        extraSources = []
        _ = source?.kill(SIGKILL)
        _ = server?.kill(SIGKILL)
        _ = source?.waitForTermination()
        _ = server?.waitForTermination()
        source = nil
        server = nil
    }

    /// Sets the mount's StreamTitle through Icecast's admin interface.
    public func setTitle(_ title: String) throws {
        let result = try run([
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-u", "admin:hackme", "-G",
            "--data-urlencode", "mount=\(Self.mount)", "--data-urlencode", "mode=updinfo", "--data-urlencode",
            "song=\(title)", "http://127.0.0.1:\(port)/admin/metadata",
        ])
        try require(result.stdoutText == "200", "icecast2's metadata update answered \(result.stdoutText)")
    }

    /// The status of GET `path` (a stream is cut after half a second).
    private func curlStatus(_ path: String) throws -> String {
        try run(["curl", "-s", "-o", "/dev/null", "-m", "0.5", "-w", "%{http_code}", "http://127.0.0.1:\(port)\(path)"])
            .stdoutText
    }

    deinit {
        kill()
        dir.remove()
    }
}

/// A TCP server on loopback that answers every connection with `reply` and then junk.
public final class GarbageServer: @unchecked Sendable {
    let process: DaemonProcess
    public let port: Int

    public init(reply: String) throws {
        let script = """
            import socket, sys, threading, os
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", 0)); s.listen(8)
            print("port", s.getsockname()[1], flush=True)
            def serve(c):
                try:
                    c.recv(4096); c.sendall(sys.argv[1].encode().decode("unicode_escape").encode("latin-1"))
                    while True: c.sendall(os.urandom(4096))
                except OSError: pass
            while True:
                c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
            """
        process = try DaemonProcess(executable: "/usr/bin/python3", arguments: ["-c", script, reply])
        port = Int(process.waitForLine(matching: "port ", on: .stdout)?.split(separator: " ").last ?? "0") ?? 0
    }

    public var url: String { "http://127.0.0.1:\(port)/stream.mp3" }
}
