import JukeboxCore

/// What MPD commands read and change: the player, the library and a few facts from the
/// daemon. The daemon moves its `PlayerMachine` in, runs the session, and takes it back with
/// the `actions` to perform. Pure: everything host-specific arrives as values or closures.
public struct MPDWorld {
    public var machine: PlayerMachine
    public var library: MPDLibrary
    /// Change tracking for idle and the playlist version; owned by the daemon across turns.
    public var observer: MPDObserver
    public var now: Instant
    /// Facts about the host for status/stats/outputs.
    public var host: MPDHostInfo
    /// Extra filesystem check for client paths (symlinks that leave music_dir); nil means fine.
    public var hostPathProblem: (String) -> String?
    /// The lyric lines at the current position, when the daemon knows them.
    public var lyrics: MPDLyrics?
    /// The stored playlists; nil when there is no playlist folder.
    public var playlists: (any MPDPlaylistFolder)?
    /// The sticker database; nil when there is none (`sticker` is then refused, as MPD's).
    public var stickers: (any MPDStickerDatabase)?
    /// music_dir's files for `listfiles`, `albumart`, `readpicture`, `readcomments`.
    public var musicFolder: (any MPDMusicFolder)?
    /// The NFC/RFID cards' mapping (`card list`, `card assign`, ...); nil: `card` is refused.
    public var tagCards: (any MPDTagCardMapping)?
    /// `replay_gain_mode`; the daemon keeps it across turns and restarts.
    public var replayGainMode: ReplayGainMode = .off
    /// `crossfade` in seconds (0: off); the daemon keeps it and hands it to the audio pipeline.
    public var crossfadeSeconds = 0
    /// `mixrampdb` and `mixrampdelay`; the daemon keeps them across turns and restarts.
    public var mixRamp = MixRamp()
    /// The client-to-client messages, shared by every session of the daemon.
    public var messages: MPDMessageBoard

    /// Player actions the daemon must perform (replies meant for the human console are dropped).
    public var actions: [PlayerAction] = []
    /// Folders (relative, "" for everything) the daemon must rescan.
    public var updateRequests: [String] = []
    /// A lyric offset nudge for the playing track (`lyrics offset ±ms`) the daemon must apply.
    public var lyricNudge: LyricNudge?
    /// Knob turns and gestures typed by the client (`knob +2`, `button next long`) the
    /// daemon must run through its controls' mapping.
    public var injectedInputs: [InjectedInput] = []
    /// `favourite` lines: the playing track in or out of the Favourites playlist.
    public var favouriteEdits: [Favourites.Edit] = []
    /// `card ID` and `card none`: reads and removals the daemon must handle as a reader's.
    public var tagCardEvents: [TagCardPresence.Event] = []
    /// Lines the daemon must log (e.g. a loaded playlist's missing entries).
    public var notices: [String] = []
    /// Web radio stations: their track ids (`add URL`); nil where the host has none.
    public var stations: (any MPDStationList)?
    /// What a playing station says of itself (`Name`: icy-name), by its track id.
    public var stationNames: [TrackID: String] = [:]
    /// The box's own state and requests (`sleep`, `chapter`, `recent`, `podcast`).
    public var box = MPDBox()
    /// The stored playlist `load` last put in the queue, until `clear` (MPD 0.24's
    /// `lastloadedplaylist` in `status`).
    public var lastLoadedPlaylist = ""

