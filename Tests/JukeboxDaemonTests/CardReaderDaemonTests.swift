import JukeboxTestSupport
import LinuxSupport
import Testing

/// A PN532 configured in jukeboxd's file drives the cards: the daemon, not a test harness,
/// opens the pty, wakes the simulated reader, and its reads and removals go through the same
/// debounce and place-to-play as `card ID` / `card none`.
@Suite(.serialized) struct CardReaderDaemonTests {
    @Test func aCardOnAPN532PlaysAndAFlickerDoesNotPause() throws {
        let simulator = try PN532Simulator()
        let port = freeLoopbackPort()
        let extra = """
            [network]
            port = \(port)

            [card_reader.lid]
            type = "pn532"
            device = "\(simulator.slavePath)"
            poll_ms = 50
            """
        let harness = try DaemonHarness(tracks: [], configExtra: extra, onStart: "paused")
        try MenuEndToEndTests.writeLibrary(in: harness.musicDir)
        let process = try harness.start()
        defer { MPDDaemonTests.stop(harness) }
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: port)
        #expect(waitUntil(timeout: .seconds(10)) { client.command("lsinfo \"Alpha/First\"").count > 1 })
        #expect(
            client.command(#"card assign deadbeef folder "Alpha/First""#) == [
                #"card: DEADBEEF folder "Alpha/First""#, "OK",
            ])

        /// Waits (pumping the reader) until `condition`.
        func pumping(_ timeout: Duration = .seconds(5), until condition: () -> Bool) -> Bool {
            waitUntil(timeout: timeout, pollingEvery: .milliseconds(5)) {
                simulator.pump()
                return condition()
            }
        }
        func state() -> String? { client.fields("status")["state"] }

        simulator.chip.card = [0xDE, 0xAD, 0xBE, 0xEF]
        #expect(
            pumping { state() == "play" && client.fields("currentsong")["file"]?.hasPrefix("Alpha/First/") == true },
            "\(harness.log)")
        // The card lost for 500 ms (boards lose one for 300-800 ms) is no removal.
        simulator.chip.card = nil
        #expect(pumping { process.lines.contains { $0.text.contains("card reader lid: card none") } })
        let gone = MonotonicClock.nanoseconds()
        var states: Set<String> = []
        _ = pumping(.milliseconds(500)) {
            states.insert(state() ?? "?")
            return false
        }
        simulator.chip.card = [0xDE, 0xAD, 0xBE, 0xEF]
        _ = pumping(.milliseconds(1500)) {
            states.insert(state() ?? "?")
            return false
        }
        #expect(states == ["play"], "flicker of \(seconds(from: gone, to: MonotonicClock.nanoseconds())) s")
        // Taken off for good: paused.
        simulator.chip.card = nil
        #expect(pumping { state() == "pause" }, "\(harness.log)")
        #expect(simulator.chip.wakeUps == 1)
    }
}
