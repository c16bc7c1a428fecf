import TOML
import Testing

@testable import JukeboxCore

@Suite struct FeedDateTests {
    @Test(arguments: [
        ("Wed, 02 Oct 2002 13:00:00 GMT", Int64(1_033_563_600)), ("Wed, 02 Oct 2002 15:00:00 +0200", 1_033_563_600),
        ("02 Oct 2002 09:00:00 EDT", 1_033_563_600), ("Wed, 2 Oct 02 13:00 GMT", 1_033_563_600),
        ("Wed, 02 October 2002 13:00:00", 1_033_563_600), ("2002-10-02T13:00:00Z", 1_033_563_600),
        ("2002-10-02T14:30:00.250+01:30", 1_033_563_600), ("2002-10-02", 1_033_516_800),
        ("Thu, 29 Feb 2024 00:00:00 GMT", 1_709_164_800),
    ])
    func parsesBothForms(text: String, seconds: Int64) {
        #expect(FeedDate.parse(text) == seconds)
    }

    @Test(arguments: [
        "", "yesterday", "Wed, 32 Oct 2002 13:00:00 GMT", "2002-13-02T13:00:00Z", "Wed, 02 Oct 2002 13:00:00 XYZ",
    ])
    func rejectsNonsense(text: String) {
        #expect(FeedDate.parse(text) == nil)
    }
}

@Suite struct FeedParserTests {
    /// A tiny event source: `<name a="b">` opens, `</>` closes, anything else is text.
    enum Node {
        case open(String, String = "", [(name: String, value: String)] = [])
        case close
        case text(String)
    }

    static func parse(_ nodes: [Node]) throws(FeedProblem) -> Feed {
        var parser = FeedParser()
        for node in nodes {
            switch node {
            case .open(let name, let namespace, let attributes):
                try parser.start(name: name, namespace: namespace, attributes: attributes)
            case .close: parser.end()
            case .text(let text): parser.text(text)
            }
        }
        return try parser.finish()
    }

    static func rssItem(_ title: String, date: String?, url: String?, guid: String? = nil) -> [Node] {
        var nodes: [Node] = [.open("item"), .open("title"), .text(title), .close]
        if let guid { nodes += [.open("guid"), .text(guid), .close] }
        if let date { nodes += [.open("pubDate"), .text(date), .close] }
        if let url {
            nodes += [.open("enclosure", "", [("url", url), ("length", "1234"), ("type", "audio/mpeg")]), .close]
        }
        // An iTunes element of the same local name must not overwrite the title.
        nodes += [.open("title", "http://www.itunes.com/dtds/podcast-1.0.dtd"), .text("itunes"), .close]
        return nodes + [.close]
    }

