import JukeboxCore
import Testing

@testable import MPDProtocol

/// MPD 0.24's additions, answered as MPD 0.24 documents them (doc/protocol.rst) and its
/// source answers (the messages of src/command/*.cxx): Debian's MPD is 0.23, so these are
/// not compared with a running MPD (docs/MPD.md).
@Suite struct MPD024Tests {
    static func world() -> MPDWorld {
        var world = MPDProtocolTests.world()
        world.playlists = MemoryPlaylists()
        world.stickers = MemoryStickers()
        return world
    }

    static func run(_ line: String, _ world: inout MPDWorld) -> String { MPDProtocolTests.run(line, world: &world) }

    @Test func theGreetingSays024() {
        #expect(MPDProtocol.greeting == "OK MPD 0.24.0\n")
    }

    /// `protocol`: features per connection, off on a new one; `hide_playlists_in_root` leaves
    /// the stored playlists out of `lsinfo` at the root.
    @Test func protocolFeaturesAreTheConnections() {
        let folder = MemoryPlaylists()
        folder.lists["mix"] = ([], 0)
        var world = Self.world()
        world.playlists = folder
        var session = MPDSession()
        func send(_ line: String) -> String { MPDProtocolTests.run([line], world: &world, session: &session) }
        #expect(send("protocol") == "OK\n")
        #expect(send("protocol available") == "feature: hide_playlists_in_root\nOK\n")
        #expect(send("lsinfo").contains("playlist: mix\n"))
        #expect(send("protocol enable HIDE_PLAYLISTS_IN_ROOT") == "OK\n")
        #expect(send("protocol") == "feature: hide_playlists_in_root\nOK\n")
        #expect(!send("lsinfo").contains("playlist:"))
        #expect(send("lsinfo").hasSuffix("directory: Bob\nOK\n"))
        // Another connection still sees them.
        #expect(Self.run("lsinfo", &world).contains("playlist: mix\n"))
        #expect(send("protocol disable hide_playlists_in_root") == "OK\n")
        #expect(send("lsinfo").contains("playlist: mix\n"))
        #expect(send("protocol all") == "OK\n")
        #expect(send("protocol") == "feature: hide_playlists_in_root\nOK\n")
        #expect(send("protocol clear") == "OK\n")
        #expect(send("protocol") == "OK\n")
        #expect(send("protocol enable") == "ACK [2@0] {protocol} Not enough arguments\n")
        #expect(send("protocol enable nope") == "ACK [2@0] {protocol} Unknown protocol feature\n")
        #expect(send("protocol all x") == "ACK [2@0] {protocol} Too many arguments\n")
        #expect(send("protocol available x") == "ACK [2@0] {protocol} Too many arguments\n")
        #expect(send("protocol maybe") == "ACK [2@0] {protocol} Unknown sub command\n")
    }

    @Test func tagtypesAvailableAndReset() {
        var world = Self.world()
        let all = Self.run("tagtypes", &world)
        #expect(all.hasPrefix("tagtype: Artist\n"))
        #expect(Self.run("tagtypes available", &world) == all)
        #expect(Self.run("tagtypes reset Artist Title", &world) == "OK\n")
        #expect(Self.run("tagtypes reset", &world) == "ACK [2@0] {tagtypes} Not enough arguments\n")
        #expect(Self.run("tagtypes enable", &world) == "ACK [2@0] {tagtypes} Not enough arguments\n")
        #expect(Self.run("tagtypes clear x", &world) == "ACK [2@0] {tagtypes} Too many arguments\n")
        #expect(Self.run("tagtypes maybe", &world) == "ACK [2@0] {tagtypes} Unknown sub command\n")
    }

    /// `consume oneshot`: the next song played removes the one before, then consume is off.
    @Test func consumeOneshotConsumesOneSong() {
        var world = Self.world()
        #expect(Self.run("play 0", &world) == "OK\n")
        #expect(Self.run("consume oneshot", &world) == "OK\n")
        #expect(MPDProtocolTests.fields(Self.run("status", &world))["consume"] == "oneshot")
        #expect(world.machine.options.description == "repeat consume-oneshot")
        #expect(PlayOptions(description: "repeat consume-oneshot") == world.machine.options)
        #expect(Self.run("next", &world) == "OK\n")
        let status = MPDProtocolTests.fields(Self.run("status", &world))
        #expect(status["consume"] == "0" && status["playlistlength"] == "3" && status["song"] == "0")
        #expect(Self.run("next", &world) == "OK\n")
        #expect(MPDProtocolTests.fields(Self.run("status", &world))["playlistlength"] == "3")
        #expect(Self.run("consume 1", &world) == "OK\n")
        #expect(MPDProtocolTests.fields(Self.run("status", &world))["consume"] == "1")
    }

