import JukeboxCore

/// The MPD protocol's text layer, as MPD 0.24 speaks it (0.23's, which it keeps): the tokenizer with its quoting
/// rules, the ACK error form, response formatting and the idle subsystems. Pure: no I/O.
///
/// A request line is a command word (ASCII letters, digits and `_`, starting with a letter)
/// followed by arguments. An argument is either unquoted (bytes above space, no `"` or `'`)
/// or double-quoted, where a backslash escapes the next character. A closing quote must be
/// followed by whitespace or the end of the line.
public enum MPDProtocol {
    /// The protocol version in the greeting (`OK MPD 0.24.0`): clients turn on 0.24's
    /// features (relative positions in myMPD, `protocol`, ranges of stored playlists) by it.
    /// docs/MPD.md lists the 0.24 items the box leaves out and why.
    public static let version = "0.24.0"
    /// The greeting a client sees first.
    public static let greeting = "OK MPD \(version)\n"
    /// The longest request line a network client may send (MPD's input buffer is 4 KiB).
    public static let maximumLineBytes = 4096
    /// The most arguments after the command word (MPD: 2 + 2 × its tag count).
    public static let maximumArguments = 2 + 2 * 32

    /// One tokenized request line.
    public struct Request: Sendable, Equatable {
        public var command: String
        public var arguments: [String]

        /// A request: the command word and its arguments.
        public init(command: String, arguments: [String] = []) {
            self.command = command
            self.arguments = arguments
        }
    }

    /// Splits a request line. Errors are MPD's tokenizer messages, reported with ACK code 5
    /// and an empty command (`ACK [5@0] {} Missing closing '"'`).
    public static func tokenize(_ line: String) -> Result<Request, MPDError> {
        var bytes = Array(line.utf8)
        while let last = bytes.last, last == 0x0D || last == 0x0A { bytes.removeLast() }
        var index = 0
        guard index < bytes.count else { return .failure(MPDError(.unknown, "No command given")) }
        guard isLetter(bytes[index]) else { return .failure(MPDError(.unknown, "Letter expected")) }
        var word: [UInt8] = []
        while index < bytes.count, !CommandWords.isSpace(bytes[index]) {
            let byte = bytes[index]
            guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") else {
                return .failure(MPDError(.unknown, "Invalid word character"))
            }
            word.append(byte)
            index += 1
        }
        let arguments: [String]
        switch CommandWords.split(bytes, from: index, limit: maximumArguments) {
        case .success(let words): arguments = words
        case .failure(let problem):
            return .failure(MPDError(problem == .tooManyWords ? .argument : .unknown, problem.message))
        }
        return .success(Request(command: String(decoding: word, as: UTF8.self), arguments: arguments))
    }

    /// Quotes an argument for sending (the inverse of `tokenize`): `"a \"b\""`. Scalar by
    /// scalar: as characters, `\r\n` is neither `\r` nor `\n`, and a quote followed by a
    /// combining mark is not a quote, yet the reader splits bytes (fuzz finding 5). A line break
    /// would end the command (the protocol has no escape for it): it goes as a space.
    public static func quote(_ argument: String) -> String {
        var text = String.UnicodeScalarView()
        text.append("\"")
        for scalar in argument.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { text.append("\\") }
            text.append(scalar == "\n" || scalar == "\r" ? " " : scalar)
        }
        text.append("\"")
        return String(text)
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// g_ascii_isspace: space, tab, LF, VT, FF, CR.
}

/// An MPD protocol error: `ACK [code@index] {command} message`.
public struct MPDError: Error, Sendable, Equatable {
    /// The ACK codes of MPD 0.23 (`src/protocol/Ack.hxx`).
    public enum Code: Int, Sendable, Equatable {
        case notList = 1
        case argument = 2
        case password = 3
        case permission = 4
        case unknown = 5
        case noExist = 50
        case playlistMax = 51
        case system = 52
        case playlistLoad = 53
        case updateAlready = 54
        case playerSync = 55
        case exist = 56
    }

    public var code: Code
    public var message: String

    /// An error with its code and message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The ACK line (with its newline) for the command at `index` in a command list (0 outside one).
    public func ack(index: Int, command: String) -> String {
        "ACK [\(code.rawValue)@\(index)] {\(command)} \(ReplyLine.oneLine(message))\n"
    }
}

/// MPD 0.24's protocol features, which a client turns on for its own connection
/// (`protocol enable NAME`); all are off on a new connection.
public enum MPDProtocolFeature: String, Sendable, Equatable, CaseIterable, Hashable {
    /// `lsinfo` of the root lists no stored playlists.
    case hidePlaylistsInRoot = "hide_playlists_in_root"

    /// The feature of `name`, in any case (as MPD compares them).
    init?(name: String) {
        guard let feature = Self.allCases.first(where: { $0.rawValue == name.lowercased() }) else { return nil }
        self = feature
    }
}

/// The idle subsystems the jukebox reports (a subset of MPD's).
public enum MPDSubsystem: String, Sendable, Equatable, CaseIterable, Hashable {
    case database
    case update
    case playlist
    case player
    case mixer
    case options
    case output
    case stickers = "sticker"
    case subscription
    case message
    case partition
    case storedPlaylist = "stored_playlist"
    case neighbor
    case mount
    /// The jukebox's own: the card mapping changed, or a new card was read. Only a client that
    /// names it (`idle cards`) hears of it; MPD's clients do not know the name.
    case cards

    /// Whether `idle` without names reports it.
    var isReportedToAll: Bool { self != .cards }
}

/// Builds a response body: `key: value` lines, and MPD's binary chunks (`binary: N`, the raw
/// bytes, a newline), which is why it holds bytes, not text. Values never contain a newline.
public struct MPDResponse: Sendable, Equatable {
    public private(set) var bytes: [UInt8] = []

    /// An empty response.
    public init() {}

    /// The response as text (a binary chunk's bytes decoded as UTF-8, for tests and people).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends `key: value`.
    public mutating func add(_ key: String, _ value: String) {
        bytes += key.utf8
        bytes += ": ".utf8
        bytes += ReplyLine.oneLine(value).utf8
        bytes.append(0x0A)
    }

    /// Appends `key: value` for an integer.
    public mutating func add(_ key: String, _ value: some BinaryInteger) {
        add(key, "\(value)")
    }

    /// Appends raw text (already in `key: value` form).
    public mutating func append(_ raw: String) { bytes += raw.utf8 }

    /// Appends another response.
    public mutating func append(_ other: MPDResponse) { bytes += other.bytes }

    /// Appends a binary chunk as MPD frames it: `binary: N`, the N bytes, a newline.
    public mutating func addBinary(_ chunk: [UInt8]) {
        add("binary", chunk.count)
        bytes += chunk
        bytes.append(0x0A)
    }
}
