import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// jukebox-mqtt between a real jukeboxd (ALSA's null device) and a real mosquitto broker on a
/// free loopback port, watched with mosquitto_sub and driven with mosquitto_pub (Debian's
/// mosquitto and mosquitto-clients, which `./dev setup` installs).
@Suite(.serialized) struct HomeAssistantMQTTTests {
    static var bridgeBinary: String { Fixtures.builtProduct("jukebox-mqtt") }

    /// A mosquitto broker on `port` (anonymous unless `extra` says otherwise, nothing kept on
    /// disk), ready when it returns.
    static func startBroker(
        port: Int, folder: String, extra: String = "allow_anonymous true\n"
    ) throws -> DaemonProcess {
        let config = "\(folder)/mosquitto.conf"
        try "listener \(port) 127.0.0.1\n\(extra)persistence false\nlog_dest stderr\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let broker = try DaemonProcess(executable: "/usr/sbin/mosquitto", arguments: ["-c", config])
        #expect(broker.waitForLine(matching: "running") != nil, "\(broker.lines)")
        return broker
    }

    /// `mosquitto_sub -v` on the box's topics and the discovery configs: one line per message,
    /// `TOPIC PAYLOAD`.
    static func subscribe(port: Int) throws -> DaemonProcess {
        let subscriber = try DaemonProcess(
            executable: "/usr/bin/mosquitto_sub",
            arguments: ["-h", "127.0.0.1", "-p", "\(port)", "-v", "-t", "testbox/#", "-t", "homeassistant/#"])
        return subscriber
    }

