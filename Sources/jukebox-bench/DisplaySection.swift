// Section "display": the CPU the display costs per minute of playback, measured by
// `jukeboxd render --benchmark-seconds 60` (the control loop's refresh at 20 Hz: layout,
// render, changed pixels to a file-backed framebuffer), for a 320x240 RGB565 TFT and a
// 480x320 XRGB8888 panel. To run it, add "display" to `sectionNames` and
// `case "display": bench.sectionDisplay()` to the dispatch in JukeboxBench.swift.
import Foundation
import Glibc
import JukeboxTestSupport

extension Bench {
    func sectionDisplay() {
        print("\n== display ==")
        for (size, bpp, target) in [("320x240", 16, 600.0), ("480x320", 32, 1200.0)] {
            let result: (Double, String)? = jbSide("display") { jb in
                let (exit, out) = try capture(
                    [jb, "render", "--size", size, "--bpp", "\(bpp)", "--benchmark-seconds", quick ? "10" : "60"])
                guard exit.status == 0, let line = out.split(separator: "\n").first,
                    let range = line.range(of: " ms CPU per minute"),
                    let value = Double(line[..<range.lowerBound].split(separator: " ").last ?? "")
                else { throw BenchError("jukeboxd render --benchmark-seconds failed: \(out)") }
                return (value, String(line))
            }
            if let (_, line) = result { note(line) }
            report.add(
                Row(
                    section: "display", metric: "display CPU ms per min of playback, \(size) \(bpp) bpp, 20 Hz",
                    jukeboxd: result.map { f($0.0, 0) } ?? "error", peer: "—", ratio: "—",
                    target: "≤ \(Int(target)) (1%)",
                    verdict: result.map { $0.0 <= target ? "PASS" : "FAIL" } ?? "ERROR"))
        }
    }
}
