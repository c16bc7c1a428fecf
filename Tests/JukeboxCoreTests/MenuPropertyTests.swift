import PropertyBased
import Testing

@testable import JukeboxCore

/// One thing done to the menu, `gapMs` after the step before.
struct MenuStep: Sendable, Equatable, CustomStringConvertible {
    var event: MenuEvent?
    /// Instead of an event: the catalog replaced by `catalogs[index]`.
    var catalog: Int?
    var gapMs: Int64

    /// Turns and moves as the knob and `knob ±N` make them, and as no caller should.
    static let amounts = [1, -1, 2, -3, 5, -12, 60, -400, Int.max, Int.min, 1 << 40]

    init(event: MenuEvent, gapMs: Int64) {
        self.event = event
        self.gapMs = gapMs
    }

    init(kind: Int, _ a: Int, gap: Int) {
        let amount = Self.amounts[a % Self.amounts.count]
        // Mostly knob speed (fast clicks accelerate), sometimes a pause past the timeout.
        gapMs = gap < 40 ? Int64(gap) : Int64(gap - 40) * 2000
        switch kind {
        case 0: event = .open
        case 1, 2, 3: event = .turn(a % 4 == 0 ? amount : (a % 2 == 0 ? 1 : -1))
        case 4: event = .move(amount)
        case 5, 6: event = .press
        case 7: event = .back
        case 8: event = .playNext
        case 9: event = .tick
        case 10: event = .close
        default: catalog = a % MenuPropertyTests.catalogs.count
        }
    }

    static let generator = zip(Gen.int(in: 0...11), Gen.int(in: 0...40), Gen.int(in: 0...56))
        .map { MenuStep(kind: $0, $1, gap: $2) }

    var description: String {
        let what = event.map { "\($0)" } ?? "catalog \(catalog ?? 0)"
        return "+\(gapMs) ms \(what)"
    }
}

/// The menu under any sequence of turns, presses and catalog changes: it stays within the
/// catalogue, asks only for what is in it, and closes on the idle timeout.
@Suite struct MenuPropertyTests {
    static let cases = 1500

    /// Sixty artists with ten initials (letter jumps), folders, favourites, playlists,
    /// recently played, podcasts; a smaller one; an empty one.
    static let catalogs: [MenuCatalog] = {
        var tracks: [TrackInfo] = []
        for artist in 0..<60 {
            let name = "\(Array("ABCDEFGHIJ")[artist % 10]) band \(artist)"
            for track in 1...2 {
                tracks.append(
                    TrackInfo(
                        id: TrackID(tracks.count + 1), path: "\(name)/album/\(track).mp3", title: "Song \(track)",
                        artist: name, album: "Album of \(name)", trackNumber: track))
            }
        }
        var full = MenuCatalog(tracks: tracks)
        full.setPlaylists(["road trip", "sleep"])
        full.setFavourites([tracks[3].path, tracks[40].path])
        full.recent.record(.init(source: .folder(path: "A band 0"), trackPath: tracks[1].path, positionMs: 5000))
        full.podcasts = [.init(title: "News", episodes: [(id: 7, title: "Monday"), (id: 8, title: "Tuesday")])]
        let small = MenuCatalog(tracks: Array(tracks.prefix(5)))
        return [full, small, MenuCatalog(tracks: [])]
    }()

    /// Whether `place` names a list of `catalog`.
    static func exists(_ place: Menu.Place, in catalog: MenuCatalog) -> Bool {
        switch place {
        case .folder(let i): catalog.folders.indices.contains(i)
        case .artist(let i): catalog.artists.indices.contains(i)
        case .album(let i): catalog.albums.indices.contains(i)
        case .podcast(let i): catalog.podcasts.indices.contains(i)
        default: true
        }
    }

