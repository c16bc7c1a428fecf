import Foundation
import Glibc
import JukeboxTestSupport
import Testing

/// mpc 0.34: every command of `mpc help` that applies to a local daemon, in one sequence
/// against jukeboxd and against MPD 0.23 on the same library and queue (ClientScreenTests.Peers),
/// their output and exit status compared.
///
/// Not run: `idle`, `idleloop`, `subscribe` and `waitmessage`, which wait for events
/// (MPDDaemonTests.mpcDrivesTheDaemon runs `idle`; MPDMessageTests the messages); `mount`/`unmount`
/// of storage URIs, and `shuffle`, whose order is random.
@Suite(.serialized) struct MPCDifferentialTests {
    static let mpc = MPDDaemonTests.mpc

    /// The steps that answer differently, each with why. Reviewed: a step that answers the
    /// same again must leave this list (the test says so).
    static let exceptions: [String: String] = [:]

    /// The sequence: each entry is one mpc command line (split at spaces, except for the URI
    /// arguments, which are single arguments).
    static let steps: [[String]] = [
        [], ["status"], ["stats"], ["version"], ["playlist"], ["outputs"],
        ["disable", "1"], ["outputs"], ["enable", "1"], ["toggleoutput", "1"], ["toggleoutput", "null"],
        ["enable", "only", "1"], ["disable", "null"], ["enable", "null"], ["outputset", "1", "dop=1"],
        ["outputs"], ["play", "2"], ["current"], ["queued"], ["next"], ["prev"], ["pause"],
        ["pause-if-playing"], ["toggle"], ["pause-if-playing"], ["play", "3"], ["cdprev"], ["pause"],
        ["seek", "50%"], ["seek", "0:00:01"], ["seekthrough", "+1"], ["seekthrough", "+3"], ["stop"],
        ["volume", "50"], ["volume", "+5"], ["volume", "-10"], ["volume"],
        ["repeat"], ["repeat", "off"], ["random", "on"], ["random"], ["single"], ["single", "once"],
        ["single", "off"], ["consume", "on"], ["consume"], ["crossfade"], ["crossfade", "2"], ["crossfade", "0"],
        ["mixrampdb"], ["mixrampdb", "-17"], ["mixrampdelay"], ["mixrampdelay", "1"],
        ["replaygain"], ["replaygain", "track"], ["replaygain", "off"], ["clearerror"], ["channels"],
        ["sendmessage", "chan", "hello"], ["channels"], ["listneighbors"], ["mount"], ["mount", "x", "/tmp"],
        ["unmount", "x"], ["mixrampdb", "-17.5"], ["mixrampdelay", "0.25"], ["mixrampdelay", "nan"],
        ["mixrampdb", "0"],
        ["move", "1", "3"], ["playlist"], ["del", "2"], ["add", "Misc/v1.mp3"], ["play", "1"],
        ["insert", "Misc/tone.wav"], ["playlist"], ["prio", "5", "2"], ["searchplay", "Two"], ["current"],
        ["crop"], ["playlist"], ["stop"], ["clear"], ["add", "One"], ["add", "Bee/02 Two.mp3"], ["playlist"],
        ["listall"], ["listall", "One"], ["ls"], ["ls", "One"], ["lsplaylists"], ["playlist", "mix"],
        ["search", "title", "t"], ["search", "any", "bee"], ["search", "artist", "Ärtist"],
        ["find", "artist", "Bee"], ["find", "album", "Album A"], ["list", "album"], ["list", "artist"],
        ["list", "album", "artist", "Bee"], ["list", "date"], ["list", "genre"], ["searchadd", "title", "Two"],
        ["findadd", "artist", "Bee"], ["playlist"], ["save", "x"], ["lsplaylists"], ["playlist", "x"],
        ["clear"], ["load", "x"], ["playlist"], ["rm", "x"], ["lsplaylists"],
        ["sticker", "One/01 First.mp3", "set", "rating", "5"], ["sticker", "One/01 First.mp3", "get", "rating"],
        ["sticker", "One/01 First.mp3", "list"], ["sticker", "One", "find", "rating"],
        ["sticker", "One/01 First.mp3", "delete", "rating"],
        ["albumart", "One/01 First.mp3"], ["readpicture", "One/01 First.mp3"],
        ["-w", "update"], ["-w", "update", "One"], ["-w", "rescan"], ["stats"], [],
    ]

    /// What may differ in any output: the version, times since start, and elapsed times of a
    /// playing song.
    static func normalised(_ output: String) -> String {
        var text = output
        let patterns = [
            (#"mpd version: [0-9.]+"#, "mpd version: X"), (#"Uptime: [^\n]*"#, "Uptime: X"),
            (#"Play Time: [^\n]*"#, "Play Time: X"), (#"DB Updated: [^\n]*"#, "DB Updated: X"),
            (#"\d+:\d\d/(\d+:\d\d) \(\d+%\)"#, "X/$1"),
        ]
        for (pattern, replacement) in patterns {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }

    @Test(.enabled(if: ClientScreenTests.hasClients && MPDDaemonTests.hasMPC), .timeLimit(.minutes(10)))
    func everyMPCCommandAnswersAsWithMPD() throws {
        let peers = try ClientScreenTests.Peers()
        let ports = peers.counters.map(\.port)
        var same: [String] = []
        var differs: [String] = []
        var unsupported: [String] = []
        for arguments in Self.steps {
            let label = arguments.isEmpty ? "(status)" : arguments.joined(separator: " ")
            let answers = try ports.map { port in
                let result = try runTool(Self.mpc, ["-p", "\(port)"] + arguments)
                return "exit \(result.status)\n" + Self.normalised(result.output)
            }
            let isSame = answers[0] == answers[1]
            if isSame {
                same.append(label)
            } else if answers[0].contains("unknown command") {
                unsupported.append(label)
            } else {
                differs.append(label)
            }
            if let reason = Self.exceptions[label] {
                #expect(!isSame, "\(label) answers as MPD now: take it off the exceptions (\(reason))")
            } else {
                #expect(isSame, "mpc \(label)\n--- jukeboxd\n\(answers[0])\n--- MPD\n\(answers[1])")
            }
        }
        print("mpc against both: \(same.count) same, \(differs.count) differ, \(unsupported.count) unsupported")
        print("  differ: \(differs.joined(separator: "; "))")
        print("  unsupported: \(unsupported.joined(separator: "; "))")
    }
}
