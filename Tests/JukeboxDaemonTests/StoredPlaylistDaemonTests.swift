import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Stored playlists on the real daemon: mpc and python-mpd2 over TCP, `.m3u` files in the
/// playlist folder, and the same command sequence answered as MPD 0.23 answers it.
@Suite(.serialized) struct StoredPlaylistDaemonTests {
    /// A playlist as a desktop player writes it: `#EXTM3U`, `#EXTINF`, CRLF, an absolute path
    /// inside music_dir, and an entry whose file is gone.
    static func desktopPlaylist(musicDir: String) -> String {
        "#EXTM3U\r\n#EXTINF:10,Morning\r\n\(musicDir)/01 Morning Light.mp3\r\nmissing.mp3\r\n"
            + "#EXTINF:10,Cafe\r\n02 Cafe au Lait.mp3\r\n"
    }

    /// The daemon with `desk.m3u` in its default playlist folder (`playlists` beside the database).
    static func start() throws -> (DaemonHarness, Int) {
        try MPDDaemonTests.start { harness in
            let folder = harness.directory.file("state/playlists")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try desktopPlaylist(musicDir: harness.musicDir).write(
                toFile: folder + "/desk.m3u", atomically: true, encoding: .utf8)
        }
    }

    @Test(.enabled(if: MPDDaemonTests.hasMPC)) func mpcSavesLoadsListsAndRemoves() throws {
        let (harness, port) = try Self.start()
        defer { MPDDaemonTests.stop(harness) }
        let mpc = { (arguments: [String]) throws -> String in
            try runTool(MPDDaemonTests.mpc, ["-p", "\(port)"] + arguments).output
        }
        #expect(try mpc(["save", "mix"]).isEmpty)
        let file = harness.directory.file("state/playlists/mix.m3u")
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "01 Morning Light.mp3\n02 Cafe au Lait.mp3\n03 Night Drive.mp3\n")
        #expect(try mpc(["save", "mix"]).contains("Playlist already exists"))
        #expect(try mpc(["lsplaylists"]) == "desk\nmix\n")
        #expect(try mpc(["playlist", "mix"]).split(separator: "\n").count == 3)
        _ = try mpc(["clear"])
        #expect(try mpc(["load", "desk"]).contains("loading: desk"))
        // The entry whose file is gone is skipped, with one log line.
        #expect(try mpc(["playlist"]) == "Jukebox Demo - Morning Light\nJukebox Demo - Café au Lait\n")
        #expect(harness.process?.waitForLine(matching: "load desk: skipped 1 missing: missing.mp3", on: .stderr) != nil)
        _ = try mpc(["clear"])
        #expect(try mpc(["--range=1:", "load", "mix"]).contains("loading: mix"))
        #expect(try mpc(["playlist"]) == "Jukebox Demo - Café au Lait\nJukebox Demo - Night Drive\n")
        #expect(try mpc(["rm", "mix"]).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try mpc(["load", "mix"]).contains("No such playlist"))
        #expect(try mpc(["lsplaylists"]) == "desk\n")
    }

    @Test(.enabled(if: MPDDaemonTests.hasPythonMPD)) func pythonMPD2CoversEveryCommand() throws {
        let (harness, port) = try Self.start()
        defer { MPDDaemonTests.stop(harness) }
        try MPDDaemonTests.expectPythonPasses(Self.pythonScript, harness, port: port)
    }

    static let pythonScript = """
        import sys, threading
        import mpd

        port = int(sys.argv[1])
        c = mpd.MPDClient(); c.timeout = 10; c.connect("127.0.0.1", port)

        def ack(call, text):
            try:
                call()
            except mpd.CommandError as e:
                assert text in str(e), (text, str(e))
                return
            raise SystemExit("no error, expected " + text)

        names = lambda: [p["playlist"] for p in c.listplaylists()]
        assert names() == ["desk"], names()
        assert all(p["last-modified"].endswith("Z") for p in c.listplaylists())
        c.save("mix")
        ack(lambda: c.save("mix"), "[56@0] {save} Playlist already exists")
        ack(lambda: c.save(""), "[2@0] {save} Bad playlist name")
        ack(lambda: c.save("a/b"), "[2@0] {save} Bad playlist name")
        assert c.listplaylist("mix") == ["01 Morning Light.mp3", "02 Cafe au Lait.mp3", "03 Night Drive.mp3"]
        assert [s.get("title") for s in c.listplaylistinfo("desk")] == ["Morning Light", None, "Café au Lait"]
        ack(lambda: c.listplaylist("nosuch"), "[50@0] {listplaylist} No such playlist")
        ack(lambda: c.listplaylistinfo("nosuch"), "[50@0] {listplaylistinfo} No such playlist")
        ack(lambda: c.load("nosuch"), "[50@0] {load} No such playlist")
        c.clear(); c.load("mix", "1:3")
        assert [s["file"] for s in c.playlistinfo()] == ["02 Cafe au Lait.mp3", "03 Night Drive.mp3"]
        c.load("mix", "0:1", 0)
        assert c.playlistinfo()[0]["file"] == "01 Morning Light.mp3"
        ack(lambda: c.load("mix", "2:1"), "[2@0] {load} Malformed range: 2:1")
        c.playlistadd("mix", "01 Morning Light.mp3")
        c.playlistadd("mix", "03 Night Drive.mp3", 0)
        ack(lambda: c.playlistadd("mix", "nosuch.mp3"), "[50@0] {playlistadd} No such directory")
        ack(lambda: c.playlistadd("mix", "01 Morning Light.mp3", 99), "[2@0] {playlistadd} Bad position")
        c.playlistadd("new", "")
        assert len(c.listplaylist("new")) == 3
        assert len(c.listplaylist("mix")) == 5
        c.playlistmove("mix", 0, 4)
        assert c.listplaylist("mix")[4] == "03 Night Drive.mp3"
        ack(lambda: c.playlistmove("mix", 0, 9), "[2@0] {playlistmove} Bad range")
        c.playlistdelete("mix", 4)
        c.playlistdelete("mix", "1:3")
        assert c.listplaylist("mix") == ["01 Morning Light.mp3", "01 Morning Light.mp3"]
        ack(lambda: c.playlistdelete("mix", 9), "[2@0] {playlistdelete} Bad song index")
        c.rename("mix", "mix2")
        ack(lambda: c.rename("nosuch", "x"), "[50@0] {rename} No such playlist")
        ack(lambda: c.rename("mix2", "new"), "[56@0] {rename} Playlist exists already")
        ack(lambda: c.rename("mix2", "a/b"), "[2@0] {rename} Bad playlist name")
        c.playlistclear("mix2")
        assert c.listplaylist("mix2") == []
        ack(lambda: c.playlistclear("nosuch"), "[50@0] {playlistclear} No such playlist")
        ack(lambda: c.rm("nosuch"), "[50@0] {rm} No such playlist")

        # Every change wakes a client idling on stored_playlist (a missed one times out).
        w = mpd.MPDClient(); w.timeout = 10; w.idletimeout = 5; w.connect("127.0.0.1", port)
        for change in [lambda: c.save("x"), lambda: c.playlistadd("x", "01 Morning Light.mp3"),
                       lambda: c.playlistmove("x", 0, 3), lambda: c.playlistdelete("x", 0),
                       lambda: c.playlistclear("x"), lambda: c.rename("x", "y"), lambda: c.rm("y")]:
            # Joined before `c` is used again: the idle can wake before the change's own
            # reply is read, and two threads reading one connection lose a reply.
            t = threading.Timer(0.1, change); t.start()
            assert w.idle("stored_playlist") == ["stored_playlist"]
            t.join()
        assert sorted(names()) == ["desk", "mix2", "new"], names()
        w.disconnect(); c.close(); c.disconnect()
        print("PASS")
        """

    /// The same command sequence (Tests/Tools/playlist_transcript.py) against the daemon and
    /// against MPD 0.23 on the same music and the same desktop playlist: the same answers,
    /// Last-Modified values and listplaylists' order aside.
    @Test(.enabled(if: ReferenceMPD.isInstalled && MPDDaemonTests.hasPythonMPD)) func answersAsMPDDoes() throws {
        let (harness, port) = try Self.start()
        defer { MPDDaemonTests.stop(harness) }
        let transcript = Fixtures.repoRoot + "/Tests/Tools/playlist_transcript.py"

        let server = try ReferenceMPD(musicDir: harness.musicDir, directory: harness.directory.file("mpd"))
        defer { server.stop() }
        try Self.desktopPlaylist(musicDir: harness.musicDir).write(
            toFile: server.playlists + "/desk.m3u", atomically: true, encoding: .utf8)
        // MPD's database starts empty (auto_update off).
        let reference = try MPDTestClient(port: server.port)
        _ = reference.command("update")
        let scanned = waitUntil(timeout: .seconds(20), pollingEvery: .milliseconds(10)) {
            reference.fields("status")["updating_db"] == nil && reference.fields("stats")["songs"] == "3"
        }
        try #require(scanned, "MPD did not scan the music")

        let ours = try runTool(MPDDaemonTests.python, [transcript, "\(port)"], timeout: .seconds(30))
        let theirs = try runTool(MPDDaemonTests.python, [transcript, "\(server.port)"], timeout: .seconds(30))
        #expect(ours.status == 0 && theirs.status == 0, "\(ours.output)\n\(theirs.output)")
        let ourLines = ours.output.split(separator: "\n", omittingEmptySubsequences: false)
        let theirLines = theirs.output.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, (mine, reference)) in zip(ourLines, theirLines).enumerated() where mine != reference {
            Issue.record("line \(index + 1): jukeboxd `\(mine)`, MPD `\(reference)`")
        }
        #expect(ourLines.count == theirLines.count, "\(ours.output)")
    }
}
