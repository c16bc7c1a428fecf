/// What docs/COMMANDS.md says of one command form: kept beside the command in its table
/// (`CommandParser.commands`, the box's `BoxCommand`s), so the reference is made from the
/// tables the front ends use and cannot drift from them.
public struct CommandReferenceEntry: Sendable, Equatable {
    /// The reference's sections, in their order.
    public enum Topic: String, Sendable, CaseIterable {
        case playing = "Playing"
        case controls = "Knob, buttons and favourites"
        case cards = "Cards"
        case timers = "Sleep timer, rules and speech"
        case library = "Library, lyrics, chapters and Recently played"
        case podcasts = "Podcasts"
        case box = "The box itself"
    }

    public var topic: Topic
    /// How it is written, with placeholders in capitals: `seek S`, `card policy ID continue|start|auto`.
    public var syntax: String
    /// What it does, in the reference's words.
    public var text: String
    /// Lines as typed on a console, each a command the console parses (a test holds them to it).
    public var examples: [String]
    /// More than `text` says, for the reference only (`help` shows `text`).
    public var details: String?

    public init(_ topic: Topic, _ syntax: String, _ text: String, examples: [String] = [], details: String? = nil) {
        self.topic = topic
        self.syntax = syntax
        self.text = text
        self.examples = examples
        self.details = details
    }

    /// `help`'s line: the syntax in a column of 13, then the text.
    public var helpLine: String {
        let width = 13
        let gap = syntax.count < width - 1 ? String(repeating: " ", count: width - syntax.count) : "  "
        return syntax + gap + text
    }
}

/// The commands a Markdown document shows, for the tests that hold the user guide to the
/// command languages: lines in ```` ```console ```` blocks that start with `> ` (typed on the
/// box's console; the other lines are replies), the lines of `printf '...' | nc HOST 6600` and
/// `echo '...' | nc` (sent to the box as an MPD client), `jukeboxd ...` lines in code blocks
/// and inline code spans, and inline spans whose first word is one of `consoleWords` (so a bad
/// argument to a known command is caught; a new command belongs in a console block).
public enum DocumentedCommands {
    /// A command found in a document, with its line number (from 1).
    public struct Found: Sendable, Equatable {
        public var line: Int
        public var text: String
    }

    /// Console lines (console blocks, MPD lines sent with nc, inline spans of `consoleWords`).
    public static func consoleLines(in markdown: String, consoleWords: Set<String>) -> [Found] {
        var found: [Found] = []
        scan(markdown) { number, line, block in
            switch block {
            case "console":
                if line.hasPrefix("> ") {
                    found.append(Found(line: number, text: String(line.dropFirst(2)).trimmedSpaces))
                }
            case nil:
                for span in inlineSpans(line) {
                    // One word alone is the command's name in prose (`knob`, `say`).
                    let words = span.split(separator: " ")
                    guard words.count > 1, consoleWords.contains(words[0].lowercased()) else {
                        found += sentWithNetcat(span).map { Found(line: number, text: $0) }
                        continue
                    }
                    found.append(Found(line: number, text: span))
                }
            default:
                found += sentWithNetcat(line).map { Found(line: number, text: $0) }
            }
        }
        return found
    }

    /// `jukeboxd` command lines (code blocks and inline spans), as their words after
    /// `jukeboxd`, without a trailing `# comment`.
    public static func jukeboxdInvocations(in markdown: String) -> [Found] {
        var found: [Found] = []
        scan(markdown) { number, line, block in
            let candidates = block == nil ? inlineSpans(line) : (block == "console" ? [] : [line])
            for candidate in candidates {
                var text = candidate
                if let hash = text.firstRange(of: " #") { text = String(text[..<hash.lowerBound]) }
                for command in text.split(separator: "&&").map({ $0.trimmedSpaces })
                where command.hasPrefix("jukeboxd ") || command == "jukeboxd" {
                    found.append(Found(line: number, text: String(command.dropFirst("jukeboxd".count)).trimmedSpaces))
                }
            }
        }
        return found
    }

    /// Calls `body` with each line, its number and the info string of the fenced block it is
    /// in (nil: prose).
    static func scan(_ markdown: String, _ body: (Int, String, String?) -> Void) {
        var block: String?
        for (offset, raw) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmedSpaces
            if line.hasPrefix("```") {
                block = block == nil ? String(line.dropFirst(3)).trimmedSpaces : nil
                continue
            }
            body(offset + 1, line, block)
        }
    }

    /// The `code` spans of a line of prose.
    static func inlineSpans(_ line: String) -> [String] {
        let pieces = line.split(separator: "`", omittingEmptySubsequences: false)
        return stride(from: 1, to: pieces.count - 1, by: 2).map { String(pieces[$0]).trimmedSpaces }
    }

    /// The request lines of `printf 'LINE\nLINE\n' | nc ...` or `echo 'LINE' | nc ...`.
    static func sentWithNetcat(_ line: String) -> [String] {
        guard line.contains("| nc "), line.hasPrefix("printf '") || line.hasPrefix("echo '") else { return [] }
        let body = line.drop(while: { $0 != "'" }).dropFirst()
        guard let end = body.firstIndex(of: "'") else { return [] }
        return body[..<end].replacing("\\n", with: "\n").split(separator: "\n").map { String($0).trimmedSpaces }
            .filter { !$0.isEmpty }
    }
}
