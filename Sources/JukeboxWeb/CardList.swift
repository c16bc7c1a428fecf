import JukeboxCore

/// The cards page's facts: every card (`card info`), the last new card read (`card unknown`)
/// and the music folders (`listall`'s `directory:` lines), with the folders that no card plays.
public struct CardList: Sendable, Equatable {
    /// One card as `card info` describes it.
    public struct Card: Sendable, Equatable {
        public var id: String
        public var kind: String
        public var value: String
        public var artist = ""
        public var policy = ""
        public var place = ""
        public var position: Double?
        /// The name a parent gave it; empty: none.
        public var name = ""
        /// When it was last put on the reader (seconds since 1970, UTC); nil: never.
        public var lastUsed: Int64?

        /// What it plays, in words: `folder Kids/Gruffalo`.
        public var plays: String {
            kind == "album" && !artist.isEmpty ? "album \(artist) – \(value)" : "\(kind) \(value)"
        }
    }

    /// A folder the picker offers, with the card that plays it (nil: no card yet).
    public struct Folder: Sendable, Equatable {
        public var path: String
        public var card: String?
    }

    /// The picker lists at most this many folders (a huge library still gets a page).
    public static let maxFolders = 5000

    public var cards: [Card] = []
    public var unknown: String?
    public var folders: [Folder] = []

    public init() {}

    /// The page's order: named cards by name (case and accents aside), then unnamed ones, each
    /// by ID. A parent looks a card up by the name they gave it; an order by last use would
    /// move the cards under their finger each time a child puts one on the reader (the list
    /// reloads at every read).
    static func listOrder(_ a: Card, _ b: Card) -> Bool {
        if a.name.isEmpty != b.name.isEmpty { return !a.name.isEmpty }
        let (keyA, keyB) = (SortKey(a.name), SortKey(b.name))
        if keyA != keyB { return keyA < keyB }
        return a.id < b.id
    }

    /// From the replies of `card info`, `card unknown` and `listall`.
    public init(info: [MPDField], unknown: [MPDField], listing: [MPDField]) {
        for field in info {
            if field.key == "card" {
                cards.append(Card(id: field.value, kind: "", value: ""))
                continue
            }
            guard !cards.isEmpty else { continue }
            switch field.key {
            case "kind": cards[cards.count - 1].kind = field.value
            case "value": cards[cards.count - 1].value = field.value
            case "artist": cards[cards.count - 1].artist = field.value
            case "policy": cards[cards.count - 1].policy = field.value
            case "place": cards[cards.count - 1].place = field.value
            case "position": cards[cards.count - 1].position = Double(field.value)
            case "name": cards[cards.count - 1].name = field.value
            case "last_used": cards[cards.count - 1].lastUsed = ISO8601.seconds(field.value)
            default: break
            }
        }
        cards.sort(by: Self.listOrder)
        self.unknown = unknown.first { $0.key == "unknown" }?.value
        var byFolder: [String: String] = [:]
        for card in cards where card.kind == "folder" { byFolder[card.value] = byFolder[card.value] ?? card.id }
        for field in listing where field.key == "directory" {
            guard folders.count < Self.maxFolders else { break }
            folders.append(Folder(path: field.value, card: byFolder[field.value]))
        }
    }
}

/// What a POST asks of the daemon, checked before anything is sent: the MPD command line.
public enum WebAction: Sendable, Equatable {
    case play
    case pause
    case next
    case previous
    case seek(seconds: Double)
    case volume(Int)
    case remove(id: Int)
    case playID(Int)
    case assignFolder(card: String, folder: String)
    case forget(card: String)
    /// `card name ID NAME` (already checked: `TagCard.checkedName`).
    case name(card: String, name: String)
    /// The music page's: the queue becomes this folder or song and plays (as a card does).
    case playNow(String)
    /// Added at the end of the queue.
    case add(String)
    case playFavourites
    /// `recent N`: Recently played's entry N continued where it was left.
    case continueRecent(Int)

    /// The action of a now-playing form (`op` and `value`); nil when it is not one.
    public static func player(_ form: FormData) -> WebAction? {
        let value = form["value"] ?? ""
        switch form["op"] {
        case "play": return .play
        case "pause": return .pause
        case "next": return .next
        case "previous": return .previous
        case "seek":
            guard let seconds = Double(value), seconds.isFinite, seconds >= 0 else { return nil }
            return .seek(seconds: seconds)
        case "volume":
            guard let level = Int(value), (0...100).contains(level) else { return nil }
            return .volume(level)
        case "remove": return Int(value).flatMap { $0 >= 0 ? .remove(id: $0) : nil }
        case "playid": return Int(value).flatMap { $0 >= 0 ? .playID($0) : nil }
        default: return nil
        }
    }

    /// `card assign ID folder PATH` from the cards page's form; nil without a card or folder.
    public static func assign(_ form: FormData) -> WebAction? {
        let card = TagCard.normalized(form["card"] ?? "")
        guard !card.isEmpty, let folder = form["folder"], !folder.isEmpty else { return nil }
        return .assignFolder(card: card, folder: folder)
    }

    /// `card name ID NAME` from a card's name form: the name checked here as the daemon checks
    /// it, so that the page can say why (nil: no card; a failure: what is wrong with the name).
    public static func name(_ form: FormData) -> Result<WebAction, CommandError>? {
        let card = TagCard.normalized(form["card"] ?? "")
        guard !card.isEmpty, let name = form["name"] else { return nil }
        return TagCard.checkedName(name).map { .name(card: card, name: $0) }
    }

    /// `card forget ID`.
    public static func forget(_ form: FormData) -> WebAction? {
        let card = TagCard.normalized(form["card"] ?? "")
        return card.isEmpty ? nil : .forget(card: card)
    }

    /// The command line for the daemon.
    public var command: String {
        let quoted = MPDReplyReader.quoted
        switch self {
        case .play: return "play"
        case .pause: return "pause 1"
        case .next: return "next"
        case .previous: return "previous"
        case .seek(let seconds): return "seekcur \(JSONText.number(seconds))"
        case .volume(let level): return "setvol \(level)"
        case .remove(let id): return "deleteid \(id)"
        case .playID(let id): return "playid \(id)"
        case .assignFolder(let card, let folder): return "card assign \(quoted(card)) folder \(quoted(folder))"
        case .forget(let card): return "card forget \(quoted(card))"
        case .name(let card, let name): return "card name \(quoted(card)) \(quoted(name))"
        // One command list: the daemon runs it whole, no other client's command between.
        case .playNow(let uri): return "command_list_begin\nclear\nadd \(quoted(uri))\nplay 0\ncommand_list_end"
        case .add(let uri): return "add \(quoted(uri))"
        case .playFavourites: return "favourites"
        case .continueRecent(let number): return "recent \(number)"
        }
    }
}
