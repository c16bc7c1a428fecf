// The playing track's lyrics, for every front end: the display draws them, the consoles
// (`lyrics`, `lyrics offset ±ms`), MPD clients and a button gesture read or nudge them.
// Kept apart from the display so that a box without a screen still answers `lyrics`.

import Glibc
import JukeboxAudio
import JukeboxCore
import JukeboxStore
import LinuxSupport
import Logging
import MPDProtocol

/// Loads the lyrics of the playing track (sidecar .lrc/.ksc, else ID3 SYLT/USLT) and keeps
/// the per-track offset nudges. Control thread only.
final class TrackLyrics {
    private let logger: Logger
    private let offsets: LyricOffsetStore
    private let musicDirectory: String
    private var track: TrackInfo?
    private(set) var timeline: LyricTimeline?
    /// Where the lyrics came from (a path, or "ID3 SYLT in ...").
    private(set) var source: String?
    /// Changes whenever `timeline` is reloaded or nudged (the display redraws on it).
    private(set) var version = 0

    /// Where the file being read is noted; a file being read when the previous run died is
    /// not read again.
    private let inFlight: InFlightFiles?

    init(config: JukeboxConfig, logger: Logger, inFlight: InFlightFiles? = nil) {
        self.logger = logger
        self.inFlight = inFlight
        self.offsets = LyricOffsetStore(path: config.database + "-lyric-offsets", logger: logger)
        self.musicDirectory = config.musicDir
    }

    /// Follows the playing track: loads its lyrics when the track (or its lyric file) changed.
    func follow(_ track: TrackInfo?) {
        guard track?.id != self.track?.id || track?.lyricPath != self.track?.lyricPath else { return }
        self.track = track
        load()
        version += 1
    }

    /// Nudges the playing track's lyrics and saves the offset for that track. Returns the
    /// new offset, or nil when the track has no lyrics.
    @discardableResult
    func nudge(_ nudge: LyricNudge) -> Int64? {
        guard var timeline, let track else { return nil }
        timeline.nudgeMs = nudge.applied(to: timeline.nudgeMs)
        self.timeline = timeline
        offsets.set(timeline.nudgeMs, for: track.path)
        version += 1
        logger.info("lyrics offset \(timeline.nudgeMs) ms for \(track.path)")
        return timeline.nudgeMs
    }

    /// The lyrics at `positionMs` (the audio clock), for MPD's `lyrics`.
    func atPosition(_ positionMs: Int64) -> MPDLyrics? {
        timeline.map { MPDLyrics(timeline: $0, positionMs: positionMs, source: source) }
    }

    /// `lyrics`, `lyrics offset [±ms]` on the human console: a reply, or nil when the line is
    /// not a lyrics command.
    func handleConsole(_ line: String, positionMs: Int64) -> String? {
        let words = line.split(separator: " ").map(String.init)
        guard words.first?.lowercased() == "lyrics" else { return nil }
        if words.count == 1 {
            guard let timeline else { return "lyrics: none for this track" }
            let moment = timeline.moment(at: positionMs)
            return """
                lyrics: \(source ?? "?") (\(timeline.lines.count) lines, offset \(timeline.nudgeMs) ms)
                current: \(moment.current?.text ?? "")
                next: \(moment.next?.text ?? "")
                """
        }
        guard words[1].lowercased() == "offset", words.count <= 3 else {
            return "error: usage: lyrics | lyrics offset [+ms|-ms|ms]"
        }
        guard timeline != nil, let track else { return "error: no lyrics for this track" }
        if words.count == 3 {
            guard let change = LyricNudge.parse(words[2]) else { return "error: \(LyricNudge.usage)" }
            nudge(change)
        }
        return "lyrics offset: \(timeline?.nudgeMs ?? 0) ms (positive = sooner) for \(track.path)"
    }

    /// Whether `path` is to be left alone; else notes it as being read.
    private func isSuspect(_ path: String) -> Bool {
        guard let inFlight else { return false }
        if inFlight.isSuspect(path) {
            logger.info("lyrics \(path): \(InFlightFiles.skipReason)")
            return true
        }
        inFlight.note(.control, path)
        return false
    }

