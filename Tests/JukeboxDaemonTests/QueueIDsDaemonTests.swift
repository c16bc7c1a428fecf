import Foundation
import Glibc
import JukeboxStore
import JukeboxTestSupport
import Logging
import Testing

/// Queue Ids, priorities and versions on the real daemon: python-mpd2 driving the new
/// commands, and restarts (clean and kill -9) that keep Ids, priorities, `playlist:` and
/// `plchanges` as they were.
@Suite(.serialized) struct QueueIDsDaemonTests {
    @Test(.enabled(if: MPDDaemonTests.hasPythonMPD)) func pythonMPD2EditsTheQueueById() throws {
        let (harness, port) = try MPDDaemonTests.start()
        defer { MPDDaemonTests.stop(harness) }
        try MPDDaemonTests.expectPythonPasses(Self.pythonScript, harness, port: port)
    }

    static let pythonScript = """
        import sys, threading
        import mpd

        port = int(sys.argv[1])
        c = mpd.MPDClient(); c.timeout = 10; c.connect("127.0.0.1", port)
        c.clear()
        for f in ["01 Morning Light.mp3", "01 Morning Light.mp3", "03 Night Drive.mp3"]: c.add(f)
        ids = [s["id"] for s in c.playlistinfo()]
        assert len(set(ids)) == 3, ids
        v = int(c.status()["playlist"])
        c.deleteid(ids[1])
        assert [s["id"] for s in c.playlistinfo()] == [ids[0], ids[2]]
        assert [(s["pos"], s["id"]) for s in c.plchanges(v)] == [("1", ids[2])], c.plchanges(v)
        assert c.plchangesposid(v) == [{"cpos": "1", "id": ids[2]}], c.plchangesposid(v)
        assert c.plchanges(int(c.status()["playlist"])) == []
        new = c.addid("01 Morning Light.mp3", 0)
        assert new not in ids, (new, ids)
        assert [s["id"] for s in c.playlistinfo()] == [new, ids[0], ids[2]]
        c.swapid(new, ids[2])
        assert [s["id"] for s in c.playlistinfo()] == [ids[2], ids[0], new]
        c.swap(0, 2)
        assert [s["id"] for s in c.playlistinfo()] == [new, ids[0], ids[2]]
        c.moveid(ids[2], 0)
        assert c.playlistid(ids[2])[0]["pos"] == "0"
        c.prio(10, "1:3")
        c.prioid(200, ids[2])
        assert [s.get("prio") for s in c.playlistinfo()] == ["200", "10", "10"], c.playlistinfo()
        assert [s["id"] for s in c.playlistfind("file", "01 Morning Light.mp3")] == [new, ids[0]]
        assert [s["id"] for s in c.playlistsearch("title", "NIGHT")] == [ids[2]]
        # random mode plays the higher priority first
        c.random(1); c.playid(ids[0]); assert c.status()["nextsongid"] == ids[2], c.status()
        c.random(0)
        for call, code in [(lambda: c.prioid(1, 99999), "[50@0] {prioid} No such song"),
                           (lambda: c.prio(300, 0), "[2@0] {prio} Number too large: 300"),
                           (lambda: c.swap(0, 9), "[2@0] {swap} Bad song index")]:
            try:
                call(); raise SystemExit("no error")
            except mpd.CommandError as e:
                assert code in str(e), str(e)
        # idle wakes a second client on priority and swap changes
        w = mpd.MPDClient(); w.timeout = 10; w.connect("127.0.0.1", port)
        for change in [lambda: c.prioid(5, new), lambda: c.swapid(new, ids[0])]:
            # Joined before `c` is used again (the idle can wake before the change's reply is read).
            t = threading.Timer(0.1, change); t.start()
            assert w.idle("playlist") == ["playlist"]
            t.join()
        w.disconnect(); c.close(); c.disconnect()
        print("PASS")
        """

    /// What a client sees of the queue: each entry's file, Id and priority, the version, and
    /// the changes since two versions back.
    static func view(_ client: MPDTestClient) -> [String] {
        let version = Int(client.fields("status")["playlist"] ?? "") ?? -1
        let queue = client.command("playlistinfo").filter { line in
            ["file:", "Id:", "Prio:", "Pos:"].contains { line.hasPrefix($0) }
        }
        return ["playlist: \(version)"] + queue + client.command("plchangesposid \(version - 2)")
    }

    /// Edits the queue of a fresh daemon: a track twice, a priority, a move.
    static func edit(_ client: MPDTestClient) {
        for line in [
            "clear", "add \"01 Morning Light.mp3\"", "add \"01 Morning Light.mp3\"", "add \"02 Cafe au Lait.mp3\"",
            "deleteid 5", "prio 9 1", "moveid 6 0", "play 1", "pause 1",
        ] {
            #expect(client.command(line) == ["OK"], "\(line)")
        }
    }

    /// A clean stop and a kill -9 both bring back the same Ids, priorities, version and
    /// changes; the next added entry gets an Id no entry had.
    @Test(arguments: [SIGTERM, SIGKILL])
    func idsAndVersionsSurviveARestart(signal: Int32) throws {
        let (harness, port) = try MPDDaemonTests.start()
        var client = try MPDTestClient(port: port)
        Self.edit(client)
        let before = Self.view(client)
        #expect(before.contains("Id: 6") && before.contains("Prio: 9"), "\(before)")
        if signal == SIGKILL {
            // The edit is committed (without fsync) at once: wait for it, then kill.
            let (store, _) = try LibraryStore.open(
                path: harness.database, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            #expect(
                waitUntil {
                    (try? store.loadQueue().map(\.entryID)) == [6, 4]
                }, "\(harness.log)")
            harness.process?.kill(SIGKILL)
            _ = harness.process?.waitForExit(timeout: .seconds(5))
        } else {
            MPDDaemonTests.stop(harness)
        }
        let process = try harness.start()
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        client = try MPDTestClient(port: port)
        #expect(Self.view(client) == before, "\(harness.log)")
        #expect(client.command("addid \"03 Night Drive.mp3\"") == ["Id: 7", "OK"])
        MPDDaemonTests.stop(harness)
    }
}