    /// Whether what `action` asks for is in `catalog`.
    static func inCatalog(_ action: MenuAction, _ catalog: MenuCatalog) -> Bool {
        switch action {
        case .play(let source, let path, _), .playNext(let source, let path):
            if let path, catalog.track(at: path) == nil { return false }
            if case .playlist(let name) = source { return catalog.playlists.contains(name) }
            return source == .favourites || catalog.tracks(of: source) != nil
        case .playEpisode(let id): return catalog.podcasts.contains { $0.episodes.contains { $0.id == id } }
        default: return true
        }
    }

    static func check(_ steps: [MenuStep], timeoutMs: Int64) -> String? {
        var menu = Menu(catalog: catalogs[0])
        menu.timeoutMs = timeoutMs
        var now = Instant.zero
        var lastActivity = Instant.zero
        for (number, step) in steps.enumerated() {
            now = now.adding(milliseconds: step.gapMs)
            let at = "after step \(number) (\(step))"
            guard let event = step.event else {
                menu.replaceCatalog(catalogs[step.catalog ?? 0])
                continue
            }
            let wasOpen = menu.isOpen
            let actions = menu.handle(event, now: now)
            if event == .open || wasOpen && event != .tick { lastActivity = now }
            if let wrong = actions.first(where: { !inCatalog($0, menu.catalog) }) { return "\(at): \(wrong)" }
            if event == .tick, now >= lastActivity.adding(milliseconds: timeoutMs), menu.isOpen {
                return "\(at): open \(now.milliseconds(since: lastActivity)) ms after the last activity"
            }
            guard let place = menu.place, let highlighted = menu.highlighted else { continue }
            if !exists(place, in: menu.catalog) { return "\(at): \(place) is not in the catalogue" }
            let count = menu.count(place)
            if !(0..<max(count, 1)).contains(highlighted) { return "\(at): entry \(highlighted) of \(count)" }
            guard let deadline = menu.nextDeadline, deadline <= lastActivity.adding(milliseconds: timeoutMs) else {
                return "\(at): no deadline by the timeout"
            }
            guard let page = menu.page(rows: 1 + number % 4, now: now), page.rows.count <= 1 + number % 4 else {
                return "\(at): no page"
            }
        }
        return nil
    }

    /// What the property found: a turn of 2^40 clicks looped 2^40 times (the run hung: a
    /// stack sample showed `Menu.step`); `abs(Int.min)` and `highlighted + Int.max` trapped,
    /// and so did a lyrics nudge of `Int.max` clicks (× 100 ms). A hang or a trap ends the
    /// run before it can shrink, so these are the shortest sequences that reach each.
    static let counterexamples: [[MenuEvent]] = [
        [.open, .turn(1 << 40)],
        [.open, .turn(Int.min)],
        [.open, .turn(1), .move(Int.max)],
        [.open, .move(Int.min)],
        [.open, .move(7), .press, .move(1), .press, .turn(Int.max)],
        [.open, .move(7), .press, .move(1), .press, .move(Int.min)],
    ]

    @Test(arguments: counterexamples)
    func counterexample(events: [MenuEvent]) {
        let steps = events.map { MenuStep(event: $0, gapMs: 10) }
        #expect(Self.check(steps, timeoutMs: 30_000) == nil)
        var menu = Menu(catalog: Self.catalogs[0])
        for event in events.dropLast() { _ = menu.handle(event, now: .zero) }
        if menu.place == .lyricsOffset, case .turn = events.last {
            #expect(menu.handle(events[events.count - 1], now: .zero) == [.nudgeLyrics(60_000)])
        }
    }

    @Test func anySequenceStaysWithinTheCatalogueAndClosesOnTimeout() async {
        var ran = 0
        await propertyCheck(
            count: Self.cases, input: MenuStep.generator.array(of: 0...60), Gen.int64(in: 1000...40_000)
        ) { steps, timeoutMs in
            ran += 1
            let problem = Self.check(steps, timeoutMs: timeoutMs)
            #expect(problem == nil, "\(problem ?? "")")
        }
        #expect(ran >= Self.cases)
    }
}
