/// Makes the tracks of a library share one copy of each value they repeat (an album's name,
/// its artists, genre and date, the tag list of an album's tracks): each track read from
/// the database brings its own copies, and at 100,000 tracks the repeats are megabytes.
/// Used while a library is built, then dropped. Values are compared byte for byte, so a
/// track keeps exactly the bytes it was read with (`String`'s `==` would take a decomposed
/// "é" for a composed one).
public struct SharedTrackStrings {
    private var strings: Set<Exact> = []
    private var tagLists: Set<ExactTags> = []

    public init() {}

    /// `track` with its repeated values shared with the tracks seen before.
    public mutating func shared(_ track: TrackInfo) -> TrackInfo {
        TrackInfo(
            id: track.id, path: track.path, title: track.title, artist: shared(track.artist),
            album: shared(track.album), trackNumber: track.trackNumber, durationMs: track.durationMs,
            lyricPath: track.lyricPath, tags: shared(track.tags), format: shared(track.format),
            modifiedSeconds: track.modifiedSeconds, cue: track.cue, chapters: track.chapters)
    }

    /// The copy of `text` seen first.
    public mutating func shared(_ text: String) -> String {
        // Up to 15 UTF-8 bytes a string lives inside the value: there is nothing to share.
        if text.utf8.count <= 15 { return text }
        return strings.insert(Exact(text)).memberAfterInsert.text
    }

    public mutating func shared(_ text: String?) -> String? { text.map { shared($0) } }

    /// The copy of an equal tag list seen first, its values shared.
    public mutating func shared(_ tags: [TrackTag]) -> [TrackTag] {
        if tags.isEmpty { return tags }
        let list = ExactTags(tags.map { TrackTag($0.name, shared($0.value)) })
        return tagLists.insert(list).memberAfterInsert.tags
    }

    private struct Exact: Hashable {
        let text: String
        init(_ text: String) { self.text = text }
        static func == (a: Exact, b: Exact) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }
        func hash(into hasher: inout Hasher) { hasher.combine(utf8: text) }
    }

    private struct ExactTags: Hashable {
        let tags: [TrackTag]
        init(_ tags: [TrackTag]) { self.tags = tags }
        static func == (a: ExactTags, b: ExactTags) -> Bool {
            a.tags.elementsEqual(b.tags) { $0.name == $1.name && $0.value.utf8.elementsEqual($1.value.utf8) }
        }
        func hash(into hasher: inout Hasher) {
            hasher.combine(tags.count)
            for tag in tags {
                hasher.combine(tag.name)
                hasher.combine(utf8: tag.value)
            }
        }
    }
}

extension Hasher {
    /// Feeds the UTF-8 bytes of `text` and its length (so "ab"+"c" and "a"+"bc" differ).
    fileprivate mutating func combine(utf8 text: String) {
        var text = text
        text.withUTF8 { combine(bytes: UnsafeRawBufferPointer($0)) }
        combine(text.utf8.count)
    }
}
