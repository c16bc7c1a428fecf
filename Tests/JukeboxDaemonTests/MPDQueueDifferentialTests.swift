import Foundation
import JukeboxTestSupport
import Testing

/// Queue edits by position and by Id against MPD 0.23: a track queued twice, add (at a
/// position), delete, move, swap, priorities (and what they do in random mode), after every
/// step the answer, `status`, the queue (file, Pos, Id, Prio), `plchanges`/`plchangesposid`
/// for the version before the step, how far `playlist:` moved, and whether an idle client
/// heard `playlist`.
///
/// Reviewed exception: Id values. jukeboxd queued the library on its first start (Ids 1-4)
/// and MPD did not, so each side's Ids are renamed in the order they first appear (#1, #2,
/// ...); a wrong entry acted on, an Id changed or one reused still shows. `playlist:` is
/// compared as the change over each step for the same reason.
extension MPDDifferentialTests {
    /// One server's view: its client, an idle client, and its Ids renamed.
    final class QueueSide {
        let client: MPDTestClient
        let idle: MPDTestClient
        private var names: [String: String] = [:]

        init(client: MPDTestClient, port: Int) throws {
            self.client = client
            idle = try MPDTestClient(port: port)
            idle.send("idle playlist")
        }

        /// `#n` for the nth Id this side has shown.
        func name(_ id: String) -> String {
            if let known = names[id] { return known }
            let named = "#\(names.count + 1)"
            names[id] = named
            return named
        }

        /// The response with Ids renamed, only the keys that matter here; the values of
        /// `masked` keys are left out (only whether the key is there is compared).
        func normalised(_ lines: [String], keys: Set<String>? = nil, masked: Set<String> = []) -> [String] {
            lines.compactMap { line -> String? in
                guard let colon = line.firstIndex(of: ":"), !line.hasPrefix("ACK") else { return line }
                let key = String(line[..<colon])
                if let keys, !keys.contains(key) { return nil }
                if masked.contains(key) { return "\(key): *" }
                let value = String(line[line.index(colon, offsetBy: 2)...])
                return ["Id", "songid", "nextsongid"].contains(key) ? "\(key): \(name(value))" : line
            }
        }

        /// `{N}` becomes the Id of the entry now at position N (`{song}`: of the current
        /// entry), `{v}` the queue version.
        func resolve(_ line: String, version: String) -> String {
            var result = line.replacingOccurrences(of: "{v}", with: version)
            while let open = result.firstIndex(of: "{"), let close = result[open...].firstIndex(of: "}") {
                let position = String(result[result.index(after: open)..<close])
                let id =
                    position == "song"
                    ? client.fields("status")["songid"] ?? "999999"
                    : client.fields("playlistinfo \(position)")["Id"] ?? "999999"
                result.replaceSubrange(open...close, with: id)
            }
            return result
        }

        var version: String { client.fields("status")["playlist"] ?? "?" }

        /// Whether the idle client heard `playlist` since the last look; it waits again.
        func heardPlaylist() -> Bool {
            idle.send("noidle")
            let heard = idle.response().contains("changed: playlist")
            idle.send("idle playlist")
            return heard
        }
    }

