import Foundation
import JukeboxTestSupport

/// Two terminals of a private tmux server, each running the same MPD client with its default
/// config (an empty HOME): session `j` against jukeboxd, session `m` against MPD.
final class TmuxTerminals {
    static let tmux = "/usr/bin/tmux"
    static let sessions = ["j", "m"]
    let socket: String

    /// Starts `client` in `columns`x`rows` terminals, on `ports` ([jukeboxd, MPD]); the tmux
    /// socket and HOME go into `folder`.
    init(client: String, ports: [Int], folder: String, columns: Int = 120, rows: Int) throws {
        socket = folder + "/tmux.socket"
        let home = folder + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        for (session, port) in zip(Self.sessions, ports) {
            let result = try run([
                Self.tmux, "-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "\(columns)",
                "-y", "\(rows)", "env", "HOME=\(home)", "TERM=xterm-256color", "LANG=C.UTF-8", "MPD_HOST=127.0.0.1",
                "MPD_PORT=\(port)", client,
            ])
            guard result.status == 0 else { throw MPDDifferentialTests.TestFailure(result.stderrText) }
        }
    }

    deinit { stop() }

    /// Ends the terminals and their clients (before the servers go, and before the folder).
    func stop() { _ = try? run([Self.tmux, "-S", socket, "kill-server"]) }

    /// tmux key names (`Enter`, `Down`) or text, to both terminals.
    func keys(_ keys: [String]) throws {
        for session in Self.sessions { _ = try run([Self.tmux, "-S", socket, "send-keys", "-t", session] + keys) }
    }

    /// What a terminal shows; with `attributes`, its colours and attributes as escape
    /// sequences (`capture-pane -e`).
    func capture(_ session: String, attributes: Bool = false) -> String {
        let options = attributes ? ["-e", "-p"] : ["-p"]
        return (try? run([Self.tmux, "-S", socket, "capture-pane"] + options + ["-t", session]))?.stdoutText ?? ""
    }
}
