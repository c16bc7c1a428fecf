import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import Testing

/// The podcasts and episodes tables (schema 9) on a real database file.
@Suite struct PodcastRecordsTests {
    @Test func subscriptionsFeedsAndWhatTheBoxDidWithEpisodes() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try LibraryStore.open(path: dir.file("jukebox.sqlite"), logger: quietLogger)
        #expect(try store.subscribe(url: "http://a/feed", fromConfig: false))
        #expect(try !store.subscribe(url: "http://a/feed", fromConfig: true))
        let podcast = try #require(store.subscriptions().first)
        #expect(podcast.fromConfig && podcast.title == "http://a/feed")
        let feed = Feed(
            title: "A",
            episodes: [
                Episode(guid: "new", title: "New", published: 200, enclosureURL: "http://a/new.mp3"),
                Episode(guid: "old", title: "Old", published: 100, enclosureURL: "http://a/old.mp3"),
                Episode(guid: "undated", title: "Undated", published: nil, enclosureURL: "http://a/u.mp3"),
            ])
        try store.saveFeed(feed, podcastID: podcast.id)
        var old = try #require(store.episodes(of: podcast.id).first { $0.episode.guid == "old" })
        old.state = .complete
        old.file = old.fileName
        old.durableBytes = 1000
        old.positionMs = 5000
        try store.saveEpisode(old, durable: true)
        // Read again with a new title: the feed's facts change, what the box did stays.
        var renamed = feed
        renamed.title = ""
        renamed.episodes[1].title = "Old, renamed"
        try store.saveFeed(renamed, podcastID: podcast.id)
        #expect(try store.subscriptions().first?.title == "A")
        let episodes = try store.episodes(of: podcast.id)
        #expect(episodes.map(\.episode.title) == ["New", "Old, renamed", "Undated"])
        #expect(episodes[1].state == .complete && episodes[1].positionMs == 5000 && episodes[1].file == "\(old.id).mp3")
        #expect(try store.episodes(of: nil).map(\.id) == [old.id])
        try store.saveFeedProblem("not a feed", podcastID: podcast.id)
        #expect(try store.subscriptions().first?.problem == "not a feed")
        try store.forgetDownloads(keeping: old.id)
        #expect(try store.episodes(of: nil).map(\.id) == [old.id])
        try store.forgetDownloads(keeping: nil)
        #expect(try store.episodes(of: nil).isEmpty)
        #expect(try store.episodes(of: podcast.id)[1].positionMs == 5000)
        try store.unsubscribe(id: podcast.id)
        #expect(try store.subscriptions().isEmpty && store.episodes(of: podcast.id).isEmpty)
    }
}