    /// `listplaylist`/`listplaylistinfo NAME RANGE`, `searchplaylist`, `save` modes and
    /// `playlistmove` of a range.
    @Test func storedPlaylistRangesSearchAndSaveModes() {
        let folder = MemoryPlaylists()
        var world = Self.world()
        world.playlists = folder
        let paths = MPDProtocolTests.tracks.map(\.path)
        folder.lists["mix"] = (paths + ["gone.mp3"], 0)
        #expect(Self.run("listplaylist mix 1:3", &world) == "file: \(paths[1])\nfile: \(paths[2])\nOK\n")
        #expect(Self.run("listplaylist mix 4:", &world) == "file: gone.mp3\nOK\n")
        #expect(Self.run("listplaylist mix 9:12", &world) == "OK\n")
        #expect(Self.run("listplaylist mix 3:1", &world) == "ACK [2@0] {listplaylist} Malformed range: 3:1\n")
        #expect(Self.run("listplaylist nope 0:1", &world) == "ACK [50@0] {listplaylist} No such playlist\n")
        let info = Self.run("listplaylistinfo mix 3:5", &world)
        #expect(info == "file: loose.wav\nTime: 5\nduration: 5.000\nfile: gone.mp3\nOK\n")

        // searchplaylist: case folded, each match with its position; `window` counts matches.
        let found = Self.run("searchplaylist mix \"(Artist == 'ann')\"", &world)
        #expect(found.components(separatedBy: "\n").filter { $0.hasPrefix("Pos: ") } == ["Pos: 0", "Pos: 1"])
        #expect(found.hasPrefix("file: Ann/First/01 Alpha.mp3\n"))
        let windowed = Self.run("searchplaylist mix \"(Artist == 'ann')\" window 1:2", &world)
        #expect(windowed.hasPrefix("file: Ann/First/02 Beta.mp3\n") && windowed.hasSuffix("Pos: 1\nOK\n"))
        #expect(MPDProtocolTests.files(windowed) == 1)
        #expect(Self.run("searchplaylist mix file gone", &world) == "file: gone.mp3\nOK\n")
        #expect(Self.run("searchplaylist mix title zzz", &world) == "OK\n")
        #expect(Self.run("searchplaylist nope title a", &world) == "ACK [50@0] {searchplaylist} No such playlist\n")
        #expect(
            Self.run("searchplaylist mix title", &world)
                == "ACK [2@0] {searchplaylist} Incorrect number of filter arguments\n")

