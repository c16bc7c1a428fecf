// Playback speed: what libsonic's time-stretching costs jukeboxd, per minute of audio (track
// time), against the same queue at 1.0 (no stretcher), runs interleaved.
import Foundation

extension Bench {
    func sectionSpeed() {
        let runs = quick ? 3 : 11
        note(
            "\n== Speed: CPU s per minute of audio at 1.5× beside 1.0×, V2 queue of 5 × 3 min, \(runs) runs, interleaved =="
        )
        let queueDir = "\(material.music)/queue-speed"
        try? mkdirs(queueDir)
        for n in 1...5 where !fileExists("\(queueDir)/\(n).mp3") {
            try? fm.linkItem(atPath: material.v2, toPath: "\(queueDir)/\(n).mp3")
        }
        let minutes = 15.0
        let normal = Side("speed", "jukeboxd at 1.0×", report, enabled: jbEnabled("speed"))
        let fast = Side("speed", "jukeboxd at 1.5×", report, enabled: jukeboxd != nil)
        let dir = "\(work)/cpu-speed"
        for r in 0..<runs {
            normal.attempt { _ = try playQueue(musicDir: queueDir, dir: dir, label: "1.0-\(r + 1)", into: normal) }
            fast.attempt {
                _ = try playQueue(musicDir: queueDir, dir: dir, label: "1.5-\(r + 1)", speed: "1.5", into: fast)
            }
        }
        guard let n = normal.stat.map({ Stat($0.values.map { $0 / minutes }) }),
            let s = fast.stat.map({ Stat($0.values.map { $0 / minutes }) })
        else { return }
        note("jukeboxd V2, a queue of 5 × 3 min at 1.0×: \(n.fmt(3, " s/min")); at 1.5×: \(s.fmt(3, " s/min"))")
        if normal.values.count == fast.values.count {
            let paired = Stat(zip(fast.values, normal.values).map { $0 / $1 })
            note("   paired ratios 1.5×/1.0× (run i against run i): \(paired.fmt(3, "×"))")
        }
        report.add(
            Row(
                section: "speed", metric: "CPU s per min of audio (track time), unpaced, V2 queue at 1.5× (libsonic)",
                jukeboxd: f(s.median, 3), peer: "\(f(n.median, 3)) (jukeboxd at 1.0×)",
                ratio: Report.ratio(s.median, n.median), target: "context", verdict: "info"))
    }
}