    @Test func rssEpisodesNewestFirstWithoutTextOnlyItems() throws {
        let nodes: [Node] =
            [.open("rss"), .open("channel"), .open("title"), .text(" The Show "), .close]
            + Self.rssItem("Old", date: "Mon, 01 Jan 2024 10:00:00 GMT", url: "http://h/old.mp3", guid: "g-old")
            + Self.rssItem("Post", date: "Tue, 02 Jan 2024 10:00:00 GMT", url: nil)
            + Self.rssItem("Undated", date: nil, url: "http://h/undated.mp3")
            + Self.rssItem("New", date: "Wed, 03 Jan 2024 10:00:00 GMT", url: "http://h/new.mp3?x=1", guid: "g-new")
            + [.close, .close]
        let feed = try Self.parse(nodes)
        #expect(feed.title == "The Show")
        #expect(feed.episodes.map(\.title) == ["New", "Old", "Undated"])
        #expect(feed.episodes.map(\.guid) == ["g-new", "g-old", "http://h/undated.mp3"])
        #expect(
            feed.episodes[0]
                == Episode(
                    guid: "g-new", title: "New", published: 1_704_276_000,
                    enclosureURL: "http://h/new.mp3?x=1", length: 1234, type: "audio/mpeg"))
        #expect(feed.skippedItems == 1)
    }

    @Test func atomEntriesTakeTheEnclosureLink() throws {
        let atom = FeedParser.atomNamespace
        let nodes: [Node] = [
            .open("feed", atom), .open("title", atom), .text("Atom Show"), .close,
            .open("entry", atom), .open("id", atom), .text("urn:1"), .close, .open("title", atom), .text("One"), .close,
            .open("updated", atom), .text("2024-01-01T00:00:00Z"), .close,
            .open("link", atom, [("rel", "alternate"), ("href", "http://h/page")]), .close,
            .open("link", atom, [("rel", "enclosure"), ("href", "http://h/one.ogg"), ("type", "audio/ogg")]), .close,
            .close,
            .open("entry", atom), .open("id", atom), .text("urn:2"), .close, .open("title", atom), .text("Two"), .close,
            .open("published", atom), .text("2024-02-01T00:00:00Z"), .close,
            .open("updated", atom), .text("2023-01-01T00:00:00Z"), .close,
            .open("link", atom, [("rel", "enclosure"), ("href", "http://h/two.ogg")]), .close, .close,
            .close,
        ]
        let feed = try Self.parse(nodes)
        #expect(feed.title == "Atom Show")
        #expect(feed.episodes.map(\.guid) == ["urn:2", "urn:1"])
        #expect(feed.episodes.map(\.enclosureURL) == ["http://h/two.ogg", "http://h/one.ogg"])
        #expect(feed.episodes[1].type == "audio/ogg")
        #expect(feed.episodes[0].published == 1_706_745_600)
    }

    @Test(arguments: [
        ("html", "", "not a feed: an HTML page"),
        ("svg", "http://www.w3.org/2000/svg", "not an RSS or Atom feed: the document is <svg>"),
        ("feed", "", "not an RSS or Atom feed: the document is <feed>"),
    ])
    func refusesOtherDocumentsAtTheRoot(root: String, namespace: String, message: String) {
        var parser = FeedParser()
        #expect(throws: FeedProblem(message)) { try parser.start(name: root, namespace: namespace, attributes: []) }
    }

    @Test func keepsTheNewestEpisodesAndCapsText() throws {
        var nodes: [Node] = [
            .open("rss"), .open("channel"), .open("title"), .text(String(repeating: "t", count: 5000)), .close,
        ]
        for index in 0..<(FeedParser.episodeLimit + 3) {
            // RFC 3339 dates inside RSS happen too; each episode a minute later.
            let date =
                "2020-01-0\(1 + index / 1440)T\(index / 600)\(index / 60 % 10):\(index % 60 / 10)\(index % 10):00Z"
            nodes += Self.rssItem("E\(index)", date: date, url: "http://h/\(index).mp3")
        }
        let feed = try Self.parse(nodes + [.close, .close])
        #expect(feed.episodes.count == FeedParser.episodeLimit)
        #expect(feed.skippedItems == 3)
        #expect(feed.episodes.first?.title == "E\(FeedParser.episodeLimit + 2)")
        #expect(feed.title.utf8.count <= FeedParser.textLimit + 64)
    }
}

@Suite struct EpisodeCacheTests {
    typealias Entry = EpisodeCache.Entry

    @Test func playedGoFirstThenTheOldestNeverThePinned() {
        let entries = [
            Entry(id: 1, bytes: 100, played: false, published: 10),
            Entry(id: 2, bytes: 100, played: true, published: 50),
            Entry(id: 3, bytes: 100, played: false, published: 5, pinned: true),
            Entry(id: 4, bytes: 100, played: true, published: 40),
            Entry(id: 5, bytes: 100, played: false, published: nil),
        ]
        #expect(EpisodeCache.evictions(of: entries, toFit: 0, limit: 500) == [])
        #expect(EpisodeCache.evictions(of: entries, toFit: 150, limit: 500) == [4, 2])
        #expect(EpisodeCache.evictions(of: entries, toFit: 300, limit: 500) == [4, 2, 5])
        #expect(EpisodeCache.evictions(of: entries, toFit: 400, limit: 500) == [4, 2, 5, 1])
        #expect(EpisodeCache.evictions(of: entries, toFit: 401, limit: 500) == nil)
    }
}