    /// A world around `machine`.
    public init(
        machine: PlayerMachine, library: MPDLibrary, observer: MPDObserver, now: Instant, host: MPDHostInfo,
        hostPathProblem: @escaping (String) -> String? = { _ in nil }, lyrics: MPDLyrics? = nil,
        playlists: (any MPDPlaylistFolder)? = nil, stickers: (any MPDStickerDatabase)? = nil,
        musicFolder: (any MPDMusicFolder)? = nil, tagCards: (any MPDTagCardMapping)? = nil,
        replayGainMode: ReplayGainMode = .off, crossfadeSeconds: Int = 0, mixRamp: MixRamp = MixRamp(),
        messages: MPDMessageBoard = MPDMessageBoard()
    ) {
        self.machine = machine
        self.library = library
        self.observer = observer
        self.now = now
        self.host = host
        self.hostPathProblem = hostPathProblem
        self.lyrics = lyrics
        self.playlists = playlists
        self.stickers = stickers
        self.musicFolder = musicFolder
        self.tagCards = tagCards
        self.replayGainMode = replayGainMode
        self.crossfadeSeconds = crossfadeSeconds
        self.mixRamp = mixRamp
        self.messages = messages
    }

    /// Sends a command to the machine and keeps its actions (without its console replies).
    mutating func run(_ command: Command) {
        for action in machine.handle(.command(command), now: now) {
            if case .reply = action { continue }
            if case .seek = action { observer.mark(.player) }
            actions.append(action)
        }
    }

    /// The track info for an id: the library's, else what the machine was told.
    func info(_ id: TrackID) -> TrackInfo {
        library.track(id: id) ?? machine.tracks[id] ?? TrackInfo(id: id, path: "track-\(id)")
    }
}

/// MPD's MixRamp settings: the level in dB (0 by default) and the delay in seconds (off, NaN,
/// by default; shown in `status` only when above 0).
public struct MixRamp: Sendable, Equatable {
    public var db: Float = 0
    public var delay: Float = .nan

    public init(db: Float = 0, delay: Float = .nan) {
        self.db = db
        self.delay = delay
    }

    /// Equal when both fields are, NaN included.
    public static func == (a: MixRamp, b: MixRamp) -> Bool {
        a.db.bitPattern == b.db.bitPattern && a.delay.bitPattern == b.delay.bitPattern
    }

    /// The shortest digits that read back as `value`, written as MPD's fmt writes them:
    /// without a fraction when whole (`100`), with an exponent below 1e-4 and from 1e16 on
    /// (`1e-06`).
    static func shortest<T: BinaryFloatingPoint & LosslessStringConvertible>(_ value: T) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        // Swift's description holds the shortest round-trip digits: take them and the exponent.
        let text = value.description
        let negative = text.hasPrefix("-")
        let unsigned = negative ? String(text.dropFirst()) : text
        let mantissa = unsigned.split(separator: "e", maxSplits: 1)
        var exponent = mantissa.count > 1 ? Int(mantissa[1])! : 0
        let parts = mantissa[0].split(separator: ".", omittingEmptySubsequences: false)
        var digits = String(parts[0]) + (parts.count > 1 ? String(parts[1]) : "")
        exponent += parts[0].count - 1
        let leadingZeros = digits.prefix { $0 == "0" }.count
        digits.removeFirst(leadingZeros)
        exponent -= leadingZeros
        while digits.count > 1, digits.hasSuffix("0") { digits.removeLast() }
        var result: String
        if exponent < -4 || exponent >= 16 {
            result = String(digits.first!)
            if digits.count > 1 { result += "." + digits.dropFirst() }
            let magnitude = abs(exponent)
            result += (exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") + String(magnitude)
        } else if exponent < 0 {
            result = "0." + String(repeating: "0", count: -exponent - 1) + digits
        } else if digits.count <= exponent + 1 {
            result = digits + String(repeating: "0", count: exponent + 1 - digits.count)
        } else {
            result = digits.prefix(exponent + 1) + "." + digits.dropFirst(exponent + 1)
        }
        return negative ? "-" + result : result
    }
}

