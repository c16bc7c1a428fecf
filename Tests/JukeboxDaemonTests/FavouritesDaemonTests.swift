import Foundation
import Glibc
import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import Logging
import SQLite
import Testing

/// Favourites and Recently played on the real daemon: the favourite gesture injected on a
/// console writes `Favourites.m3u`, which mpc and python-mpd2 see as a stored playlist and
/// whose edits count; the display marks a favourite; `favourites` plays them; an entry of
/// Recently played continues at its track and position, also after a restart.
@Suite(.serialized) struct FavouritesDaemonTests {
    static func favouritesFile(_ harness: DaemonHarness) -> String {
        harness.directory.file("state/playlists/Favourites.m3u")
    }

    static func favourites(_ harness: DaemonHarness) -> String? {
        try? String(contentsOfFile: favouritesFile(harness), encoding: .utf8)
    }

    /// `currentsong`'s file and `status`'s elapsed, over TCP.
    static func now(_ port: Int) throws -> (file: String?, elapsed: Double?) {
        let client = try MPDTestClient(port: port)
        return (client.fields("currentsong")["file"], client.fields("status")["elapsed"].flatMap(Double.init))
    }

    @Test(.enabled(if: MPDDaemonTests.hasMPC && MPDDaemonTests.hasPythonMPD))
    func theGestureMakesAStoredPlaylistThatClientsSeeAndEdit() throws {
        let (harness, port) = try MPDDaemonTests.start(extra: DisplayDaemonTests.display)
        defer { MPDDaemonTests.stop(harness) }
        let process = try #require(harness.process)
        // Both skip buttons held together (the default chord), typed on the stdin console.
        harness.send("button next+previous chord")
        #expect(waitUntil { Self.favourites(harness) == "01 Morning Light.mp3\n" }, "\(harness.log)")
        #expect(process.waitForLine(matching: "favourite: \"Morning Light\" by Jukebox Demo", on: .stderr) != nil)
        #expect(process.waitForLine(matching: "♥", on: .stderr) != nil, "no mark on the display: \(harness.log)")

        #expect(try MPDDaemonTests.mpc(port, "lsplaylists") == "Favourites\n")
        #expect(try MPDDaemonTests.mpc(port, "playlist", "Favourites") == "Jukebox Demo - Morning Light\n")
        try MPDDaemonTests.expectPythonPasses(
            """
            import sys, mpd
            c = mpd.MPDClient(); c.timeout = 10; c.connect("127.0.0.1", int(sys.argv[1]))
            assert [p["playlist"] for p in c.listplaylists()] == ["Favourites"], c.listplaylists()
            assert c.listplaylist("Favourites") == ["01 Morning Light.mp3"], c.listplaylist("Favourites")
            # A client's edit counts: the next track becomes a favourite too.
            c.playlistadd("Favourites", "02 Cafe au Lait.mp3")
            print("PASS")
            """, harness, port: port)

        // The same command on the MPD listener: a client idling on stored_playlist wakes.
        let idler = try MPDTestClient(port: port)
        idler.send("idle stored_playlist")
        let client = try MPDTestClient(port: port)
        #expect(client.command("favourite") == ["OK"])
        #expect(idler.response() == ["changed: stored_playlist", "OK"])
        #expect(
            waitUntil { Self.favourites(harness) == "02 Cafe au Lait.mp3\n" }, "\(Self.favourites(harness) ?? "none")")
        #expect(client.command("favourite maybe").first?.hasPrefix("ACK [2@0] {favourite}") == true)
        // The client's entry is marked when it plays.
        process.skipOutput()
        #expect(client.command("next") == ["OK"])
        #expect(process.waitForLine(matching: "lcd| Café au Lait", on: .stderr) != nil)
        #expect(process.waitForLine(matching: "♥", on: .stderr) != nil, "\(harness.log)")
    }

    static func recentlyPlayed(_ harness: DaemonHarness) throws -> (
        entries: [RecentlyPlayed.Entry], newestHoldsQueue: Bool
    ) {
        let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        return try LibraryStore.open(path: harness.database, logger: quiet).store.recentlyPlayed()
    }

    @Test func favouritesPlayAndRecentlyPlayedContinuesWhereItWasLeft() throws {
        let (harness, port) = try MPDDaemonTests.start()
        var process = try #require(harness.process)
        // Morning Light and Night Drive are favourites.
        harness.send("favourite")
        #expect(waitUntil { Self.favourites(harness) == "01 Morning Light.mp3\n" }, "\(harness.log)")
        harness.send("play 3")
        #expect(try waitUntil { try Self.now(port).file == "03 Night Drive.mp3" })
        harness.send("button previous+next chord")
        #expect(waitUntil { Self.favourites(harness) == "01 Morning Light.mp3\n03 Night Drive.mp3\n" })

        harness.send("favourites")
        #expect(process.waitForLine(matching: "OK playing Favourites (2 tracks)", on: .stdout) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: port)
        #expect(client.fields("status")["playlistlength"] == "2")
        #expect(try waitUntil { try Self.now(port).file == "01 Morning Light.mp3" })
        harness.send("next")
        #expect(try waitUntil(timeout: .seconds(10)) { try Self.now(port).elapsed ?? 0 >= 1.5 })
        harness.send("pause")
        #expect(waitUntil { client.fields("status")["state"] == "pause" })
        let left = try Self.now(port)
        #expect(left.file == "03 Night Drive.mp3")
        let leftAt = try #require(left.elapsed)

        // The pause wrote where Favourites were left (unsynced: a killed process loses nothing):
        // where the output stopped, as `status` shows it (the pause settles after the command,
        // hundreds of ms later on a loaded machine).
        process.kill(SIGKILL)
        _ = process.waitForExit(timeout: .seconds(5))
        let stored = try Self.recentlyPlayed(harness)
        #expect(stored.entries.map(\.source) == [.favourites])
        #expect(stored.entries.first?.trackPath == "03 Night Drive.mp3")
        #expect(
            abs(Double(stored.entries.first?.positionMs ?? 0) / 1000 - leftAt) < 0.002, "\(stored), left at \(leftAt)")
        #expect(stored.newestHoldsQueue)

        // After a restart a client takes the queue over: Favourites stay where they were left.
        process = try harness.start()
        defer { MPDDaemonTests.stop(harness) }
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil)
        let again = try MPDTestClient(port: port)
        #expect(again.command("clear") == ["OK"])
        #expect(again.command("add \"02 Cafe au Lait.mp3\"") == ["OK"])
        #expect(again.command("play") == ["OK"])
        #expect(try waitUntil { try Self.newestHoldsQueue(harness) == 0 }, "a client's queue holds no source")
        harness.send("recent")
        #expect(
            process.waitForLine(matching: "1 Favourites: 03 Night Drive.mp3 at 0:0", on: .stdout)
                == "1 Favourites: 03 Night Drive.mp3 at \(ScreenLayout.clock(Int64(leftAt * 1000)))", "\(harness.log)")

        // Continued at its track and position, the queue Favourites again.
        harness.send("recent 1")
        #expect(process.waitForLine(matching: "OK playing Favourites (2 tracks)", on: .stdout) != nil, "\(harness.log)")
        #expect(try waitUntil { try Self.now(port).file == "03 Night Drive.mp3" })
        let resumed = try #require(try Self.now(port).elapsed)
        #expect(resumed >= leftAt - 0.1 && resumed < leftAt + 1.5, "left at \(leftAt), continued at \(resumed)")
        #expect(again.fields("status")["playlistlength"] == "2")
        #expect(try Self.newestHoldsQueue(harness) == 1)
    }

    /// The end-to-end test, by injected gestures only (the MPD listener as console):
    /// mark two favourites with the chord, play Favourites from the knob's menu, leave them
    /// paused in the second track, let a client take the queue over, and continue them from
    /// Recently played at that track and position.
    @Test func theKnobPlaysFavouritesAndContinuesRecentlyPlayed() throws {
        let (harness, port) = try MPDDaemonTests.start()
        defer { MPDDaemonTests.stop(harness) }
        let client = try MPDTestClient(port: port)
        func knob(_ gestures: String...) {
            for gesture in gestures { #expect(client.command("knob \(gesture)") == ["OK"], "knob \(gesture)") }
        }
        #expect(client.command("button next+previous chord") == ["OK"])
        #expect(client.command("play 2") == ["OK"])
        #expect(try waitUntil { try Self.now(port).file == "03 Night Drive.mp3" })
        #expect(client.command("button next+previous chord") == ["OK"])
        #expect(waitUntil { Self.favourites(harness) == "01 Morning Light.mp3\n03 Night Drive.mp3\n" })

        // The menu's top: Folders, Artists, Albums A–Z, Favourites, ...; Favourites' first
        // entry plays them all.
        knob("long", "+3", "press", "press")
        #expect(try waitUntil { try Self.now(port).file == "01 Morning Light.mp3" }, "\(harness.log)")
        #expect(
            client.command("playlistinfo").filter { $0.hasPrefix("file: ") } == [
                "file: 01 Morning Light.mp3", "file: 03 Night Drive.mp3",
            ])
        #expect(client.command("next") == ["OK"])
        // While a source plays on, Recently played writes nothing: once the skip's commit is
        // done (its durable window is 2 s), the database's WAL stays as it is.
        #expect(try waitUntil(timeout: .seconds(10)) { try Self.now(port).elapsed ?? 0 >= 2.5 })
        let wal = Self.modified(harness.database + "-wal")
        #expect(try waitUntil(timeout: .seconds(10)) { try Self.now(port).elapsed ?? 0 >= 5.5 })
        #expect(Self.modified(harness.database + "-wal") == wal, "the database was written while playing")
        #expect(client.command("pause 1") == ["OK"])
        let left = try Self.now(port)
        #expect(left.file == "03 Night Drive.mp3")
        let leftAt = try #require(left.elapsed)
        for line in ["clear", "add \"02 Cafe au Lait.mp3\"", "play"] { #expect(client.command(line) == ["OK"]) }

        // Recently played (the fifth entry), its newest entry: Favourites where they were left.
        knob("long", "+4", "press", "press")
        #expect(try waitUntil { try Self.now(port).file == "03 Night Drive.mp3" }, "\(harness.log)")
        let resumed = try #require(try Self.now(port).elapsed)
        #expect(resumed >= leftAt - 0.1 && resumed < leftAt + 1.5, "left at \(leftAt), continued at \(resumed)")
        #expect(client.fields("status")["playlistlength"] == "2")
        #expect(client.fields("status")["state"] == "play")
    }

    /// A file's size and modification time (nanoseconds); nil when it does not exist.
    static func modified(_ path: String) -> [Int64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [Int64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)]
    }

    /// Read beside the running daemon (its unsynced commits are visible to other connections).
    static func newestHoldsQueue(_ harness: DaemonHarness) throws -> Int64? {
        try Connection(path: harness.database).scalarInt(
            "SELECT holds_queue FROM recently_played ORDER BY seq DESC LIMIT 1")
    }
}
