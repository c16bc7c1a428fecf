import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Real clients with their default configs, each in a tmux terminal, one against jukeboxd and
/// one against MPD 0.23 on the same generated library (make-tag-library.sh), the same queue
/// and the same stored playlist: the same keys go to both, and what each screen shows must
/// match once normalised. A relay in front of each server counts the commands the client
/// sends while it idles: against jukeboxd no more than against MPD (no command storm).
///
/// Reviewed differences, normalised here and nowhere else:
/// - the server's port (ncmpc's queue title names it).
@Suite(.serialized) struct ClientScreenTests {
    static let ncmpcpp = "/usr/bin/ncmpcpp"
    static let ncmpc = "/usr/bin/ncmpc"
    static var hasClients: Bool {
        ReferenceMPD.isInstalled
            && [TmuxTerminals.tmux, ncmpcpp, ncmpc].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let files = [
        "Bee/01 日本語.mp3", "Bee/02 Two.mp3", "Bee/03 Three.mp3", "Misc/tone.wav", "Misc/untagged.mp3", "Misc/v1.mp3",
        "One/01 First.mp3", "One/02 Second.mp3", "One/03 Third.mp3",
    ]

    /// jukeboxd and MPD on one library, each behind a `CommandCounter`, and a tmux server.
    final class Peers {
        let harness: DaemonHarness
        let mpd: ReferenceMPD
        /// [jukeboxd, MPD].
        let counters: [CommandCounter]
        private(set) var terminals: TmuxTerminals?

        /// MPD with a software mixer (a volume, as jukeboxd has) and a null output paced by
        /// the clock, as jukeboxd's.
        init() throws {
            let port = freeLoopbackPort()
            harness = try DaemonHarness(
                tracks: [], configExtra: "[network]\nport = \(port)", onStart: "off", mode: "in-order")
            try Fixtures.makeTagLibrary(in: harness.musicDir)
            let daemon = try harness.start()
            guard daemon.waitForLine(matching: "library scan of", on: .stderr) != nil else {
                throw MPDDifferentialTests.TestFailure("jukeboxd did not scan: \(harness.log)")
            }
            mpd = try ReferenceMPD(
                musicDir: harness.musicDir, directory: harness.directory.file("mpd"),
                output: "sync \"yes\"",
                extra: "sticker_file \"\(harness.directory.file("mpd/sticker.sql"))\"\n"
                    + "decoder {\n  plugin \"mad\"\n  enabled \"no\"\n}", mixer: "software")
            let clients = try [port, mpd.port].map { try MPDTestClient(port: $0) }
            _ = clients[1].command("update")
            try MPDDifferentialTests.waitUntil("MPD's library holds 9 songs") {
                clients[1].fields("stats")["songs"] == "9" && clients[1].fields("status")["updating_db"] == nil
            }
            for client in clients {
                for line in ["stop", "clear"] + ClientScreenTests.files.map({ "add \"\($0)\"" }) {
                    _ = client.command(line)
                }
                _ = client.command("save mix")
            }
            counters = try [port, mpd.port].map { try CommandCounter(target: $0) }
        }

        deinit {
            terminals = nil
            mpd.stop()
            harness.process?.closeStdin()
            harness.process?.kill(SIGTERM)
            _ = harness.process?.waitForExit(timeout: .seconds(5))
        }

        /// Starts `client` in a 120x35 terminal against each server: sessions `j` and `m`.
        func start(_ client: String) throws {
            terminals = try TmuxTerminals(
                client: client, ports: counters.map(\.port), folder: harness.directory.path, rows: 35)
        }

        /// Sends tmux key names (`Enter`, `Down`) or text to both terminals.
        func keys(_ keys: String...) throws { try terminals?.keys(keys) }

        /// What a terminal shows, with colours and attributes.
        func screen(_ session: String) -> String { terminals?.capture(session, attributes: true) ?? "" }

        /// Waits until both terminals show `text` and hold still, then returns both screens,
        /// normalised (jukeboxd's first).
        func settled(showing text: String) throws -> (jukebox: String, mpd: String) {
            var last = ("", "")
            var stable = 0
            let shown = JukeboxTestSupport.waitUntil(timeout: .seconds(15), pollingEvery: .milliseconds(100)) {
                let now = (screen("j"), screen("m"))
                stable = now == last ? stable + 1 : 0
                last = now
                return ClientScreenTests.plain(now.0).contains(text) && ClientScreenTests.plain(now.1).contains(text)
                    && stable >= 3
            }
            guard shown else {
                throw MPDDifferentialTests.TestFailure(
                    "timed out: both terminals show \(text)\n--- jukeboxd\n\(last.0)\n--- MPD\n\(last.1)")
            }
            return (ClientScreenTests.normalised(last.0), ClientScreenTests.normalised(last.1))
        }

        /// Command lines each server received while the clients idled for `seconds`
        /// (a measurement window: the clients are left alone for it).
        func idleCommands(seconds: Double) -> (jukebox: Int, mpd: Int) {
            let start = MonotonicClock.nanoseconds()
            _ = waitUntil(timeout: .milliseconds(Int64(seconds * 1000)), pollingEvery: .milliseconds(100)) { false }
            return (counters[0].commands(since: start), counters[1].commands(since: start))
        }
    }

    /// The screen's text without its colours, attributes and line-drawing shifts.
    static func plain(_ screen: String) -> String {
        screen.replacingOccurrences(
            of: #"«[^»]*»|[\x{0E}\x{0F}]|\x{1B}\[[0-9;]*m"#, with: "", options: .regularExpression)
    }

    /// `capture-pane -e` output as text with the attributes of what is visible: before each
    /// character that is not a space, `«…»` when its colours and attributes changed. The
    /// escape sequences themselves depend on how the client happened to draw the screen, and
    /// blank cells' colours cannot be seen.
    static func visible(_ screen: String) -> String {
        var attributes: Set<Int> = []
        var foreground = 0
        var background = 0
        var shown = ""
        var result = ""
        var scalars = Array(screen.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            if scalar == "\u{1B}", scalars.first == "[" {
                scalars.removeFirst()
                var parameters = ""
                while let next = scalars.popFirst(), next != "m" { parameters.unicodeScalars.append(next) }
                var codes = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }[...]
                while let code = codes.popFirst() {
                    switch code {
                    case 0:
                        (attributes, foreground, background) = ([], 0, 0)
                    case 1...9: attributes.insert(code)
                    case 22: attributes.subtract([1, 2])
                    case 23...29: attributes.remove(code - 20)
                    case 30...37, 90...97: foreground = code
                    case 38, 48:
                        let value = codes.count >= 2 ? 1000 + codes[codes.startIndex + 1] : 0
                        codes = codes.dropFirst(2)
                        if code == 38 { foreground = value } else { background = value }
                    case 39: foreground = 0
                    case 40...47, 100...107: background = code
                    case 49: background = 0
                    default: break
                    }
                }
            } else if scalar == "\u{0E}" || scalar == "\u{0F}" {
                continue
            } else {
                if scalar != " " && scalar != "\n" {
                    let now =
                        "«\(attributes.sorted().map(String.init).joined(separator: ","))|\(foreground)|\(background)»"
                    if now != shown {
                        result += now
                        shown = now
                    }
                }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A screen with the reviewed differences taken out (see the suite's comment).
    static func normalised(_ screen: String) -> String {
        var text = visible(screen)
        text = text.replacingOccurrences(of: #"127\.0\.0\.1:\d+"#, with: "", options: .regularExpression)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for index in lines.indices {
            // The port's place leaves a gap of spaces.
            lines[index] = lines[index]
                .replacingOccurrences(of: #" {2,}"#, with: " ", options: .regularExpression)
                .replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression)
        }
        // Blank lines say nothing (a removed status line leaves one).
        return lines.filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// One step: keys to both, then both screens compared once they show `expect`.
    static func step(_ peers: Peers, _ label: String, keys: [String], expect: String) throws -> Bool {
        for key in keys { try peers.keys(key) }
        let screens = try peers.settled(showing: expect)
        let lines = (screens.jukebox.split(separator: "\n"), screens.mpd.split(separator: "\n"))
        let differing = zip(lines.0, lines.1).filter { $0 != $1 }.map {
            "  jukeboxd: \($0.debugDescription)\n  MPD:      \($1.debugDescription)"
        }
        #expect(
            screens.jukebox == screens.mpd,
            "\(label): \(lines.0.count) / \(lines.1.count) lines\n\(differing.joined(separator: "\n"))")
        return screens.jukebox == screens.mpd
    }

    /// The commands a client sends in 3 s left alone: against jukeboxd at most twice what MPD
    /// gets, plus one a second. A storm is thousands a second; while a song plays, the
    /// clients' own timers make a few either way.
    static func checkNoStorm(_ peers: Peers, client: String) {
        let seconds = 3.0
        let idle = peers.idleCommands(seconds: seconds)
        print("\(client): \(idle.jukebox) commands in \(seconds) s to jukeboxd, \(idle.mpd) to MPD")
        #expect(Double(idle.jukebox) <= 2 * Double(idle.mpd) + seconds, "\(client): \(idle)")
    }

    /// Runs `steps` (label, keys, text to wait for) on both terminals and counts the same
    /// screens; then counts commands while the client idles on the last screen, on its queue
    /// screen (`queue`, one more step), and while it plays the queue's first song.
    static func compare(
        _ steps: [(String, [String], String)], on peers: Peers, client: String, queue: (String, [String], String)
    ) throws {
        var same = 0
        for (label, keys, expect) in steps where try step(peers, label, keys: keys, expect: expect) { same += 1 }
        checkNoStorm(peers, client: "\(client) on its last screen")
        if try step(peers, queue.0, keys: queue.1, expect: queue.2) { same += 1 }
        print("\(client) screens: \(same) of \(steps.count + 1) the same")
        checkNoStorm(peers, client: "\(client) on the queue")
        try peers.keys("Enter")
        _ = try peers.settled(showing: "Playing: ")
        checkNoStorm(peers, client: "\(client) playing")
    }

    @Test(.enabled(if: hasClients), .timeLimit(.minutes(10)))
    func ncmpcppScreensMatchMPD() throws {
        let peers = try Peers()
        try peers.start(Self.ncmpcpp)
        let steps: [(String, [String], String)] = [
            ("playlist", [], "Playlist (9 items"),
            ("browser", ["2"], "Browse: /"),
            ("browser, One", ["Down", "Down", "Enter"], "Browse: One"),
            ("search engine", ["3"], "Search engine"),
            (
                "search any bee", ["Home", "Enter", "bee", "Enter"] + Array(repeating: "Down", count: 13) + ["Enter"],
                "Search results: Found"
            ),
            ("media library", ["4"], "Media library"),
            ("media library, Ärtist One", ["Down"], "(2001-05-03) Album A"),
            ("media library, albums split by date", ["Right", "Down"], "01 - First"),
            ("playlist editor", ["5"], "mix"),
            ("playlist editor, content", ["Right"], "Two"),
            ("outputs", ["7"], "Outputs"),
            ("outputs, disable", ["Enter"], "disabled"),
            ("outputs, enable", ["Enter"], "enabled"),
            // Where jukeboxd once answered a query ncmpcpp repeated 4,000 times a second.
            ("media library again", ["4"], "01 - First"),
        ]
        try Self.compare(steps, on: peers, client: "ncmpcpp", queue: ("playlist again", ["1"], "Playlist (9 items"))
    }

    @Test(.enabled(if: hasClients), .timeLimit(.minutes(10)))
    func ncmpcScreensMatchMPD() throws {
        let peers = try Peers()
        try peers.start(Self.ncmpc)
        let steps: [(String, [String], String)] = [
            ("queue", [], "Bee - Two"),
            ("browse", ["3"], "[One]"),
            ("browse, One", ["Down", "Down", "Enter"], "Ärtist One - First"),
            ("library", ["4"], "[Bee]"),
            ("library, Bee", ["Down", "Enter"], "Bee"),
            ("outputs", ["8"], "null"),
            ("outputs, disable", ["Enter"], "[ ] null"),
            ("outputs, enable", ["Enter"], "[X] null"),
            ("library again", ["4"], "Bee"),
        ]
        try Self.compare(steps, on: peers, client: "ncmpc", queue: ("queue again", ["2"], "Bee - Two"))
    }
}