    static func publish(port: Int, _ topic: String, _ payload: String) throws {
        let result = try runTool(
            "/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(port)", "-q", "1", "-t", topic, "-m", payload])
        #expect(result.status == 0, "\(result.output)")
    }

    /// The retained message of `topic` as a new subscriber gets it: `RETAIN-FLAG PAYLOAD`.
    static func retained(port: Int, _ topic: String) throws -> String {
        let result = try runTool(
            "/usr/bin/mosquitto_sub",
            ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-C", "1", "-W", "10", "-F", "%r %p"])
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func boxInHomeAssistantThroughARealBroker() throws {
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "jukebox-mqtt-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let brokerPort = freeLoopbackPort()
        var broker = try Self.startBroker(port: brokerPort, folder: folder)
        let (harness, client, _) = try TagCardDaemonTests.start(
            extra: "[mqtt]\nbroker = \"mqtt://127.0.0.1:\(brokerPort)\"\ntopic_prefix = \"testbox\"\n")
        defer { MPDDaemonTests.stop(harness) }
        TagCardDaemonTests.assignCards(client)
        for line in ["clear", "add Alpha/First", "setvol 50", "play 0"] {
            #expect(client.command(line) == ["OK"], "\(line)")
        }
        var subscriber = try Self.subscribe(port: brokerPort)
        let bridge = try DaemonProcess(executable: Self.bridgeBinary, arguments: ["--config", harness.configPath])
        defer {
            bridge.kill(SIGKILL)
            _ = bridge.waitForExit(timeout: .seconds(5))
        }
        #expect(bridge.waitForLine(matching: "connected to the broker") != nil, "\(bridge.lines)")

        // Discovery, availability and state, retained.
        #expect(
            subscriber.waitForLine(matching: "homeassistant/number/testbox/volume/config {") != nil,
            "\(subscriber.lines)")
        #expect(subscriber.waitForLine(matching: "testbox/availability online") != nil, "\(subscriber.lines)")
        // The bridge publishes each state topic on its own: wait for each.
        #expect(waitUntil(timeout: .seconds(10)) { subscriber.text(of: .stdout).contains("testbox/state playing") })
        #expect(
            waitUntil(timeout: .seconds(10)) { subscriber.text(of: .stdout).contains("testbox/volume 50") },
            "\(subscriber.lines)")
        let volumeConfig = try Self.retained(port: brokerPort, "homeassistant/number/testbox/volume/config")
        #expect(volumeConfig.hasPrefix("1 {") && volumeConfig.contains(#""command_topic":"testbox/volume/set""#))
        #expect(
            try Self.retained(port: brokerPort, "homeassistant/device_automation/testbox/card_scanned/config")
                .hasPrefix("1 {"))
        #expect(try Self.retained(port: brokerPort, "testbox/title") == "1 Alpha First 1")

        // A change on the box reaches the broker; how long it takes is printed, not asserted.
        subscriber.skipOutput()
        let sent = MonotonicClock.nanoseconds()
        #expect(client.command("setvol 33") == ["OK"])
        let volumeLine = subscriber.waitForOutputLine(matching: "testbox/volume 33")
        #expect(volumeLine != nil, "\(subscriber.lines)")
        if let volumeLine {
            print("jukebox-mqtt: setvol -> testbox/volume in \(Double(volumeLine.nanoseconds - sent) / 1e6) ms")
        }
        let pausedAt = MonotonicClock.nanoseconds()
        #expect(client.command("pause 1") == ["OK"])
        let pausedLine = subscriber.waitForOutputLine(matching: "testbox/state paused")
        #expect(pausedLine != nil, "\(subscriber.lines)")
        if let pausedLine {
            print("jukebox-mqtt: pause -> testbox/state in \(Double(pausedLine.nanoseconds - pausedAt) / 1e6) ms")
        }

        // Commands from Home Assistant act on the box.
        try Self.publish(port: brokerPort, "testbox/play_pause/press", "PRESS")
        #expect(waitUntil(timeout: .seconds(10)) { client.fields("status")["state"] == "play" }, "\(bridge.lines)")
        try Self.publish(port: brokerPort, "testbox/volume/set", "25")
        #expect(waitUntil(timeout: .seconds(10)) { client.fields("status")["volume"] == "25" }, "\(bridge.lines)")
        #expect(subscriber.waitForLine(matching: "testbox/volume 25") != nil, "\(subscriber.lines)")
        try Self.publish(port: brokerPort, "testbox/sleep/set", "20")
        #expect(waitUntil(timeout: .seconds(10)) { client.fields("sleep")["sleep"] == "20 min" }, "\(bridge.lines)")
        #expect(subscriber.waitForLine(matching: "testbox/sleep 20") != nil, "\(subscriber.lines)")

        // A card scan is a device trigger: the same card put on again (after its removal, 1 s
        // debounced, took effect) is a second trigger.
        #expect(client.command("card b") == ["OK"])
        #expect(subscriber.waitForLine(matching: "testbox/card B") != nil, "\(subscriber.lines)\n\(bridge.lines)")
        #expect(client.command("card none") == ["OK"])
        #expect(waitUntil(timeout: .seconds(10)) { client.fields("status")["state"] == "pause" }, "\(harness.log)")
        #expect(client.command("card b") == ["OK"])
        #expect(subscriber.waitForLine(matching: "testbox/card B") != nil, "\(subscriber.lines)\n\(bridge.lines)")
        #expect(try Self.retained(port: brokerPort, "testbox/last_card") == "1 B")

        // The broker restarts (it kept nothing): the bridge reconnects and publishes it all again.
        broker.kill(SIGTERM)
        #expect(broker.waitForExit(timeout: .seconds(10)) != nil)
        subscriber.kill(SIGTERM)
        _ = subscriber.waitForExit(timeout: .seconds(5))
        broker = try Self.startBroker(port: brokerPort, folder: folder)
        #expect(
            bridge.waitForLine(matching: "connected to the broker", timeout: .seconds(30)) != nil, "\(bridge.lines)")
        #expect(
            waitUntil(timeout: .seconds(10)) {
                (try? Self.retained(port: brokerPort, "testbox/volume")) == "1 25"
            })
        #expect(try Self.retained(port: brokerPort, "testbox/availability") == "1 online")
        #expect(try Self.retained(port: brokerPort, "homeassistant/button/testbox/next/config").hasPrefix("1 {"))

        // The bridge dies without a word: the broker publishes its will.
        subscriber = try Self.subscribe(port: brokerPort)
        #expect(subscriber.waitForLine(matching: "testbox/availability online") != nil, "\(subscriber.lines)")
        // Its memory (VmRSS: all resident pages; RssAnon: its own heap and stacks) and CPU time.
        let memory = (try? String(contentsOfFile: "/proc/\(bridge.pid)/status", encoding: .utf8)) ?? ""
        let resident = memory.split(separator: "\n").filter { $0.hasPrefix("VmRSS") || $0.hasPrefix("RssAnon") }
        bridge.kill(SIGKILL)
        if let exit = bridge.waitForChildExit(timeout: .seconds(5)) {
            print("jukebox-mqtt: \(resident.joined(separator: ", ")), CPU \(exit.cpuSeconds) s in this test")
        }
        #expect(subscriber.waitForLine(matching: "testbox/availability offline", timeout: .seconds(60)) != nil)
        subscriber.kill(SIGTERM)
        _ = subscriber.waitForExit(timeout: .seconds(5))
        broker.kill(SIGTERM)
        _ = broker.waitForExit(timeout: .seconds(10))
    }

    /// mqtts:// with the broker's certificate checked against `ca_file`, and a login: a wrong
    /// password is refused (and retried), the right one connects and publishes.
    @Test func tlsAndCredentials() throws {
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "jukebox-mqtt-tls")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // mosquitto, started as root, reads its files as the mosquitto user.
        chmod(folder, 0o755)
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=Jukebox test CA",
                "-keyout",
                "\(folder)/ca.key", "-out", "\(folder)/ca.crt",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "\(folder)/server.key",
                "-out", "\(folder)/server.csr",
            ],
            [
                "x509", "-req", "-in", "\(folder)/server.csr", "-CA", "\(folder)/ca.crt", "-CAkey", "\(folder)/ca.key",
                "-CAcreateserial", "-days", "1", "-out", "\(folder)/server.crt", "-extfile", "\(folder)/san.cnf",
            ],
        ]
        try "subjectAltName=DNS:localhost\n".write(toFile: "\(folder)/san.cnf", atomically: true, encoding: .utf8)
        for step in steps {
            let result = try runTool("/usr/bin/openssl", step)
            try #require(result.status == 0, "\(result.output)")
        }
        let login = try runTool("/usr/bin/mosquitto_passwd", ["-c", "-b", "\(folder)/passwords", "box", "s3cret"])
        try #require(login.status == 0, "\(login.output)")
        for file in ["ca.crt", "server.crt", "server.key", "passwords"] { chmod("\(folder)/\(file)", 0o644) }
        let brokerPort = freeLoopbackPort()
        let broker = try Self.startBroker(
            port: brokerPort, folder: folder,
            extra: """
                cafile \(folder)/ca.crt
                certfile \(folder)/server.crt
                keyfile \(folder)/server.key
                allow_anonymous false
                password_file \(folder)/passwords

                """)
        defer {
            broker.kill(SIGTERM)
            _ = broker.waitForExit(timeout: .seconds(10))
        }
        let mqtt = """
            [mqtt]
            broker = "mqtts://localhost:\(brokerPort)"
            ca_file = "\(folder)/ca.crt"
            username = "box"
            topic_prefix = "testbox"

            """
        let (harness, client, _) = try TagCardDaemonTests.start(extra: mqtt + "password = \"wrong\"\n")
        defer { MPDDaemonTests.stop(harness) }
        let refused = try DaemonProcess(executable: Self.bridgeBinary, arguments: ["--config", harness.configPath])
        #expect(refused.waitForLine(matching: "refused") != nil, "\(refused.lines)")
        #expect(client.fields("status")["state"] != nil)
        refused.kill(SIGTERM)
        #expect(refused.waitForExit(timeout: .seconds(5)) == 0, "\(refused.lines)")

        let config = try String(contentsOfFile: harness.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "password = \"wrong\"", with: "password = \"s3cret\"").write(
            toFile: harness.configPath, atomically: true, encoding: .utf8)
        let bridge = try DaemonProcess(executable: Self.bridgeBinary, arguments: ["--config", harness.configPath])
        defer {
            bridge.kill(SIGTERM)
            _ = bridge.waitForExit(timeout: .seconds(5))
        }
        #expect(bridge.waitForLine(matching: "connected to the broker") != nil, "\(bridge.lines)")
        let availability = try runTool(
            "/usr/bin/mosquitto_sub",
            [
                "-h", "localhost", "-p", "\(brokerPort)", "--cafile", "\(folder)/ca.crt", "-u", "box", "-P", "s3cret",
                "-t", "testbox/availability", "-C", "1", "-W", "10", "-F", "%r %p",
            ])
        #expect(availability.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1 online", "\(broker.lines)")
    }

    /// Board/jukebox-mqtt.service as systemd reads it (the ExecStart path pointed at the binary
    /// under test).
    @Test func unitPassesSystemdAnalyzeVerify() throws {
        _ = try verifyBoardUnit("jukebox-mqtt", binary: Self.bridgeBinary)
    }

    /// With the broker gone (never there), the music plays on and the box obeys its clients.
    @Test func musicPlaysOnWithoutTheBroker() throws {
        let brokerPort = freeLoopbackPort()
        let (harness, client, _) = try TagCardDaemonTests.start(
            extra: "[mqtt]\nbroker = \"mqtt://127.0.0.1:\(brokerPort)\"\ntopic_prefix = \"testbox\"\n")
        defer { MPDDaemonTests.stop(harness) }
        for line in ["clear", "add Alpha/First", "play 0"] {
            #expect(client.command(line) == ["OK"], "\(line)")
        }
        let bridge = try DaemonProcess(executable: Self.bridgeBinary, arguments: ["--config", harness.configPath])
        defer {
            bridge.kill(SIGTERM)
            #expect(bridge.waitForExit(timeout: .seconds(5)) == 0, "\(bridge.lines)")
        }
        // Two failed connects: the bridge is up and retrying.
        #expect(bridge.waitForLine(matching: "broker 127.0.0.1:\(brokerPort)") != nil, "\(bridge.lines)")
        #expect(bridge.waitForLine(matching: "broker 127.0.0.1:\(brokerPort)") != nil, "\(bridge.lines)")
        let before = Double(client.fields("status")["elapsed"] ?? "") ?? -1
        #expect(
            waitUntil(timeout: .seconds(5)) {
                let status = client.fields("status")
                return status["state"] == "play" && (Double(status["elapsed"] ?? "") ?? -1) > before + 1
            }, "\(harness.log)")
        #expect(client.command("setvol 20") == ["OK"])
        #expect(client.fields("status")["volume"] == "20")
    }
}
