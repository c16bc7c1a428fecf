/// The bridge between the box and Home Assistant as a state machine: events in (the broker's
/// connection, the box's state, cards, messages, time), actions out. Times are milliseconds
/// of a monotonic clock the caller reads; nothing here waits. The box never waits on it
/// either: it runs in jukebox-mqtt, a process of its own that reads the box over MPD.
public struct HomeAssistantBridge: Sendable {
    public enum Event: Sendable, Equatable {
        /// The process started (or was told to start over).
        case started
        /// The broker accepted the connection.
        case brokerConnected
        /// The broker refused the connection, the connect failed, or the connection dropped.
        case brokerLost
        /// A fresh reading of the box.
        case box(BoxState)
        /// A card was read on the box.
        case cardRead(String)
        /// A message on a subscribed topic.
        case message(topic: String, payload: String)
        /// Time passed (the wake-up `nextWakeMs` asked for, or any other).
        case tick
    }

    public enum Action: Sendable, Equatable {
        /// Connect to the broker (the will is `topics.will`).
        case connect
        case subscribe(String)
        case publish(MQTTMessage)
        /// A command line for the daemon's MPD socket (`setvol 40`, `pause 1`, `sleep 30`).
        case boxCommand(String)
        /// Read the box's state again (the sleep timer counts down without telling).
        case readBox
        /// A message that asked for nothing the bridge does (for the log).
        case ignored(String)
    }

    enum Connection: Sendable, Equatable {
        case waiting(untilMs: Int64)
        case connecting(sinceMs: Int64)
        case connected
    }

    /// A connect the broker has not answered in this long counts as failed.
    public static let connectTimeoutMs: Int64 = 10_000
    /// While a sleep timer runs, the box is read again this often (its minutes count down).
    public static let sleepRefreshMs: Int64 = 30_000

    public let topics: HomeAssistantTopics
    private(set) var connection = Connection.waiting(untilMs: 0)
    private var backoff = ReconnectBackoff()
    private var box: BoxState?
    /// What the broker holds of each state topic, as last published on this connection.
    private var published: [String: String] = [:]
    private var nextBoxReadMs: Int64?

    public init(topics: HomeAssistantTopics) {
        self.topics = topics
    }

    public var isConnected: Bool { connection == .connected }

    /// When the caller should send `.tick` at the latest; nil when nothing is due.
    public var nextWakeMs: Int64? {
        let connectionDue: Int64? =
            switch connection {
            case .waiting(let untilMs): untilMs
            case .connecting(let sinceMs): sinceMs + Self.connectTimeoutMs
            case .connected: nil
            }
        return [connectionDue, nextBoxReadMs].compactMap { $0 }.min()
    }

    public mutating func handle(_ event: Event, nowMs: Int64) -> [Action] {
        var actions: [Action] = []
        switch event {
        case .started:
            connection = .connecting(sinceMs: nowMs)
            actions.append(.connect)
        case .brokerConnected:
            connection = .connected
            backoff.connected()
            published = [:]
            actions += topics.commandTopics.map(Action.subscribe)
            actions += topics.discoveryMessages.map(Action.publish)
            actions.append(
                .publish(MQTTMessage(topic: topics.availability, payload: HomeAssistantTopics.online, retain: true)))
            if let box { actions += publishChanges(box) }
        case .brokerLost:
            // A failed connect can report twice (the socket's error, then the disconnect).
            if case .waiting = connection { break }
            connection = .waiting(untilMs: nowMs + backoff.failed())
        case .box(let state):
            box = state
            nextBoxReadMs = state.sleepSet ? nowMs + Self.sleepRefreshMs : nil
            if connection == .connected { actions += publishChanges(state) }
        case .cardRead(let id):
            // A scan is an event of now: one made while the broker is away is not replayed.
            guard connection == .connected else { break }
            actions.append(.publish(MQTTMessage(topic: topics.card, payload: id, retain: false)))
            actions.append(.publish(MQTTMessage(topic: topics.lastCard, payload: id, retain: true)))
        case .message(let topic, let payload):
            actions.append(command(topic: topic, payload: payload))
        case .tick:
            break
        }
        actions += due(nowMs)
        return actions
    }

    /// What the time asks for: a connect whose wait ended, a connect that timed out, a read.
    private mutating func due(_ nowMs: Int64) -> [Action] {
        var actions: [Action] = []
        switch connection {
        case .waiting(let untilMs) where nowMs >= untilMs:
            connection = .connecting(sinceMs: nowMs)
            actions.append(.connect)
        case .connecting(let sinceMs) where nowMs - sinceMs >= Self.connectTimeoutMs:
            connection = .waiting(untilMs: nowMs + backoff.failed())
        default:
            break
        }
        if let readAt = nextBoxReadMs, nowMs >= readAt {
            nextBoxReadMs = nil
            actions.append(.readBox)
        }
        return actions
    }

    /// The state topics whose value the broker does not hold yet.
    private mutating func publishChanges(_ state: BoxState) -> [Action] {
        topics.stateMessages(state).compactMap { message in
            guard published[message.topic] != message.payload else { return nil }
            published[message.topic] = message.payload
            return .publish(message)
        }
    }

    /// The box command a message on a command topic asks for.
    private func command(topic: String, payload: String) -> Action {
        let text = payload.trimmingSpaces
        switch topic {
        case topics.volumeSet:
            guard let level = Self.wholeNumber(text), (0...100).contains(level) else {
                return .ignored("\(topic): expected a volume from 0 to 100, found '\(text)'")
            }
            return .boxCommand("setvol \(level)")
        case topics.sleepSet:
            guard let minutes = Self.wholeNumber(text), (0...HomeAssistantTopics.longestSleepMinutes).contains(minutes)
            else {
                return .ignored(
                    "\(topic): expected minutes from 0 to \(HomeAssistantTopics.longestSleepMinutes), found '\(text)'")
            }
            return .boxCommand(minutes == 0 ? "sleep off" : "sleep \(minutes)")
        case topics.press(.playPause):
            switch box?.playback {
            case "play": return .boxCommand("pause 1")
            case "pause": return .boxCommand("pause 0")
            default: return .boxCommand("play")
            }
        case topics.press(.next):
            return .boxCommand("next")
        case topics.press(.previous):
            return .boxCommand("previous")
        default:
            return .ignored("\(topic): not a command topic")
        }
    }

    /// `40`, `40.0`, `39.6` (Home Assistant's number entity sends a float): rounded.
    static func wholeNumber(_ text: String) -> Int? {
        if let whole = Int(text) { return whole }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count <= 6, !parts[0].isEmpty, let whole = Int(parts[0]), whole >= 0,
            !parts[1].isEmpty, parts[1].allSatisfy({ ("0"..."9").contains($0) })
        else { return nil }
        return (parts[1].first ?? "0") >= "5" ? whole + 1 : whole
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
