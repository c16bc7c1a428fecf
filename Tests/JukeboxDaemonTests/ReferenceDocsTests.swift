import Foundation
import JukeboxCore
import JukeboxDaemon
import JukeboxTestSupport
import Testing

/// The `jukeboxd ...` lines the user guide and the README show are command lines jukeboxd
/// takes: a subcommand it has, options it knows, the arguments it expects (parsed only, with
/// the daemon's own table, `Jukeboxd.interface`; nothing is run). The generated references
/// are checked in the hermetic tier (`MPDProtocolTests.ReferenceDocsTests`).
@Suite struct ReferenceDocsTests {
    /// A shell command's words, its single and double quotes removed.
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    static func problem(_ arguments: [String]) -> String? {
        if case .usageError(let error, _) = JukeboxDaemon.Jukeboxd.interface.parse(arguments) { return error.message }
        return nil
    }

    @Test(arguments: ["docs/GUIDE.md", "README.md"])
    func theGuideShowsOnlyCommandLinesJukeboxdTakes(path: String) throws {
        let text = try String(contentsOfFile: "\(Fixtures.repoRoot)/\(path)", encoding: .utf8)
        let found = DocumentedCommands.jukeboxdInvocations(in: text)
        if path == "docs/GUIDE.md" { #expect(found.count >= 8, "found \(found.count)") }
        for invocation in found {
            let problem = Self.problem(Self.shellWords(invocation.text))
            #expect(problem == nil, "\(path):\(invocation.line): `jukeboxd \(invocation.text)`: \(problem ?? "")")
        }
    }

    @Test func refusesWhatJukeboxdDoesNotTake() {
        #expect(Self.problem(Self.shellWords("render --no-such-option")) != nil)
        #expect(Self.problem(Self.shellWords("--config")) != nil)
        #expect(Self.problem(Self.shellWords("lyrics")) != nil)
        #expect(
            Self.shellWords("render --menu 'Artists > The Beatles' -o a.png") == [
                "render", "--menu", "Artists > The Beatles", "-o", "a.png",
            ])
    }
}
