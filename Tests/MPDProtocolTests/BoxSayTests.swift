import JukeboxCore
import Testing

@testable import MPDProtocol

/// `say "TEXT"` in the MPD table: the text is handed to the daemon's speaker as one argument
/// (quoted as the other words), refused when too long, empty, speech is off, or the speaker
/// says why not.
@Suite struct BoxSayTests {
    static func run(_ line: String, world: inout MPDWorld) -> String {
        var session = MPDSession(options: .init(human: false))
        return session.handle(line: line, world: &world).text
    }

    /// A speaker that remembers the texts and refuses when told to.
    final class Speaker {
        var said: [String] = []
        var refusal: String?
    }

    @Test func sayHandsTheTextOverOrSaysWhyNot() {
        var world = MPDProtocolTests.world()
        let speaker = Speaker()
        world.box.speak = { text in
            if let refusal = speaker.refusal { return refusal }
            speaker.said.append(text)
            return nil
        }
        let long = String(repeating: "x", count: Announcements.maxCharacters + 1)
        let rows: [(line: String, reply: String)] = [
            (#"say "Good night, Anna""#, "OK\n"),
            ("say hello", "OK\n"),
            (#"say "a \"quoted\" word""#, "OK\n"),
            ("say", "ACK [2@0] {say} wrong number of arguments for \"say\"\n"),
            (#"say "one" "two""#, "ACK [2@0] {say} wrong number of arguments for \"say\"\n"),
            (#"say """#, "ACK [2@0] {say} say: nothing to say\n"),
            (
                "say \(long)",
                "ACK [2@0] {say} say: the text has \(long.count) characters, at most \(Announcements.maxCharacters) are spoken\n"
            ),
        ]
        for row in rows { #expect(Self.run(row.line, world: &world) == row.reply, "\(row.line.prefix(20))") }
        #expect(speaker.said == ["Good night, Anna", "hello", #"a "quoted" word"#])
        speaker.refusal = "speech needs libespeak-ng1 (libespeak-ng.so.1: cannot open shared object file)"
        #expect(
            Self.run("say hi", world: &world)
                == "ACK [52@0] {say} say: speech needs libespeak-ng1 (libespeak-ng.so.1: cannot open shared object file)\n"
        )
        // Speech off in the config: no speaker.
        world.box.speak = nil
        #expect(Self.run("say hi", world: &world) == "ACK [2@0] {say} say: speech is off ([speech] enabled = false)\n")
        #expect(speaker.said.count == 3)
    }
}
