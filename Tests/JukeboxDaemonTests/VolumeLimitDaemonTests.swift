import JukeboxTestSupport
import Testing

/// The volume limits hold on every path into the real daemon: knob turns, the stdin
/// console's `volume`, MPD's `setvol` and `volume`; MPD clients see the held value.
@Suite(.serialized) struct VolumeLimitDaemonTests {
    @Test func theLimitsHoldOnEveryPath() throws {
        let (harness, port) = try MPDDaemonTests.start(
            startVolume: 50, maxVolume: 60, audioExtra: "min_volume = 10\nvolume_locked_at_rest = true")
        defer { MPDDaemonTests.stop(harness) }
        let client = try MPDTestClient(port: port)
        #expect(client.fields("status")["volume"] == "50")

        // The default [encoder] turns 2 % a click: +20 clicks would be 90.
        harness.send("knob +20")
        #expect(try InjectedInputTests.waitFor("volume", "60", port: port) == "60", "\(harness.log)")
        harness.send("knob -40")
        #expect(try InjectedInputTests.waitFor("volume", "10", port: port) == "10", "\(harness.log)")
        harness.send("volume 100")
        #expect(try InjectedInputTests.waitFor("volume", "60", port: port) == "60", "\(harness.log)")
        harness.send("volume 0")
        #expect(try InjectedInputTests.waitFor("volume", "10", port: port) == "10", "\(harness.log)")
        #expect(client.command("setvol 95") == ["OK"])
        #expect(client.fields("status")["volume"] == "60")
        #expect(client.command("volume -70") == ["OK"])
        #expect(client.fields("status")["volume"] == "10")
        #expect(client.command("setvol 30") == ["OK"])

        // At rest nothing moves it, whichever path.
        #expect(client.command("pause 1") == ["OK"])
        harness.send("knob +10")
        harness.send("volume 55")
        #expect(client.command("setvol 50") == ["OK"])
        #expect(client.command("knob +5") == ["OK"])
        #expect(
            harness.process?.waitForOutputLine(matching: "volume: 30 (locked while nothing plays)", on: .stdout) != nil,
            "\(harness.log)")
        #expect(client.fields("status")["volume"] == "30")
        #expect(client.command("pause 0") == ["OK"])
        #expect(client.command("setvol 40") == ["OK"])
        #expect(client.fields("status")["volume"] == "40")
    }

    @Test func headphoneAndPowerLinesThatCannotBeOpenedAreOneMessageEach() throws {
        let (harness, port) = try MPDDaemonTests.start(
            extra: "[sleep]\nhold_chip = \"none-jukebox-test\"\nhold_line = 4", startVolume: 50, maxVolume: 60,
            audioExtra: "headphone_chip = \"none-jukebox-test\"\nheadphone_detect = 6")
        defer { MPDDaemonTests.stop(harness) }
        #expect(harness.log.contains("headphone detect: "), "\(harness.log)")
        #expect(harness.log.contains("power hold line: "), "\(harness.log)")
        #expect(harness.log.contains("none-jukebox-test"), "\(harness.log)")
        #expect(try MPDTestClient(port: port).command("setvol 90") == ["OK"])
        #expect(try MPDTestClient(port: port).fields("status")["volume"] == "60")
    }
}
