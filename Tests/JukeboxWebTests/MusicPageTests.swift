import Testing

@testable import JukeboxWeb

/// The music page: its address read and written back, the daemon's replies read into folders
/// and songs, paging, every library string escaped, and its form's actions checked.
@Suite struct MusicPageTests {
    static let xss = "<script>alert('x')</script>"
    static let token = CSRFToken(value: "t")

    @Test func theAddressSaysFolderSearchAndPage() {
        let browse = MusicQuery(query: FormData("path=%2FAlpha%2F%2FFirst%2F&page=2"))
        #expect(browse == MusicQuery(path: "Alpha/First", page: 2))
        #expect(browse.command == #"lsinfo "Alpha/First""#)
        #expect(browse.href() == "/music?path=Alpha/First&page=2")
        #expect(browse.href(page: 0, done: "add") == "/music?path=Alpha/First&done=add")
        let search = MusicQuery(query: FormData("q=+The+%22Owl%22+&by=title&page=-4"))
        #expect(search == MusicQuery(text: #"The "Owl""#, field: .title, page: 0))
        #expect(search.command == #"search title "The \"Owl\"" window 0:1001"#)
        #expect(search.href(page: 1) == "/music?q=The%20%22Owl%22&by=title&page=1")
        #expect(MusicQuery(query: FormData("q=x&by=file")).field == .any)
        #expect(MusicQuery(query: FormData("")).command == #"lsinfo """#)
    }

    /// A line break in a search cannot become a second command.
    @Test func aSearchIsOneCommandLine() {
        let search = MusicQuery(query: FormData("q=a%0D%0Aclear"))
        #expect(!search.command.contains("\n"))
        #expect(!search.command.contains("\r"))
    }

    @Test func backGoesOnlyToAMusicPage() {
        #expect(MusicQuery.safeBack("/music?path=A&page=1") == "/music?path=A&page=1")
        #expect(MusicQuery.safeBack("/music") == "/music")
        #expect(MusicQuery.safeBack("//evil.example/music") == "/music")
        #expect(MusicQuery.safeBack("https://evil.example/") == "/music")
        #expect(MusicQuery.safeBack("/music?a\r\nSet-Cookie: x") == "/music")
        #expect(MusicQuery.safeBack("/musical") == "/music")
        #expect(MusicQuery.safeBack(nil) == "/music")
    }

