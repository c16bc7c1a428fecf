import HomeAssistant
import JukeboxWeb

// The Home Assistant bridge (jukebox-mqtt) fed what comes from outside: messages on any topic
// from the broker, and the daemon's replies to its `status`/`currentsong`/`sleep` list, which
// become the state it publishes. The input's first byte picks the topic prefix; up to the
// first NUL are the daemon's reply bytes (cut into pieces at each 0x01), then one message a
// line: a digit picks a command topic (the rest is the payload), else `topic<TAB>payload`.
// A box command must be one of the few the bridge sends, one line, with its number in range.
let prefixes = ["jukebox", "home/jukebox/", "house/kids room", "j"]
/// A bridge connected under each prefix, made once: the discovery messages it publishes on
/// connecting are the same every time and cost more than the rest of a run.
let connected = prefixes.map { prefix in
    var bridge = HomeAssistantBridge(topics: HomeAssistantTopics(topicPrefix: prefix, discoveryPrefix: "homeassistant"))
    _ = bridge.handle(.started, nowMs: 0)
    _ = bridge.handle(.brokerConnected, nowMs: 0)
    return bridge
}

/// Why `command` (for `topic`) is not a command the bridge may send; nil when it is one.
func wrong(_ command: String, topic: String, topics: HomeAssistantTopics) -> String? {
    if command.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "a control byte" }
    let words = command.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    switch topic {
    case topics.volumeSet:
        guard words.count == 2, words[0] == "setvol", let level = Int(words[1]), (0...100).contains(level) else {
            return "not setvol 0-100"
        }
    case topics.sleepSet:
        guard words.count == 2, words[0] == "sleep" else { return "not sleep N" }
        if words[1] != "off" {
            guard let minutes = Int(words[1]), (1...HomeAssistantTopics.longestSleepMinutes).contains(minutes) else {
                return "sleep out of range"
            }
        }
    default:
        guard ["play", "pause 0", "pause 1", "next", "previous"].contains(command),
            topics.commandTopics.contains(topic)
        else { return "not a button's command" }
    }
    return nil
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    var bridge = connected[Int(first) % connected.count]
    let topics = bridge.topics
    let commandTopics = topics.commandTopics
    let sections = bytes.dropFirst().split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    var now: Int64 = 0

    // The daemon's replies, in the pieces a socket gives.
    var reader = MPDReplyReader()
    for piece in sections[0].split(separator: 1, omittingEmptySubsequences: false) {
        reader.append(piece)
        while true {
            let reply: MPDReply?
            do { reply = try reader.nextReply() } catch { break }
            guard let reply else { break }
            guard reply.sections.count == 3 else { continue }
            let state = BoxState(status: reply.sections[0], song: reply.sections[1], sleep: reply.sections[2])
            require(state.volume.map { (0...100).contains($0) } ?? true, "volume \(state.volume ?? 0)")
            require(state.sleepMinutesLeft >= 0, "\(state.sleepMinutesLeft) minutes left")
            now += 1000
            for case .publish(let message) in bridge.handle(.box(state), nowMs: now) {
                require(message.topic.hasPrefix(topics.prefix + "/"), "published on \(message.topic)")
            }
        }
    }

    guard sections.count == 2 else { return 0 }
    for line in fuzzLines(Array(sections[1])).prefix(64) {
        let topic: String
        let payload: String
        if let digit = line.first?.wholeNumberValue, digit < commandTopics.count {
            (topic, payload) = (commandTopics[digit], String(line.dropFirst()))
        } else {
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            (topic, payload) = (String(parts[0]), parts.count == 2 ? String(parts[1]) : "")
        }
        now += 100
        let actions = bridge.handle(.message(topic: topic, payload: payload), nowMs: now)
        for case .boxCommand(let command) in actions {
            if let problem = wrong(command, topic: topic, topics: topics) {
                fatalError("\(topic) '\(payload)' sent '\(command)': \(problem)")
            }
        }
        require(actions.count == 1, "\(actions.count) actions for one message")
    }
    return 0
}
