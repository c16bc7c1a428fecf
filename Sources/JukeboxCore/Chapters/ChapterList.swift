/// One chapter of a long file: its title and where it starts, in ms of track time.
public struct Chapter: Sendable, Equatable, Hashable {
    public var title: String
    public var startMs: Int64

    public init(title: String, startMs: Int64) {
        self.title = title
        self.startMs = startMs
    }
}

/// Where the position is among a track's chapters: what the screen and `status` show.
public struct ChapterMoment: Sendable, Equatable {
    /// 0-based.
    public var index: Int
    public var count: Int
    public var title: String
    /// Time since the chapter's start.
    public var elapsedMs: Int64
    /// The chapter's length (to the next chapter or the track's end); nil when the track's
    /// length is unknown and this is the last chapter.
    public var lengthMs: Int64?

    public init(index: Int, count: Int, title: String, elapsedMs: Int64, lengthMs: Int64?) {
        self.index = index
        self.count = count
        self.title = title
        self.elapsedMs = elapsedMs
        self.lengthMs = lengthMs
    }

    /// What is left of the chapter (nil: unknown).
    public var leftMs: Int64? { lengthMs.map { max($0 - elapsedMs, 0) } }
}

/// A track's chapters (an MP4/M4B chapter list, ID3v2 CHAP frames, the INDEX points of a CUE
/// sheet read as chapters), in time order, and the questions the player asks of them. Pure.
public struct ChapterList: Sendable, Equatable, Hashable {
    /// Sorted by start, no two at the same start, all before the track's end; the first
    /// starts at 0 (time before a list's first start belongs to it).
    public let chapters: [Chapter]
    /// The track's length, when known.
    public let durationMs: Int64?

    /// The chapters given in any order: starts past the end are dropped, equal starts keep the
    /// first, the first chapter is taken back to 0. nil when none is left.
    public init?(_ chapters: [Chapter], durationMs: Int64?) {
        // A stable sort: of chapters at one start, the first given is kept.
        let ordered = chapters.enumerated().sorted { ($0.element.startMs, $0.offset) < ($1.element.startMs, $1.offset) }
        var sorted: [Chapter] = []
        for (_, chapter) in ordered where chapter.startMs >= 0 && durationMs.map({ chapter.startMs < $0 }) != false {
            if sorted.last?.startMs == chapter.startMs { continue }
            sorted.append(chapter)
        }
        guard !sorted.isEmpty else { return nil }
        sorted[0].startMs = 0
        self.chapters = sorted
        self.durationMs = durationMs
    }

    public var count: Int { chapters.count }

    /// The chapter playing at `positionMs`.
    public func index(at positionMs: Int64) -> Int {
        // The last chapter that starts at or before the position (binary search: a book may
        // have hundreds).
        var low = 0
        var high = chapters.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if chapters[middle].startMs <= positionMs { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Where chapter `index` ends: the next one's start, or the track's end.
    public func endMs(of index: Int) -> Int64? {
        index + 1 < chapters.count ? chapters[index + 1].startMs : durationMs
    }

    /// The chapter at `positionMs`, the time in it and its length.
    public func moment(at positionMs: Int64) -> ChapterMoment {
        let index = index(at: positionMs)
        let start = chapters[index].startMs
        return ChapterMoment(
            index: index, count: chapters.count, title: chapters[index].title, elapsedMs: max(positionMs - start, 0),
            lengthMs: endMs(of: index).map { $0 - start })
    }

    /// `next` by chapter: the start of the chapter after the one at `positionMs`; nil in the
    /// last chapter (then `next` goes to the next track).
    public func nextStart(after positionMs: Int64) -> Int64? {
        let index = index(at: positionMs)
        return index + 1 < chapters.count ? chapters[index + 1].startMs : nil
    }

    /// `previous` by chapter, with the track rule carried over: more than `restartMs` into a
    /// chapter goes back to its start, else to the previous chapter's start; nil within
    /// `restartMs` of the first chapter's start (then `previous` goes to the previous track).
    public func previousStart(before positionMs: Int64, restartMs: Int64) -> Int64? {
        let index = index(at: positionMs)
        if positionMs - chapters[index].startMs > restartMs { return chapters[index].startMs }
        return index > 0 ? chapters[index - 1].startMs : nil
    }

    /// The `chapters` column: one chapter a line, `startMs TAB title` (line breaks and tabs in
    /// titles become spaces). An empty text is "read, none found".
    public var text: String {
        chapters.map { chapter in
            "\(chapter.startMs)\t" + String(chapter.title.map { $0 == "\t" || $0.isNewline ? " " : $0 })
        }.joined(separator: "\n")
    }

    /// Reads `text` back; nil for an empty or unreadable text.
    public init?(text: String, durationMs: Int64?) {
        var chapters: [Chapter] = []
        for line in text.split(separator: "\n") {
            guard let tab = line.firstIndex(of: "\t"), let start = Int64(line[..<tab]) else { return nil }
            chapters.append(Chapter(title: String(line[line.index(after: tab)...]), startMs: start))
        }
        self.init(chapters, durationMs: durationMs)
    }
}
