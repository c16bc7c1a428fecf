import JukeboxCore
import Testing

@testable import MPDProtocol

/// The box's commands in the MPD table (`sleep`, `chapter`, `recent`, `favourites`,
/// `podcast`, `card`): what they answer from the world's `box` and what they ask the daemon for.
@Suite struct BoxCommandTests {
    static func run(_ line: String, human: Bool = false, world: inout MPDWorld) -> String {
        var session = MPDSession(options: .init(human: human))
        return session.handle(line: line, world: &world).text
    }

    /// A podcast shelf that remembers the commands it ran.
    final class Shelf: MPDPodcastShelf {
        var ran: [PodcastCommand] = []
        func run(_ command: PodcastCommand) throws -> [String] {
            ran.append(command)
            if case .remove = command { throw Problem() }
            return ["OK podcast 1: https://example.org/feed.xml"]
        }
        struct Problem: Error, CustomStringConvertible {
            var description: String { "no podcast 3 (podcast list)" }
        }
    }

    /// A card mapping that remembers what it was asked.
    final class Cards: MPDTagCardMapping {
        var ran: [TagCardCommand] = []
        func run(_ command: TagCardCommand) throws -> [String] {
            ran.append(command)
            return ["done"]
        }
    }

    @Test func sleepShowsTheTimerAndAsksTheDaemonToSetIt() {
        var world = MPDProtocolTests.world()
        #expect(Self.run("sleep", world: &world) == "sleep: off\nOK\n")
        world.box = MPDBox(sleep: .after(ms: 1_800_000), sleepLeftMs: 1_794_001)
        #expect(Self.run("sleep", world: &world) == "sleep: 30 min\nsleep_left: 1795\nOK\n")
        #expect(Self.run("sleep 5", world: &world) == "sleep: 5 min\nOK\n")
        #expect(Self.run("sleep chapter", world: &world) == "sleep: end of chapter\nOK\n")
        #expect(Self.run("sleep off", world: &world) == "sleep: off\nOK\n")
        #expect(world.box.requests == [.sleep(.after(ms: 300_000)), .sleep(.endOfChapter), .sleep(nil)])
        #expect(Self.run("sleep soon", world: &world).hasPrefix("ACK [2@0] {sleep} sleep: expected minutes"))
        #expect(world.box.requests.count == 3)
    }

