import HomeAssistant
import JukeboxCore
import JukeboxWeb
import Testing

/// The Home Assistant bridge's policy on a manual clock: discovery and state on connect,
/// changes only, commands, card triggers, the reconnect backoff.
struct HomeAssistantBridgeTests {
    static let topics = HomeAssistantTopics(topicPrefix: "kids/box", discoveryPrefix: "homeassistant")

    static func playing(volume: Int = 40) -> BoxState {
        BoxState(
            status: [MPDField("state", "play"), MPDField("volume", "\(volume)")],
            song: [MPDField("file", "Kids/01 Song.mp3"), MPDField("Title", "Song"), MPDField("Artist", "Band")],
            sleep: [MPDField("sleep", "off")])
    }

    static func published(_ actions: [HomeAssistantBridge.Action]) -> [MQTTMessage] {
        actions.compactMap { if case .publish(let message) = $0 { message } else { nil } }
    }

    /// A bridge connected at 0 ms that has published `box`.
    static func connected(with box: BoxState = playing()) -> HomeAssistantBridge {
        var bridge = HomeAssistantBridge(topics: topics)
        _ = bridge.handle(.started, nowMs: 0)
        _ = bridge.handle(.box(box), nowMs: 0)
        _ = bridge.handle(.brokerConnected, nowMs: 10)
        return bridge
    }

