import Foundation
import JukeboxTestSupport
import Testing

/// Client-to-client messages (subscribe, unsubscribe, channels, sendmessage, readmessages),
/// MixRamp's settings in `status`, and the neighbor and storage commands, against MPD 0.23
/// over raw sockets: per side a sender, a listener that subscribes, and a watcher waiting
/// in `idle subscription message options` whose wake is compared after every step.
extension MPDDifferentialTests {
    /// Who sends a step: the sender (`S`) or the listener (`L`).
    static let messageSteps: [(client: Character, line: String)] =
        [
            ("S", "channels"), ("L", "subscribe chan"), ("L", "subscribe chan"), ("L", "subscribe a-b_c.d:e"),
            ("L", "subscribe bad/name"), ("L", "subscribe Ä"), ("L", "subscribe \"\""), ("S", "channels"),
            ("S", "sendmessage chan hello"), ("S", "sendmessage chan \"two words\""), ("S", "sendmessage nope x"),
            ("S", "sendmessage bad/name x"), ("S", "readmessages"), ("L", "readmessages"), ("L", "readmessages"),
            ("S", "subscribe chan"), ("S", "sendmessage chan again"), ("S", "readmessages"), ("L", "readmessages"),
            ("L", "unsubscribe chan"), ("L", "unsubscribe chan"), ("S", "unsubscribe nope"), ("S", "channels"),
            ("L", "unsubscribe a-b_c.d:e"), ("S", "unsubscribe chan"), ("S", "channels"), ("S", "sendmessage chan x"),
            ("S", "subscribe"), ("S", "sendmessage chan"), ("S", "readmessages x"),
            ("S", "status"), ("S", "mixrampdb -17.25"), ("S", "mixrampdelay 0.5"), ("S", "status"),
            ("S", "mixrampdb 1e10"), ("S", "mixrampdelay 3.14159265"), ("S", "status"), ("S", "mixrampdb 0.000001"),
            ("S", "mixrampdelay 0"), ("S", "status"), ("S", "mixrampdelay -1"), ("S", "mixrampdb x"),
            ("S", "mixrampdelay"), ("S", "mixrampdelay inf"), ("S", "mixrampdb -inf"), ("S", "status"),
            ("S", "mixrampdelay nan"), ("S", "mixrampdb 0"), ("S", "status"), ("S", "listneighbors"),
            ("S", "listmounts"), ("S", "mount \"\" x"), ("S", "mount a/b x"), ("S", "mount a /tmp"),
            ("S", "unmount \"\""),
            ("S", "unmount a"),
        ] + (1...17).map { ("L", "subscribe c\($0)") } + [("S", "channels")]

    @Test(.enabled(if: hasMPD), .timeLimit(.minutes(10))) func messagesAndMixRampAnswerAsMPD() throws {
        let servers = try MPDTagDifferentialTests.TagLibraryServers()
        let ports = [servers.jukeboxPort, servers.server.port]
        let senders = [servers.jukebox, servers.reference]
        let listeners = try ports.map { try MPDTestClient(port: $0) }
        let watchers = try ports.map { try MPDTestClient(port: $0) }
        var same = 0
        var differ: [String] = []
        func compare(_ label: String, _ answers: [[String]]) {
            if answers[0] == answers[1] {
                same += 1
            } else {
                differ.append("\(label)\n  MPD:     \(answers[1])\n  jukebox: \(answers[0])")
            }
        }
        for (client, line) in Self.messageSteps {
            for watcher in watchers { watcher.send("idle subscription message options") }
            let answers = (0..<2).map { side -> [String] in
                let answer = (client == "S" ? senders : listeners)[side].command(line)
                // status: MixRamp's lines are this test's part.
                return line == "status" ? answer.filter { $0.hasPrefix("mixramp") } : answer
            }
            compare("\(client): \(line)", answers)
            _ = senders.map { $0.command("ping") }
            compare(
                "idle after \(client): \(line)",
                watchers.map { watcher in
                    watcher.send("noidle")
                    return watcher.response()
                })
        }
        // A subscriber waiting in idle hears `message`; one that leaves takes its channels along.
        for listener in listeners {
            _ = listener.command("subscribe wake")
            listener.send("idle message")
        }
        compare("sendmessage wake", senders.map { $0.command("sendmessage wake up") })
        compare("idle message of the subscriber", listeners.map { $0.response() })
        compare("readmessages after idle", listeners.map { $0.command("readmessages") })
        for listener in listeners { listener.send("close") }
        #expect(listeners.allSatisfy { $0.isClosed() })
        compare("channels after the subscriber left", senders.map { $0.command("channels") })
        print("MPD differential (messages, MixRamp, neighbors, mounts): \(same) same, \(differ.count) differ")
        #expect(differ.isEmpty, "\(differ.joined(separator: "\n"))")
    }
}