    @Test func chapterShowsThePlayingChapterAndMovesByChapter() throws {
        var world = MPDProtocolTests.world()
        let chapters = try #require(
            ChapterList(
                [Chapter(title: "One", startMs: 0), Chapter(title: "Two", startMs: 60_000)], durationMs: 180_000))
        world.box.chapters = chapters
        // Stopped: no chapter lines, and no moving.
        #expect(Self.run("chapter", world: &world) == "OK\n")
        #expect(Self.run("chapter next", world: &world) == "ACK [55@0] {chapter} Not playing\n")
        _ = Self.run("play", world: &world)
        _ = Self.run("seekcur 10", world: &world)
        #expect(
            Self.run("chapter", world: &world)
                == "chapter: 1\nchapters: 2\nchapter_title: One\nchapter_elapsed: 10.000\nchapter_duration: 60.000\nOK\n"
        )
        #expect(Self.run("chapter next", world: &world) == "OK\n")
        #expect(world.machine.queue.currentIndex == 0 && world.machine.positionMs == 60_000)
        // From the last chapter, next leaves the track (as the console's next does).
        #expect(Self.run("chapter next", world: &world) == "OK\n")
        #expect(world.machine.queue.currentIndex == 1)
        #expect(Self.run("chapter sideways", world: &world).hasPrefix("ACK [2@0] {chapter} usage"))
        // MPD's own next keeps its meaning: the next song.
        _ = Self.run("play 0", world: &world)
        _ = Self.run("next", world: &world)
        #expect(world.machine.queue.currentIndex == 1 && world.machine.positionMs == 0)
    }

    @Test func recentListsAndAsksToContinueAnEntry() {
        var world = MPDProtocolTests.world()
        #expect(Self.run("recent", world: &world) == "recent: nothing played yet\nOK\n")
        world.box.recent = [
            RecentlyPlayed.Entry(source: .favourites, trackPath: "a.mp3", positionMs: 61_000),
            RecentlyPlayed.Entry(source: .folder(path: "Kids"), trackPath: "Kids/b.mp3", positionMs: 0),
        ]
        #expect(
            Self.run("recent", human: true, world: &world)
                == "1 Favourites: a.mp3 at 1:01\n2 folder Kids: Kids/b.mp3 at 0:00\nOK\n")
        #expect(Self.run("recent 2", world: &world) == "OK\n")
        #expect(Self.run("recent 3", world: &world).hasPrefix("ACK [2@0] {recent} recent: expected an entry number"))
        #expect(Self.run("favourites", world: &world) == "OK\n")
        #expect(Self.run("favorites", world: &world) == "OK\n")
        #expect(
            world.box.requests == [
                .play(.folder(path: "Kids"), trackPath: "Kids/b.mp3", positionMs: 0),
                .play(.favourites, trackPath: nil, positionMs: 0), .play(.favourites, trackPath: nil, positionMs: 0),
            ])
    }

    /// Under quiet hours (or a used-up budget) the box's words that start music are refused
    /// with the rules' reason, as `play` is, and ask the daemon for nothing; the others work.
    @Test func theRulesRefuseTheBoxWordsThatStartMusic() {
        var world = MPDProtocolTests.world()
        world.box.recent = [RecentlyPlayed.Entry(source: .folder(path: "Kids"), trackPath: "Kids/b.mp3", positionMs: 0)]
        world.box.startRefusal = "quiet hours: nothing starts now"
        for line in ["favourites", "recent 1", "podcast play 1 2", "play"] {
            let command = line.split(separator: " ")[0]
            #expect(Self.run(line, world: &world) == "ACK [55@0] {\(command)} quiet hours: nothing starts now\n")
        }
        #expect(world.box.requests.isEmpty)
        #expect(world.machine.state == .stopped)
        #expect(Self.run("sleep 5", world: &world) == "sleep: 5 min\nOK\n")
        #expect(Self.run("recent", human: true, world: &world) == "1 folder Kids: Kids/b.mp3 at 0:00\nOK\n")
        #expect(world.box.requests == [.sleep(.after(ms: 300_000))])
        world.box.startRefusal = nil
        #expect(Self.run("favourites", world: &world) == "OK\n")
        #expect(world.box.requests.last == .play(.favourites, trackPath: nil, positionMs: 0))
    }

    @Test func podcastRunsOnTheShelfAndAsksToPlayEpisodes() {
        var world = MPDProtocolTests.world()
        #expect(Self.run("podcast list", world: &world) == "ACK [5@0] {podcast} no podcasts here\n")
        let shelf = Shelf()
        world.box.podcasts = shelf
        #expect(Self.run("podcast list", world: &world) == "podcast: podcast 1: https://example.org/feed.xml\nOK\n")
        #expect(!world.box.podcastsChanged)
        // Quoted as MPD quotes, on a client's line and a person's alike.
        #expect(
            Self.run(#"podcast add "https://example.org/feed.xml""#, human: true, world: &world)
                == "OK podcast 1: https://example.org/feed.xml\nOK\n")
        #expect(world.box.podcastsChanged)
        #expect(Self.run("podcast remove 3", world: &world) == "ACK [50@0] {podcast} no podcast 3 (podcast list)\n")
        #expect(Self.run("podcast play 1 2", world: &world) == "OK\n")
        #expect(Self.run("podcast play one", world: &world).hasPrefix("ACK [2@0] {podcast}"))
        #expect(shelf.ran == [.list, .add(url: "https://example.org/feed.xml"), .remove("3")])
        #expect(world.box.requests == [.playEpisode(podcast: 1, episode: 2)])
    }

    @Test func cardTakesAQuotedNameWithSpaces() {
        var world = MPDProtocolTests.world()
        let cards = Cards()
        world.tagCards = cards
        #expect(
            Self.run(#"card assign 04A1B2 folder "Name With Spaces""#, human: true, world: &world) == "done\nOK\n")
        #expect(cards.ran.count == 1)
        if case .assign(let card)? = cards.ran.first {
            #expect(card.id == "04A1B2" && card.content == .source(.folder(path: "Name With Spaces")))
        } else {
            Issue.record("not an assign: \(cards.ran)")
        }
        #expect(Self.run("card 04A1B2", world: &world) == "OK\n")
        #expect(world.tagCardEvents == [.read("04A1B2")])
    }

    @Test func aPersonMayTypeCommandsInAnyCase() {
        var world = MPDProtocolTests.world()
        #expect(Self.run("SLEEP 5", human: true, world: &world) == "sleep: 5 min\nOK\n")
        #expect(Self.run("SLEEP 5", world: &world) == "ACK [5@0] {} unknown command \"SLEEP\"\n")
    }

    @Test func theBoxCommandsAreListedAndHelped() {
        for name in [
            "sleep", "chapter", "recent", "favourites", "podcast", "card", "knob", "button", "speed", "lyrics",
        ] {
            #expect(MPDCommands.names.contains(name), "\(name)")
        }
        for word in ["sleep [", "chapter [next|previous]", "recent [N]", "podcast add URL", "card assign", "knob +N"] {
            #expect(MPDCommands.humanHelp.contains(word), "\(word)")
        }
    }
}
