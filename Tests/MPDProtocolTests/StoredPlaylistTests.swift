import JukeboxCore
import Testing

@testable import MPDProtocol

/// The playlist folder of these tests: in memory, with a clock for modification times.
final class MemoryPlaylists: MPDPlaylistFolder {
    var lists: [String: (entries: [String], modified: Int64)] = [:]
    var clock: Int64 = 1_700_000_000
    var failing = false

    func list() throws -> [MPDStoredPlaylist] {
        lists.map { MPDStoredPlaylist(name: $0.key, modified: $0.value.modified) }
    }

    func entries(of name: String) throws -> [String]? {
        if failing { throw MPDError(.system, "disk on fire") }
        return lists[name]?.entries
    }

    func write(_ name: String, entries: [String]) throws {
        clock += 1
        lists[name] = (entries, clock)
    }

    func remove(_ name: String) throws -> Bool { lists.removeValue(forKey: name) != nil }

    func rename(_ from: String, to: String) throws -> Bool {
        guard let list = lists.removeValue(forKey: from) else { return false }
        lists[to] = list
        return true
    }
}

/// The stored-playlist commands against an in-memory folder: MPD 0.23's answers (checked
/// against the real MPD by StoredPlaylistDaemonTests.answersAsMPDDoes).
@Suite struct StoredPlaylistTests {
    static func world(_ folder: MemoryPlaylists) -> MPDWorld {
        var world = MPDProtocolTests.world()
        world.playlists = folder
        return world
    }

    static func run(_ line: String, _ world: inout MPDWorld) -> String {
        MPDProtocolTests.run(line, world: &world)
    }

