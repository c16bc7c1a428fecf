// The display, driven from the control loop (thread `jb-control`). It renders the core's
// `ScreenLayout` for the playing track, its lyrics and the audio-clock position, at most
// every 50 ms (20 Hz) and only when the rows change; drivers send only the cells that
// changed. It never touches audio: a slow display costs display frames, not samples.

import CLinuxShims
import Glibc
import JukeboxCore
import JukeboxDisplay
import LinuxSupport
import Logging

/// Owns the display driver, the layout and the playing track's lyrics. Control thread only.
final class DisplayController {
    private let screen: Screen
    private let logger: Logger
    private let offsets: LyricOffsetStore
    private let lyricsDirectory: String?
    private let musicDirectory: String
    /// The track whose lyrics are loaded (nil: none yet).
    private var trackID: TrackID?
    private var track: TrackInfo?
    private(set) var timeline: LyricTimeline?
    private(set) var lyricSource: String?
    private var lastRender: Instant?
    private var lastVolume: Int?
    private var lastMode: PlayMode?
    private var lastState: PlayState?
    private var lastPositionMs: Int64 = 0

    /// Minimum time between two frames.
    static let frameIntervalMs: Int64 = 50

    init(screen: Screen, config: JukeboxConfig, logger: Logger) {
        self.screen = screen
        self.logger = logger
        self.offsets = LyricOffsetStore(path: config.database + "-lyric-offsets", logger: logger)
        self.lyricsDirectory = config.lyricsDir
        self.musicDirectory = config.musicDir
    }

    /// The display the config asks for, or nil for `none` (or when it cannot be opened:
    /// the player goes on without it).
    static func make(config: JukeboxConfig, logger: Logger) -> DisplayController? {
        let d = config.display
        let driver: Screen?
        switch d.kind {
        case .none:
            return nil
        case .terminal:
            var fd: Int32 = isatty(2) == 1 ? 2 : isatty(1) == 1 ? 1 : 2
            if !d.device.isEmpty {
                fd = jb_open(d.device, O_WRONLY | O_NOCTTY | O_CLOEXEC, 0)
                if fd < 0 {
                    logger.error(
                        "display: cannot open \(d.device): \(Errno.current("open")); going on without a display")
                    return nil
                }
            }
            driver = CharacterScreen(display: TerminalDisplay(fd: fd, columns: d.columns, rows: d.rows))
        default:
            driver = DisplayDrivers.open(config: d, logger: logger)
        }
        guard let driver else { return nil }
        logger.info("display: \(d.kind.rawValue)\(d.device.isEmpty ? "" : " on \(d.device)")")
        return DisplayController(screen: driver, config: config, logger: logger)
    }

    /// How long the loop may sleep before the next frame is due (nil: only on events).
    func sleepLimitMs(now: Instant) -> Int64? {
        if lastState == .playing { return Self.frameIntervalMs }
        if let ends = screen.overlayEnds(after: now) { return max(1, ends.milliseconds(since: now) + 1) }
        return nil
    }

    /// Called every loop turn with the player's state and the audio-clock position.
    func update(now: Instant, track: TrackInfo?, state: PlayState, positionMs: Int64, volume: Int, mode: PlayMode) {
        var urgent = false
        if track?.id != trackID || track?.lyricPath != self.track?.lyricPath {
            trackID = track?.id
            self.track = track
            loadLyrics(for: track)
            urgent = true
        }
        if let lastVolume, lastVolume != volume { screen.handle(.volume(volume), now: now) }
        if let lastMode, lastMode != mode { screen.handle(.mode(mode), now: now) }
        if let lastState, lastState != state {
            if state == .paused { screen.handle(.paused, now: now) }
            if state == .playing && lastState == .paused { screen.handle(.resumed, now: now) }
        }
        urgent =
            urgent || lastVolume != volume || lastMode != mode || lastState != state
            || abs(positionMs - lastPositionMs) > 1500
        lastVolume = volume
        lastMode = mode
        lastState = state
        lastPositionMs = positionMs
        if !urgent, let lastRender, now.milliseconds(since: lastRender) < Self.frameIntervalMs { return }
        lastRender = now
        let playing = track.map {
            NowPlaying(
                title: $0.title ?? Self.fileStem($0.path), artist: $0.artist ?? "",
                state: state == .playing ? .playing : state == .paused ? .paused : .stopped, positionMs: positionMs,
                durationMs: $0.durationMs)
        }
        screen.refresh(playing, lyrics: timeline, now: now)
    }

