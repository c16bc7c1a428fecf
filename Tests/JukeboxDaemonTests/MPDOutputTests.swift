import Foundation
import Glibc
import JukeboxTestSupport
import Testing

/// Output 0 is the ALSA device: disabling it silences the box while the music's clock runs
/// on (elapsed grows, the next song comes), and the switch survives a restart as MPD's state
/// file keeps it.
@Suite(.serialized) struct MPDOutputTests {
    @Test func aDisabledOutputKeepsTheClockAndSurvivesARestart() throws {
        let (harness, port) = try MPDDaemonTests.start()
        let client = try MPDTestClient(port: port)
        #expect(client.fields("outputs")["outputenabled"] == "1")
        #expect(client.command("disableoutput 0") == ["OK"])
        #expect(harness.log.contains("output 0 (null) disabled"))
        #expect(client.fields("outputs")["outputenabled"] == "0")
        #expect(client.command("seekcur 0") == ["OK"])
        #expect(
            waitUntil(timeout: .seconds(5)) {
                let status = client.fields("status")
                return status["state"] == "play" && (status["elapsed"].flatMap(Double.init) ?? 0) > 1
            }, "\(client.fields("status"))")
        MPDDaemonTests.stop(harness)

        let process = try harness.start()
        #expect(process.waitForLine(matching: "MPD protocol on", on: .stderr) != nil, "\(harness.log)")
        let again = try MPDTestClient(port: port)
        #expect(again.fields("outputs")["outputenabled"] == "0")
        #expect(again.command("toggleoutput 0") == ["OK"])
        #expect(again.fields("outputs")["outputenabled"] == "1")
        MPDDaemonTests.stop(harness)
    }
}
