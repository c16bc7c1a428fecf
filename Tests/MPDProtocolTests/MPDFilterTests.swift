import JukeboxCore
import Testing

@testable import MPDProtocol

/// The filters MPD 0.23 takes that clients send for libraries at home: regular expressions,
/// `modified-since` and `AudioFormat` (the same answers as the real MPD:
/// MPDDifferentialTests.filtersAnswerAsMPD).
@Suite struct MPDFilterTests {
    /// The files found, in path order (find without `sort` answers in the library's order).
    static func files(_ line: String) -> [String] { MPDTagTests.files(line).sorted() }

    @Test(arguments: [
        (#"find "(artist =~ '^A')""#, ["A/01.mp3", "A/02.mp3"]),
        (#"find "(artist =~ 'n$')""#, ["A/01.mp3", "A/02.mp3"]),
        (#"find "(artist =~ 'ann')""#, []),  // find: case counts
        (#"search "(artist =~ 'ann')""#, ["A/01.mp3", "A/02.mp3"]),  // search: it does not
        (#"find "(artist !~ '^A')""#, ["B/01.mp3", "loose.wav"]),
        (#"find "(title =~ 'T(wo|hree)')""#, ["A/02.mp3", "B/01.mp3"]),
        (#"find "(file =~ '\\.wav$')""#, ["loose.wav"]),
        (#"find "(genre =~ '^(Pop|Jazz)$')""#, ["A/01.mp3", "B/01.mp3"]),
        (#"find "((artist =~ 'A') AND (!(title =~ 'One')))""#, ["A/02.mp3"]),
    ])
    func regularExpressions(line: String, expected: [String]) {
        #expect(Self.files(line) == expected, "\(line)")
    }

    @Test(arguments: [
        (#"find "(modified-since '2024-11-24T12:00:00Z')""#, ["A/01.mp3"]),
        (#"find "(modified-since '2024-11-24T12:00:01Z')""#, []),
        (#"find "(modified-since '2024-11-24')""#, ["A/01.mp3"]),
        (#"find "(modified-since '1732449600')""#, ["A/01.mp3"]),
        (#"find modified-since 2024-01-01T00:00:00Z"#, ["A/01.mp3"]),
        (#"find "(AudioFormat == '44100:16:2')""#, ["A/01.mp3"]),
        (#"find "(AudioFormat =~ '*:24:*')""#, ["loose.wav"]),
        (#"find "(AudioFormat =~ '*:*:*')""#, ["A/01.mp3", "loose.wav"]),
    ])
    func timesAndFormats(line: String, expected: [String]) {
        #expect(Self.files(line) == expected, "\(line)")
    }

    @Test(arguments: [
        (#"find "(artist =~ '(')""#, "Invalid regular expression"),
        (#"find "(artist =~ '(a+)+b')""#, "too complex"),
        (#"find "(artist =~ '(a|aa)*c')""#, "too complex"),
        (#"find "(artist =~ '((ab)*c)+')""#, "too complex"),
        (#"find "(artist =~ '(a)\\\\1')""#, "Back-references"),  // \1 once both quotings are undone
        (#"find "(modified-since 'yesterday')""#, "Failed to parse date"),
        (#"find "(AudioFormat == '44100:*:2')""#, "Failed to parse audio format"),
        (#"find "(AudioFormat contains '44100')""#, "'==' or '=~' expected"),
    ])
    func refusedWithAReason(line: String, problem: String) {
        let reply = MPDTagTests.run(line)
        #expect(reply.hasPrefix("ACK [2@0] {find}") && reply.contains(problem), "\(line): \(reply)")
    }

    /// A pattern over the length limit is refused before it is compiled.
    @Test func aLongPatternIsRefused() {
        let pattern = String(repeating: "a", count: TagPattern.maximumLength + 1)
        #expect(MPDTagTests.run("find \"(artist =~ '\(pattern)')\"").contains("too long"))
        #expect(!MPDTagTests.run("find \"(artist =~ '\(pattern.dropLast())')\"").hasPrefix("ACK"))
    }

    /// Patterns with repetition that cannot backtrack without bound are taken.
    @Test(arguments: ["^(The )?Beatles$", "[a-z]+ [0-9]{2,4}", "(ab)+", "(a|b)c", "x(a[+*]b)+"])
    func safePatternsAreTaken(pattern: String) {
        #expect(TagPattern.backtrackingProblem(pattern) == nil, "\(pattern)")
    }
}
