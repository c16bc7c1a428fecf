import JukeboxCore
import Testing

@Suite struct RecentlyPlayedTests {
    private func entry(_ source: PlaySource, _ path: String = "a.mp3", at ms: Int64 = 0) -> RecentlyPlayed.Entry {
        RecentlyPlayed.Entry(source: source, trackPath: path, positionMs: ms)
    }

    @Test func newestFirstAndEachSourceOnce() {
        var recent = RecentlyPlayed()
        recent.record(entry(.folder(path: "Jazz")))
        recent.record(entry(.album(artist: "A", album: "B"), "A/B/1.mp3", at: 5_000))
        recent.record(entry(.folder(path: "Jazz"), "Jazz/2.mp3", at: 7_000))
        #expect(recent.entries.map(\.source) == [.folder(path: "Jazz"), .album(artist: "A", album: "B")])
        #expect(recent.entries[0].trackPath == "Jazz/2.mp3")
        #expect(recent.entries[0].positionMs == 7_000)
    }

    @Test func keepsTheLastFifteen() {
        var recent = RecentlyPlayed()
        for index in 0..<20 { recent.record(entry(.playlist(name: "p\(index)"))) }
        #expect(recent.entries.count == RecentlyPlayed.limit)
        #expect(recent.entries.first?.source == .playlist(name: "p19"))
        #expect(recent.entries.last?.source == .playlist(name: "p5"))
    }

    @Test func storedEntriesKeepTheirOrder() {
        let stored = [entry(.favourites), entry(.folder(path: "")), entry(.favourites, "old.mp3")]
        let recent = RecentlyPlayed(entries: stored)
        #expect(recent.entries.map(\.source) == [.favourites, .folder(path: "")])
        #expect(recent.entries[0].trackPath == "a.mp3")
    }
}