    /// Runs `steps` on both sides and compares everything after each; returns how many steps
    /// jukeboxd did not know (ACK 5, unknown command). Randomness is compared where it is
    /// deterministic: a step marked `~` (after a `shuffle`) compares the queue as a set of
    /// entries and skips `plchanges`, and compares the current entry's position but not its
    /// Id; a step marked `?` (random mode) compares whether there is a current entry, not which.
    @discardableResult
    static func runQueueSteps(_ servers: Servers, _ sides: (QueueSide, QueueSide), _ steps: [String]) -> Int {
        let queueKeys: Set<String> = ["file", "Pos", "Id", "Prio"]
        // The song's tags are MPDTagDifferentialTests' part.
        let answerKeys = queueKeys.union(["cpos"])
        let statusKeys: Set<String> = ["state", "song", "songid", "nextsong", "nextsongid", "playlistlength"]
        var unsupported = 0
        for marked in steps {
            let shuffled = marked.hasPrefix("~")
            let randomPick = marked.hasPrefix("?")
            let step = shuffled || randomPick ? String(marked.dropFirst()) : marked
            // Random mode: which entry is current is random, and whether one follows (MPD
            // shuffles its order again on stop, which may leave the current entry last).
            let shownStatus = randomPick ? statusKeys.subtracting(["nextsong", "nextsongid"]) : statusKeys
            // After a shuffle the entry at a position is random, so which one `play N` played.
            var masked: Set<String> = randomPick || shuffled ? ["songid", "nextsongid"] : []
            if randomPick { masked.insert("song") }
            let checks: [(query: String, keys: Set<String>?, masked: Set<String>, sorted: Bool)] =
                shuffled
                ? [("status", shownStatus, masked, false), ("playlistinfo", queueKeys.subtracting(["Pos"]), [], true)]
                : [
                    ("status", shownStatus, masked, false), ("playlistinfo", queueKeys, [], false),
                    ("plchanges {v}", queueKeys, [], false), ("plchangesposid {v}", nil, [], false),
                ]
            let before: (String, String) = (sides.0.version, sides.1.version)
            let ours: [String] = sides.0.normalised(
                sides.0.client.command(sides.0.resolve(step, version: before.0)), keys: answerKeys)
            let theirs: [String] = sides.1.normalised(
                sides.1.client.command(sides.1.resolve(step, version: before.1)), keys: answerKeys)
            servers.record(step, ours == theirs, "\(ours) / MPD \(theirs)")
            if ours.last?.hasPrefix("ACK [5@0]") == true { unsupported += 1 }
            let raised: (Int, Int) = (versionChange(sides.0, from: before.0), versionChange(sides.1, from: before.1))
            servers.record("\(step): playlist: change", raised.0 == raised.1, "\(raised.0) / MPD \(raised.1)")
            for check in checks {
                let query: (String, String) = (
                    check.query.replacingOccurrences(of: "{v}", with: before.0),
                    check.query.replacingOccurrences(of: "{v}", with: before.1)
                )
                var answers: ([String], [String]) = (
                    sides.0.normalised(sides.0.client.command(query.0), keys: check.keys, masked: check.masked),
                    sides.1.normalised(sides.1.client.command(query.1), keys: check.keys, masked: check.masked)
                )
                if check.sorted { answers = (entrySet(answers.0), entrySet(answers.1)) }
                servers.record("\(step): \(check.query)", answers.0 == answers.1, "\(answers.0) / MPD \(answers.1)")
            }
            let heard: (Bool, Bool) = (sides.0.heardPlaylist(), sides.1.heardPlaylist())
            servers.record("\(step): idle playlist", heard.0 == heard.1, "\(heard.0) / MPD \(heard.1)")
        }
        return unsupported
    }

    /// The entries of a `playlistinfo` answer (each starting at its `file:` line), sorted.
    static func entrySet(_ lines: [String]) -> [String] {
        var entries: [String] = []
        for line in lines where line != "OK" {
            if line.hasPrefix("file: ") || entries.isEmpty {
                entries.append(line)
            } else {
                entries[entries.count - 1] += " " + line
            }
        }
        return entries.sorted()
    }

    /// Each server's side, jukeboxd's first.
    static func queueSides(_ servers: Servers) throws -> (QueueSide, QueueSide) {
        (
            try QueueSide(client: servers.jukebox, port: servers.port),
            try QueueSide(client: servers.reference, port: servers.mpd.port)
        )
    }

    /// How far `playlist:` moved since `before`.
    static func versionChange(_ side: QueueSide, from before: String) -> Int {
        guard let now = Int(side.version), let then = Int(before) else { return Int.min }
        return now - then
    }

