/// Where a position in the track falls in the lyrics.
public struct LyricMoment: Sendable, Equatable {
    /// Index of the current line in `LyricTimeline.lines`; nil before the first line.
    public var index: Int?
    public var current: LyricLine?
    public var next: LyricLine?
    /// When the current line started and when it gives way (the next line's start, or nil).
    public var lineStartMs: Int64
    public var lineEndMs: Int64?
    /// The word being sung (index into `current.words`) and how far through it, 0...1.
    public var wordIndex: Int?
    public var wordFraction: Double

    /// A moment.
    public init(
        index: Int?, current: LyricLine?, next: LyricLine?, lineStartMs: Int64, lineEndMs: Int64?,
        wordIndex: Int? = nil, wordFraction: Double = 0
    ) {
        self.index = index
        self.current = current
        self.next = next
        self.lineStartMs = lineStartMs
        self.lineEndMs = lineEndMs
        self.wordIndex = wordIndex
        self.wordFraction = wordFraction
    }
}

/// The lyrics of the playing track against its position (from the audio clock), with a
/// user nudge: a positive `nudgeMs` shows lyrics sooner, like the file's `[offset:]`.
public struct LyricTimeline: Sendable, Equatable {
    public let lyrics: Lyrics
    public var nudgeMs: Int64

    /// A timeline over `lyrics`.
    public init(lyrics: Lyrics, nudgeMs: Int64 = 0) {
        self.lyrics = lyrics
        self.nudgeMs = nudgeMs
    }

    /// The lines, sorted.
    public var lines: [LyricLine] { lyrics.lines }

    /// The current line, the next one and word progress at `positionMs`.
    public func moment(at positionMs: Int64) -> LyricMoment {
        let t = positionMs + nudgeMs
        let lines = lyrics.lines
        // The last line whose start is <= t (binary search).
        var low = 0
        var high = lines.count
        while low < high {
            let mid = (low + high) / 2
            if lines[mid].timeMs <= t { low = mid + 1 } else { high = mid }
        }
        let index = low - 1
        guard index >= 0 else {
            return LyricMoment(
                index: nil, current: nil, next: lines.first, lineStartMs: 0 - nudgeMs,
                lineEndMs: lines.first.map { $0.timeMs - nudgeMs })
        }
        let line = lines[index]
        let next = index + 1 < lines.count ? lines[index + 1] : nil
        var moment = LyricMoment(
            index: index, current: line, next: next, lineStartMs: line.timeMs - nudgeMs,
            lineEndMs: next.map { $0.timeMs - nudgeMs })
        if !line.words.isEmpty {
            var w = 0
            while w + 1 < line.words.count && line.words[w + 1].timeMs <= t { w += 1 }
            let start = line.words[w].timeMs
            let end = w + 1 < line.words.count ? line.words[w + 1].timeMs : (line.endMs ?? next?.timeMs ?? start + 1000)
            if t < start {
                moment.wordIndex = nil
            } else {
                moment.wordIndex = w
                moment.wordFraction = end > start ? min(1, Double(t - start) / Double(end - start)) : 1
            }
        }
        return moment
    }
}