    @Test func connectPublishesDiscoveryAvailabilityAndStateRetained() {
        var bridge = HomeAssistantBridge(topics: Self.topics)
        #expect(bridge.handle(.started, nowMs: 0) == [.connect])
        _ = bridge.handle(.box(Self.playing()), nowMs: 5)
        let actions = bridge.handle(.brokerConnected, nowMs: 10)
        let subscribed = actions.compactMap { if case .subscribe(let topic) = $0 { topic } else { nil } }
        #expect(
            Set(subscribed) == [
                "kids/box/volume/set", "kids/box/sleep/set", "kids/box/play_pause/press", "kids/box/next/press",
                "kids/box/previous/press",
            ])
        let messages = Self.published(actions)
        #expect(messages.allSatisfy { $0.retain })
        let topics = Set(messages.map(\.topic))
        for config in [
            "sensor/kids_box/state", "sensor/kids_box/title", "sensor/kids_box/artist", "sensor/kids_box/last_card",
            "number/kids_box/volume", "number/kids_box/sleep", "button/kids_box/play_pause", "button/kids_box/next",
            "button/kids_box/previous", "device_automation/kids_box/card_scanned",
        ] {
            #expect(topics.contains("homeassistant/\(config)/config"), "\(config)")
        }
        let values = Dictionary(messages.map { ($0.topic, $0.payload) }, uniquingKeysWith: { $1 })
        #expect(values["kids/box/availability"] == "online")
        #expect(values["kids/box/state"] == "playing")
        #expect(values["kids/box/title"] == "Song")
        #expect(values["kids/box/artist"] == "Band")
        #expect(values["kids/box/volume"] == "40")
        #expect(values["kids/box/sleep"] == "0")
        let volume = values["homeassistant/number/kids_box/volume/config"] ?? ""
        for member in [
            #""command_topic":"kids/box/volume/set""#, #""state_topic":"kids/box/volume""#,
            #""availability_topic":"kids/box/availability""#, #""unique_id":"kids_box_volume""#, #""min":0"#,
            #""max":100"#, #""identifiers":["jukebox_kids_box"]"#,
        ] {
            #expect(volume.contains(member), "\(member) in \(volume)")
        }
        let trigger = values["homeassistant/device_automation/kids_box/card_scanned/config"] ?? ""
        #expect(trigger.contains(#""automation_type":"trigger""#) && trigger.contains(#""topic":"kids/box/card""#))
        // Availability comes after the discovery configs, so that entities find it set.
        let order = messages.map(\.topic)
        #expect(
            order.firstIndex(of: "kids/box/availability")! > order.firstIndex(
                of: "homeassistant/number/kids_box/volume/config")!)
        #expect(bridge.topics.will == MQTTMessage(topic: "kids/box/availability", payload: "offline", retain: true))
    }

    @Test func onlyChangedStateIsPublished() {
        var bridge = Self.connected()
        #expect(Self.published(bridge.handle(.box(Self.playing()), nowMs: 20)).isEmpty)
        let changed = Self.published(bridge.handle(.box(Self.playing(volume: 55)), nowMs: 30))
        #expect(changed == [MQTTMessage(topic: "kids/box/volume", payload: "55", retain: true)])
        var paused = Self.playing(volume: 55)
        paused.playback = "pause"
        #expect(
            Self.published(bridge.handle(.box(paused), nowMs: 40)) == [
                MQTTMessage(topic: "kids/box/state", payload: "paused", retain: true)
            ])
    }

    @Test func aReconnectRepublishesEverything() {
        var bridge = Self.connected()
        #expect(bridge.handle(.brokerLost, nowMs: 100).isEmpty)
        _ = bridge.handle(.box(Self.playing(volume: 70)), nowMs: 200)
        #expect(bridge.handle(.tick, nowMs: 1099).isEmpty)
        #expect(bridge.handle(.tick, nowMs: 1100) == [.connect])
        let messages = Self.published(bridge.handle(.brokerConnected, nowMs: 1150))
        let values = Dictionary(messages.map { ($0.topic, $0.payload) }, uniquingKeysWith: { $1 })
        #expect(values["kids/box/volume"] == "70")
        #expect(values["kids/box/state"] == "playing")
        #expect(values["kids/box/availability"] == "online")
    }

    @Test func backoffDoublesToAMinuteAndStartsOverOnAcceptance() {
        var bridge = HomeAssistantBridge(topics: Self.topics)
        var now: Int64 = 0
        _ = bridge.handle(.started, nowMs: now)
        var delays: [Int64] = []
        for _ in 0..<9 {
            _ = bridge.handle(.brokerLost, nowMs: now)
            // A second report of the same failure does not count twice.
            _ = bridge.handle(.brokerLost, nowMs: now)
            let due = bridge.nextWakeMs!
            delays.append(due - now)
            #expect(bridge.handle(.tick, nowMs: due - 1).isEmpty)
            now = due
            #expect(bridge.handle(.tick, nowMs: now) == [.connect])
        }
        #expect(delays == [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000])
        _ = bridge.handle(.brokerConnected, nowMs: now)
        _ = bridge.handle(.brokerLost, nowMs: now + 5)
        #expect(bridge.nextWakeMs == now + 5 + 1000)
    }

    @Test func anUnansweredConnectTimesOut() {
        var bridge = HomeAssistantBridge(topics: Self.topics)
        _ = bridge.handle(.started, nowMs: 0)
        #expect(bridge.nextWakeMs == HomeAssistantBridge.connectTimeoutMs)
        #expect(bridge.handle(.tick, nowMs: HomeAssistantBridge.connectTimeoutMs).isEmpty)
        #expect(bridge.handle(.tick, nowMs: HomeAssistantBridge.connectTimeoutMs + 1000) == [.connect])
    }

    @Test func commandsBecomeBoxCommands() {
        var bridge = Self.connected()
        let cases: [(String, String, HomeAssistantBridge.Action)] = [
            ("kids/box/volume/set", "35", .boxCommand("setvol 35")),
            ("kids/box/volume/set", "35.6", .boxCommand("setvol 36")),
            ("kids/box/volume/set", " 0 ", .boxCommand("setvol 0")),
            ("kids/box/sleep/set", "30.0", .boxCommand("sleep 30")),
            ("kids/box/sleep/set", "0", .boxCommand("sleep off")),
            ("kids/box/play_pause/press", "PRESS", .boxCommand("pause 1")),
            ("kids/box/next/press", "PRESS", .boxCommand("next")),
            ("kids/box/previous/press", "PRESS", .boxCommand("previous")),
        ]
        for (topic, payload, expected) in cases {
            #expect(
                bridge.handle(.message(topic: topic, payload: payload), nowMs: 50) == [expected], "\(topic) \(payload)")
        }
        for (topic, payload) in [
            ("kids/box/volume/set", "101"), ("kids/box/volume/set", "loud"), ("kids/box/volume/set", "-3"),
            ("kids/box/sleep/set", "181"), ("kids/box/sleep/set", "1e3"), ("kids/box/other", "x"),
        ] {
            let actions = bridge.handle(.message(topic: topic, payload: payload), nowMs: 50)
            #expect(
                actions.count == 1 && { if case .ignored = actions[0] { true } else { false } }(), "\(topic) \(payload)"
            )
        }
        var paused = Self.playing()
        paused.playback = "pause"
        _ = bridge.handle(.box(paused), nowMs: 60)
        #expect(
            bridge.handle(.message(topic: "kids/box/play_pause/press", payload: "PRESS"), nowMs: 70) == [
                .boxCommand("pause 0")
            ])
        paused.playback = "stop"
        _ = bridge.handle(.box(paused), nowMs: 80)
        #expect(
            bridge.handle(.message(topic: "kids/box/play_pause/press", payload: "PRESS"), nowMs: 90) == [
                .boxCommand("play")
            ])
    }

    @Test func aCardScanFiresTheTriggerOnlyWhileConnected() {
        var bridge = Self.connected()
        #expect(
            Self.published(bridge.handle(.cardRead("04A1B2"), nowMs: 50)) == [
                MQTTMessage(topic: "kids/box/card", payload: "04A1B2", retain: false),
                MQTTMessage(topic: "kids/box/last_card", payload: "04A1B2", retain: true),
            ])
        _ = bridge.handle(.brokerLost, nowMs: 60)
        #expect(bridge.handle(.cardRead("04A1B2"), nowMs: 70).isEmpty)
    }

    @Test func aRunningSleepTimerIsReadAgainAsItCountsDown() {
        var bridge = Self.connected()
        let sleeping = BoxState(
            status: [MPDField("state", "play"), MPDField("volume", "40")], song: [],
            sleep: [MPDField("sleep", "30 min"), MPDField("sleep_left", "1795")])
        #expect(sleeping.sleepMinutesLeft == 30)
        let messages = Self.published(bridge.handle(.box(sleeping), nowMs: 1000))
        #expect(messages.contains(MQTTMessage(topic: "kids/box/sleep", payload: "30", retain: true)))
        #expect(bridge.nextWakeMs == 1000 + HomeAssistantBridge.sleepRefreshMs)
        #expect(bridge.handle(.tick, nowMs: 1000 + HomeAssistantBridge.sleepRefreshMs) == [.readBox])
        _ = bridge.handle(.box(Self.playing()), nowMs: 40_000)
        #expect(bridge.nextWakeMs == nil)
    }

    @Test func boxStateFromReplies() {
        let stopped = BoxState(status: [MPDField("state", "stop"), MPDField("volume", "-1")], song: [], sleep: [])
        #expect(stopped.playback == "stop" && stopped.volume == nil && stopped.title.isEmpty)
        let untitled = BoxState(
            status: [MPDField("state", "pause")], song: [MPDField("file", "Kids/Gruffalo/02 Mouse.ogg")], sleep: [])
        #expect(untitled.title == "02 Mouse" && untitled.artist.isEmpty)
        let endOfTrack = BoxState(status: [], song: [], sleep: [MPDField("sleep", "end of track")])
        #expect(endOfTrack.sleepSet && endOfTrack.sleepMinutesLeft == 0)
    }

    @Test func titlesAreEscapedInJSONAndTheNodeIsSafe() {
        let odd = HomeAssistantTopics(topicPrefix: "box \"1\"/", discoveryPrefix: "ha")
        #expect(odd.prefix == "box \"1\"")
        #expect(odd.node == "box__1_")
        let volume = odd.discoveryMessages.first { $0.topic == "ha/number/box__1_/volume/config" }
        #expect(volume?.payload.contains(#""state_topic":"box \"1\"/volume""#) == true)
    }

    @Test func brokerURLs() {
        #expect(MQTTBroker.parse("mqtt://ha.local") == MQTTBroker(host: "ha.local", port: 1883, usesTLS: false))
        #expect(MQTTBroker.parse("mqtts://ha.local") == MQTTBroker(host: "ha.local", port: 8883, usesTLS: true))
        #expect(MQTTBroker.parse("MQTT://10.0.0.2:1884/") == MQTTBroker(host: "10.0.0.2", port: 1884, usesTLS: false))
        #expect(MQTTBroker.parse("mqtt://[::1]:1885") == MQTTBroker(host: "::1", port: 1885, usesTLS: false))
        for bad in [
            "http://ha.local", "mqtt://", "mqtt://ha:0", "mqtt://ha:99999", "mqtt://ha/x", "mqtt://u@ha", "ha:1883",
        ] {
            #expect(MQTTBroker.parse(bad) == nil, "\(bad)")
        }
    }
}