/// Facts from the daemon that the protocol reports.
public struct MPDHostInfo: Sendable, Equatable {
    /// Seconds since the daemon started.
    public var uptimeSeconds: Int64 = 0
    /// Seconds spent playing since the daemon started.
    public var playTimeSeconds: Int64 = 0
    /// Unix time of the last finished library scan.
    public var databaseUpdateTime: Int64 = 0
    /// The running scan's job number, when a scan runs.
    public var updatingJob: Int?
    /// The last job number handed out.
    public var lastJob = 0
    /// `44100:16:2` of what plays, when known.
    public var audioFormat: String?
    /// kbit/s of what plays, when known.
    public var bitrate: Int?
    /// The ALSA device name, for `outputs`.
    public var outputName = "default"
    /// Whether output 0 (the ALSA device) sounds: `disableoutput 0` silences it while the
    /// clock runs on.
    public var outputEnabled = true
    /// The outputs after output 0, numbered from 1 (the Snapcast FIFO, when configured).
    public var extraOutputs: [MPDOutput] = []

    /// Defaults.
    public init() {}
}

/// An output after output 0, as `outputs` lists it and the switches change it.
public struct MPDOutput: Sendable, Equatable {
    public var name: String
    /// MPD's plugin name for the same kind of output (`fifo` for a FIFO).
    public var plugin: String
    public var enabled: Bool

    public init(name: String, plugin: String, enabled: Bool) {
        self.name = name
        self.plugin = plugin
        self.enabled = enabled
    }
}

/// The playing track's lyrics at the played position (the `lyrics` jukebox command).
public struct MPDLyrics: Sendable, Equatable {
    public var timeline: LyricTimeline
    /// The audio clock: the position of the sample being played.
    public var positionMs: Int64
    /// Where the lyrics come from (a file path, or the ID3 frame).
    public var source: String?

    public init(timeline: LyricTimeline, positionMs: Int64, source: String? = nil) {
        self.timeline = timeline
        self.positionMs = positionMs
        self.source = source
    }
}

/// Tells which idle subsystems changed since the last look, by comparing what clients can
/// see of the player with what it was; the queue's own version tells a queue edit.
public struct MPDObserver: Sendable, Equatable {
    private var queueVersion: UInt32?
    private var player: PlayerFingerprint?
    private var volume: Int?
    private var options: PlayOptions?
    private var marked: Set<MPDSubsystem> = []

    struct PlayerFingerprint: Sendable, Equatable {
        var state: PlayState
        var index: Int?
        var track: TrackID?
        var token: UInt64?
    }

    /// An observer that has seen nothing yet (the first look reports nothing).
    public init() {}

    /// Records a change the fingerprints cannot see (a seek, a scan).
    public mutating func mark(_ subsystem: MPDSubsystem) { marked.insert(subsystem) }

    /// Whether `subsystem` was marked since the last `changes`.
    public func isMarked(_ subsystem: MPDSubsystem) -> Bool { marked.contains(subsystem) }

    /// What changed since the last call.
    public mutating func changes(_ machine: PlayerMachine) -> Set<MPDSubsystem> {
        let first = player == nil
        if machine.queue.version != queueVersion { marked.insert(.playlist) }
        queueVersion = machine.queue.version
        let fingerprint = PlayerFingerprint(
            state: machine.state, index: machine.queue.currentIndex, track: machine.queue.currentTrack,
            token: machine.currentRequest?.token)
        if fingerprint != player { marked.insert(.player) }
        if machine.volume != volume { marked.insert(.mixer) }
        if machine.options != options { marked.insert(.options) }
        player = fingerprint
        volume = machine.volume
        options = machine.options
        defer { marked = [] }
        return first ? [] : marked
    }
}

/// The web radio stations the queue can hold (the daemon's are SQLite's `streams`).
public protocol MPDStationList {
    /// The track id of the station at `url` (an http or https URL), added when it is new.
    func trackID(url: String) throws -> TrackID
}

/// The cards' mapping as the `card` command sees it (the daemon's is SQLite's `tag_cards`):
/// the words that only read or change the mapping. Reads and removals go to the daemon.
public protocol MPDTagCardMapping {
    /// Runs `command` (not `.read` or `.removed`); the reply's lines, or an error with its message.
    func run(_ command: TagCardCommand) throws -> [String]
}
