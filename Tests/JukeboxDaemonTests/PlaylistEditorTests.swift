import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// ncmpcpp's playlist editor in a real terminal (tmux), once against jukeboxd and once
/// against MPD 0.23 on the same music and queue: the same keys create a playlist, add to it,
/// reorder, delete from, rename, clear and remove it, and after each step both terminals
/// show the same screen and both playlist folders hold the same `.m3u` files. The favourite
/// gesture on the jukebox shows as MPD's `playlistadd Favourites` does.
///
/// Reviewed difference, not exercised here: MPD lists stored playlists in directory order
/// (readdir, hash order on ext4), jukeboxd by name; the editor sorts them itself, but
/// ncmpcpp's browser shows the server's order.
@Suite(.serialized) struct PlaylistEditorTests {
    static let ncmpcpp = "/usr/bin/ncmpcpp"
    static var canRun: Bool {
        ReferenceMPD.isInstalled
            && [TmuxTerminals.tmux, ncmpcpp].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The two servers, a client on each, and ncmpcpp on each in tmux sessions `j` and `m`.
    final class Terminals {
        let harness: DaemonHarness
        let mpd: ReferenceMPD
        /// [jukeboxd, MPD].
        let clients: [MPDTestClient]
        let folders: [String]
        let terminals: TmuxTerminals

        init() throws {
            let port = freeLoopbackPort()
            harness = try DaemonHarness(
                tracks: DaemonTests.demoTracks, configExtra: "[network]\nport = \(port)", onStart: "off",
                mode: "in-order")
            let daemon = try harness.start()
            guard daemon.waitForLine(matching: "library scan of", on: .stderr) != nil else {
                throw MPDDifferentialTests.TestFailure("jukeboxd did not scan: \(harness.log)")
            }
            mpd = try ReferenceMPD(musicDir: harness.musicDir, directory: harness.directory.file("mpd"))
            let clients = try [port, mpd.port].map { try MPDTestClient(port: $0) }
            _ = clients[1].command("update")
            try MPDDifferentialTests.waitUntil("MPD's library holds 3 songs") {
                clients[1].fields("stats")["songs"] == "3" && clients[1].fields("status")["updating_db"] == nil
            }
            // A first start fills jukeboxd's queue with the library; then both get the same.
            try MPDDifferentialTests.waitUntil("jukeboxd's first queue") {
                clients[0].fields("status")["playlistlength"] == "3"
            }
            for client in clients { _ = (client.command("clear"), client.command("add \"\"")) }
            self.clients = clients
            folders = [harness.directory.file("state/playlists"), mpd.playlists]
            terminals = try TmuxTerminals(
                client: PlaylistEditorTests.ncmpcpp, ports: [port, mpd.port], folder: harness.directory.path,
                rows: 30)
        }

        deinit {
            terminals.stop()
            mpd.stop()
            harness.process?.closeStdin()
            harness.process?.kill(SIGTERM)
            _ = harness.process?.waitForExit(timeout: .seconds(5))
        }

        /// tmux key names (`Enter`, `Down`) or text, to both terminals.
        func keys(_ keys: [String]) throws { try terminals.keys(keys) }

        /// The terminal's text, without the volume (MPD's null output has no mixer) and
        /// trailing spaces.
        func screen(_ session: String) -> String {
            let text = terminals.capture(session)
            return text.replacingOccurrences(of: #"Volume: (n/a|\d+%)"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #" +\n"#, with: "\n", options: .regularExpression)
        }

        /// Each folder's playlists: name and content.
        func playlists() -> [[String: String]] {
            folders.map { folder in
                var files: [String: String] = [:]
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                where name.hasSuffix(".m3u") {
                    files[name] = try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)
                }
                return files
            }
        }
    }

    /// Keys to both terminals; then, once both show `expect` and hold still, the screens and
    /// the playlist folders must be the same. Returns the jukebox's screen.
    @discardableResult
    static func step(_ terminals: Terminals, _ label: String, _ keys: [String], expect: String) throws -> String {
        if !keys.isEmpty { try terminals.keys(keys) }
        var last = ("", "")
        var stable = 0
        let shown = waitUntil(timeout: .seconds(15), pollingEvery: .milliseconds(100)) {
            let now = (terminals.screen("j"), terminals.screen("m"))
            stable = now == last ? stable + 1 : 0
            last = now
            return now.0.contains(expect) && now.1.contains(expect) && stable >= 3
        }
        #expect(shown, "\(label): timed out waiting for \(expect)\n--- jukeboxd\n\(last.0)\n--- MPD\n\(last.1)")
        let differing = zip(last.0.split(separator: "\n"), last.1.split(separator: "\n")).filter { $0 != $1 }
        #expect(
            last.0 == last.1,
            "\(label):\n\(differing.map { "  jukeboxd: \($0)\n  MPD:      \($1)" }.joined(separator: "\n"))")
        let playlists = terminals.playlists()
        #expect(playlists[0] == playlists[1], "\(label): jukeboxd \(playlists[0]), MPD \(playlists[1])")
        return last.0
    }

    @Test(.enabled(if: canRun), .timeLimit(.minutes(10)))
    func ncmpcppPlaylistEditorMatchesMPD() throws {
        let terminals = try Terminals()
        try Self.step(terminals, "queue", [], expect: "Playlist (3 items")
        try Self.step(terminals, "save the queue", ["S"], expect: "Save playlist as:")
        try Self.step(terminals, "save as mix", ["mix", "Enter"], expect: "Playlist saved as \"mix\"")
        try Self.step(terminals, "editor", ["5"], expect: "Content (3 items)")
        try Self.step(terminals, "content", ["Right"], expect: "Content (3 items)")
        let moved = try Self.step(terminals, "move the first down", ["n"], expect: "Café au Lait")
        #expect(moved.contains("Café au Lait") && !moved.hasPrefix("Morning Light"))
        try Self.step(terminals, "delete one", ["Delete"], expect: "Content (2 items)")
        try Self.step(terminals, "browser", ["2"], expect: "playlist mix")
        try Self.step(terminals, "add to", ["a"], expect: "Add selected item(s) to...")
        try Self.step(terminals, "add to mix", ["Down", "Down", "Enter"], expect: "added to playlist \"mix\"")
        try Self.step(terminals, "add to a new playlist", ["a", "Down", "Enter"], expect: "Save playlist as:")
        // The browser lists playlists in the server's order (see above): compared in the editor.
        try Self.step(terminals, "new playlist", ["fresh", "Enter", "5"], expect: "fresh")
        try Self.step(terminals, "rename", ["Left", "e"], expect: "Playlist: fresh")
        try Self.step(
            terminals, "renamed", ["BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "new name", "Enter"],
            expect: "Playlist renamed to \"new name\"")
        try Self.step(terminals, "remove", ["Delete"], expect: "[y/n]")
        try Self.step(terminals, "removed", ["y"], expect: "Playlist deleted")
        try Self.step(terminals, "clear", ["c"], expect: "[y/n]")
        try Self.step(terminals, "cleared", ["y"], expect: "cleared")

        // The favourite gesture on the box, as a client's playlistadd on MPD.
        for client in terminals.clients {
            for line in ["play 0", "pause 1", "seekcur 0"] { #expect(client.command(line) == ["OK"]) }
        }
        #expect(terminals.clients[0].command("button next+previous chord") == ["OK"])
        #expect(terminals.clients[1].command("playlistadd Favourites \"01 Morning Light.mp3\"") == ["OK"])
        try Self.step(terminals, "favourites", [], expect: "Favourites")
        try Self.step(terminals, "favourites, content", ["Home", "Right"], expect: "Morning Light")
    }
}
