import JukeboxCore
import Testing

@testable import JukeboxWeb

/// The cards page's names and last use: the list from `card info`, its order, the text of a
/// last use on fixed dates, the rename form and its command.
@Suite struct CardNamesTests {
    /// 2026-12-08 07:32:00 UTC, a Tuesday.
    static let morning: Int64 = 1_796_715_120
    static let hour: Int64 = 3600
    static let day: Int64 = 86_400

    @Test(
        arguments: [
            // (last used, now, offset east of UTC, text)
            (nil, morning, 0, "never"),
            (morning, morning, 0, "today 07:32"),
            (morning - 7 * hour - 32 * 60, morning, 0, "today 00:00"),
            (morning - 7 * hour - 32 * 60 - 1, morning, 0, "yesterday 23:59"),
            (morning - day, morning, 0, "yesterday 07:32"),
            (morning - 2 * day, morning, 0, "2 days ago"),
            (morning - 3 * day + 16 * hour, morning, 0, "3 days ago"),  // 23:32 three days before
            (morning - 6 * day, morning, 0, "6 days ago"),
            (morning - 7 * day, morning, 0, "2026-12-01"),
            (morning - 400 * day, morning, 0, "2025-11-03"),
            // The box's local days: 07:32 UTC is 08:32 in Berlin, 23:32 the day before in Los Angeles.
            (morning, morning, hour, "today 08:32"),
            (morning, morning + 2 * hour, -8 * hour, "yesterday 23:32"),
            (morning - 8 * hour, morning, -8 * hour, "today 15:32"),
            // A time ahead of now (the clock was set back): today's, or its date.
            (morning + 60, morning, 0, "today 07:33"),
            (morning + 2 * day, morning, 0, "2026-12-10"),
            (0, morning, 0, "1970-01-01"),
        ] as [(Int64?, Int64, Int64, String)])
    func lastUseInWords(lastUsed: Int64?, now: Int64, offset: Int64, text: String) {
        #expect(LastUsedText.text(lastUsed, now: now, utcOffsetSeconds: offset) == text)
    }

    static func list(_ info: [MPDField]) -> CardList { CardList(info: info, unknown: [], listing: []) }

    /// Named cards by name (as the music lists sort: case aside, numbers by value), then the
    /// unnamed ones by ID.
    @Test func namedCardsComeFirstByName() {
        let list = Self.list([
            MPDField("card", "0005"), MPDField("kind", "folder"), MPDField("value", "e"),
            MPDField("card", "0004"), MPDField("kind", "folder"), MPDField("value", "d"),
            MPDField("name", "yellow car"),
            MPDField("card", "0003"), MPDField("kind", "folder"), MPDField("value", "c"), MPDField("name", "Bear 10"),
            MPDField("card", "0002"), MPDField("kind", "folder"), MPDField("value", "b"), MPDField("name", "bear 9"),
            MPDField("last_used", "2026-12-08T07:32:00Z"), MPDField("card", "0001"), MPDField("kind", "folder"),
            MPDField("value", "a"), MPDField("last_used", "not a time"),
        ])
        #expect(list.cards.map(\.id) == ["0002", "0003", "0004", "0001", "0005"])
        #expect(list.cards.map(\.name) == ["bear 9", "Bear 10", "yellow car", "", ""])
        #expect(list.cards.map(\.lastUsed) == [Self.morning, nil, nil, nil, nil])
    }

    /// Each card shows its name (escaped) or "unnamed", what it plays, its policy, its place and
    /// its last use, and a rename form with the name in it, the limit and the token.
    @Test func theCardsPageShowsNamesAndLastUseAndOffersARename() {
        let list = Self.list([
            MPDField("card", "04A1"), MPDField("kind", "folder"), MPDField("value", "Kids"),
            MPDField("policy", "continue"), MPDField("place", "Kids/1.mp3"), MPDField("position", "83.000"),
            MPDField("name", "<b>car</b> \"1\""), MPDField("last_used", "2026-12-05T18:00:00Z"),
        ])
        let html = Pages.cards(list, token: CSRFToken(value: "t"), now: Self.morning, utcOffsetSeconds: 0)
        #expect(html.contains("<strong class=\"name\">&lt;b&gt;car&lt;/b&gt; &quot;1&quot;</strong>"), "\(html)")
        #expect(html.contains("<small class=\"id\">card 04A1</small>"))
        #expect(html.contains("<span class=\"plays\">plays folder Kids</span><small>continues</small>"))
        #expect(html.contains("left in Kids/1.mp3 at 1:23"))
        #expect(html.contains("<small class=\"last-used\">last used: 3 days ago</small>"))
        #expect(html.contains("<form method=\"post\" action=\"/cards/name\" class=\"rename\">"))
        #expect(html.contains("<input name=\"name\" value=\"&lt;b&gt;car&lt;/b&gt; &quot;1&quot;\" maxlength=\"64\""))
        #expect(!html.contains("<b>"))
    }

    /// The rename form's action: the name checked as the daemon checks it (the page says
    /// why), quoted so that no name ends the command line.
    @Test func theRenameFormIsCheckedAndQuoted() throws {
        let named = try #require(WebAction.name(FormData("csrf=t&card=04a1&name=+yellow+%22car%22+")))
        #expect(try named.get() == .name(card: "04A1", name: "yellow \"car\""))
        #expect(try named.get().command == #"card name "04A1" "yellow \"car\"""#)
        #expect(try WebAction.name(FormData("card=04a1&name="))?.get().command == #"card name "04A1" """#)
        let long = String(repeating: "x", count: 65)
        #expect(
            WebAction.name(FormData("card=04a1&name=\(long)"))
                == .failure(.badArgument(command: "card", problem: "name: at most 64 characters, found 65")))
        #expect(
            WebAction.name(FormData("card=04a1&name=a%0D%0Aclear"))
                == .failure(
                    .badArgument(
                        command: "card",
                        problem: "name: control characters (a newline, a tab) are not allowed in a name")))
        #expect(WebAction.name(FormData("card=&name=x")) == nil)
        #expect(WebAction.name(FormData("card=04a1")) == nil)
    }
}