    private func load() {
        timeline = nil
        source = nil
        guard let track else { return }
        let nudge = offsets.offset(for: track.path)
        defer { inFlight?.note(.control, nil) }
        if let path = track.lyricPath, !isSuspect(path) {
            do {
                let bytes = try readWholeFile(path, limit: 4 << 20)
                let lyrics = Lyrics.parse(bytes: bytes, fileName: path)
                for warning in lyrics.warnings.prefix(5) { logger.debug("\(path): \(warning)") }
                if !lyrics.lines.isEmpty {
                    timeline = LyricTimeline(lyrics: lyrics, nudgeMs: nudge)
                    source = path
                    return
                }
                logger.info("lyrics \(path): no timed lines (\(lyrics.warnings.count) skipped)")
            } catch {
                logger.info("lyrics \(path): \(error)")
            }
        }
        let file = musicDirectory + "/" + track.path
        if !isSuspect(file), let (embedded, tag) = EmbeddedLyrics.read(path: file), !embedded.lines.isEmpty {
            timeline = LyricTimeline(lyrics: embedded, nudgeMs: nudge)
            source = "\(tag) in \(track.path)"
        }
    }
}

/// Per-track lyric offsets (the `lyrics offset` nudge), kept in a small text file beside the
/// database (`<ms>\t<track path>` lines), keyed by path so that a rescan keeps them. Written
/// (fsync'd, then renamed over) only when a nudge changes. Control thread only.
final class LyricOffsetStore {
    private let path: String
    private let logger: Logger
    private var offsets: [String: Int64] = [:]

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
        guard let bytes = try? readWholeFile(path, limit: 4 << 20) else { return }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let tab = line.firstIndex(of: "\t"), let ms = Int64(line[..<tab]) else { continue }
            offsets[String(line[line.index(after: tab)...])] = ms
        }
    }

    func offset(for track: String) -> Int64 { offsets[track] ?? 0 }

    func set(_ ms: Int64, for track: String) {
        offsets[track] = ms == 0 ? nil : ms
        let text = offsets.sorted { $0.key < $1.key }.map { "\($0.value)\t\($0.key)\n" }.joined()
        let temporary = path + ".new"
        do {
            let fd = try FileDescriptor(path: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)
            try fd.writeAll(Array(text.utf8))
            try fd.syncData()
            try FileSystem.rename(temporary, to: path)
            try FileDescriptor.syncFolder(containing: path)
        } catch {
            logger.warning("cannot save the lyric offset: \(error)")
        }
    }
}

/// Lyrics kept in the audio file: an MP3's ID3v2 tag (`ID3Lyrics`), or the LYRICS /
/// UNSYNCEDLYRICS Vorbis comment of the other formats (LRC text in it is synced).
enum EmbeddedLyrics {
    /// The lyrics and the tag they came from.
    static func read(path: String) -> (Lyrics, String)? {
        guard path.lowercased().hasSuffix(".mp3") else {
            // The `©lyr` atom spares a second FFmpeg open of the playing file (and its sample index).
            switch MusicFolder.mp4Lyrics(path: path) {
            case .text(let text)?: return Lyrics.embedded(text).map { ($0, "LYRICS comment") }
            case .none?: return nil
            case nil: break
            }
            guard let text = (try? MediaProbe.probe(path: path))?.lyrics, let lyrics = Lyrics.embedded(text) else {
                return nil
            }
            return (lyrics, "LYRICS comment")
        }
        guard let fd = try? FileDescriptor(path: path, flags: O_RDONLY | O_CLOEXEC) else { return nil }
        var header = [UInt8](repeating: 0, count: 10)
        guard (try? header.withUnsafeMutableBytes({ try fd.read(into: $0.baseAddress!, count: 10) })) == 10,
            let size = ID3Lyrics.tagSize(header), size <= 16 << 20
        else { return nil }
        var tag = [UInt8](repeating: 0, count: size)
        let n = (try? tag.withUnsafeMutableBytes { try fd.read(into: $0.baseAddress!, count: size, at: 0) }) ?? 0
        return ID3Lyrics.parse(Array(tag.prefix(n))).map { ($0, "ID3 \($0.format == .unsynced ? "USLT" : "SYLT")") }
    }
}