    @Test(.enabled(if: hasMPD)) func queueEditsWithIds() throws {
        let servers = try Servers()
        let sides = try Self.queueSides(servers)
        // In order: duplicates, adds at positions, edits by Id and position, priorities shown.
        var unsupported = Self.runQueueSteps(
            servers, sides,
            [
                "clear", "add \"\"", "add \"02 b.wav\"", "add \"01 a.wav\" 1", "addid \"03 c.wav\" 0",
                "addid \"02 b.wav\"", "playlistid {1}", "playlistid {5}", "deleteid {5}", "moveid {6} 0",
                "swap 0 3", "swapid {1} {6}", "move 1:3 4", "move 5 5", "delete 2", "delete 1:3",
                "add \"04 d.wav\"", "add \"04 d.wav\"", "prio 10 0:2 4", "prioid 200 {3} {1}", "prio 0 0",
                "prio 10 0:2", "prio 7 3:", "prio 1 99", "prio 256 0", "prio -1 0", "prio x 0", "prioid 1 999999",
                "swap 0 99", "swapid {0} 999999", "deleteid 999999", "moveid 999999 0",
                "playlistfind file \"04 d.wav\"", "playlistsearch file \"D.WAV\"",
                "playlistfind \"(file == '02 b.wav')\"", "playlistsearch \"(file contains 'A')\"",
                "playlistfind file", "playlistfind nosuchtag x", "playlistsearch any wav",
                "plchanges 0", "plchanges {v}", "plchanges 99999999", "plchangesposid 0 1:3", "plchanges 0 2:99",
                "play 1", "pause 1", "deleteid {1}", "stop", "clear",
            ])
        // Random with priorities: the highest plays first, then the next group; a song played
        // already is played again when its priority rises above the current one's; a song
        // that starts loses its priority. (Stopped in random mode, MPD shuffles the order
        // again, so random is off before `stop`.)
        unsupported += Self.runQueueSteps(
            servers, sides,
            [
                "add \"\"", "random 1", "prio 100 0", "prio 50 2", "prio 10 3", "play", "pause 1", "next",
                "pause 1", "prioid 200 {0}", "next", "pause 1", "prio 255 1", "next", "pause 1", "random 0",
                "stop", "clear",
            ])
        print("MPD differential, queue edits with Ids: \(servers.summary), \(unsupported) steps unsupported")
    }

    /// Adds past the queue's limit (3 here, of 4 songs): MPD adds what fits, at the end (its
    /// move comes after and is not made), and answers `ACK [51@0] {add} Playlist is too
    /// large`; a full queue adds nothing and its version stays. `add`, `addid`, `load` and
    /// `searchadd` alike. (MPD's ids wrap at 4 × its limit, 12 here: the steps hand out 11.)
    ///
    /// Reviewed exception: `searchadd` (and `findadd`) is compared without `playlist:`, as
    /// MPD 0.23 raises it once per song added there (no bulk edit) and jukeboxd once per command.
    @Test(.enabled(if: hasMPD)) func addsPastTheLimitAsMPD() throws {
        let servers = try Servers(queueLimit: 3)
        let sides = try Self.queueSides(servers)
        let unsupported = Self.runQueueSteps(
            servers, sides,
            [
                "clear", "add \"\"", "add \"04 d.wav\"", "addid \"04 d.wav\"", "delete 0", "add \"\" 0", "delete 0:2",
                "add \"\"", "save big", "delete 1:3", "load big", "rm big", "clear",
            ])
        #expect(unsupported == 0)
        for line in ["add \"02 b.wav\"", "searchadd file wav"] { servers.both(line) }
        servers.compare("searchadd past the limit")
        servers.both("clear")
        print("MPD differential, adds past the queue's limit: \(servers.summary)")
    }

