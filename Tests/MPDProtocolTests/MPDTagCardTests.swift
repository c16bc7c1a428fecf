import JukeboxCore
import Testing

@testable import MPDProtocol

/// `card info` and `card unknown` for programs (the web page), and the jukebox's own `cards`
/// idle subsystem, heard only by clients that name it.
@Suite struct MPDTagCardTests {
    struct Mapping: MPDTagCardMapping {
        func run(_ command: TagCardCommand) throws -> [String] {
            switch command {
            case .info:
                TagCardCommand.infoLines([
                    TagCard(
                        id: "a1", content: .source(.album(artist: "Julia", album: "Gruffalo")), policy: .continue,
                        place: .init(trackPath: "K/1.mp3", positionMs: 83_042)),
                    TagCard(id: "b2", content: .source(.folder(path: "Kids\nNew"))),
                ])
            case .unknown: TagCardCommand.unknownLines("C0FFEE")
            case .last: TagCardCommand.lastLines("A1", reads: 3)
            default: ["B2 folder \"K\""]
            }
        }
    }

    static func world() -> MPDWorld {
        var world = MPDProtocolTests.world()
        world.tagCards = Mapping()
        return world
    }

    @Test func infoAndUnknownAnswerInKeyValueLines() {
        var world = Self.world()
        var session = MPDSession()
        #expect(
            session.handle(line: "card info", world: &world).text == """
                card: A1
                kind: album
                value: Gruffalo
                artist: Julia
                policy: continue
                place: K/1.mp3
                position: 83.042
                card: B2
                kind: folder
                value: Kids New
                OK

                """)
        #expect(session.handle(line: "card unknown", world: &world).text == "unknown: C0FFEE\nOK\n")
        #expect(TagCardCommand.unknownLines(nil).isEmpty)
        #expect(session.handle(line: "card last", world: &world).text == "last: A1\nreads: 3\nOK\n")
        #expect(TagCardCommand.lastLines(nil, reads: 0).isEmpty)
        #expect(session.handle(line: "card assign b2 folder K", world: &world).text == "card: B2 folder \"K\"\nOK\n")
    }

    /// A change of the mapping wakes `idle cards`, not a plain `idle` (MPD's clients do not
    /// know the name); reading the mapping changes nothing.
    @Test func onlyClientsThatNameCardsHearOfThem() {
        var world = Self.world()
        var (named, plain) = (MPDSession(), MPDSession())
        _ = world.observer.changes(world.machine)
        _ = named.handle(line: "idle cards", world: &world)
        _ = plain.handle(line: "idle", world: &world)
        var other = MPDSession()
        _ = other.handle(line: "card info", world: &world)
        _ = other.handle(line: "card last", world: &world)
        #expect(world.observer.changes(world.machine).isEmpty)
        _ = other.handle(line: "card forget b2", world: &world)
        let changes = world.observer.changes(world.machine)
        #expect(changes == [.cards])
        #expect(named.notify(changes) == "changed: cards\nOK\n")
        #expect(plain.notify(changes) == nil)
    }
}
