import JukeboxWeb

/// One MQTT message to publish.
public struct MQTTMessage: Sendable, Equatable, CustomStringConvertible {
    public var topic: String
    public var payload: String
    public var retain: Bool

    public init(topic: String, payload: String, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
    }

    public var description: String { "\(topic) \(payload)\(retain ? " (retained)" : "")" }
}

/// The box's topics under `[mqtt] topic_prefix`, and the discovery configs that tell Home
/// Assistant about them (its MQTT discovery: a retained JSON config per entity under
/// `DISCOVERY_PREFIX/COMPONENT/NODE/OBJECT/config`). Home Assistant has no MQTT media player,
/// so the box is sensors, numbers, buttons and a device trigger.
public struct HomeAssistantTopics: Sendable, Equatable {
    public let prefix: String
    public let discoveryPrefix: String
    /// The device's id in discovery topics and unique ids: the prefix in the characters Home
    /// Assistant allows there.
    public let node: String

    public init(topicPrefix: String, discoveryPrefix: String) {
        var prefix = topicPrefix
        while prefix.hasSuffix("/") { prefix.removeLast() }
        self.prefix = prefix
        self.discoveryPrefix = discoveryPrefix
        node = String(
            prefix.unicodeScalars.map { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == "-" ? Character(scalar) : "_"
            })
    }

    public var availability: String { "\(prefix)/availability" }
    public var state: String { "\(prefix)/state" }
    public var title: String { "\(prefix)/title" }
    public var artist: String { "\(prefix)/artist" }
    public var volume: String { "\(prefix)/volume" }
    public var sleep: String { "\(prefix)/sleep" }
    /// A card read: its id, not retained (each message fires the device trigger).
    public var card: String { "\(prefix)/card" }
    /// The last card read, retained (a sensor).
    public var lastCard: String { "\(prefix)/last_card" }
    public var volumeSet: String { "\(prefix)/volume/set" }
    public var sleepSet: String { "\(prefix)/sleep/set" }
    public func press(_ button: Button) -> String { "\(prefix)/\(button.rawValue)/press" }

    public static let online = "online"
    public static let offline = "offline"
    public static let pressPayload = "PRESS"

    /// The buttons, by their object id.
    public enum Button: String, Sendable, CaseIterable {
        case playPause = "play_pause"
        case next
        case previous

        var name: String {
            switch self {
            case .playPause: "Play/pause"
            case .next: "Next"
            case .previous: "Previous"
            }
        }

        var icon: String {
            switch self {
            case .playPause: "mdi:play-pause"
            case .next: "mdi:skip-next"
            case .previous: "mdi:skip-previous"
            }
        }
    }

    /// The will: the broker marks the box offline when the connection drops unannounced.
    public var will: MQTTMessage { MQTTMessage(topic: availability, payload: Self.offline, retain: true) }

    /// The topics Home Assistant sends commands on.
    public var commandTopics: [String] { [volumeSet, sleepSet] + Button.allCases.map(press) }

    /// Every entity's discovery config, retained.
    public var discoveryMessages: [MQTTMessage] {
        var configs: [(component: String, object: String, members: [(String, String)])] = [
            ("sensor", "state", [("name", "State"), ("state_topic", state), ("icon", "mdi:music-box")].map(quoted)),
            ("sensor", "title", [("name", "Title"), ("state_topic", title), ("icon", "mdi:music")].map(quoted)),
            (
                "sensor", "artist",
                [("name", "Artist"), ("state_topic", artist), ("icon", "mdi:account-music")].map(quoted)
            ),
            (
                "sensor", "last_card",
                [("name", "Last card"), ("state_topic", lastCard), ("icon", "mdi:nfc-variant")].map(quoted)
            ),
            (
                "number", "volume",
                [
                    ("name", "Volume"), ("state_topic", volume), ("command_topic", volumeSet),
                    ("unit_of_measurement", "%"), ("mode", "slider"), ("icon", "mdi:volume-high"),
                ].map(quoted) + [("min", "0"), ("max", "100"), ("step", "1")]
            ),
            (
                "number", "sleep",
                [
                    ("name", "Sleep timer"), ("state_topic", sleep), ("command_topic", sleepSet),
                    ("unit_of_measurement", "min"), ("mode", "box"), ("icon", "mdi:sleep"),
                ].map(quoted) + [("min", "0"), ("max", "\(Self.longestSleepMinutes)"), ("step", "1")]
            ),
        ]
        for button in Button.allCases {
            configs.append(
                (
                    "button", button.rawValue,
                    [
                        ("name", button.name), ("command_topic", press(button)),
                        ("payload_press", Self.pressPayload), ("icon", button.icon),
                    ].map(quoted)
                ))
        }
        var messages = configs.map { config in
            let members =
                config.members + [
                    ("unique_id", JSONText.string("\(node)_\(config.object)")),
                    ("availability_topic", JSONText.string(availability)),
                    ("device", device),
                    ("origin", JSONText.object([("name", JSONText.string("jukebox-mqtt"))])),
                ]
            return MQTTMessage(
                topic: "\(discoveryPrefix)/\(config.component)/\(node)/\(config.object)/config",
                payload: JSONText.object(members), retain: true)
        }
        // A device trigger has no availability or unique id: Home Assistant keys it by its topic.
        messages.append(
            MQTTMessage(
                topic: "\(discoveryPrefix)/device_automation/\(node)/card_scanned/config",
                payload: JSONText.object(
                    [
                        ("automation_type", "trigger"), ("topic", card), ("type", "card_scanned"),
                        ("subtype", "card"),
                    ].map(quoted) + [("device", device)]),
                retain: true))
        return messages
    }

    /// The longest sleep timer the number entity offers, in minutes.
    public static let longestSleepMinutes = 180

    private var device: String {
        JSONText.object(
            [
                ("identifiers", "[" + JSONText.string("jukebox_\(node)") + "]"),
                ("name", JSONText.string(prefix == "jukebox" ? "Jukebox" : "Jukebox \(prefix)")),
                ("manufacturer", JSONText.string("Jukebox")), ("model", JSONText.string("jukeboxd")),
            ])
    }

    private func quoted(_ member: (String, String)) -> (String, String) { (member.0, JSONText.string(member.1)) }

    /// The retained state topics for `box`.
    public func stateMessages(_ box: BoxState) -> [MQTTMessage] {
        let playback =
            switch box.playback {
            case "play": "playing"
            case "pause": "paused"
            default: "stopped"
            }
        var messages = [
            MQTTMessage(topic: state, payload: playback, retain: true),
            MQTTMessage(topic: title, payload: box.title, retain: true),
            MQTTMessage(topic: artist, payload: box.artist, retain: true),
            MQTTMessage(topic: sleep, payload: "\(box.sleepMinutesLeft)", retain: true),
        ]
        if let level = box.volume { messages.append(MQTTMessage(topic: volume, payload: "\(level)", retain: true)) }
        return messages
    }
}
