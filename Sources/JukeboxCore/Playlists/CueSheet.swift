/// A CUE sheet: one audio file (or a few) cut into tracks, read as MPD 0.23's cue playlist
/// plugin reads it, so that the box lists the same tracks with the same tags and bounds.
///
/// - `FILE "name" TYPE` starts a file; only WAVE, FLAC, MP3 and AIFF files are used (a
///   BINARY data file is skipped with its tracks).
/// - `TRACK nn AUDIO` starts a track (other track types are skipped); it takes the sheet's
///   tags given so far, `TRACK nn` as its number.
/// - `INDEX nn mm:ss:ff` (75 frames per second): a track starts at its INDEX 01, and the
///   track before it in the same file ends there, so a pregap (INDEX 00 to 01) is the end of
///   the track before; the first track of a sheet starts at its first INDEX. `PREGAP` and
///   `POSTGAP` (silence a burner adds) are not in the file and are ignored.
/// - `TITLE` is the Album before the first track and the Title inside one; `PERFORMER` is
///   the AlbumArtist, and the Artist inside a track; `REM NAME value` is the tag of that name
///   (`REM DATE 1999`, `REM GENRE Rock`, `REM COMPOSER`, `REM COMMENT`, `REM DISC`).
///
/// Text in any encoding the lyric files come in (`LyricsTextDecoder`: BOM, UTF-8, UTF-16,
/// GB18030, Windows-1252). Pure: the file I/O is the store's.
public struct CueSheet: Sendable, Equatable {
    /// One track of the sheet.
    public struct Track: Sendable, Equatable {
        /// The audio file as the sheet names it (relative to the sheet's folder, or absolute).
        public var file: String
        /// The track number as written (`01`).
        public var number: String
        /// Where the track starts in its file, in CD frames (1/75 s).
        public var start: Int64
        /// Where it ends in the same file, in CD frames; nil for the last track of a file,
        /// which plays to the file's end.
        public var end: Int64?
        public var title: String?
        public var artist: String?
        public var album: String?
        /// The other tags (AlbumArtist, Genre, Date, ...), in sheet order.
        public var tags: [TrackTag]

        public init(
            file: String, number: String, start: Int64, end: Int64? = nil, title: String? = nil,
            artist: String? = nil, album: String? = nil, tags: [TrackTag] = []
        ) {
            self.file = file
            self.number = number
            self.start = start
            self.end = end
            self.title = title
            self.artist = artist
            self.album = album
            self.tags = tags
        }

        /// The track number as a number (`01` -> 1).
        public var trackNumber: Int? { Int(number) }

        /// The first sample frame of the track at `rate` Hz (exact at every rate that is a
        /// multiple of 75: 44.1, 48, 88.2, 96 kHz ...).
        public func startFrame(rate: Int) -> Int64 { CueSheet.sampleFrame(start, rate: rate) }

        /// The frame after its last one, nil when it plays to the end of the file.
        public func endFrame(rate: Int) -> Int64? { end.map { CueSheet.sampleFrame($0, rate: rate) } }

        /// Where it starts and ends in milliseconds, as MPD's `Range:` gives them.
        public var startMs: Int64 { CueSheet.milliseconds(start) }
        public var endMs: Int64? { end.map(CueSheet.milliseconds) }
    }

    /// Why a sheet gives no tracks.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The audio tracks, in sheet order.
    public var tracks: [Track]
    /// Lines that were not understood and were skipped: `line N: what`.
    public var warnings: [String]

    /// CD frames per second.
    public static let framesPerSecond: Int64 = 75

