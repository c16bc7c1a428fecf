import JukeboxTestSupport
import Testing

/// Edge → audible change through the real daemon, measured at a paced virtual DAC
/// (`InputLatencyProbe`; the benchmark's `input` section runs more samples).
@Suite(.serialized) struct ControlsLatencyTests {
    @Test func aKnobClickAndAPressReachTheDACWithinAFewPeriods() throws {
        let directory = try TemporaryDirectory(prefix: "input-latency")
        defer { directory.remove() }
        let result = try InputLatencyProbe.run(
            jukeboxd: Jukeboxd.binary, directory: directory.path, volumeSamples: 8, pauseSamples: 4)
        let volumeP95 = InputLatencyProbe.percentile(result.volumeMs, 95)
        let pauseP95 = InputLatencyProbe.percentile(result.pauseMs, 95)
        print("edge → changed audio beyond the DAC's pipe: volume \(result.volumeMs) ms, pause \(result.pauseMs) ms")
        #expect(result.volumeMs.count == 8 && result.pauseMs.count == 4)
        // The target is 15 ms at p95 (10 ms periods); a shared, loaded test machine gets slack.
        #expect(volumeP95 <= 40, "\(result.volumeMs)")
        #expect(pauseP95 <= 40, "\(result.pauseMs)")
        #expect(result.volumeMs.allSatisfy { $0 > -5 }, "a change cannot come before the edge")
    }
}
