/// ID3v2 chapters (the ID3v2 Chapter Frame Addendum): CHAP frames, each an element id, its
/// start and end in ms (and byte offsets, unused), and embedded frames (TIT2: the title);
/// CTOC frames, tables of contents listing element ids, one of them the top level.
extension ID3Tag {
    /// The largest CHAP or CTOC frame read (one holds a title, perhaps a picture).
    static let chapterFrameLimit = 1 << 20

    /// The chapters of the tag's CHAP frames, titled by their TIT2 (else their element id).
    /// With a top-level CTOC, only the chapters it reaches (through nested tables too) count.
    public func chapters(_ read: (Int64, Int) -> [UInt8]) -> [Chapter] {
        var chapters: [(element: String, chapter: Chapter)] = []
        var tables: [String: (topLevel: Bool, children: [String])] = [:]
        for frame in frames
        where (frame.id == "CHAP" || frame.id == "CTOC") && !frame.unreadable
            && frame.bodySize <= Self.chapterFrameLimit
        {
            var body = read(frame.bodyOffset, frame.bodySize)
            if frame.unsynchronised { body = Self.resynchronised(body) }
            guard let idEnd = body.firstIndex(of: 0) else { continue }
            let element = ID3Lyrics.decode(Array(body[..<idEnd]), encoding: 0)
            var cursor = idEnd + 1
            if frame.id == "CHAP" {
                guard body.count >= cursor + 16 else { continue }
                let start = body[cursor..<cursor + 4].reduce(Int64(0)) { $0 << 8 | Int64($1) }
                cursor += 16
                let title = Self.embeddedTitle(body, from: cursor, version: version)
                chapters.append((element, Chapter(title: title ?? element, startMs: start)))
            } else {
                guard body.count >= cursor + 2 else { continue }
                let topLevel = body[cursor] & 0x02 != 0
                let count = Int(body[cursor + 1])
                cursor += 2
                var children: [String] = []
                while children.count < count, cursor < body.count, let end = body[cursor...].firstIndex(of: 0) {
                    children.append(ID3Lyrics.decode(Array(body[cursor..<end]), encoding: 0))
                    cursor = end + 1
                }
                tables[element] = (topLevel, children)
            }
        }
        guard let top = tables.first(where: { $0.value.topLevel })?.key else { return chapters.map(\.chapter) }
        var reached = Set<String>()
        var pending = [top]
        while let element = pending.popLast() {
            guard reached.insert(element).inserted else { continue }
            pending += tables[element]?.children ?? []
        }
        return chapters.filter { reached.contains($0.element) }.map(\.chapter)
    }

    /// The text of the TIT2 frame among the frames embedded from `start` in `body`.
    private static func embeddedTitle(_ body: [UInt8], from start: Int, version: UInt8) -> String? {
        let read: (Int64, Int) -> [UInt8] = { offset, count in
            let from = min(Int(offset), body.count)
            return Array(body[from..<min(from + count, body.count)])
        }
        for frame in frames(from: Int64(start), to: Int64(body.count), version: version, read)
        where frame.id == "TIT2" && !frame.unreadable {
            var text = read(frame.bodyOffset, frame.bodySize)
            if frame.unsynchronised { text = resynchronised(text) }
            guard text.count > 1 else { continue }
            let title = ID3Lyrics.string(text, from: 1, encoding: text[0]).0
            if !title.isEmpty { return title }
        }
        return nil
    }
}
