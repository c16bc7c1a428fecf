import JukeboxCore
import Testing

@testable import JukeboxWeb

/// The web page's pure parts: escaping, MPD replies cut from any pieces, the page models,
/// forms and the CSRF token.
@Suite struct JukeboxWebTests {
    static let xss = "<img src=x onerror=alert(1)>"

    @Test func escapesEveryHTMLSpecialCharacter() {
        #expect(HTMLText.escape(Self.xss) == "&lt;img src=x onerror=alert(1)&gt;")
        #expect(HTMLText.escape(#"a&b "c" 'd'"#) == "a&amp;b &quot;c&quot; &#39;d&#39;")
        #expect(HTMLText.queryValue("Kids/Grüffalo & co.mp3") == "Kids/Gr%C3%BCffalo%20%26%20co.mp3")
    }

    @Test func jsonStringsCannotEndAScriptOrAString() {
        #expect(JSONText.string("a\"b\\c\n</script>\u{1}") == #""a\"b\\c\n\u003c/script>\u0001""#)
        #expect(JSONText.number(1.5) == "1.500")
        #expect(JSONText.number(-0.25) == "-0.250")
        #expect(JSONText.number(.nan) == "0")
    }

    /// The page shows a hostile title as text: no tag reaches the HTML, in any field.
    @Test func nowPlayingPageEscapesTagsAndFileNames() {
        var now = NowPlaying(
            status: [MPDField("state", "play"), MPDField("songid", "7"), MPDField("elapsed", "3.5")],
            song: [MPDField("file", "x/\(Self.xss).mp3"), MPDField("Title", Self.xss), MPDField("Artist", "A&B")])
        now.queue = [NowPlaying.Entry(id: 7, position: 0, file: "f", title: Self.xss, artist: "<b>", duration: 2)]
        now.setLyrics([MPDField("line", "<script>x</script>")])
        let html = Pages.nowPlaying(now, token: CSRFToken(value: "t"))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<script>x"))
        #expect(!html.contains("<b>"))
        #expect(html.contains("<h1 id=\"title\">&lt;img src=x onerror=alert(1)&gt;</h1>"))
        #expect(html.contains("A&amp;B"))
        #expect(html.contains("/cover?file=x/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.mp3"))
        #expect(now.json.contains(#""title":"\u003cimg src=x onerror=alert(1)>""#))
    }

