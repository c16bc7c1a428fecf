import JukeboxCore
import Testing

@testable import MPDProtocol

/// The MPD protocol layer: tokenizer, ACKs, command lists, idle, commands against a machine.
@Suite struct MPDProtocolTests {
    static let tracks: [TrackInfo] = [
        TrackInfo(
            id: 1, path: "Ann/First/01 Alpha.mp3", title: "Alpha", artist: "Ann", album: "First", trackNumber: 1,
            durationMs: 180_000),
        TrackInfo(
            id: 2, path: "Ann/First/02 Beta.mp3", title: "Beta", artist: "Ann", album: "First", trackNumber: 2,
            durationMs: 200_500),
        TrackInfo(id: 3, path: "Bob/Gamma \"live\".mp3", title: "Gamma \"live\"", artist: "Bob", durationMs: 61_000),
        TrackInfo(id: 4, path: "loose.wav", durationMs: 5_000),
    ]

    static func world(entries: [TrackID] = [1, 2, 3, 4], mode: PlayMode = .repeatAll) -> MPDWorld {
        var machine = PlayerMachine(
            configuration: .init(maxVolume: 85, startVolume: 40),
            queue: PlayQueue(entries: entries, mode: mode, seed: 7))
        _ = machine.handle(.tracksDescribed(tracks), now: .zero)
        var observer = MPDObserver()
        _ = observer.changes(machine)
        return MPDWorld(
            machine: machine, library: MPDLibrary(tracks: tracks), observer: observer, now: .zero, host: MPDHostInfo())
    }

    /// Sends lines through a session and returns everything it answered.
    static func run(_ lines: [String], world: inout MPDWorld, session: inout MPDSession) -> String {
        lines.map { session.handle(line: $0, world: &world).text }.joined()
    }

    static func run(_ lines: String..., world: inout MPDWorld) -> String {
        var session = MPDSession()
        return run(lines, world: &world, session: &session)
    }