    /// The tracks of the sheet in `bytes`. Throws `Problem` when it is not a CUE sheet or
    /// holds no audio track; lines it cannot use are skipped and listed in `warnings`.
    public static func parse(_ bytes: [UInt8]) throws(Problem) -> CueSheet {
        if bytes.contains(0) && !(bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])) {
            throw Problem("not a text file")
        }
        var parser = Parser()
        let text = LyricsTextDecoder.decode(bytes).text
        var number = 0
        for line in text.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        {
            number += 1
            parser.feed(Substring(line), line: number)
        }
        parser.commit()
        guard !parser.tracks.isEmpty else {
            let why = parser.sawFile ? "no audio track with an audio file" : "no FILE line"
            throw Problem("not a usable CUE sheet: \(why)")
        }
        return CueSheet(tracks: parser.tracks, warnings: parser.warnings)
    }

    /// `mm:ss:ff` in CD frames; nil when it is not three unsigned numbers.
    public static func frames(_ text: Substring) -> Int64? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy({ $0 >= "0" && $0 <= "9" }) }),
            let minutes = Int64(parts[0]), let seconds = Int64(parts[1]), let frames = Int64(parts[2])
        else { return nil }
        return (minutes * 60 + seconds) * framesPerSecond + frames
    }

    /// Whole seconds and the frames left apart, which gives the same floor for the times a sheet
    /// can hold (at most 999,999,999 minutes) at any rate a header can claim, where their
    /// product alone would overflow; a frame past Int64.max is the largest.
    static func sampleFrame(_ cdFrames: Int64, rate: Int) -> Int64 {
        let (seconds, rest) = cdFrames.quotientAndRemainder(dividingBy: framesPerSecond)
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: Int64(rate))
        let (sum, past) = whole.addingReportingOverflow(rest * Int64(rate) / framesPerSecond)
        return overflow || past ? .max : sum
    }

    static func milliseconds(_ cdFrames: Int64) -> Int64 { cdFrames * 1000 / framesPerSecond }

    /// The line-by-line state, as MPD's `CueParser`.
    private struct Parser {
        enum State { case header, file, track, ignoredFile, ignoredTrack }
        var state = State.header
        var file = ""
        var sawFile = false
        var album: String?
        var headerTags: [TrackTag] = []
        var current: Track?
        /// Whether `current` has taken its start (INDEX 01, or any INDEX of the first track).
        var indexTaken = false
        var tracks: [Track] = []
        var warnings: [String] = []

        mutating func feed(_ line: Substring, line number: Int) {
            var rest = line
            guard let command = Self.word(&rest) else { return }
            switch command {
            case "REM":
                guard state == .header || state == .track, let name = Self.word(&rest),
                    let tag = TagName.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }),
                    let value = Self.value(&rest)
                else { return }
                if state == .track {
                    current?.tags.append(TrackTag(tag, value))
                } else {
                    headerTags.append(TrackTag(tag, value))
                }
            case "PERFORMER":
                guard let value = Self.value(&rest) else { return }
                if state == .track {
                    if current?.artist == nil { current?.artist = value }
                } else if state == .header {
                    headerTags.append(TrackTag(.albumArtist, value))
                }
            case "TITLE":
                guard let value = Self.value(&rest) else { return }
                if state == .track {
                    if current?.title == nil { current?.title = value }
                } else if state == .header, album == nil {
                    album = value
                }
            case "FILE":
                commit()
                guard let name = Self.value(&rest), let type = Self.word(&rest) else {
                    warnings.append("line \(number): FILE without a name and a type")
                    state = .ignoredFile
                    return
                }
                sawFile = true
                guard ["WAVE", "FLAC", "MP3", "AIFF"].contains(type) else {
                    state = .ignoredFile
                    return
                }
                file = name
                state = .file
            case _ where state == .ignoredFile || state == .header:
                return
            case "TRACK":
                commit()
                guard let nr = Self.word(&rest), let type = Self.word(&rest) else {
                    warnings.append("line \(number): TRACK without a number and a type")
                    state = .ignoredTrack
                    return
                }
                guard type == "AUDIO" else {
                    state = .ignoredTrack
                    return
                }
                state = .track
                indexTaken = false
                current = Track(file: file, number: String(nr), start: 0, album: album, tags: headerTags)
            case "INDEX" where state == .track:
                guard !indexTaken else { return }
                guard let nr = Self.word(&rest), let text = Self.word(&rest), let position = CueSheet.frames(text)
                else {
                    warnings.append("line \(number): INDEX needs a number and a time mm:ss:ff")
                    return
                }
                let previous = tracks.last.flatMap { $0.file == file ? $0 : nil }
                if let previous, previous.start < position { tracks[tracks.count - 1].end = position }
                current?.start = position
                if nr != "00" || previous == nil { indexTaken = true }
            default:
                return
            }
        }

        /// Ends the track being read.
        mutating func commit() {
            if let current { tracks.append(current) }
            current = nil
        }

        /// The next blank-separated word.
        static func word(_ text: inout Substring) -> Substring? {
            text = text.drop(while: { $0 == " " || $0 == "\t" })
            guard !text.isEmpty else { return nil }
            let end = text.firstIndex(where: { $0 == " " || $0 == "\t" }) ?? text.endIndex
            defer { text = text[end...] }
            return text[..<end]
        }

        /// A quoted string (to the closing quote, or the line's end) or a word.
        static func value(_ text: inout Substring) -> String? {
            text = text.drop(while: { $0 == " " || $0 == "\t" })
            guard text.first == "\"" else { return word(&text).map(String.init) }
            text.removeFirst()
            let end = text.firstIndex(of: "\"") ?? text.endIndex
            defer { text = end == text.endIndex ? text[end...] : text[text.index(after: end)...] }
            return String(text[..<end])
        }
    }
}