    /// MPD 0.23's positions relative to the current entry (`+N` after it, `-N` before it) in
    /// add, addid, move and moveid; `shuffle` (the playing entry goes first, the rest is
    /// shuffled; stopped, there is no current entry afterwards); random mode's current entry
    /// across stop, play and the flag (compared where it is deterministic: see runQueueSteps).
    @Test(.enabled(if: hasMPD)) func relativePositionsShuffleAndRandomAsMPD() throws {
        let servers = try Servers()
        let sides = try Self.queueSides(servers)
        var unsupported = Self.runQueueSteps(
            servers, sides,
            [
                "clear", "add \"\"", "addid \"01 a.wav\" +0", "add \"02 b.wav\" -0", "moveid {0} +0", "move 0 -1",
                "play 1", "pause 1", "addid \"01 a.wav\" +0", "addid \"02 b.wav\" -0", "add \"03 c.wav\" +1",
                "add \"04 d.wav\" -1", "addid \"01 a.wav\" +99", "addid \"01 a.wav\" -99", "add \"02 b.wav\" +x",
                "add \"02 b.wav\" 99", "addid \"02 b.wav\" +", "add \"\" +0", "moveid {0} +0", "moveid {0} -0",
                "move 0:2 +1", "move 0:2 -0", "move 0 +1", "moveid {11} -2", "moveid {song} +0", "move 0:99 +0",
                "move 99 +0", "move 0 +99", "move 0 -99", "move 0 99", "moveid {0} 99", "stop", "addid \"01 a.wav\" +0",
                "moveid {0} -0", "clear", "add \"04 d.wav\" +0",
            ])
        unsupported += Self.runQueueSteps(
            servers, sides,
            [
                "add \"\"", "add \"\"", "shuffle 20:30", "shuffle x", "shuffle 3:3", "play 5", "stop",
                "~shuffle", "~play 5", "~pause 1", "~shuffle", "~shuffle 2:6", "~move 0 4", "~shuffle 2:6",
                "~shuffle 5:", "~shuffle 7:", "~shuffle 1:2", "~stop", "~clear",
            ])
        unsupported += Self.runQueueSteps(
            servers, sides,
            [
                "add \"\"", "?random 1", "?play", "?pause 1", "?stop", "?next", "?random 0", "?random 1", "?play",
                "?stop", "?random 0", "?previous", "?stop", "clear",
            ])
        // Stopped in random mode, MPD keeps the current entry (and shuffles the order again):
        // `play` plays it again.
        _ = servers.both("add \"\"")
        for line in ["random 1", "play", "pause 1"] { _ = servers.both(line) }
        let playing = (
            servers.jukebox.fields("status")["song"] ?? "none", servers.reference.fields("status")["song"] ?? "none"
        )
        for line in ["stop", "play"] { _ = servers.both(line) }
        let again = (
            servers.jukebox.fields("status")["song"] ?? "none", servers.reference.fields("status")["song"] ?? "none"
        )
        servers.record("random: stop, play: the same entry", again.1 == playing.1, "MPD \(playing.1) then \(again.1)")
        servers.record("random: stop, play: the same entry", again.0 == playing.0, "\(playing.0) then \(again.0)")
        for line in ["random 0", "stop", "clear"] { _ = servers.both(line) }
        // Reviewed exception, not in the steps: a range moved forward by less than its length
        // over the current entry (`move 0:2 +0` with the current entry at 2). MPD 0.23.12 keeps
        // its current index while that entry moves (playlist::MoveRange), so `status` then names
        // another entry than the one playing; the jukebox follows the playing entry.
        for line in ["add \"\"", "play 2", "pause 1", "move 0:2 +0"] { _ = servers.both(line) }
        let after = (servers.jukebox.fields("status")["song"], servers.reference.fields("status")["song"])
        #expect(after.0 == "0" && after.1 == "2", "move 0:2 +0: the current entry is at \(after) (jukebox, MPD)")
        for line in ["stop", "clear"] { _ = servers.both(line) }
        print(
            "MPD differential, relative positions, shuffle, random: \(servers.summary), \(unsupported) steps unsupported"
        )
    }
}