    static func fields(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            result[String(line[..<colon])] = String(line[line.index(colon, offsetBy: 2)...])
        }
        return result
    }

    static func files(_ text: String) -> Int {
        text.split(separator: "\n").filter { $0.hasPrefix("file: ") }.count
    }

    // MARK: tokenizer

    @Test(
        arguments: [
            ("play", "play", [String]()),
            ("play 3", "play", ["3"]),
            ("  ", nil, []),
            ("add \"a b/c d.mp3\"", "add", ["a b/c d.mp3"]),
            ("find artist \"say \\\"hi\\\"\"", "find", ["artist", "say \"hi\""]),
            ("find \"a\\\\b\"", "find", ["a\\b"]),
            ("search  any\t\"x\"  ", "search", ["any", "x"]),
            ("list_x 1", "list_x", ["1"]),
            ("setvol 50\r", "setvol", ["50"]),
            ("add \"Ünïcødé.mp3\"", "add", ["Ünïcødé.mp3"]),
            ("status \"\"", "status", [""]),
        ] as [(String, String?, [String])])
    func tokenizerSplitsLikeMPD(line: String, command: String?, arguments: [String]) throws {
        let result = MPDProtocol.tokenize(line)
        if let command {
            #expect(try result.get() == MPDProtocol.Request(command: command, arguments: arguments))
        } else {
            #expect(throws: MPDError.self) { try result.get() }
        }
    }

    @Test(arguments: [
        ("", "No command given"),
        ("3play", "Letter expected"),
        (" play", "Letter expected"),
        ("pl-ay", "Invalid word character"),
        ("play \"3", "Missing closing '\"'"),
        ("play \"3\"x", "Space expected after closing '\"'"),
        ("add it's", "Invalid unquoted character"),
        ("add \"a\\", "Missing closing '\"'"),
    ])
    func tokenizerErrorsAreMPDs(line: String, message: String) {
        #expect(MPDProtocol.tokenize(line) == .failure(MPDError(.unknown, message)))
    }

    @Test func quoteRoundTrips() throws {
        for text in ["plain", "with space", "q\"uote", "back\\slash", "", "ü \\\" mix"] {
            let line = "add " + MPDProtocol.quote(text)
            #expect(try MPDProtocol.tokenize(line).get().arguments == [text])
        }
    }

    // MARK: ACKs

    @Test(arguments: [
        ("frobnicate", "ACK [5@0] {} unknown command \"frobnicate\"\n"),
        ("play x", "ACK [2@0] {play} Integer expected: x\n"),
        ("play 9", "ACK [2@0] {play} Bad song index\n"),
        ("play 1 2", "ACK [2@0] {play} too many arguments for \"play\"\n"),
        ("seek 1", "ACK [2@0] {seek} wrong number of arguments for \"seek\"\n"),
        ("add", "ACK [2@0] {add} too few arguments for \"add\"\n"),
        ("playid 99", "ACK [50@0] {playid} No such song\n"),
        ("setvol 101", "ACK [2@0] {setvol} Invalid volume value\n"),
        ("repeat 2", "ACK [2@0] {repeat} Boolean (0/1) expected: 2\n"),
        ("seekcur 10", "ACK [55@0] {seekcur} Not playing\n"),
        ("add nothing.mp3", "ACK [50@0] {add} No such directory\n"),
        ("add ../etc/passwd", "ACK [50@0] {add} Access denied: '..' is not allowed\n"),
        ("add /etc/passwd", "ACK [50@0] {add} Access denied: absolute paths are not allowed\n"),
        ("lsinfo Ann/../..", "ACK [50@0] {lsinfo} Access denied: '..' is not allowed\n"),
        ("password wrong", "ACK [3@0] {password} incorrect password\n"),
        ("list colour", "ACK [2@0] {list} Unknown tag type: colour\n"),
        ("find colour x", "ACK [2@0] {find} Unknown filter type\n"),
        ("delete 7", "ACK [2@0] {delete} Bad song index\n"),
        ("play \"1", "ACK [5@0] {} Missing closing '\"'\n"),
        ("idle nonsense", "ACK [2@0] {idle} Unrecognized idle event: nonsense\n"),
    ])
    func errorsAreAnsweredAsMPDDoes(line: String, ack: String) {
        var world = Self.world()
        #expect(Self.run(line, world: &world) == ack)
    }

    @Test func aPasswordGatesCommands() {
        var world = Self.world()
        var session = MPDSession(options: .init(password: "sesame"))
        #expect(
            Self.run(["status"], world: &world, session: &session)
                == "ACK [4@0] {status} you don't have permission for \"status\"\n")
        #expect(Self.run(["ping"], world: &world, session: &session) == "OK\n")
        #expect(Self.run(["password wrong"], world: &world, session: &session).hasPrefix("ACK [3@0]"))
        let commands = Self.run(["commands"], world: &world, session: &session)
        #expect(commands.contains("command: password\n") && !commands.contains("command: play\n"))
        #expect(Self.run(["password sesame"], world: &world, session: &session) == "OK\n")
        #expect(Self.run(["status"], world: &world, session: &session).hasSuffix("OK\n"))
    }

    @Test func clientsThatDoNotSpeakTheProtocolAreClosedButAHumanIsNot() {
        var world = Self.world()
        var network = MPDSession()
        #expect(network.handle(line: "", world: &world).close)
        #expect(network.handle(line: "%%%", world: &world).close)
        #expect(!network.handle(line: "frobnicate", world: &world).close)
        var human = MPDSession(options: .init(human: true))
        #expect(human.handle(line: "", world: &world) == .init(text: "", close: false))
        #expect(!human.handle(line: "%%%", world: &world).close)
    }

    // MARK: command lists

    @Test func commandListsAnswerOnceAndStopAtTheFirstError() {
        var world = Self.world()
        let ok = Self.run("command_list_ok_begin", "ping", "setvol 30", "command_list_end", world: &world)
        #expect(ok == "list_OK\nlist_OK\nOK\n")
        #expect(world.machine.volume == 30)
        let plain = Self.run("command_list_begin", "ping", "getvol", "command_list_end", world: &world)
        #expect(plain == "volume: 30\nOK\n")
        let failing = Self.run(
            "command_list_ok_begin", "setvol 20", "play 99", "setvol 10", "command_list_end", world: &world)
        #expect(failing == "list_OK\nACK [2@1] {play} Bad song index\n")
        #expect(world.machine.volume == 20)
    }

    @Test func anOversizedCommandListIsRefused() {
        var world = Self.world()
        var session = MPDSession(options: .init(commandListLimit: 64))
        var output = session.handle(line: "command_list_begin", world: &world)
        for _ in 0..<10 where !output.close { output = session.handle(line: "setvol 10", world: &world) }
        #expect(output.close)
        #expect(output.text.hasPrefix("ACK [5@0]"))
        #expect(!session.inCommandList)
    }

    // MARK: idle

    @Test func idleWaitsForMatchingChangesAndNoidleEndsIt() {
        var world = Self.world()
        var session = MPDSession()
        #expect(session.handle(line: "idle mixer player", world: &world).text == "")
        #expect(session.isIdle)
        #expect(session.notify([.options]) == nil)
        #expect(session.notify([.mixer, .database]) == "changed: mixer\nOK\n")
        #expect(!session.isIdle)
        // The options change is kept for the next idle that wants it.
        #expect(session.handle(line: "idle", world: &world).text == "changed: database\nchanged: options\nOK\n")
        #expect(session.handle(line: "idle", world: &world).text == "")
        #expect(session.handle(line: "noidle", world: &world).text == "OK\n")
        #expect(session.handle(line: "noidle", world: &world).text == "")
        _ = session.handle(line: "idle", world: &world)
        #expect(session.handle(line: "status", world: &world).close)
    }

    @Test func theObserverSeesPlayerMixerOptionsAndPlaylistChanges() {
        var world = Self.world()
        _ = Self.run("play", world: &world)
        #expect(world.observer.changes(world.machine) == [.player])
        _ = Self.run("setvol 50", "random 1", world: &world)
        #expect(world.observer.changes(world.machine) == [.mixer, .options])
        let before = world.machine.queue.version
        _ = Self.run("delete 3", world: &world)
        #expect(world.observer.changes(world.machine) == [.playlist])
        #expect(world.machine.queue.version == before + 1)
        _ = Self.run("seekcur 10", world: &world)
        #expect(world.observer.changes(world.machine) == [.player])
        #expect(world.observer.changes(world.machine) == [])
    }

    // MARK: answers

    @Test func statusAndCurrentSong() {
        var world = Self.world()
        let stopped = Self.fields(Self.run("status", world: &world))
        #expect(stopped["state"] == "stop")
        #expect(stopped["volume"] == "40")
        #expect(stopped["repeat"] == "1" && stopped["random"] == "0" && stopped["single"] == "0")
        #expect(stopped["playlistlength"] == "4")
        #expect(Self.run("currentsong", world: &world) == "OK\n")
        _ = Self.run("play 1", world: &world)
        _ = world.machine.handle(.position(ms: 12_345), now: .zero)
        let playing = Self.fields(Self.run("status", world: &world))
        #expect(playing["state"] == "play")
        #expect(playing["song"] == "1" && playing["songid"] == "2")
        #expect(playing["elapsed"] == "12.345" && playing["duration"] == "200.500" && playing["time"] == "12:201")
        #expect(playing["nextsong"] == "2" && playing["nextsongid"] == "3")
        #expect(
            Self.run("currentsong", world: &world)
                == "file: Ann/First/02 Beta.mp3\nArtist: Ann\nTitle: Beta\nAlbum: First\nTrack: 2\nTime: 201\n"
                + "duration: 200.500\nPos: 1\nId: 2\nOK\n")
    }

    /// The flags `status` shows, in MPD's order.
    static func flags(_ world: inout MPDWorld) -> [String] {
        let status = fields(run("status", world: &world))
        return ["repeat", "random", "single", "consume"].map { status[$0] ?? "?" }
    }

    /// Every order of every subset of the four flags.
    static let toggleOrders: [[String]] = {
        func orders(_ rest: [String]) -> [[String]] {
            [[]]
                + rest.indices.flatMap { i in
                    orders(rest.enumerated().filter { $0.offset != i }.map(\.element)).map { [rest[i]] + $0 }
                }
        }
        return orders(["repeat", "random", "single", "consume"])
    }()

    /// Toggling a flag as ncmpcpp's r/z/y and mpc do (send the opposite of what `status`
    /// says) changes that flag only, from every preset and in every order; toggling the same
    /// flags again brings back the preset. MPD's flags are independent; so are these.
    @Test(arguments: PlayMode.allCases)
    func flagsToggleIndependently(from preset: PlayMode) {
        #expect(Self.toggleOrders.count == 65)
        for order in Self.toggleOrders {
            var world = Self.world(mode: preset)
            let start = Self.flags(&world)
            var expected = start
            for pass in 0..<2 {
                for flag in order {
                    let index = ["repeat", "random", "single", "consume"].firstIndex(of: flag)!
                    let on = Self.flags(&world)[index] != "0"
                    #expect(Self.run("\(flag) \(on ? 0 : 1)", world: &world) == "OK\n")
                    expected[index] = on ? "0" : "1"
                    #expect(Self.flags(&world) == expected, "\(preset) \(order) pass \(pass)")
                }
            }
            #expect(Self.flags(&world) == start, "\(preset) \(order)")
            #expect(world.machine.options.preset == preset)
        }
    }

    @Test func singleOneshotAndConsumeAreAccepted() {
        var world = Self.world(mode: .inOrder)
        #expect(Self.run("single oneshot", world: &world) == "OK\n")
        #expect(Self.run("consume 1", world: &world) == "OK\n")
        #expect(Self.flags(&world) == ["0", "0", "oneshot", "1"])
        // MPD 0.24's third consume mode (0.23 wanted a boolean).
        #expect(Self.run("consume oneshot", world: &world) == "OK\n")
        #expect(Self.flags(&world) == ["0", "0", "oneshot", "oneshot"])
        #expect(
            Self.run("consume 2", world: &world)
                == "ACK [2@0] {consume} Unrecognized consume mode, expected 0, 1, or oneshot\n")
        #expect(
            Self.run("single 2", world: &world)
                == "ACK [2@0] {single} Unrecognized single mode, expected 0, 1, or oneshot\n")
        #expect(Self.run("mode shuffle", world: &world) == "OK\n")
        #expect(Self.flags(&world) == ["1", "1", "0", "0"])
    }

    /// A client's `previous` asks for the song before, as MPD's does, however far into this
    /// one (the box's own button restarts a song past 3 s instead).
    @Test func previousGoesToTheSongBeforeAtAnyPosition() {
        var world = Self.world()
        _ = Self.run("seekid 3 30.5", world: &world)
        #expect(world.machine.queue.currentIndex == 2 && world.machine.positionMs == 30_500)
        #expect(Self.run("previous", world: &world) == "OK\n")
        #expect(world.machine.queue.currentIndex == 1 && world.machine.positionMs == 0)
        _ = world.machine.handle(.command(.seek(.absolute(ms: 10_000))), now: .zero)
        _ = world.machine.handle(.command(.previous), now: .zero)
        #expect(world.machine.queue.currentIndex == 1 && world.machine.positionMs == 0)
    }

    @Test func playbackCommandsReachTheMachine() {
        var world = Self.world()
        #expect(Self.run("play", world: &world) == "OK\n")
        #expect(world.machine.state == .playing)
        #expect(world.actions.contains { if case .startPlayback = $0 { true } else { false } })
        _ = Self.run("pause 1", world: &world)
        #expect(world.machine.state == .paused)
        _ = Self.run("pause", world: &world)
        #expect(world.machine.state == .playing)
        _ = Self.run("next", world: &world)
        #expect(world.machine.queue.currentIndex == 1)
        _ = Self.run("seekid 3 30.5", world: &world)
        #expect(world.machine.queue.currentIndex == 2 && world.machine.positionMs == 30_500)
        _ = Self.run("seekcur -10", world: &world)
        #expect(world.machine.positionMs == 20_500)
        _ = Self.run("volume +5", world: &world)
        #expect(world.machine.volume == 45)
        #expect(Self.run("getvol", world: &world) == "volume: 45\nOK\n")
        _ = Self.run("stop", world: &world)
        #expect(world.machine.state == .stopped)
        #expect(!world.actions.contains { if case .reply = $0 { true } else { false } })
    }

    @Test func queueEditing() {
        var world = Self.world(entries: [])
        #expect(Self.run("add Ann", world: &world) == "OK\n")
        #expect(world.machine.queue.entries == [1, 2])
        #expect(Self.run("addid \"Bob/Gamma \\\"live\\\".mp3\" 0", world: &world) == "Id: 3\nOK\n")
        #expect(world.machine.queue.entries == [3, 1, 2])
        _ = Self.run("add \"\"", world: &world)
        #expect(world.machine.queue.count == 7)
        _ = Self.run("delete 3:", world: &world)
        #expect(world.machine.queue.entries == [3, 1, 2])
        _ = Self.run("move 0 2", world: &world)
        #expect(world.machine.queue.entries == [1, 2, 3])
        _ = Self.run("play 1", world: &world)
        _ = Self.run("deleteid 2", world: &world)
        #expect(world.machine.queue.entries == [1, 3])
        #expect(world.machine.queue.currentTrack == 3 && world.machine.state == .playing)
        _ = Self.run("shuffle", world: &world)
        #expect(world.machine.queue.currentTrack == 3 && Set(world.machine.queue.entries) == [1, 3])
        let info = Self.run("playlistinfo", world: &world)
        #expect(Self.files(info) == 2)
        _ = Self.run("clear", world: &world)
        #expect(world.machine.queue.isEmpty && world.machine.state == .stopped)
    }

    @Test func libraryQueries() {
        var world = Self.world()
        // MPD's order: a folder's songs, then its subfolders.
        let root = Self.run("lsinfo", world: &world)
        #expect(root.hasPrefix("file: loose.wav\n") && root.hasSuffix("directory: Ann\ndirectory: Bob\nOK\n"))
        #expect(Self.run("lsinfo Ann", world: &world) == "directory: Ann/First\nOK\n")
        #expect(
            Self.run("listall Ann", world: &world) == "directory: Ann/First\nfile: Ann/First/01 Alpha.mp3\n"
                + "file: Ann/First/02 Beta.mp3\nOK\n")
        // A song without the tag lists as "" (MPD 0.23).
        #expect(Self.run("list artist", world: &world) == "Artist: \nArtist: Ann\nArtist: Bob\nOK\n")
        #expect(Self.run("list album artist Ann", world: &world) == "Album: First\nOK\n")
        #expect(
            Self.run("list album group artist", world: &world)
                == "Artist: \nAlbum: \nArtist: Ann\nAlbum: First\nArtist: Bob\nAlbum: \nOK\n")
        let exact = Self.run("find artist ann", world: &world)
        #expect(exact == "OK\n")
        let found = Self.run("search artist ann", world: &world)
        #expect(Self.files(found) == 2)
        let any = Self.run("search any live", world: &world)
        #expect(any.hasPrefix("file: Bob/Gamma \"live\".mp3\n"))
        let expression = Self.run("find \"((artist == 'Ann') AND (!(title == 'Alpha')))\"", world: &world)
        #expect(expression.hasPrefix("file: Ann/First/02 Beta.mp3\n"))
        let window = Self.run("search any a window 1:2", world: &world)
        #expect(Self.files(window) == 1)
        let stats = Self.fields(Self.run("stats", world: &world))
        #expect(stats["songs"] == "4" && stats["artists"] == "2" && stats["albums"] == "1")
        #expect(Self.run("update", world: &world) == "updating_db: 1\nOK\n")
        #expect(world.updateRequests == [""])
    }

    @Test func hostPathChecksRefuseEscapingSymlinks() {
        var world = Self.world()
        world.hostPathProblem = { $0.hasPrefix("Ann") ? "Access denied: outside the music folder" : nil }
        #expect(Self.run("add Ann", world: &world) == "ACK [50@0] {add} Access denied: outside the music folder\n")
        #expect(Self.run("add loose.wav", world: &world) == "OK\n")
    }

    @Test func humanHelpIsPlainWords() {
        var world = Self.world()
        var session = MPDSession(options: .init(human: true))
        let help = session.handle(line: "help", world: &world).text
        #expect(help.contains("play [POS]") && help.hasSuffix("OK\n") && !help.contains("help: "))
    }

    /// Random lines never crash the session, and every answer ends in OK, ACK or nothing.
    @Test func randomLinesAlwaysGetAnAnswerOrAClose() {
        var random = SplitMix64(seed: 42)
        let words =
            MPDCommands.names + ["command_list_begin", "command_list_end", "noidle", "\"", "'", "\\", "-1", "0:"]
        for _ in 0..<3000 {
            var world = Self.world()
            var session = MPDSession()
            var line = words[random.next(below: words.count)]
            for _ in 0..<random.next(below: 4) {
                switch random.next(below: 4) {
                case 0: line += " " + words[random.next(below: words.count)]
                case 1: line += " \(Int(random.next() % 2000) - 1000)"
                case 2: line += " \"" + String(repeating: "x", count: random.next(below: 5))
                default: line += String(UnicodeScalar(UInt8(random.next(below: 128))))
                }
            }
            let output = session.handle(line: line, world: &world)
            #expect(
                output.text.isEmpty || output.text.hasSuffix("OK\n") || output.text.contains("ACK ["),
                "\(line) -> \(output.text)")
        }
    }

    @Test func lyricsLinesAndOffsetNudges() {
        var world = Self.world()
        #expect(Self.run("lyrics", world: &world) == "ACK [50@0] {lyrics} No lyrics for the current song\n")
        let lrc = "[00:02.50]Open the window\n[00:07.50]Golden light\n[00:12.00]Stay\n"
        let timeline = LyricTimeline(lyrics: LRCParser.parse(lrc), nudgeMs: 100)
        world.lyrics = MPDLyrics(timeline: timeline, positionMs: 3_650)
        #expect(
            Self.run("lyrics", world: &world)
                == "line: Open the window\nnext: Golden light\noffset: 1.250\nlyrics_offset: 100\nOK\n")
        #expect(world.lyricNudge == nil)
        // Two nudges in one list add up, and the daemon is told the result once.
        let reply = Self.run(
            "command_list_begin", "lyrics offset +200", "lyrics offset -50", "command_list_end", world: &world)
        #expect(reply.contains("lyrics_offset: 250\n") && reply.hasSuffix("OK\n"), "\(reply)")
        #expect(reply.hasPrefix("line: Open the window\n"), "\(reply)")
        #expect(world.lyricNudge == LyricNudge(relative: false, ms: 250))
        // Nudged 4 s sooner, 3.65 s plays the second line.
        #expect(Self.run("lyrics offset 4000", world: &world).hasPrefix("line: Golden light\nnext: Stay\n"))
        #expect(Self.run("lyrics offset soon", world: &world).hasPrefix("ACK [2@0] {lyrics} lyrics offset takes"))
        #expect(Self.run("lyrics sooner", world: &world).hasPrefix("ACK [2@0] {lyrics} usage"))
    }
}
