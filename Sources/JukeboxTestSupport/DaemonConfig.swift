import Foundation

/// A `jukebox.toml` for a daemon under test or benchmark: the keys they set, with the daemon's
/// own defaults where nil, and further lines for `[resume]` and after `[console]`.
/// Relative paths are relative to the config file's folder, as the daemon reads them.
public struct DaemonConfig: Sendable {
    public var musicDir: String
    public var database: String
    public var device: String
    public var pacing: String
    public var periodMs: Int?
    public var bufferMs: Int?
    public var startVolume: Int
    public var maxVolume: Int
    /// More `[audio]` lines.
    public var audioExtra: String
    /// `[queue] mode`.
    public var mode: String?
    /// More `[queue]` lines.
    public var queueExtra: String
    /// `[resume] on_start`.
    public var onStart: String?
    /// `[resume] checkpoint_device` ("" for none).
    public var checkpointDevice: String?
    /// More `[resume]` lines.
    public var resumeExtra: String
    /// `[console] device`.
    public var console: String
    /// Lines after `[console] device`: more console keys, then any further tables.
    public var extra: String
    /// A first comment line (without "# ").
    public var comment: String?

    public init(
        musicDir: String, database: String = "state/jukebox.sqlite", device: String = "null",
        pacing: String = "clock", periodMs: Int? = nil, bufferMs: Int? = nil, startVolume: Int = 100,
        maxVolume: Int = 100, audioExtra: String = "", mode: String? = nil, queueExtra: String = "",
        onStart: String? = nil,
        checkpointDevice: String? = nil,
        resumeExtra: String = "", console: String = "stdin", extra: String = "", comment: String? = nil
    ) {
        self.musicDir = musicDir
        self.database = database
        self.device = device
        self.pacing = pacing
        self.periodMs = periodMs
        self.bufferMs = bufferMs
        self.startVolume = startVolume
        self.maxVolume = maxVolume
        self.audioExtra = audioExtra
        self.mode = mode
        self.queueExtra = queueExtra
        self.onStart = onStart
        self.checkpointDevice = checkpointDevice
        self.resumeExtra = resumeExtra
        self.console = console
        self.extra = extra
        self.comment = comment
    }

    /// The file's text.
    public var text: String {
        var lines: [String] = []
        if let comment { lines.append("# \(comment)") }
        lines += ["music_dir = \"\(musicDir)\"", "database = \"\(database)\"", "", "[audio]", "device = \"\(device)\""]
        if let periodMs { lines.append("period_ms = \(periodMs)") }
        if let bufferMs { lines.append("buffer_ms = \(bufferMs)") }
        lines += ["start_volume = \(startVolume)", "max_volume = \(maxVolume)", "pacing = \"\(pacing)\""]
        if !audioExtra.isEmpty { lines.append(audioExtra) }
        lines.append("")
        if mode != nil || !queueExtra.isEmpty {
            lines.append("[queue]")
            if let mode { lines.append("mode = \"\(mode)\"") }
            if !queueExtra.isEmpty { lines.append(queueExtra) }
            lines.append("")
        }
        if onStart != nil || checkpointDevice != nil || !resumeExtra.isEmpty {
            lines.append("[resume]")
            if let onStart { lines.append("on_start = \"\(onStart)\"") }
            if let checkpointDevice { lines.append("checkpoint_device = \"\(checkpointDevice)\"") }
            if !resumeExtra.isEmpty { lines.append(resumeExtra) }
            lines.append("")
        }
        lines += ["[console]", "device = \"\(console)\""]
        if !extra.isEmpty { lines.append(extra) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the file at `path` (the daemon makes the database's folder); returns `path`.
    @discardableResult
    public func write(to path: String) throws -> String {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
