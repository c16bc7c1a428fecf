/// What an NFC/RFID card does when it is put on the reader, with where its content was left.
public struct TagCard: Sendable, Equatable {
    /// What the card plays or runs.
    public enum Content: Sendable, Hashable {
        /// Music of the library (a folder, an album, an artist, a stored playlist).
        case source(PlaySource)
        /// A stream, kept for when the box plays streams.
        case url(String)
        /// A console command line (`stop`, `volume 30`, `mode shuffle`).
        case command(String)

        /// The kinds as `card assign` and the export name them.
        public static let kinds = ["folder", "album", "artist", "playlist", "url", "command"]

        /// The content of kind `kind` named by `values` (an album: its name, or artist and
        /// name); a message saying what is wrong otherwise.
        public static func make(kind: String, values: [String]) -> Result<Content, CommandError> {
            let problem = { (text: String) in
                Result<Content, CommandError>.failure(.badArgument(command: "card", problem: text))
            }
            guard kinds.contains(kind) else {
                return problem("unknown kind '\(kind)' (\(kinds.joined(separator: ", ")))")
            }
            let expected = kind == "album" ? 1...2 : 1...1
            guard expected.contains(values.count), !values.contains(where: \.isEmpty) else {
                return problem(
                    kind == "album"
                        ? "album: expected the album's name, or its artist and name" : "\(kind): expected one value")
            }
            switch kind {
            case "folder": return .success(.source(.folder(path: values[0])))
            case "album":
                return .success(.source(.album(artist: values.count == 2 ? values[0] : "", album: values.last!)))
            case "artist": return .success(.source(.artist(name: values[0])))
            case "playlist": return .success(.source(.playlist(name: values[0])))
            case "url": return .success(.url(values[0]))
            default: return .success(.command(values[0]))
            }
        }

        /// The kind and the values `make` takes back.
        public var parts: (kind: String, values: [String]) {
            switch self {
            case .source(.folder(let path)): ("folder", [path])
            case .source(.album(let artist, let album)): ("album", artist.isEmpty ? [album] : [artist, album])
            case .source(.artist(let name)): ("artist", [name])
            case .source(.playlist(let name)): ("playlist", [name])
            case .source(.favourites): ("playlist", [Favourites.playlistName])
            case .url(let url): ("url", [url])
            case .command(let line): ("command", [line])
            }
        }

        /// `album "Julia Donaldson" "The Gruffalo"`, as `card assign` takes it.
        public var description: String {
            let (kind, values) = parts
            return ([kind] + values.map(Self.quoted)).joined(separator: " ")
        }

        static func quoted(_ value: String) -> String {
            "\"" + value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
        }
    }

    /// Where a card's content starts when the card comes back after other music played.
    public enum Policy: String, Sendable, Equatable, CaseIterable {
        /// Where it was left (audiobooks).
        case `continue`
        /// From its first track (songs).
        case start
    }

    /// The card's ID as the reader gives it (upper case).
    public var id: String
    public var content: Content
    /// nil: `continue` for content longer than `[cards] continue_over_minutes`, else `start`.
    public var policy: Policy?
    /// Where the content was left, if it played.
    public var place: PlayHistory.Place?
    /// The name a parent gave it ("yellow car"). nil: none; in a card to store (`card assign`,
    /// a file without names) nil keeps the stored name, as the name is the physical card's.
    public var name: String?
    /// When it was last put on the reader (seconds since 1970, UTC); nil: never, or only while
    /// the box did not trust its clock.
    public var lastUsed: Int64?

    public init(
        id: String, content: Content, policy: Policy? = nil, place: PlayHistory.Place? = nil, name: String? = nil,
        lastUsed: Int64? = nil
    ) {
        self.id = Self.normalized(id)
        self.content = content
        self.policy = policy
        self.place = place
        self.name = name
        self.lastUsed = lastUsed
    }

    /// A name is at most this many characters (a line of a phone's screen).
    public static let maxNameLength = 64

    /// `text` as a card's name: spaces around it trimmed, at most `maxNameLength` characters,
    /// no control characters (a newline would end a reply line or a CSV row); empty: no name.
    public static func checkedName(_ text: String) -> Result<String, CommandError> {
        let problem = { (text: String) in
            Result<String, CommandError>.failure(.badArgument(command: "card", problem: text))
        }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return problem("name: control characters (a newline, a tab) are not allowed in a name")
        }
        let name = text.trimmedSpaces
        guard name.count <= maxNameLength else {
            return problem("name: at most \(maxNameLength) characters, found \(name.count)")
        }
        return .success(name)
    }

    /// Readers give IDs in any case, keyboard readers with a trailing newline.
    public static func normalized(_ id: String) -> String {
        String(id.filter { !$0.isWhitespace }).uppercased()
    }

    /// Whether its content starts where it was left, for content `durationMs` long.
    public func continues(durationMs: Int64, continueOverMs: Int64) -> Bool {
        switch policy {
        case .continue?: true
        case .start?: false
        case nil: durationMs > continueOverMs
        }
    }
}
