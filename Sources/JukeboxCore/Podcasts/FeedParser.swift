/// Builds a `Feed` from the nodes of an RSS 2.0 or Atom 1.0 document, in document order, as
/// an XML reader gives them (the adapter owns the reader; this knows only the vocabularies).
/// Elements are matched by local name and namespace, so prefixes do not matter; elements of
/// other vocabularies (iTunes, Media RSS) are passed over. Text is capped per element, so a
/// huge document costs the reader's buffer, not a huge title.
public struct FeedParser: Sendable {
    /// At most this many episodes are kept (the newest): a feed of ten years of dailies
    /// would otherwise fill the menu and the database.
    public static let episodeLimit = 500
    /// Titles, ids and dates longer than this are cut.
    static let textLimit = 1024

    public static let atomNamespace = "http://www.w3.org/2005/Atom"

    private enum Kind { case rss, atom }

    private var kind: Kind?
    /// The open elements' local names, outermost first.
    private var path: [String] = []
    private var title = ""
    private var item: ItemFields?
    private var episodes: [Episode] = []
    private var skipped = 0
    /// The text of the element being read, when it is one of interest.
    private var text: String?

    /// What an item or entry gave so far.
    private struct ItemFields {
        var guid = ""
        var title = ""
        var date = ""
        var updated = ""
        var url = ""
        var length: Int64?
        var type: String?
    }

    /// A parser before the first node.
    public init() {}

    /// An element opened. Throws when the root is neither `rss` nor Atom's `feed` (an HTML
    /// error page, some other XML), so the reader can stop at once.
    public mutating func start(name: String, namespace: String, attributes: [(name: String, value: String)])
        throws(FeedProblem)
    {
        defer { path.append(name) }
        guard let kind else {
            switch (name, namespace) {
            case ("rss", ""): kind = .rss
            case ("feed", Self.atomNamespace): kind = .atom
            case ("html", _): throw FeedProblem("not a feed: an HTML page")
            default:
                throw FeedProblem("not an RSS or Atom feed: the document is <\(name)>")
            }
            return
        }
        text = nil
        switch kind {
        case .rss:
            if path == ["rss", "channel"], name == "item" {
                item = ItemFields()
            } else if path == ["rss", "channel"], name == "title", namespace.isEmpty {
                text = ""
            } else if item != nil, path.count == 3, namespace.isEmpty {
                switch name {
                case "title", "guid", "pubDate": text = ""
                case "enclosure" where item?.url.isEmpty == true:
                    take(enclosure: attributes, urlAttribute: "url")
                default: break
                }
            }
        case .atom:
            guard namespace == Self.atomNamespace else { return }
            if path.count == 1, name == "entry" {
                item = ItemFields()
            } else if path.count == 1, name == "title" {
                text = ""
            } else if item != nil, path.count == 2 {
                switch name {
                case "title", "id", "published", "updated": text = ""
                case "link" where item?.url.isEmpty == true:
                    if attributes.first(where: { $0.name == "rel" })?.value == "enclosure" {
                        take(enclosure: attributes, urlAttribute: "href")
                    }
                default: break
                }
            }
        }
    }

    /// Text (or CDATA) inside the current element.
    public mutating func text(_ value: String) {
        guard var current = text, current.utf8.count < Self.textLimit else { return }
        current += value
        text = current
    }

    /// The current element closed.
    public mutating func end() {
        guard let name = path.popLast() else { return }
        if (kind == .rss && path.count == 2 && name == "item") || (kind == .atom && path.count == 1 && name == "entry")
        {
            return finishItem()
        }
        // Only the element whose text was being read (same-named ones of other vocabularies are not).
        guard let captured = text else { return }
        text = nil
        let value = String(captured.prefix(Self.textLimit)).trimmedSpaces
        switch (kind, path.count, name) {
        case (.rss, 2, "title"), (.atom, 1, "title"): title = value
        case (.rss, 3, "title"), (.atom, 2, "title"): item?.title = value
        case (.rss, 3, "guid"), (.atom, 2, "id"): item?.guid = value
        case (.rss, 3, "pubDate"), (.atom, 2, "published"): item?.date = value
        case (.atom, 2, "updated"): item?.updated = value
        default: break
        }
    }

    /// The feed, once the document ended.
    public func finish() throws(FeedProblem) -> Feed {
        guard kind != nil else { throw FeedProblem("not a feed: the document is empty") }
        var sorted = episodes
        sorted.sort(by: Episode.newerFirst)
        let dropped = max(0, sorted.count - Self.episodeLimit)
        sorted.removeLast(dropped)
        return Feed(title: title, episodes: sorted, skippedItems: skipped + dropped)
    }

    private mutating func take(enclosure attributes: [(name: String, value: String)], urlAttribute: String) {
        func value(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
        item?.url = value(urlAttribute)?.trimmedSpaces ?? ""
        item?.length = value("length").flatMap { Int64($0.trimmedSpaces) }.flatMap { $0 > 0 ? $0 : nil }
        item?.type = value("type")
    }

    private mutating func finishItem() {
        guard let fields = item else { return }
        item = nil
        guard !fields.url.isEmpty else {
            skipped += 1
            return
        }
        let date = fields.date.isEmpty ? fields.updated : fields.date
        episodes.append(
            Episode(
                guid: fields.guid.isEmpty ? fields.url : fields.guid,
                title: fields.title.isEmpty ? Self.lastComponent(of: fields.url) : fields.title,
                published: FeedDate.parse(date), enclosureURL: fields.url, length: fields.length, type: fields.type))
    }

    /// The file name at the end of a URL's path, for an episode with no title.
    static func lastComponent(of url: String) -> String {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        return String(path.split(separator: "/").last ?? Substring(url))
    }
}
