// Section "cards": an NFC/RFID card read (`card ID` on the stdin console, as a reader's
// program would give it; timed from the write of the line's last byte) -> the first sample of
// the card's music at a real-time paced sink (PacedFifoSink, through ALSA's file PCM, as the
// control section). Album A is silence and album B a constant level, so B's first sample is the
// first non-zero one: (1) card B read while A plays (a switch to another album); (2) B taken
// off (paused after the 1 s debounce) and put back (continue). No peer runs here: Phoniebox,
// TonUINO and the like are reported to take seconds.
import Foundation
import Glibc
import JukeboxTestSupport

extension Bench {
    func sectionCards() {
        let rounds = quick ? 6 : 20
        let dir = "\(work)/cards"
        note("\n== cards: card read -> first sample of its music at a paced sink (\(rounds)×) ==")
        guard let jb = jukeboxd else {
            report.error("cards", "no jukeboxd binary (pass --jukeboxd PATH)")
            return
        }
        do {
            let (switches, continues) = try measureCards(jb, dir: dir, rounds: rounds)
            for (metric, stat) in [
                ("card read → first sample of another album (while one plays), p95", switches),
                ("same card back → first sample (continue after a removal), p95", continues),
            ] {
                let p95 = stat.values[min(stat.values.count - 1, stat.values.count * 95 / 100)]
                note("cards: \(metric): \(stat.fmt(1, " ms")), p95 \(f(p95, 1)) ms")
                report.add(
                    Row(
                        section: "cards", metric: metric + " ms", jukeboxd: f(p95, 1),
                        peer: "seconds (Phoniebox, TonUINO: reported)", ratio: "—", target: "≤ 300",
                        verdict: p95 <= 300 ? "PASS" : "FAIL"))
            }
        } catch {
            report.error("cards", "\(error)")
        }
    }

    private func measureCards(_ jb: String, dir: String, rounds: Int) throws -> (Stat, Stat) {
        let musicDir = "\(dir)/music"
        try mkdirs("\(musicDir)/A")
        try mkdirs("\(musicDir)/B")
        try InputLatencyProbe.writeFlatWAV(path: "\(musicDir)/A/silence.wav", seconds: 60, level: 0)
        try InputLatencyProbe.writeFlatWAV(path: "\(musicDir)/B/level.wav", seconds: 60)
        let sink = try PacedFifoSink(bytesPerSecond: 176_400)
        defer { sink.stop() }
        let db = "\(dir)/state/jukebox.sqlite"
        removeDatabase(db)
        try mkdirs("\(dir)/state")
        try DaemonConfig(
            musicDir: musicDir, database: db, device: sink.alsaDevice, pacing: "device", startVolume: 50,
            mode: "repeat-all", onStart: "paused", comment: "written by jukebox-bench (section cards)"
        ).write(to: "\(dir)/jukebox-cards.toml")
        let daemon = try DaemonProc(
            jukeboxd: jb, config: "\(dir)/jukebox-cards.toml", logPath: "\(dir)/jukeboxd-cards.log")
        defer { _ = daemon.stop() }
        // The library is loaded once the scan's result is: then `lsinfo` lists the album.
        let loaded = Clock.seconds() + 30
        while true {
            let from = daemon.process.lines.count
            daemon.send(#"lsinfo "A""#)
            let found = daemon.process.waitForOutputLine(
                from: from, on: .stdout, timeout: .seconds(0.5), where: { $0.contains("A/silence.wav") })
            if found != nil { break }
            guard Clock.seconds() < loaded else { throw BenchError("jukeboxd found no music: see the log in \(dir)") }
        }
        daemon.send(#"card assign A folder "A""#)
        daemon.send(#"card assign B folder "B""#)

        var switches: [Double] = []
        var continues: [Double] = []
        for _ in 0..<rounds {
            daemon.send("card A")
            Clock.sleep(0.5)
            guard let playing = sink.lastArrival(), Double(playing) / 1e9 > Clock.seconds() - 0.1 else {
                throw BenchError("card A: no audio at the sink")
            }
            daemon.send("card none")
            daemon.send("card B")  // another card: a switch at once, the removal of A undone
            let t0 = Clock.seconds()
            switches.append(try firstLevel(after: t0, sink: sink) - t0 * 1000)
            daemon.send("card none")
            Clock.sleep(1.4)  // the debounce (1 s), then paused
            let t1 = Clock.seconds()
            guard (sink.lastArrival().map { Double($0) / 1e9 } ?? 0) < t1 - 0.2 else {
                throw BenchError("card none: the music did not pause")
            }
            daemon.send("card B")
            let t2 = Clock.seconds()
            var first: Double?
            let end = t2 + 5
            while first == nil, Clock.seconds() < end {
                first = sink.firstArrival(after: UInt64(t2 * 1e9)).map { Double($0) / 1e6 }
                if first == nil { Clock.sleep(0.0005) }
            }
            guard let first else { throw BenchError("card B back: no audio within 5 s") }
            continues.append(first - t2 * 1000)
            Clock.sleep(0.3)
            daemon.send("card none")
        }
        return (Stat(switches), Stat(continues))
    }

    /// When (ms, Clock) the first non-zero sample that arrived after `t0` (s) arrived.
    private func firstLevel(after t0: Double, sink: PacedFifoSink) throws -> Double {
        let end = t0 + 5
        while Clock.seconds() < end {
            let log = sink.arrivalLog
            if let start = log.first(where: { Double($0.nanoseconds) / 1e9 >= t0 }) {
                let bytes = sink.bytes
                var offset = start.byteOffset & ~3
                while offset + 1 < bytes.count {
                    if bytes[offset] != 0 || bytes[offset + 1] != 0 {
                        if let at = sink.arrivalTime(ofByte: offset) { return Double(at) / 1e6 }
                    }
                    offset += 4
                }
            }
            Clock.sleep(0.002)
        }
        throw BenchError("no sample of album B arrived within 5 s")
    }
}