        // save NAME [create|append|replace]
        _ = Self.run("delete 2:4", &world)
        #expect(Self.run("save mix", &world) == "ACK [56@0] {save} Playlist already exists\n")
        #expect(Self.run("save mix create", &world) == "ACK [56@0] {save} Playlist already exists\n")
        #expect(Self.run("save mix append", &world) == "OK\n")
        #expect(folder.lists["mix"]?.entries == paths + ["gone.mp3"] + paths[0..<2])
        #expect(Self.run("save mix replace", &world) == "OK\n")
        #expect(folder.lists["mix"]?.entries == Array(paths[0..<2]))
        #expect(Self.run("save other append", &world) == "ACK [50@0] {save} No such playlist\n")
        #expect(Self.run("save other replace", &world) == "ACK [50@0] {save} No such playlist\n")
        #expect(
            Self.run("save other merge", &world)
                == "ACK [2@0] {save} Unrecognized save mode, expected one of 'create', 'append', 'replace'\n")
        #expect(folder.lists["other"] == nil)
        #expect(Self.run("save other create", &world) == "OK\n")
        #expect(folder.lists["other"]?.entries == Array(paths[0..<2]))

        // playlistmove NAME START:END TO: the range's first entry ends up at TO.
        folder.lists["abc"] = (["a", "b", "c", "d", "e"], 0)
        #expect(Self.run("playlistmove abc 0:2 3", &world) == "OK\n")
        #expect(folder.lists["abc"]?.entries == ["c", "d", "e", "a", "b"])
        #expect(Self.run("playlistmove abc 3:5 0", &world) == "OK\n")
        #expect(folder.lists["abc"]?.entries == ["a", "b", "c", "d", "e"])
        #expect(Self.run("playlistmove abc 0:2 4", &world) == "ACK [2@0] {playlistmove} Bad range\n")
        #expect(Self.run("playlistmove abc 4:6 0", &world) == "ACK [2@0] {playlistmove} Bad range\n")
        #expect(
            Self.run("playlistmove abc 2: 0", &world)
                == "ACK [2@0] {playlistmove} Open-ended range not supported\n")
        #expect(Self.run("playlistmove nope 1:2 1", &world) == "OK\n")
        #expect(Self.run("playlistmove abc 4 0", &world) == "OK\n")
        #expect(folder.lists["abc"]?.entries == ["e", "a", "b", "c", "d"])

        // status's lastloadedplaylist: empty, the playlist `load` put in, empty after `clear`.
        func lastLoaded() -> String? { MPDProtocolTests.fields(Self.run("status", &world))["lastloadedplaylist"] }
        #expect(lastLoaded() == "")
        #expect(Self.run("load other", &world) == "OK\n")
        #expect(lastLoaded() == "other")
        #expect(Self.run("load nope", &world) == "ACK [50@0] {load} No such playlist\n")
        #expect(lastLoaded() == "other")
        #expect(Self.run("clear", &world) == "OK\n")
        #expect(lastLoaded() == "")
    }

    /// `searchcount` (case-folded `count`), `playlistfind`/`playlistsearch` with `sort` and
    /// `window`, and the filter operators MPD 0.24 added.
    @Test func searchcountQueueSortAndNewOperators() {
        var world = Self.world()
        #expect(Self.run("searchcount artist AN", &world) == "songs: 2\nplaytime: 380\nOK\n")
        #expect(Self.run("count artist AN", &world) == "songs: 0\nplaytime: 0\nOK\n")
        let grouped = Self.run("searchcount \"(title contains 'A')\" group artist", &world)
        #expect(grouped == "Artist: Ann\nsongs: 2\nplaytime: 380\nArtist: Bob\nsongs: 1\nplaytime: 61\nOK\n")

        func positions(_ text: String) -> [String] {
            text.components(separatedBy: "\n").filter { $0.hasPrefix("Pos: ") }
        }
        #expect(positions(Self.run("playlistsearch any A sort -Title", &world)) == ["Pos: 2", "Pos: 1", "Pos: 0"])
        #expect(positions(Self.run("playlistsearch any A sort Title window 1:", &world)) == ["Pos: 1", "Pos: 2"])
        #expect(positions(Self.run("playlistfind artist Ann window 0:1", &world)) == ["Pos: 0"])
        #expect(
            Self.run("playlistfind artist Ann sort", &world)
                == "ACK [2@0] {playlistfind} Incorrect number of filter arguments\n")
        #expect(
            Self.run("playlistfind artist Ann group x", &world)
                == "ACK [2@0] {playlistfind} Unknown filter type: group\n")

        func files(_ line: String) -> Int { MPDProtocolTests.files(Self.run(line, &world)) }
        #expect(files("find \"(Artist eq_ci 'ANN')\"") == 2)
        #expect(files("find \"(Artist eq_cs 'ANN')\"") == 0)
        #expect(files("search \"(Artist eq_cs 'ann')\"") == 0)
        #expect(files("search \"(Artist !eq_ci 'ANN')\"") == 2)
        #expect(files("search \"(Title contains_cs 'alpha')\"") == 0)
        #expect(files("search \"(Title contains_ci 'ALPHA')\"") == 1)
        #expect(files("find \"(Title !contains 'l')\"") == 2)
        #expect(files("search \"(Title !starts_with 'a')\"") == 3)
        #expect(files("find \"(Title STARTS_WITH_CI 'be')\"") == 1)
        #expect(
            Self.run("find \"(Title eq 'x')\"", &world) == "ACK [2@0] {find} Unknown filter operator\n")
    }

    /// `sticker inc|dec`: a new sticker takes the value as given (for `dec` too, as MPD's
    /// SQL does); an existing one adds or subtracts as SQLite's `value + ?`.
    @Test func stickerIncAndDec() {
        let stickers = MemoryStickers()
        var world = Self.world()
        world.stickers = stickers
        let song = "\"Ann/First/01 Alpha.mp3\""
        #expect(Self.run("sticker inc song \(song) plays 1", &world) == "OK\n")
        #expect(Self.run("sticker inc song \(song) plays 2", &world) == "OK\n")
        #expect(Self.run("sticker get song \(song) plays", &world) == "sticker: plays=3\nOK\n")
        #expect(Self.run("sticker dec song \(song) plays 5", &world) == "OK\n")
        #expect(Self.run("sticker get song \(song) plays", &world) == "sticker: plays=-2\nOK\n")
        #expect(Self.run("sticker dec song \(song) skips 1", &world) == "OK\n")
        #expect(stickers.rows["song:Ann/First/01 Alpha.mp3"]?["skips"] == "1")
        #expect(Self.run("sticker inc song \(song) plays 0.5", &world) == "OK\n")
        #expect(stickers.rows["song:Ann/First/01 Alpha.mp3"]?["plays"] == "-1.5")
        #expect(Self.run("sticker set song \(song) mood happy", &world) == "OK\n")
        #expect(Self.run("sticker inc song \(song) mood 2", &world) == "OK\n")
        #expect(stickers.rows["song:Ann/First/01 Alpha.mp3"]?["mood"] == "2")
        #expect(Self.run("sticker inc song \(song) \"\" 1", &world) == "ACK [2@0] {sticker} empty sticker name\n")
        #expect(Self.run("sticker inc song nope.mp3 plays 1", &world) == "ACK [50@0] {sticker} No such song\n")
        #expect(Self.run("sticker inc song \(song) plays", &world) == "ACK [2@0] {sticker} bad request\n")
        #expect(MPDCommands.stickerSum("7 apples", "3", subtract: false) == "10")
        #expect(MPDCommands.stickerSum("1e2", "1", subtract: true) == "99.0")
    }

    /// `sticker find` with MPD 0.24's integer and text operators, `sort` and `window`.
    @Test func stickerFindSortsWindowsAndComparesIntegers() {
        let stickers = MemoryStickers()
        var world = Self.world()
        world.stickers = stickers
        stickers.rows["song:Ann/First/01 Alpha.mp3"] = ["rating": "10"]
        stickers.rows["song:Ann/First/02 Beta.mp3"] = ["rating": "9"]
        stickers.rows["song:loose.wav"] = ["rating": "abc"]
        let (alpha, beta, loose) = ("Ann/First/01 Alpha.mp3", "Ann/First/02 Beta.mp3", "loose.wav")
        func uris(_ line: String) -> [String] {
            Self.run("sticker find song " + line, &world).split(separator: "\n").filter { $0.hasPrefix("file: ") }
                .map { String($0.dropFirst(6)) }
        }
        #expect(uris("\"\" rating gt 9") == [alpha])
        // As text (MPD 0.23's `>`), "10" < "9" < "abc".
        #expect(uris("\"\" rating > 9") == [loose])
        // A value that is no number counts as 0.
        #expect(uris("\"\" rating lt 9") == [loose])
        #expect(uris("\"\" rating eq 10") == [alpha])
        #expect(uris("\"\" rating contains b") == [loose])
        #expect(uris("\"\" rating starts_with 1") == [alpha])
        #expect(uris("\"\" rating sort value_int") == [loose, beta, alpha])
        #expect(uris("\"\" rating sort -value") == [loose, beta, alpha])
        #expect(uris("\"\" rating sort -value_int window 0:1") == [alpha])
        #expect(uris("Ann rating gt 0 sort uri window 1:") == [beta])
        #expect(
            Self.run("sticker find song \"\" rating sort size", &world)
                == "ACK [2@0] {sticker} Unknown sort tag \"size\"\n")
        #expect(Self.run("sticker find song \"\" rating ~ 4", &world) == "ACK [2@0] {sticker} bad operator\n")
        #expect(Self.run("sticker find song \"\" rating = 4 x", &world) == "ACK [2@0] {sticker} bad request\n")
    }
}
