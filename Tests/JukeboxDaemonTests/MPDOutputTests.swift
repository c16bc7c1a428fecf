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
        // The daemon logs after it answers: wait for the line rather than race it.
        #expect(waitUntil(timeout: .seconds(5)) { harness.log.contains("output 0 (null) disabled") }, "\(harness.log)")
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

    /// python-mpd2's output calls (its Debian version has no `outputset`), and a second
    /// client's `idle output` woken by each switch.
    @Test(.enabled(if: MPDDaemonTests.hasPythonMPD)) func pythonMPD2SwitchesTheOutput() throws {
        let (harness, port) = try MPDDaemonTests.start()
        defer { MPDDaemonTests.stop(harness) }
        try MPDDaemonTests.expectPythonPasses(
            """
            import sys, threading
            import mpd

            port = int(sys.argv[1])
            c = mpd.MPDClient(); c.timeout = 10; c.connect("127.0.0.1", port)
            w = mpd.MPDClient(); w.timeout = 10; w.connect("127.0.0.1", port)
            assert c.outputs() == [{"outputid": "0", "outputname": "null", "plugin": "alsa", "outputenabled": "1"}]
            for switch, enabled in [(c.disableoutput, "0"), (c.toggleoutput, "1"), (c.toggleoutput, "0"),
                                    (c.enableoutput, "1")]:
                woken = []
                waiter = threading.Thread(target=lambda: woken.append(w.idle("output")))
                waiter.start()
                switch(0)
                waiter.join(10)
                assert woken == [["output"]], woken
                assert c.outputs()[0]["outputenabled"] == enabled
            try:
                c.enableoutput(1); assert False
            except mpd.CommandError as e:
                assert "No such audio output" in str(e), e
            assert c.status()["state"] == "play"
            print("PASS")
            """, harness, port: port)
    }
}