    @Test func listingsHoldFoldersAndSongsNotPlaylists() {
        let listing = MusicListing([
            MPDField("file", "Alpha/01.mp3"), MPDField("Title", "One"), MPDField("Artist", "Al"),
            MPDField("Album", "First"), MPDField("duration", "21.5"), MPDField("file", "Alpha/02.mp3"),
            MPDField("directory", "Alpha/First"), MPDField("Last-Modified", "x"), MPDField("playlist", "Mix"),
            MPDField("Title", "not a song's"),
        ])
        #expect(listing.folders == ["Alpha/First"])
        #expect(
            listing.songs == [
                .init(file: "Alpha/01.mp3", title: "One", artist: "Al", album: "First", duration: 21.5),
                .init(file: "Alpha/02.mp3", title: "02.mp3"),
            ])
    }

    /// 30 folders and 100 songs: pages of 50, folders first, "More" until the last.
    @Test func pagesShowAtMostFiftyWithMore() {
        let reply =
            (0..<30).map { MPDField("directory", "Big/d\($0)") }
            + (0..<100).flatMap { [MPDField("file", "Big/\($0).mp3"), MPDField("Title", "Song \($0)")] }
        var page = MusicPage(query: MusicQuery(path: "Big"), reply: reply)
        #expect(page.pageRange == 0..<50)
        #expect(page.entry(at: 29) == .folder("Big/d29"))
        #expect(page.entry(at: 30) == .song(.init(file: "Big/0.mp3", title: "Song 0")))
        var html = Pages.music(page, token: Self.token)
        #expect(html.ranges(of: "<li class=\"folder\"").count == 30)
        #expect(html.ranges(of: "<li class=\"song\"").count == 20)
        #expect(html.contains("30 folders, 100 songs"))
        #expect(html.contains("Showing 1–50 of 130."))
        #expect(html.contains("<a rel=\"next\" href=\"/music?path=Big&amp;page=1\">More</a>"))
        page.query.page = 2
        html = Pages.music(page, token: Self.token)
        #expect(page.pageRange == 100..<130)
        #expect(html.contains("Showing 101–130 of 130."))
        #expect(!html.contains("rel=\"next\""))
        #expect(html.contains("<a rel=\"prev\" href=\"/music?path=Big&amp;page=1\">Back</a>"))
    }

    @Test func aSearchOverTheLimitSaysSo() {
        let reply = (0...MusicQuery.searchLimit).map { MPDField("file", "\($0).mp3") }
        let page = MusicPage(query: MusicQuery(text: "x"), reply: reply)
        #expect(page.truncated)
        #expect(page.listing.songs.count == MusicQuery.searchLimit)
        let html = Pages.music(page, token: Self.token)
        #expect(html.contains("More than 1000 songs found"))
        #expect(html.contains("of 1000."))
        let few = Pages.music(
            MusicPage(query: MusicQuery(text: "x"), reply: [MPDField("file", "a.mp3")]), token: Self.token)
        #expect(few.contains("1 song found."))
        #expect(!few.contains("rel=\"next\""))
    }

    /// Tags, file and folder names, the search text and recent entries show as text: no tag
    /// or attribute reaches the HTML from the library.
    @Test func everyLibraryStringIsEscaped() {
        let hostile = Self.xss + "\"' onmouseover=\"x"
        var page = MusicPage(
            query: MusicQuery(path: "A/\(hostile)"),
            reply: [
                MPDField("directory", "A/\(hostile)/\(hostile)"), MPDField("file", "A/\(hostile).mp3"),
                MPDField("Title", hostile), MPDField("Artist", hostile), MPDField("Album", hostile),
            ])
        page.now = NowPlaying(
            status: [MPDField("state", "play")], song: [MPDField("file", "x.mp3"), MPDField("Title", hostile)])
        page.problem = hostile
        var pages = [Pages.music(page, token: Self.token)]
        var start = MusicPage()
        start.favourites = [.init(file: "\(hostile).mp3", title: hostile)]
        start.recent = RecentEntry.list([MPDField("recent", "1 \(hostile): a.mp3 at 0:01")])
        start.query.text = hostile
        start.query = MusicQuery()
        pages.append(Pages.music(start, token: Self.token))
        pages.append(Pages.music(MusicPage(query: MusicQuery(text: hostile), reply: []), token: Self.token))
        for html in pages {
            #expect(!html.contains("<script>"), "\(html)")
            #expect(!html.contains("\" onmouseover"), "\(html)")
            #expect(!html.contains("' onmouseover"), "\(html)")
        }
        #expect(pages[0].contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&#39; onmouseover=&quot;x"))
        #expect(pages[2].contains("value=\"&lt;script&gt;"))
    }

    @Test func theStartPageOffersFavouritesAndRecent() {
        var page = MusicPage()
        page.favourites = MusicListing([MPDField("file", "Kids/a.mp3"), MPDField("Title", "Owl")]).songs
        page.recent = RecentEntry.list([
            MPDField("recent", "1 Kids: Kids/a.mp3 at 1:02"), MPDField("recent", "nothing played yet"),
        ])
        #expect(page.recent == [RecentEntry(number: 1, text: "Kids: Kids/a.mp3 at 1:02")])
        let html = Pages.music(page, token: Self.token)
        #expect(html.contains("<button name=\"favourites\" value=\"1\" class=\"wide\">▶ Play all 1</button>"))
        #expect(html.contains("<button name=\"now\" value=\"Kids/a.mp3\" aria-label=\"Play Owl now\">"))
        #expect(html.contains("<button name=\"recent\" value=\"1\""))
        #expect(html.ranges(of: "name=\"csrf\" value=\"t\"").count == 1)
        var full = MusicPage()
        full.done = "full"
        #expect(Pages.music(full, token: Self.token).contains("The queue is full"))
        let empty = Pages.music(MusicPage(), token: Self.token)
        #expect(empty.contains("Nothing played yet."))
        // A folder's page has no start sections.
        #expect(
            !Pages.music(MusicPage(query: MusicQuery(path: "A"), reply: []), token: Self.token).contains("favourites"))
    }

    @Test func formsPlayOrQueueOneThing() {
        #expect(WebAction.music(FormData("csrf=t&now=Alpha%2FFirst")) == .playNow("Alpha/First"))
        #expect(WebAction.music(FormData("add=a+%22b%22.mp3")) == .add("a \"b\".mp3"))
        #expect(WebAction.music(FormData("favourites=1")) == .playFavourites)
        #expect(WebAction.music(FormData("recent=2")) == .continueRecent(2))
        #expect(WebAction.music(FormData("recent=0")) == nil)
        #expect(WebAction.music(FormData("now=")) == nil)
        #expect(WebAction.music(FormData("back=/music")) == nil)
        #expect(WebAction.add("a \"b\".mp3").command == #"add "a \"b\".mp3""#)
        #expect(
            WebAction.playNow("Alpha/First").command
                == "command_list_begin\nclear\nadd \"Alpha/First\"\nplay 0\ncommand_list_end")
        #expect(WebAction.playFavourites.command == "favourites")
        #expect(WebAction.continueRecent(2).command == "recent 2")
        #expect(!WebAction.add("a\nclear").command.contains("\n"))
    }

    @Test func everyPageLinksTheMusicAndSystemPages() {
        let pages = [
            Pages.nowPlaying(NowPlaying(), token: Self.token),
            Pages.cards(CardList(), token: Self.token, now: 0, utcOffsetSeconds: 0),
            Pages.music(MusicPage(), token: Self.token),
        ]
        for html in pages {
            #expect(html.contains("<a href=\"/music\""))
            #expect(html.contains("<a href=\"/system\""))
        }
        #expect(pages[2].contains("<a href=\"/music\" aria-current=\"page\">Music</a>"))
    }
}
