import Glibc
import HomeAssistant
import JukeboxCore
import JukeboxWeb
import LinuxSupport
import MQTT

/// `jukebox-mqtt --config FILE`: the box in Home Assistant over MQTT, a process of its own
/// beside jukeboxd (docs/ARCHITECTURE.md, "Home Assistant"). It reads `[mqtt]` and the daemon's
/// MPD listener from the daemon's config, follows the daemon with `idle` and sends Home
/// Assistant's commands to it as MPD commands. One thread, one poll loop: the broker's socket,
/// the daemon's idle connection, the termination signals. The music does not depend on it.
public enum MQTTBridgeProcess {
    static let program = "jukebox-mqtt"

    /// Runs until SIGTERM or SIGINT; exits 2 on a bad command line or config.
    public static func main(arguments: [String]) -> Never {
        let configPath: String
        switch WebArguments.parse(arguments, program: program) {
        case .success(let path): configPath = path
        case .failure(let problem):
            say("\(problem.message)\n\(WebArguments.usage(program: program))")
            exit(2)
        }
        let config: JukeboxConfig
        do {
            let bytes = try readWholeFile(configPath, limit: 1 << 20)
            switch ConfigValidator.helperConfig(bytes: bytes, path: configPath) {
            case .success(let loaded): config = loaded
            case .failure(let problem):
                say(problem.message)
                exit(2)
            }
        } catch {
            say("\(configPath): cannot read the config file: \(error.message)")
            exit(2)
        }
        guard let broker = config.mqtt.broker else {
            say("\(program): \(configPath) sets no [mqtt] broker")
            exit(2)
        }
        do {
            var loop = try BridgeLoop(config: config, broker: broker)
            try loop.run()
            exit(0)
        } catch {
            say("\(program): \(error)")
            exit(1)
        }
    }

    /// A line on stderr (the journal, under systemd).
    static func say(_ text: String) {
        _ = try? FileDescriptor.standardError.writeAll(Array((text + "\n").utf8))
    }
}

/// The poll loop: feeds `HomeAssistantBridge` its events and carries out its actions.
struct BridgeLoop {
    let config: JukeboxConfig
    let broker: MQTTBroker
    var bridge: HomeAssistantBridge
    let client: MQTTClient
    let signals: FileDescriptor
    /// The connection waiting in `idle`; nil while the daemon is away.
    var idle: DaemonLink?
    var daemonRetryMs: Int64 = 0
    var daemonFailures = 0
    /// `card last`'s count when it was last read (0 before the first card): a higher one is
    /// a new scan.
    var cardReads = 0

    init(config: JukeboxConfig, broker: MQTTBroker) throws {
        self.config = config
        self.broker = broker
        bridge = HomeAssistantBridge(
            topics: HomeAssistantTopics(
                topicPrefix: config.mqtt.topicPrefix, discoveryPrefix: config.mqtt.discoveryPrefix))
        client = try MQTTClient(clientID: "jukebox-mqtt-\(bridge.topics.node)")
        let will = bridge.topics.will
        try client.setWill(topic: will.topic, payload: will.payload, retain: will.retain)
        if !config.mqtt.username.isEmpty {
            try client.setCredentials(username: config.mqtt.username, password: config.mqtt.password)
        }
        if broker.usesTLS { try client.setTLS(caFile: config.mqtt.caFile.isEmpty ? nil : config.mqtt.caFile) }
        signals = try TerminationSignals.open()
    }

    static func nowMs() -> Int64 { Int64(MonotonicClock.nanoseconds() / 1_000_000) }

    mutating func run() throws {
        MQTTBridgeProcess.say(
            "\(MQTTBridgeProcess.program): broker \(broker.host):\(broker.port)\(broker.usesTLS ? " (TLS)" : ""), "
                + "topics \(bridge.topics.prefix)/, discovery \(bridge.topics.discoveryPrefix)/")
        perform(bridge.handle(.started, nowMs: Self.nowMs()))
        while true {
            let now = Self.nowMs()
            if idle == nil, now >= daemonRetryMs { followDaemon() }
            var interests = [Poller.Interest(fd: signals.rawValue)]
            let brokerSocket = client.socket
            if brokerSocket >= 0 {
                interests.append(Poller.Interest(fd: brokerSocket, writable: client.wantsWrite))
            }
            if let idle { interests.append(Poller.Interest(fd: idle.fd.rawValue)) }
            // libmosquitto's keep-alive wants loopMisc about once a second.
            var wake = now + 1000
            if let due = bridge.nextWakeMs { wake = min(wake, due) }
            if idle == nil { wake = min(wake, daemonRetryMs) }
            let ready = try Poller.wait(interests, timeoutMilliseconds: Int32(max(0, min(wake - now, 1000))))
            for readiness in ready {
                if readiness.fd == signals.rawValue {
                    shutDown()
                    return
                }
                if readiness.fd == brokerSocket {
                    brokerIO(readiness)
                } else if let link = idle, readiness.fd == link.fd.rawValue {
                    daemonChanged(link)
                }
            }
            do {
                try client.loopMisc()
            } catch {
                // No connection: the bridge's own timers retry it.
            }
            brokerEvents()
            perform(bridge.handle(.tick, nowMs: Self.nowMs()))
        }
    }

