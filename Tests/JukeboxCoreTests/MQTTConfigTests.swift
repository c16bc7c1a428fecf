import TOML
import Testing

@testable import JukeboxCore

/// The `[mqtt]` keys jukebox-mqtt reads (Home Assistant).
@Suite struct MQTTConfigTests {
    typealias Entry = ConfigDocument.Entry

    static func validate(_ entries: [Entry]) -> (JukeboxConfig?, [String]) {
        let all = [Entry(table: "", key: "music_dir", value: .string("/music"), line: 1)] + entries
        let document = ConfigDocument(fileName: "jukebox.toml", tables: [(name: "mqtt", line: 2)], entries: all)
        let result = ConfigValidator.validate(document) { _ in nil }
        return (result.config, result.diagnostics.map(\.description))
    }

    @Test func defaults() throws {
        let config = try #require(Self.validate([]).0)
        #expect(config.mqtt.broker == nil)
        #expect(config.mqtt.discoveryPrefix == "homeassistant")
        #expect(config.mqtt.topicPrefix == "jukebox")
        #expect(config.mqtt.username.isEmpty && config.mqtt.password.isEmpty && config.mqtt.caFile.isEmpty)
    }

    @Test func everyKey() throws {
        let (config, problems) = Self.validate([
            Entry(table: "mqtt", key: "broker", value: .string("mqtts://ha.local"), line: 3),
            Entry(table: "mqtt", key: "username", value: .string("box"), line: 4),
            Entry(table: "mqtt", key: "password", value: .string("secret"), line: 5),
            Entry(table: "mqtt", key: "discovery_prefix", value: .string("ha"), line: 6),
            Entry(table: "mqtt", key: "topic_prefix", value: .string("kids/box"), line: 7),
            Entry(table: "mqtt", key: "ca_file", value: .string("/etc/jukebox/ca.crt"), line: 8),
        ])
        #expect(problems == [])
        #expect(config?.mqtt.broker == MQTTBroker(host: "ha.local", port: 8883, usesTLS: true))
        #expect(config?.mqtt.username == "box")
        #expect(config?.mqtt.password == "secret")
        #expect(config?.mqtt.discoveryPrefix == "ha")
        #expect(config?.mqtt.topicPrefix == "kids/box")
        #expect(config?.mqtt.caFile == "/etc/jukebox/ca.crt")
    }

    @Test func aBrokerThatIsNoMQTTURLNamesTheLine() {
        let (config, problems) = Self.validate([
            Entry(table: "mqtt", key: "broker", value: .string("http://ha.local:1883"), line: 9)
        ])
        #expect(config == nil)
        #expect(
            problems == [
                "jukebox.toml:9: mqtt.broker: expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT], found 'http://ha.local:1883'"
            ])
    }
}
