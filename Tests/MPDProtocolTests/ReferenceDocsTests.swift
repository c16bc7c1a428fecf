import Foundation
import JukeboxCore
import MPDProtocol
import Testing

/// The generated references in docs/ stay what the code's tables make of them, and the user
/// guide shows only commands the consoles take. `./dev docs` (these tests with
/// `JUKEBOX_WRITE_REFERENCE=1`) writes the references again.
@Suite struct ReferenceDocsTests {
    /// The checkout, from this file's path (Tests/MPDProtocolTests/ReferenceDocsTests.swift).
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: "\(repoRoot)/\(path)", encoding: .utf8)
    }

    /// Fails when `path` differs from `text`, saying how to write it again; writes it with
    /// `JUKEBOX_WRITE_REFERENCE=1`.
    func expectGenerated(_ text: String, at path: String) throws {
        let url = URL(fileURLWithPath: "\(Self.repoRoot)/\(path)")
        if ProcessInfo.processInfo.environment["JUKEBOX_WRITE_REFERENCE"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let committed = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        let firstDifference = zip(
            committed.split(separator: "\n", omittingEmptySubsequences: false),
            text.split(separator: "\n", omittingEmptySubsequences: false)
        ).enumerated()
            .first { $0.element.0 != $0.element.1 }
        #expect(
            committed == text,
            """
            \(path) is out of date (first difference at line \((firstDifference?.offset ?? 0) + 1)): \
            run ./dev docs to write it again from the code's tables
            """)
    }

    @Test func commandReferenceMatchesTheCommandTables() throws {
        try expectGenerated(CommandReference.markdown(), at: "docs/COMMANDS.md")
    }

    @Test func configReferenceMatchesTheValidatorAndTheAnnotatedConfig() throws {
        let annotated = try Self.read("config/jukebox.toml")
        let (keys, problems) = ConfigReference.keys(annotated: ConfigReference.annotatedKeys(in: annotated))
        #expect(problems.isEmpty, "config/jukebox.toml and the validator differ:\n\(problems.joined(separator: "\n"))")
        try expectGenerated(ConfigReference.markdown(keys), at: "docs/CONFIG.md")
    }

    /// Every key the annotated default config sets or shows commented out is one the
    /// validator takes, and the file as shipped validates.
    @Test func everyKeyOfTheAnnotatedConfigIsKnown() throws {
        let text = try Self.read("config/jukebox.toml")
        let annotated = ConfigReference.annotatedKeys(in: text)
        let known = Set(ConfigReference.validatedKeys.map { "\($0.table).\($0.name)" })
        let unknown = annotated.map { "\($0.table).\($0.name)" }.filter { !known.contains($0) }
        #expect(annotated.count >= 100, "read \(annotated.count) keys")
        #expect(unknown.isEmpty, "config/jukebox.toml shows keys the validator does not take: \(unknown)")
    }

    @Test func everyExampleOfTheCommandReferenceParses() {
        #expect(CommandReference.examples.count >= 80)
        for example in CommandReference.examples {
            #expect(ConsoleLanguage.problem(in: example) == nil, "\(example): \(ConsoleLanguage.problem(in: example)!)")
        }
    }

    @Test func everyBoxCommandIsInTheReference() {
        #expect(CommandReference.undocumentedBoxCommands == [])
    }

    /// The check refuses what a console refuses, so the guide's test can fail.
    @Test(arguments: [
        "frobnicate", "sleep 30x", "card", "card assign 04A1B2C3", "play 0", "seek x", "knob sideways",
        "button next sideways", "podcast play 1", "lyrics offset soon", "chapter sideways", "speed 9",
        "status now", "say", "recent first", "setvol 101",
    ])
    func refusesWhatNoConsoleTakes(line: String) {
        #expect(ConsoleLanguage.problem(in: line) != nil)
    }

    @Test(arguments: [
        "update", "clear cache", "help", "currentsong", "add \"Album/03 Song.mp3\"", "search any \"night\"",
    ])
    func takesTheDaemonsLinesAndMPDCommands(line: String) {
        #expect(ConsoleLanguage.problem(in: line) == nil, "\(ConsoleLanguage.problem(in: line) ?? "")")
    }

    /// Placeholders the guide writes in a command, and what stands in for them.
    static let placeholders = [
        "ID": "04A1B2C3", "N": "2", "+N": "+2", "-N": "-2", "FILE": "/home/pi/cards.csv",
        "http://…": "http://radio.example.org/jazz.mp3",
    ]

    /// Inline code that starts with a command word but is no command (with why).
    static let notCommands: Set<String> = [
        "card 04A1B2C3: new card",  // the log line that names a new card
        "Chapter 3 – The Book",  // what the screen shows
    ]

    @Test(arguments: ["docs/GUIDE.md", "README.md"])
    func theGuideShowsOnlyCommandsTheConsolesTake(path: String) throws {
        let text = try Self.read(path)
        let found = DocumentedCommands.consoleLines(in: text, consoleWords: CommandReference.consoleWords)
        if path == "docs/GUIDE.md" { #expect(found.count >= 20, "found \(found.count) commands") }
        for command in found where !Self.notCommands.contains(command.text) {
            let line = command.text.split(separator: " ").map { Self.placeholders[String($0)] ?? String($0) }
                .joined(separator: " ")
            let problem = ConsoleLanguage.problem(in: line)
            #expect(problem == nil, "\(path):\(command.line): `\(command.text)`: \(problem ?? "")")
        }
    }

    @Test func documentedCommandsAreFoundInBlocksSpansAndNetcatLines() {
        let markdown = """
            Type `sleep 30` or `mpc update`; `card 04A1: x` too.

            ```console
            > play 3
            OK
            ```

            ```sh
            printf 'card list\\nclose\\n' | nc 127.0.0.1 6600
            jukeboxd --config box.toml --check-config   # comment
            ```
            `echo 'say "hello"' | nc box 6600`, then `jukeboxd scan`.
            """
        let console = DocumentedCommands.consoleLines(in: markdown, consoleWords: ["sleep", "card"])
        #expect(console.map(\.text) == ["sleep 30", "card 04A1: x", "play 3", "card list", "close", "say \"hello\""])
        #expect(console.map(\.line) == [1, 1, 4, 9, 9, 12])
        let invocations = DocumentedCommands.jukeboxdInvocations(in: markdown)
        #expect(invocations.map(\.text) == ["--config box.toml --check-config", "scan"])
    }
}