@Suite struct EpisodeDownloadTests {
    typealias Download = EpisodeDownload
    static let mib = Download.syncInterval

    @Test func aFirstDownloadCheckpointsEveryIntervalAndCompletes() {
        var download = Download(durable: 0, expected: nil, byteLimit: 10 * Self.mib)
        #expect(download.handle(.start) == [.truncate(to: 0), .request(from: 0)])
        #expect(
            download.handle(.response(status: 200, contentLength: 3 * Self.mib, range: nil))
                == [.checkpoint(bytes: 0, expected: 3 * Self.mib)])
        #expect(download.handle(.wrote(count: Self.mib - 1)) == [])
        #expect(download.handle(.wrote(count: 1)) == [.checkpoint(bytes: Self.mib, expected: 3 * Self.mib)])
        #expect(
            download.handle(.wrote(count: 2 * Self.mib)) == [.checkpoint(bytes: 3 * Self.mib, expected: 3 * Self.mib)])
        #expect(download.handle(.ended) == [.complete(bytes: 3 * Self.mib)])
    }

    @Test func aCutConnectionResumesByRangeFromWhatWasWritten() {
        var download = Download(durable: 0, expected: nil, byteLimit: 10 * Self.mib)
        _ = download.handle(.start)
        _ = download.handle(.response(status: 200, contentLength: 1000, range: nil))
        _ = download.handle(.wrote(count: 400))
        #expect(download.handle(.ended) == [.checkpoint(bytes: 400, expected: 1000), .wait(ms: 1000)])
        #expect(download.handle(.start) == [.truncate(to: 400), .request(from: 400)])
        #expect(
            download.handle(.response(status: 206, contentLength: 600, range: .init(first: 400, total: 1000))) == [])
        _ = download.handle(.wrote(count: 600))
        #expect(download.handle(.ended) == [.complete(bytes: 1000)])
    }

    @Test func afterARestartOnlyDurableBytesCount() {
        // The file may hold more than the checkpoint after a power cut: cut back, ask from there.
        var download = Download(durable: Self.mib, expected: 5 * Self.mib, byteLimit: 10 * Self.mib)
        #expect(download.handle(.start) == [.truncate(to: Self.mib), .request(from: Self.mib)])
        #expect(
            download.handle(
                .response(status: 206, contentLength: nil, range: .init(first: Self.mib, total: 5 * Self.mib)))
                == [])
    }

    @Test func aServerThatIgnoresRangeStartsOver() {
        var download = Download(durable: 500, expected: 1000, byteLimit: 10_000)
        _ = download.handle(.start)
        #expect(
            download.handle(.response(status: 200, contentLength: 1000, range: nil))
                == [.checkpoint(bytes: 0, expected: nil), .wait(ms: 1000)])
        #expect(download.handle(.start) == [.truncate(to: 0), .request(from: 0)])
        #expect(
            download.handle(.response(status: 200, contentLength: 1000, range: nil))
                == [.checkpoint(bytes: 0, expected: 1000)])
        _ = download.handle(.wrote(count: 1000))
        #expect(download.handle(.ended) == [.complete(bytes: 1000)])
    }

    @Test func aChangedFileStartsOverAndTooMuchGivesUp() {
        var download = Download(durable: 500, expected: 1000, byteLimit: 10_000)
        _ = download.handle(.start)
        #expect(
            download.handle(.response(status: 206, contentLength: 700, range: .init(first: 500, total: 1200)))
                == [.checkpoint(bytes: 0, expected: nil), .wait(ms: 1000)])
        #expect(download.handle(.start) == [.truncate(to: 0), .request(from: 0)])
        var big = Download(durable: 0, expected: nil, byteLimit: 100)
        _ = big.handle(.start)
        #expect(
            big.handle(.response(status: 200, contentLength: 101, range: nil))
                == [.giveUp("larger than the cache's limit (100 bytes)")])
    }

    @Test func whatWasWholeCompletesOnAnswer416AndFailuresBackOffThenGiveUp() {
        var whole = Download(durable: 1000, expected: 1000, byteLimit: 10_000)
        #expect(whole.handle(.start) == [.complete(bytes: 1000)])
        var failing = Download(durable: 0, expected: nil, byteLimit: 10_000)
        var waits: [Int64] = []
        for _ in 1..<Download.attemptLimit {
            _ = failing.handle(.start)
            guard case .wait(let ms)? = failing.handle(.failed("connection refused")).last else { break }
            waits.append(ms)
        }
        #expect(waits == [1000, 2000, 4000, 8000])
        _ = failing.handle(.start)
        #expect(failing.handle(.failed("connection refused")) == [.giveUp("connection refused (5 attempts)")])
    }

    @Test(arguments: [
        ("bytes 100-199/200", EpisodeDownload.ContentRange?.some(.init(first: 100, total: 200))),
        ("bytes 0-9/*", .init(first: 0, total: nil)), ("bytes */200", nil), ("items 1-2/3", nil),
    ])
    func contentRange(header: String, range: EpisodeDownload.ContentRange?) {
        #expect(EpisodeDownload.ContentRange.parse(header) == range)
    }
}