    @Test func readsRepliesCutAnywhere() throws {
        let text =
            "OK MPD 0.23.5\nstate: play\nlist_OK\nfile: a.mp3\nTitle: A: b\nlist_OK\nOK\nsize: 5\nbinary: 3\nab\n\nOK\n"
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var reader = MPDReplyReader()
            var replies: [MPDReply] = []
            for piece in [bytes[..<cut], bytes[cut...]] {
                reader.append(piece)
                while let reply = try reader.nextReply() { replies.append(reply) }
            }
            #expect(replies.count == 3, "cut at \(cut)")
            guard replies.count == 3 else { continue }
            #expect(replies[0].value("greeting") == "OK MPD 0.23.5")
            #expect(replies[1].sections.count == 3)
            #expect(replies[1].value("Title", section: 1) == "A: b")
            #expect(replies[2].binary == Array("ab\n".utf8))
            #expect(replies[2].value("size") == "5")
        }
    }

    @Test func anAckEndsItsReplyAndTheNextOneReads() throws {
        var reader = MPDReplyReader()
        reader.append(Array("ACK [50@0] {lyrics} No lyrics\nvolume: 5\nOK\n".utf8))
        #expect(throws: MPDReplyError.ack("ACK [50@0] {lyrics} No lyrics")) { try reader.nextReply() }
        #expect(try reader.nextReply()?.value("volume") == "5")
    }

    @Test func refusesBadBinaryLengths() {
        var reader = MPDReplyReader()
        reader.append(Array("binary: -1\n".utf8))
        #expect(throws: MPDReplyError.malformed("binary: -1")) { try reader.nextReply() }
        var huge = MPDReplyReader()
        huge.append(Array("binary: \(MPDReplyReader.maxReplyBytes + 1)\n".utf8))
        #expect(throws: MPDReplyError.self) { try huge.nextReply() }
    }

    @Test func queueEntriesStartAtTheirFileLine() {
        let queue = NowPlaying.queue([
            MPDField("file", "Kids/a.mp3"), MPDField("Title", "A"), MPDField("Pos", "0"), MPDField("Id", "4"),
            MPDField("file", "Kids/b.mp3"), MPDField("duration", "21.5"), MPDField("Pos", "1"), MPDField("Id", "5"),
        ])
        #expect(queue.map(\.id) == [4, 5])
        #expect(queue.map(\.title) == ["A", "b.mp3"])
        #expect(queue[1].duration == 21.5)
    }

    /// The page shows 50 entries around the current song, not a queue of 16,384 in every event.
    @Test(
        arguments: [
            (nil, 0, 0..<0), (nil, 3, 0..<3), (2, 3, 0..<3), (3, 100, 0..<50), (7, 100, 2..<52),
            (100, 16_384, 95..<145), (16_380, 16_384, 16_334..<16_384), (nil, 16_384, 0..<50), (0, -1, 0..<0),
        ] as [(Int?, Int, Range<Int>)])
    func theQueueShownIsAWindowAroundTheCurrentSong(position: Int?, length: Int, shown: Range<Int>) {
        #expect(NowPlaying.queueRange(position: position, length: length) == shown)
    }

    @Test func thePageSaysWhatOfTheQueueItDoesNotShow() {
        var now = NowPlaying(
            status: [MPDField("state", "play"), MPDField("song", "100"), MPDField("playlistlength", "3000")], song: [])
        #expect(now.position == 100 && now.queueLength == 3000)
        let shown = NowPlaying.queueRange(position: now.position, length: now.queueLength)
        now.queueFrom = shown.lowerBound
        now.queue = shown.map {
            NowPlaying.Entry(id: $0 + 1, position: $0, file: "f\($0)", title: "t", artist: "", duration: nil)
        }
        #expect(now.queueElsewhere == "95 before · 2855 more")
        let html = Pages.nowPlaying(now, token: CSRFToken(value: "t"))
        #expect(html.contains("<ol id=\"queue\" start=\"96\">"))
        #expect(html.contains("<p id=\"queue-elsewhere\">95 before · 2855 more</p>"))
        #expect(now.json.contains(#""queue_from":95,"queue_length":3000"#))
        now.queueFrom = 0
        now.queueLength = now.queue.count
        #expect(now.queueElsewhere == "")
    }

    @Test func cardPageMarksFoldersWithoutACardAndOffersTheNewOne() {
        let list = CardList(
            info: [
                MPDField("card", "04A1"), MPDField("kind", "folder"), MPDField("value", "Kids/<b>"),
                MPDField("place", "Kids/<b>/1.mp3"), MPDField("position", "83.000"),
            ],
            unknown: [MPDField("unknown", "C0FFEE")],
            listing: [MPDField("directory", "Kids"), MPDField("file", "x.mp3"), MPDField("directory", "Kids/<b>")])
        #expect(list.unknown == "C0FFEE")
        #expect(list.folders == [.init(path: "Kids", card: nil), .init(path: "Kids/<b>", card: "04A1")])
        let html = Pages.cards(list, token: CSRFToken(value: "t"), now: 1_796_715_120, utcOffsetSeconds: 3600)
        #expect(html.contains("<section id=\"unknown\" data-card=\"C0FFEE\">"))
        #expect(html.contains("<option value=\"Kids\" data-free>Kids · no card</option>"))
        #expect(html.contains("<option value=\"Kids/&lt;b&gt;\">Kids/&lt;b&gt; (card 04A1)</option>"))
        #expect(html.contains("left in Kids/&lt;b&gt;/1.mp3 at 1:23"))
        #expect(!html.contains("<b>"))
        #expect(html.ranges(of: "name=\"csrf\" value=\"t\"").count == 4)
        #expect(html.contains("<strong class=\"name\"><em>unnamed</em></strong>"))
        #expect(html.contains("<small class=\"last-used\">last used: never</small>"))
    }

    @Test func formsDecodeAndActionsAreChecked() {
        let form = FormData("op=seek&value=12.5&csrf=a%2Bb&x=1+2&op=next")
        #expect(form["op"] == "seek")
        #expect(form["csrf"] == "a+b")
        #expect(form["x"] == "1 2")
        #expect(WebAction.player(form) == .seek(seconds: 12.5))
        #expect(WebAction.player(FormData("op=volume&value=101")) == nil)
        #expect(WebAction.player(FormData("op=remove&value=-1")) == nil)
        #expect(WebAction.player(FormData("op=shutdown")) == nil)
        let assign = WebAction.assign(FormData("card=c0+ffee&folder=Kids%2F%22Quoted%22"))
        #expect(assign == .assignFolder(card: "C0FFEE", folder: "Kids/\"Quoted\""))
        #expect(assign?.command == #"card assign "C0FFEE" folder "Kids/\"Quoted\"""#)
        #expect(WebAction.seek(seconds: 3).command == "seekcur 3.000")
        #expect(WebAction.forget(FormData("card=")) == nil)
    }

    /// Fuzz finding 5 (web-form, docs/FUZZING.md): `\r\n` is one Character, neither `\r` nor
    /// `\n`, so a form's value quoted character by character reached the daemon with its line
    /// break: a second command. A quote followed by a combining mark was not escaped either.
    @Test func aLineBreakOrQuoteWithAMarkCannotEndTheCommandLine() {
        // The crashing input, read as the server reads a body.
        let body = Array("csrf=x&card=04+ic".utf8) + [0x81, 0xAA, 0xB7] + Array("one&1d&folder=K24siZ%Fd%0D%0ACo".utf8)
        let command = WebAction.assign(FormData(String(decoding: body, as: UTF8.self)))?.command ?? ""
        let expected = "card assign \"04IC\u{FFFD}\u{FFFD}\u{FFFD}ONE\" folder \"K24siZ\u{FFFD}  Co\""
        #expect(Array(command.utf8) == Array(expected.utf8), "\(command)")
        #expect(Array(MPDReplyReader.quoted("a\r\nb").utf8) == Array("\"a  b\"".utf8))
        #expect(Array(MPDReplyReader.quoted("x\"\u{301}").utf8) == Array("\"x\\\"\u{301}\"".utf8))
    }

    @Test func theTokenIsRandomAndComparedWhole() {
        var random = SystemRandomNumberGenerator()
        let token = CSRFToken(using: &random)
        #expect(token.value.count == 64)
        #expect(token != CSRFToken(using: &random))
        #expect(token.accepts(token.value))
        #expect(!token.accepts(nil))
        #expect(!token.accepts(""))
        #expect(!token.accepts(String(token.value.dropLast()) + "x"))
        #expect(!token.accepts(token.value + "0"))
    }

    @Test func eventsCarryMultilineDataSafely() {
        #expect(Pages.event("state", data: "a\nb") == "event: state\ndata: a\ndata: b\n\n")
    }

    @Test func commandLineNeedsAConfig() {
        #expect(WebArguments.parse(["--config", "/etc/j.toml"]) == .success("/etc/j.toml"))
        #expect(WebArguments.parse(["--config=/x"]) == .success("/x"))
        #expect(throws: CommandError.self) { try WebArguments.parse([]).get() }
        #expect(throws: CommandError.self) { try WebArguments.parse(["--config"]).get() }
        #expect(throws: CommandError.self) { try WebArguments.parse(["--port", "1"]).get() }
    }
}