    /// `lyrics`, `lyrics offset [±ms]`: a reply, or nil when the line is not a lyrics command.
    func handleConsole(_ line: String) -> String? {
        let words = line.split(separator: " ").map(String.init)
        guard words.first?.lowercased() == "lyrics" else { return nil }
        if words.count == 1 {
            guard let timeline else { return "lyrics: none for this track" }
            let moment = timeline.moment(at: lastPositionMs)
            return """
                lyrics: \(lyricSource ?? "?") (\(timeline.lines.count) lines, offset \(timeline.nudgeMs) ms)
                current: \(moment.current?.text ?? "")
                next: \(moment.next?.text ?? "")
                """
        }
        guard words[1].lowercased() == "offset", words.count <= 3 else {
            return "error: usage: lyrics | lyrics offset [+ms|-ms|ms]"
        }
        guard var timeline, let track else { return "error: no lyrics for this track" }
        if words.count == 3 {
            let argument = words[2]
            guard let value = Int64(argument.hasPrefix("+") ? String(argument.dropFirst()) : argument),
                abs(value) <= 600_000
            else {
                return "error: lyrics offset takes milliseconds, e.g. +200 (sooner) or -200 (later)"
            }
            let relative = argument.hasPrefix("+") || argument.hasPrefix("-")
            timeline.nudgeMs = relative ? timeline.nudgeMs + value : value
            self.timeline = timeline
            offsets.set(timeline.nudgeMs, for: track.path)
            lastRender = nil
        }
        return "lyrics offset: \(timeline.nudgeMs) ms (positive = sooner) for \(track.path)"
    }

    func close() { screen.close() }

    // MARK: - lyrics

    private func loadLyrics(for track: TrackInfo?) {
        timeline = nil
        lyricSource = nil
        guard let track else { return }
        let nudge = offsets.offset(for: track.path)
        if let path = track.lyricPath {
            do {
                let bytes = try readWholeFile(path, limit: 4 << 20)
                let lyrics = Lyrics.parse(bytes: bytes, fileName: path)
                for warning in lyrics.warnings.prefix(5) { logger.debug("\(path): \(warning)") }
                if !lyrics.lines.isEmpty {
                    timeline = LyricTimeline(lyrics: lyrics, nudgeMs: nudge)
                    lyricSource = path
                    return
                }
            } catch {
                logger.info("lyrics \(path): \(error)")
            }
        }
        if let embedded = EmbeddedLyrics.read(path: musicDirectory + "/" + track.path), !embedded.lines.isEmpty {
            timeline = LyricTimeline(lyrics: embedded, nudgeMs: nudge)
            lyricSource = "ID3 \(embedded.format == .unsynced ? "USLT" : "SYLT") in \(track.path)"
        }
    }

    static func fileStem(_ path: String) -> String {
        var name = Substring(path)
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return String(name)
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
            guard rename(temporary, path) == 0 else { throw Errno.current("rename", path: path) }
        } catch {
            logger.warning("cannot save the lyric offset: \(error)")
        }
    }
}

/// Reads the ID3v2 tag at the start of an MP3 for embedded lyrics (`ID3Lyrics`).
enum EmbeddedLyrics {
    static func read(path: String) -> Lyrics? {
        guard path.lowercased().hasSuffix(".mp3"),
            let fd = try? FileDescriptor(path: path, flags: O_RDONLY | O_CLOEXEC)
        else { return nil }
        var header = [UInt8](repeating: 0, count: 10)
        guard (try? header.withUnsafeMutableBytes({ try fd.read(into: $0.baseAddress!, count: 10) })) == 10,
            let size = ID3Lyrics.tagSize(header), size <= 16 << 20
        else { return nil }
        var tag = [UInt8](repeating: 0, count: size)
        let n = (try? tag.withUnsafeMutableBytes { try fd.read(into: $0.baseAddress!, count: size, at: 0) }) ?? 0
        return ID3Lyrics.parse(Array(tag.prefix(n)))
    }
}