    @Test func saveListAndLoadWithARangeAndAPosition() {
        let folder = MemoryPlaylists()
        var world = Self.world(folder)
        #expect(Self.run("save mix", &world) == "OK\n")
        #expect(folder.lists["mix"]?.entries == MPDProtocolTests.tracks.map(\.path))
        #expect(Self.run("save mix", &world) == "ACK [56@0] {save} Playlist already exists\n")
        #expect(Self.run("listplaylists", &world) == "playlist: mix\nLast-Modified: 2023-11-14T22:13:21Z\nOK\n")
        #expect(
            Self.run("listplaylist mix", &world)
                == "file: Ann/First/01 Alpha.mp3\nfile: Ann/First/02 Beta.mp3\nfile: Bob/Gamma \"live\".mp3\n"
                + "file: loose.wav\nOK\n")
        _ = Self.run("clear", &world)
        #expect(Self.run("load mix 1:3", &world) == "OK\n")
        #expect(world.machine.queue.entries == [2, 3])
        #expect(Self.run("load mix 3: 0", &world) == "OK\n")
        #expect(world.machine.queue.entries == [4, 2, 3])
        #expect(Self.run("load mix 9:", &world) == "OK\n")
        #expect(Self.run("load mix 2:1", &world) == "ACK [2@0] {load} Malformed range: 2:1\n")
        #expect(Self.run("load mix x", &world) == "ACK [2@0] {load} Integer or range expected: x\n")
        // MPD 0.23: a position past the queue is a number too large (ParseInsertPosition).
        #expect(Self.run("load mix 0 9", &world) == "ACK [2@0] {load} Number too large: 9\n")
    }

    /// MPD lists the stored playlists at the end of `lsinfo` at the root (mpc lsplaylists reads them there).
    /// MPD 0.24's `playlistlength`: every entry counts, a missing one with no time; seconds
    /// are the whole seconds of the sum (180 + 200.5 + 61 s).
    @Test func playlistLengthCountsEntriesAndTheirTime() {
        let folder = MemoryPlaylists()
        folder.lists["mix"] = (
            ["Ann/First/01 Alpha.mp3", "Ann/First/02 Beta.mp3", "gone.mp3", "Bob/Gamma \"live\".mp3"], 0
        )
        folder.lists["empty"] = ([], 0)
        var world = Self.world(folder)
        #expect(Self.run("playlistlength mix", &world) == "songs: 4\nplaytime: 441\nOK\n")
        #expect(Self.run("playlistlength empty", &world) == "songs: 0\nplaytime: 0\nOK\n")
        #expect(Self.run("playlistlength nope", &world) == "ACK [50@0] {playlistlength} No such playlist\n")
        #expect(Self.run("playlistlength", &world).hasPrefix("ACK [2@0] {playlistlength} wrong number of arguments"))
    }

    @Test func lsinfoAtTheRootListsThem() {
        let folder = MemoryPlaylists()
        folder.lists["b"] = ([], 0)
        folder.lists["a"] = ([], 86_400)
        var world = Self.world(folder)
        #expect(
            Self.run("lsinfo", &world).hasSuffix(
                "directory: Bob\nplaylist: a\nLast-Modified: 1970-01-02T00:00:00Z\n"
                    + "playlist: b\nLast-Modified: 1970-01-01T00:00:00Z\nOK\n"))
        #expect(!Self.run("lsinfo Ann", &world).contains("playlist:"))
    }

    @Test func missingEntriesAreSkippedWithOneNotice() {
        let folder = MemoryPlaylists()
        folder.lists["desk"] = (["gone.mp3", "loose.wav", "/srv/outside.mp3", "also gone.mp3"], 0)
        var world = Self.world(folder)
        _ = Self.run("clear", &world)
        #expect(Self.run("load desk", &world) == "OK\n")
        #expect(world.machine.queue.entries == [4])
        #expect(world.notices == ["load desk: skipped 3 missing: gone.mp3 and 2 more"])
        // listplaylistinfo shows a missing entry's path only.
        #expect(Self.run("listplaylistinfo desk", &world).hasPrefix("file: gone.mp3\nfile: loose.wav\nTime: 5\n"))
    }

    @Test(arguments: [
        ("load nosuch", "ACK [50@0] {load} No such playlist\n"),
        ("load \"a/b\"", "ACK [50@0] {load} No such playlist\n"),
        ("listplaylist nosuch", "ACK [50@0] {listplaylist} No such playlist\n"),
        ("listplaylistinfo nosuch", "ACK [50@0] {listplaylistinfo} No such playlist\n"),
        ("save \"\"", "ACK [2@0] {save} Bad playlist name\n"),
        ("save \"a/b\"", "ACK [2@0] {save} Bad playlist name\n"),
        ("playlistadd \"a/b\" loose.wav", "ACK [2@0] {playlistadd} Bad playlist name\n"),
        ("playlistadd mix nosuch.mp3", "ACK [50@0] {playlistadd} No such directory\n"),
        ("playlistadd mix loose.wav 5", "ACK [2@0] {playlistadd} Bad position\n"),
        ("playlistclear nosuch", "ACK [50@0] {playlistclear} No such playlist\n"),
        ("playlistdelete nosuch 0", "ACK [50@0] {playlistdelete} No such playlist\n"),
        ("playlistdelete mix 3", "ACK [2@0] {playlistdelete} Bad song index\n"),
        ("playlistmove nosuch 0 1", "ACK [50@0] {playlistmove} No such playlist\n"),
        ("playlistmove nosuch 1 1", "OK\n"),
        ("playlistmove mix 0 2", "ACK [2@0] {playlistmove} Bad range\n"),
        ("rename nosuch x", "ACK [50@0] {rename} No such playlist\n"),
        ("rename mix other", "ACK [56@0] {rename} Playlist exists already\n"),
        ("rename mix \"a/b\"", "ACK [2@0] {rename} Bad playlist name\n"),
        ("rm nosuch", "ACK [50@0] {rm} No such playlist\n"),
        ("rm \"\"", "ACK [2@0] {rm} Bad playlist name\n"),
        ("load", "ACK [2@0] {load} too few arguments for \"load\"\n"),
        ("playlistmove mix 0", "ACK [2@0] {playlistmove} wrong number of arguments for \"playlistmove\"\n"),
    ])
    func errorsAreMPDs(line: String, reply: String) {
        let folder = MemoryPlaylists()
        folder.lists["mix"] = (["loose.wav", "Ann/First/01 Alpha.mp3"], 0)
        folder.lists["other"] = ([], 0)
        var world = Self.world(folder)
        #expect(Self.run(line, &world) == reply)
        #expect(folder.lists["mix"]?.entries == ["loose.wav", "Ann/First/01 Alpha.mp3"])
    }

    @Test func editsChangeTheFileAndMarkStoredPlaylist() {
        let folder = MemoryPlaylists()
        var world = Self.world(folder)
        let steps: [(String, [String]?)] = [
            ("playlistadd mix Ann", ["Ann/First/01 Alpha.mp3", "Ann/First/02 Beta.mp3"]),
            ("playlistadd mix loose.wav 1", ["Ann/First/01 Alpha.mp3", "loose.wav", "Ann/First/02 Beta.mp3"]),
            ("playlistmove mix 0 2", ["loose.wav", "Ann/First/02 Beta.mp3", "Ann/First/01 Alpha.mp3"]),
            ("playlistdelete mix 1:", ["loose.wav"]),
            ("playlistdelete mix 1:", ["loose.wav"]),
            ("playlistclear mix", []),
            ("rename mix list", nil),
            ("rm list", nil),
        ]
        for (line, entries) in steps {
            _ = world.observer.changes(world.machine)
            #expect(Self.run(line, &world) == "OK\n", "\(line)")
            #expect(folder.lists["mix"]?.entries == entries, "\(line)")
            #expect(world.observer.changes(world.machine).contains(.storedPlaylist), "\(line)")
        }
        #expect(folder.lists.isEmpty)
    }

    @Test func permissionsFolderErrorsAndNoFolder() {
        let folder = MemoryPlaylists()
        folder.failing = true
        var world = Self.world(folder)
        #expect(Self.run("listplaylist mix", &world) == "ACK [52@0] {listplaylist} disk on fire\n")
        var session = MPDSession(options: .init(password: "secret"))
        #expect(
            MPDProtocolTests.run(["rm mix"], world: &world, session: &session)
                == "ACK [4@0] {rm} you don't have permission for \"rm\"\n")
        var bare = MPDProtocolTests.world()
        #expect(Self.run("save mix", &bare) == "ACK [5@0] {save} Stored playlists are disabled\n")
    }
}
