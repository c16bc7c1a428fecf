// Section 8: input edge → audible change, through jukeboxd's input path (the hidden
// --input-replay-fifo source, fed like GPIO lines with bounce) to a paced virtual DAC that
// takes one period per period time (InputLatencyProbe).
import Foundation
import JukeboxTestSupport

extension Bench {
    func sectionInput() {
        let (volumeRuns, pauseRuns) = quick ? (20, 10) : (60, 20)
        note(
            "\n== 8. input edge -> changed audio at the DAC (beyond the DAC's own pipe), \(volumeRuns) knob clicks, \(pauseRuns) presses =="
        )
        guard jbEnabled("input"), let jb = jukeboxd else { return }
        let dir = "\(work)/input-latency"
        removeItem(dir)
        do {
            try mkdirs(dir)
            let result = try InputLatencyProbe.run(
                jukeboxd: jb, directory: dir, volumeSamples: volumeRuns, pauseSamples: pauseRuns)
            for (name, values) in [
                ("knob click -> new volume", result.volumeMs), ("switch press -> pause", result.pauseMs),
            ] {
                let p95 = InputLatencyProbe.percentile(values, 95)
                note("\(name): \(Stat(values).fmt(1, " ms")), p95 \(f(p95, 1)) ms")
                report.add(
                    Row(
                        section: "input", metric: "\(name), p95 (period 10 ms, buffer 40 ms)",
                        jukeboxd: "\(f(p95, 1)) ms", peer: "—", ratio: "—", target: "≤ 15 ms",
                        verdict: p95 <= 15 ? "PASS" : "FAIL"))
            }
        } catch {
            report.error("input", "\(error)")
        }
    }
}
