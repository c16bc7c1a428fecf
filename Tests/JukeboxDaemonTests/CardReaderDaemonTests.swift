import JukeboxTestSupport
import Testing

/// A PN532 configured in jukeboxd's file reaches the control loop: the daemon, not a test
/// harness, opens the pty, wakes the simulated reader and gets the card's read and removal.
@Suite struct CardReaderDaemonTests {
    @Test func aConfiguredPN532ReadsIntoTheControlLoop() throws {
        let simulator = try PN532Simulator()
        let reader = """
            [card_reader.lid]
            type = "pn532"
            device = "\(simulator.slavePath)"
            poll_ms = 50
            """
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks, configExtra: reader, onStart: "paused")
        let process = try harness.start()
        func logged(_ text: String) -> Bool {
            waitUntil(timeout: .seconds(15)) {
                simulator.pump()
                return process.lines.contains { $0.text.contains(text) }
            }
        }
        simulator.chip.card = [0x04, 0x5A, 0x3C, 0x12, 0xB2, 0x6F, 0x80]
        #expect(logged("card reader lid: card 045A3C12B26F80"))
        simulator.chip.card = nil
        #expect(logged("card reader lid: card none"))
        #expect(simulator.chip.wakeUps == 1)
    }
}