    /// Says offline (a clean DISCONNECT sends no will) and leaves.
    mutating func shutDown() {
        if bridge.isConnected {
            let offline = bridge.topics.will
            try? client.publish(topic: offline.topic, payload: offline.payload, retain: offline.retain)
            let deadline = Self.nowMs() + 1000
            while client.wantsWrite, Self.nowMs() < deadline, (try? client.loopWrite()) != nil {}
            client.disconnect()
            _ = try? client.loopWrite()
        }
        MQTTBridgeProcess.say("\(MQTTBridgeProcess.program): stopped")
    }

    mutating func brokerIO(_ readiness: Poller.Readiness) {
        do {
            if readiness.readable || readiness.hangup || readiness.error { try client.loopRead() }
            if readiness.writable { try client.loopWrite() }
        } catch {
            brokerEvents()
            lostBroker("\(error)")
        }
    }

    mutating func brokerEvents() {
        for event in client.takeEvents() {
            switch event {
            case .connected(let code, let reason):
                if code == 0 {
                    MQTTBridgeProcess.say("\(MQTTBridgeProcess.program): connected to the broker")
                    perform(bridge.handle(.brokerConnected, nowMs: Self.nowMs()))
                } else {
                    lostBroker("the broker refused the connection: \(reason)")
                }
            case .disconnected(let code):
                lostBroker("disconnected (\(code))")
            case .message(let topic, let payload):
                perform(
                    bridge.handle(
                        .message(topic: topic, payload: String(decoding: payload, as: UTF8.self)), nowMs: Self.nowMs()))
            }
        }
    }

    mutating func lostBroker(_ why: String) {
        MQTTBridgeProcess.say("\(MQTTBridgeProcess.program): broker \(broker.host):\(broker.port): \(why)")
        perform(bridge.handle(.brokerLost, nowMs: Self.nowMs()))
    }

    /// Connects the idle connection, reads the box, and waits for its changes.
    mutating func followDaemon() {
        do {
            let link = try DaemonLink(config.network)
            perform(bridge.handle(.box(try link.boxState()), nowMs: Self.nowMs()))
            cardReads = try link.lastCard()?.reads ?? 0
            try link.send("idle player mixer options cards")
            idle = link
            daemonFailures = 0
        } catch {
            daemonFailures += 1
            if daemonFailures == 1 {
                MQTTBridgeProcess.say("\(MQTTBridgeProcess.program): jukeboxd: \(error); retrying")
            }
            daemonRetryMs = Self.nowMs() + Int64(min(daemonFailures, 5)) * 1000
        }
    }

    /// The idle connection is readable: what changed, read again, then idle again.
    mutating func daemonChanged(_ link: DaemonLink) {
        do {
            guard let reply = try link.replyIfComplete() else { return }
            let changed = Set(reply.fields.filter { $0.key == "changed" }.map(\.value))
            if changed.contains("cards"), let last = try link.lastCard() {
                if last.reads > cardReads {
                    perform(bridge.handle(.cardRead(last.id), nowMs: Self.nowMs()))
                }
                cardReads = last.reads
            }
            if !changed.subtracting(["cards"]).isEmpty {
                perform(bridge.handle(.box(try link.boxState()), nowMs: Self.nowMs()))
            }
            try link.send("idle player mixer options cards")
        } catch {
            MQTTBridgeProcess.say("\(MQTTBridgeProcess.program): jukeboxd: \(error); reconnecting")
            idle = nil
            daemonRetryMs = Self.nowMs() + 1000
        }
    }

    mutating func perform(_ actions: [HomeAssistantBridge.Action]) {
        for action in actions {
            switch action {
            case .connect:
                do {
                    try client.connect(host: broker.host, port: broker.port, keepAliveSeconds: 30)
                } catch {
                    lostBroker("\(error)")
                }
            case .subscribe(let pattern):
                do { try client.subscribe(pattern) } catch { lostBroker("\(error)") }
            case .publish(let message):
                do {
                    try client.publish(topic: message.topic, payload: message.payload, retain: message.retain)
                } catch {
                    lostBroker("\(error)")
                }
            case .boxCommand(let line):
                runOnDaemon(line)
            case .readBox:
                runOnDaemon(nil)
            case .ignored(let why):
                MQTTBridgeProcess.say("\(MQTTBridgeProcess.program): \(why)")
            }
        }
    }

    /// Runs `line` on a connection of its own (the idle one is waiting), then reads the box:
    /// the sleep timer's change raises no idle event.
    mutating func runOnDaemon(_ line: String?) {
        do {
            let link = try DaemonLink(config.network)
            if let line { _ = try link.run(line) }
            perform(bridge.handle(.box(try link.boxState()), nowMs: Self.nowMs()))
        } catch {
            MQTTBridgeProcess.say("\(MQTTBridgeProcess.program): jukeboxd: \(line ?? "status"): \(error)")
        }
    }
}