@Suite struct PodcastCommandTests {
    @Test(arguments: [
        (["add", "https://example.com/feed.xml"], PodcastCommand.add(url: "https://example.com/feed.xml")),
        (["list"], .list), ([], .list), (["2"], .episodes(podcast: 2)), (["remove", "1"], .remove("1")),
        (["refresh"], .refresh), (["clear", "cache"], .clearCache),
        (["play", "1", "3"], .play(podcast: 1, episode: 3)),
        (["download", "2", "1"], .download(podcast: 2, episode: 1)),
    ])
    func parses(words: [String], command: PodcastCommand) {
        #expect(PodcastCommand.parse(words) == .success(command))
    }

    @Test(arguments: [["add", "ftp://x"], ["play", "1"], ["play", "0", "1"], ["dance"]])
    func refusesWithOneMessage(words: [String]) {
        guard case .failure(.badArgument(command: "podcast", _)) = PodcastCommand.parse(words) else {
            Issue.record("\(words) parsed")
            return
        }
    }
}

/// The `[podcasts]` keys.
@Suite struct PodcastConfigTests {
    typealias Entry = ConfigDocument.Entry

    static func validate(_ entries: [Entry]) -> (JukeboxConfig?, [String]) {
        let all = [Entry(table: "", key: "music_dir", value: .string("/music"), line: 1)] + entries
        let document = ConfigDocument(fileName: "jukebox.toml", tables: [(name: "podcasts", line: 2)], entries: all)
        let result = ConfigValidator.validate(document) { _ in nil }
        return (result.config, result.diagnostics.map(\.description))
    }

    @Test func keysAndDefaults() throws {
        let defaults = try #require(Self.validate([]).0)
        #expect(defaults.podcasts.feeds == [])
        #expect(defaults.podcastCacheFolder == "/var/lib/jukebox/podcasts")
        #expect(defaults.podcasts.cacheLimitBytes == 2048 << 20)
        let (config, problems) = Self.validate([
            Entry(
                table: "podcasts", key: "feeds", value: .array([.string("https://a/feed"), .string("http://b/rss")]),
                line: 3),
            Entry(table: "podcasts", key: "cache_dir", value: .string("/cache"), line: 4),
            Entry(table: "podcasts", key: "cache_limit_mb", value: .integer(100), line: 5),
        ])
        #expect(problems == [])
        #expect(config?.podcasts.feeds == ["https://a/feed", "http://b/rss"])
        #expect(config?.podcastCacheFolder == "/cache")
        #expect(config?.podcasts.cacheLimitBytes == 100 << 20)
    }

    @Test func problemsNameTheLine() {
        #expect(
            Self.validate([Entry(table: "podcasts", key: "feeds", value: .array([.string("feed.xml")]), line: 3)]).1
                == ["jukebox.toml:3: podcasts.feeds: expected http:// or https:// URLs, found 'feed.xml'"])
        #expect(
            Self.validate([Entry(table: "podcasts", key: "feeds", value: .string("http://a"), line: 3)]).1
                == ["jukebox.toml:3: podcasts.feeds: expected an array of URLs, found a string"])
    }
}
