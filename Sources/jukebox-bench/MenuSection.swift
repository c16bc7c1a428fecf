// Section "menu": the knob's menu on a generated library of 10,000 tracks by 1,000 artists
// (2 albums of 5 tracks each, in artist/album folders), in this process (the same core and
// display code jukeboxd runs): building the catalog (at start and after each scan), and one
// knob step (the menu's move plus the screen's page: a 16x2 LCD's rows, and the 320x240
// framebuffer's pixels drawn off-screen), against one display frame (50 ms at 20 Hz).
import Foundation
import JukeboxCore
import JukeboxDisplay
import LinuxSupport

extension Bench {
    func sectionMenu() {
        print("\n== menu ==")
        var tracks: [TrackInfo] = []
        for artist in 0..<1000 {
            for album in 0..<2 {
                for number in 1...5 {
                    tracks.append(
                        TrackInfo(
                            id: TrackID(tracks.count + 1), path: "Artist \(artist)/Album \(album)/\(number) Song.mp3",
                            title: "Song \(number)", artist: "Artist \(artist)", album: "Album \(album) by \(artist)",
                            trackNumber: number))
                }
            }
        }
        var builds: [Double] = []
        var catalog = MenuCatalog(tracks: [])
        for _ in 0..<(quick ? 3 : 7) {
            let start = MonotonicClock.nanoseconds()
            catalog = MenuCatalog(tracks: tracks)
            builds.append(Double(MonotonicClock.nanoseconds() - start) / 1e6)
        }
        builds.sort()
        let buildMs = builds[builds.count / 2]
        note(
            "menu: catalog of \(catalog.tracks.count) tracks, \(catalog.artists.count) artists, \(catalog.albums.count) albums: median \(f(buildMs, 1)) ms of \(builds.count) builds"
        )

        let steps = quick ? 2000 : 10_000
        let font = BitmapFont.builtin()
        let pixels = PixelMenu(width: 320, height: 240)
        var canvas = PixelCanvas(width: 320, height: 240)
        for (name, listIndex, spin) in [("Artists, slow clicks", 1, false), ("Albums A–Z, a fast spin", 2, true)] {
            var menu = Menu(catalog: catalog)
            var now = Instant.zero
            _ = menu.handle(.open, now: now)
            _ = menu.handle(.move(listIndex), now: now)
            _ = menu.handle(.press, now: now)
            var lcd: [Double] = []
            var framebuffer: [Double] = []
            for step in 0..<steps {
                // Back and forth through the list: 500 clicks one way, then the other.
                let direction = (step / 500) % 2 == 0 ? 1 : -1
                now = now + (spin ? 10 : 100)
                let start = MonotonicClock.nanoseconds()
                _ = menu.handle(.turn(direction), now: now)
                let rows = menu.page(rows: 1, now: now)?.frame(columns: 16, rows: 2).rows
                let middle = MonotonicClock.nanoseconds()
                if let page = menu.page(rows: pixels.rows, now: now) { pixels.render(page, font: font, into: &canvas) }
                let end = MonotonicClock.nanoseconds()
                precondition(rows?.count == 2)
                lcd.append(Double(middle - start) / 1e3)
                framebuffer.append(Double(end - start) / 1e3)
            }
            for (display, samples) in [("16x2 LCD rows", lcd), ("320x240 pixels", framebuffer)] {
                let sorted = samples.sorted()
                let p99 = sorted[sorted.count * 99 / 100]
                let mean = samples.reduce(0, +) / Double(samples.count)
                note(
                    "menu: \(name), \(display): mean \(f(mean, 1)) µs, p99 \(f(p99, 1)) µs, max \(f(sorted.last!, 1)) µs"
                )
                report.add(
                    Row(
                        section: "menu", metric: "knob step (\(name)) + \(display), p99 µs, 10k tracks",
                        jukeboxd: f(p99, 1), peer: "50000 (one frame at 20 Hz)", ratio: f(p99 / 50_000, 4),
                        target: "≤ 50000", verdict: p99 <= 50_000 ? "PASS" : "FAIL"))
            }
        }
        report.add(
            Row(
                section: "menu", metric: "menu catalog build, ms, 10k tracks / 1k artists", jukeboxd: f(buildMs, 1),
                peer: "—", ratio: "—", target: "at start and after a scan", verdict: "—"))
    }
}
