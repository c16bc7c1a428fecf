// Section "web": jukebox-web beside jukeboxd on the benchmark's library (Tests/Tools/bench-web.py
// measures): the web process's RSS idle and at its peak during a large upload, the first page's
// bytes, a player action's round trip, an unknown card's read -> the page's `cards` event, upload
// throughput to disk, and the daemon's RSS before and after. The peers' figures are their
// published ones (shared/reference/peers-web-home.md): myMPD's first load ~0.3 MB, Volumio's
// Node ~22 % of a Pi Zero W's 512 MB (~110 MB) idle, ESPuino's upload ~650 kB/s.
import Foundation
import Glibc
import JukeboxTestSupport

extension Bench {
    func sectionWeb() {
        let dir = "\(work)/web"
        let web = "\(FileManager.default.currentDirectoryPath)/.build/release/jukebox-web"
        note("\n== web: jukebox-web beside jukeboxd ==")
        guard let jb = jukeboxd else {
            report.error("web", "no jukeboxd binary (pass --jukeboxd PATH)")
            return
        }
        guard access(web, X_OK) == 0 else {
            report.error("web", "\(web) is missing: swift build -c release --product jukebox-web")
            return
        }
        do {
            let figures = try measureWeb(jb, web: web, dir: dir)
            func value(_ key: String) -> Double { figures[key] ?? .nan }
            let rows: [(String, String, String, String, String, Bool)] = [
                (
                    "web process RSS idle, one page open MiB", f(value("rss_idle_kib") / 1024, 1),
                    "~110 (Volumio's Node, 22 % of a Zero W)", "≤ 16", "", value("rss_idle_kib") / 1024 <= 16
                ),
                (
                    "web process peak RSS during a \(quick ? 50 : 200) MiB upload MiB",
                    f(value("upload_peak_rss_kib") / 1024, 1), "—", "≤ 16", "",
                    value("upload_peak_rss_kib") / 1024 <= 16
                ),
                (
                    "first page load (/, app.css, app.js) gzip KB", f(value("first_page_gzip") / 1000, 1),
                    "~300 (myMPD)", "≤ 100",
                    f(value("first_page_gzip") / 300_000, 3) + "×", value("first_page_gzip") <= 100_000
                ),
                (
                    "action round trip p95 ms", f(value("action_ms_p95"), 1),
                    "> 1,000 per tap (moOde, Zero 2 W; reported)", "≤ 100", "", value("action_ms_p95") <= 100
                ),
                (
                    "unknown card read → page event p95 ms", f(value("card_ms_p95"), 1), "—", "≤ 500", "",
                    value("card_ms_p95") <= 500
                ),
                (
                    "upload to disk MiB/s", f(value("upload_mib_s"), 1), "~0.65 (ESPuino, Wi-Fi)", "—",
                    f(value("upload_mib_s") / 0.635, 0) + "×", true
                ),
                (
                    "daemon RSS before → after the web run MiB",
                    f(value("daemon_rss_kib_before") / 1024, 1) + " → " + f(value("daemon_rss_kib_after") / 1024, 1),
                    "—",
                    "unchanged", "", value("daemon_rss_kib_after") <= value("daemon_rss_kib_before") + 1024
                ),
            ]
            for (metric, ours, peer, target, ratio, pass) in rows {
                report.add(
                    Row(
                        section: "web", metric: metric, jukeboxd: ours, peer: peer, ratio: ratio.isEmpty ? "—" : ratio,
                        target: target, verdict: target == "—" ? "—" : (pass ? "PASS" : "FAIL")))
            }
            note("web: first page \(Int(value("first_page_bytes"))) B, \(Int(value("first_page_gzip"))) B gzip -9")
            note(
                "web: action p50 \(f(value("action_ms_p50"), 2)) ms, card → event p50 \(f(value("card_ms_p50"), 2)) ms")
        } catch {
            report.error("web", "\(error)")
        }
    }

    private func measureWeb(_ jb: String, web: String, dir: String) throws -> [String: Double] {
        try? FileManager.default.removeItem(atPath: dir)
        try mkdirs("\(dir)/state")
        let music = "\(dir)/music"
        try mkdirs(music)
        // A copy of a few albums of the library: the upload writes beside them.
        let albums = try FileManager.default.contentsOfDirectory(atPath: material.library).sorted().prefix(4)
        for album in albums {
            try FileManager.default.copyItem(atPath: "\(material.library)/\(album)", toPath: "\(music)/\(album)")
        }
        let (mpdPort, webPort) = (freeLoopbackPort(), freeLoopbackPort())
        try DaemonConfig(
            musicDir: music, database: "\(dir)/state/jukebox.sqlite", mode: "repeat-all", onStart: "play",
            extra:
                "[network]\naddress = \"127.0.0.1\"\nport = \(mpdPort)\n\n[web]\naddress = \"127.0.0.1\"\nport = \(webPort)\n",
            comment: "written by jukebox-bench (section web)"
        ).write(to: "\(dir)/jukebox-web.toml")
        let daemon = try DaemonProc(jukeboxd: jb, config: "\(dir)/jukebox-web.toml", logPath: "\(dir)/jukeboxd.log")
        defer { _ = daemon.stop() }
        guard daemon.waitLog(timeout: 30, { $0.contains("MPD protocol on") }) != nil else {
            throw BenchError("jukeboxd did not listen: see \(dir)/jukeboxd.log")
        }
        let server = try DaemonProcess(
            executable: web, arguments: ["--config", "\(dir)/jukebox-web.toml"], logPath: "\(dir)/jukebox-web.log")
        ChildRegistry.shared.add(server.pid)
        defer {
            server.kill(SIGTERM)
            _ = server.waitForExit(timeout: .seconds(5))
        }
        guard server.waitForLine(matching: "web page on http://", timeout: .seconds(30)) != nil else {
            throw BenchError("jukebox-web did not start: see \(dir)/jukebox-web.log")
        }
        let code = server.lines.last { $0.text.contains("setup code ") }.map { String($0.text.suffix(6)) } ?? ""
        let (exit, output) = try capture(
            [
                "/usr/bin/python3", "Tests/Tools/bench-web.py", "--url", "http://127.0.0.1:\(webPort)",
                "--mpd-port", "\(mpdPort)", "--web-pid", "\(server.pid)", "--daemon-pid", "\(daemon.pid)",
                "--setup-code", code, "--folder", "Uploads", "--upload-mb", quick ? "50" : "200",
                "--rounds", quick ? "20" : "50",
            ], stderr: .descriptor(1))
        guard exit.termination == .exited(0) else {
            throw BenchError("bench-web.py failed (\(exit.termination)): \(output)")
        }
        var figures: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let number = Double(parts[1]) { figures[String(parts[0])] = number }
        }
        return figures
    }
}
