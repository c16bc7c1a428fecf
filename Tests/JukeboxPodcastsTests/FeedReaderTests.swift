import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

@testable import JukeboxPodcasts

/// Real feed files through libxml2's reader and the core's parser.
@Suite struct FeedReaderTests {
    static func read(_ text: String) throws -> Result<Feed, FeedProblem> {
        let folder = try TemporaryDirectory()
        let path = folder.file("feed.xml")
        try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC).writeAll(Array(text.utf8))
        return FeedReader.read(path: path)
    }

    static let rss = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
        <channel><title>Kitchen &amp; Garden</title><itunes:title>ignored</itunes:title>
        <item><title><![CDATA[Episode <1>]]></title><guid isPermaLink="false">ep1</guid>
          <pubDate>Mon, 01 Jan 2024 10:00:00 +0000</pubDate>
          <enclosure url="http://127.0.0.1/ep1.mp3" length="1000" type="audio/mpeg"/></item>
        <item><title>Episode 2</title><guid>ep2</guid><pubDate>Tue, 02 Jan 2024 10:00:00 +0000</pubDate>
          <enclosure url="http://127.0.0.1/ep2.mp3" length="2000" type="audio/mpeg"></enclosure></item>
        <item><title>Notes only</title></item>
        </channel></rss>
        """

    @Test func rssThroughLibxml2() throws {
        let feed = try Self.read(Self.rss).get()
        #expect(feed.title == "Kitchen & Garden")
        #expect(feed.episodes.map(\.title) == ["Episode 2", "Episode <1>"])
        #expect(feed.episodes.map(\.guid) == ["ep2", "ep1"])
        #expect(feed.episodes[1].length == 1000)
        #expect(feed.skippedItems == 1)
    }

    @Test func atomWithAPrefixThroughLibxml2() throws {
        let feed = try Self.read(
            """
            <a:feed xmlns:a="http://www.w3.org/2005/Atom"><a:title type="text">Atom</a:title>
            <a:entry><a:id>urn:x</a:id><a:title>X</a:title><a:updated>2024-03-01T12:00:00+01:00</a:updated>
            <a:link rel="enclosure" href="http://127.0.0.1/x.ogg" type="audio/ogg"/></a:entry></a:feed>
            """
        ).get()
        #expect(
            feed.episodes == [
                Episode(
                    guid: "urn:x", title: "X", published: 1_709_290_800,
                    enclosureURL: "http://127.0.0.1/x.ogg", type: "audio/ogg")
            ])
    }

    @Test(arguments: [
        ("", "not a well-formed feed:"),
        ("just some text\n", "not a well-formed feed: Document is empty (line 1)"),
        (String(rss.prefix(400)), "not a well-formed feed:"),
        (
            "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
            "not a feed: an HTML page"
        ),
        ("<html><body><p>Not found<br></body></html>", "not a well-formed feed:"),
        (
            "<?xml version=\"1.0\"?><opml version=\"2.0\"><body/></opml>",
            "not an RSS or Atom feed: the document is <opml>"
        ),
        ("<rss><channel><item><title>x</title></item>", "not a well-formed feed:"),
    ])
    func malformedFeedsGiveOneLine(text: String, prefix: String) throws {
        guard case .failure(let problem) = try Self.read(text) else {
            Issue.record("parsed: \(text)")
            return
        }
        #expect(problem.message.hasPrefix(prefix), "\(problem.message)")
        #expect(!problem.message.contains("\n"))
    }

    @Test func aHugeFeedCostsLittle() throws {
        // 20,000 items, about 4 MB: read as a stream, the newest FeedParser.episodeLimit kept.
        var text = "<rss><channel><title>Big</title>"
        for index in 0..<20_000 {
            text += "<item><title>E\(index)</title><pubDate>\(Self.minute(index))</pubDate>"
            text +=
                "<enclosure url=\"http://h/\(index).mp3\"/><description>\(String(repeating: "x", count: 100))</description></item>"
        }
        let feed = try Self.read(text + "</channel></rss>").get()
        #expect(feed.episodes.count == FeedParser.episodeLimit)
        #expect(feed.episodes.first?.title == "E19999")
        #expect(feed.skippedItems == 20_000 - FeedParser.episodeLimit)
    }

    /// RFC 3339 for `index` minutes into 1 January 2000.
    static func minute(_ index: Int) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "2000-01-\(two(1 + index / 1440))T\(two(index / 60 % 24)):\(two(index % 60)):00Z"
    }
}
