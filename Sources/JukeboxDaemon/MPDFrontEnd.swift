// The MPD protocol front ends (TCP/Unix clients and the serial console), run by the control
// loop (`jb-control`) inside its one poll(): no thread of their own, no blocking calls. All
// sockets and the tty are non-blocking; a client that cannot take its replies fast enough is
// dropped when its output passes MPD's 8 MiB limit, never waited for.

import Glibc
import JukeboxCore
import JukeboxDevices
import JukeboxStore
import LinuxSupport
import Logging
import MPDProtocol

/// Everything MPD-related the control loop owns: listeners, clients, the serial console,
/// the library index, change tracking and host facts. Used on the control thread only.
final class MPDFrontEnd {
    private let logger: Logger
    private let network: NetworkListener?
    private let serial: SerialConsole?
    /// The human stdin console's MPD session (for commands its own language does not know).
    private var stdinSession = MPDSession(options: .init(human: true, local: true))
    var observer = MPDObserver()
    /// The last card read that played nothing (`card unknown`, the web page offers it).
    var lastUnknownCard: String?
    /// The last card read, and the reads since the start (`card last`, jukebox-mqtt's trigger).
    var lastCard: String?
    var cardReads = 0
    private(set) var library = MPDLibrary()
    var host = MPDHostInfo()
    private let musicDir: String
    private let playlists: StoredPlaylists
    private let files: MusicFiles
    private let stickers: Stickers
    /// `replay_gain_mode`, kept in the database's settings.
    private(set) var replayGainMode = ReplayGainMode.off
    /// `crossfade` in seconds, kept in the database's settings (as MPD's state file keeps it).
    private(set) var crossfadeSeconds = 0
    /// `mixrampdb` and `mixrampdelay`, kept in the database's settings (as MPD's state file keeps them).
    private var mixRamp = MixRamp()
    /// `status`'s `lastloadedplaylist` (MPD 0.24); not kept across a restart.
    private var lastLoadedPlaylist = ""
    /// The clients' channels and messages.
    private let messages = MPDMessageBoard()
    private let startedAt = MonotonicClock.nanoseconds()
    private var lastTurn = MonotonicClock.nanoseconds()
    private var playedNanoseconds: UInt64 = 0

    init(config: JukeboxConfig, store: LibraryStore, logger: Logger) {
        self.logger = logger
        musicDir = config.musicDir
        files = MusicFiles(folder: MusicFolder(root: config.musicDir))
        stickers = Stickers(store: store)
        do {
            if let saved = try store.setting(Self.replayGainSetting) {
                if let mode = ReplayGainMode(rawValue: saved) {
                    replayGainMode = mode
                } else {
                    logger.warning("settings: unknown replay_gain_mode '\(saved)'; using off")
                }
            }
            if let saved = try store.setting(Self.crossfadeSetting) {
                if let seconds = Int(saved), seconds >= 0 {
                    crossfadeSeconds = seconds
                } else {
                    logger.warning("settings: unknown crossfade '\(saved)'; using 0")
                }
            }
            if let saved = try store.setting(Self.mixRampSetting) {
                let fields = saved.split(separator: " ").compactMap { Float(String($0)) }
                if fields.count == 2 {
                    mixRamp = MixRamp(db: fields[0], delay: fields[1])
                } else {
                    logger.warning("settings: unknown mixramp '\(saved)'; using 0 dB, no delay")
                }
            }
            // Output 0 stays as a client switched it, as MPD's state file keeps it.
            host.outputEnabled = try store.setting(Self.outputSetting) != "0"
            if !config.snapcast.fifo.isEmpty {
                host.extraOutputs = [
                    MPDOutput(
                        name: config.snapcast.name, plugin: "fifo",
                        enabled: try store.setting(Self.extraOutputSetting(1)) != "0")
                ]
            }
        } catch {
            logger.error("cannot read the settings: \(error)")
        }
        host.outputName = config.audio.device
        let folder = PlaylistFolder(path: config.playlistFolder, musicDir: config.musicDir)
        do {
            try folder.create()
        } catch {
            logger.error("stored playlists: \(error)")
        }
        playlists = StoredPlaylists(folder: folder)
        let password = config.network.password.isEmpty ? nil : config.network.password
        network = NetworkListener(config: config.network, password: password, logger: logger)
        if config.console.device.hasPrefix("/") {
            serial = SerialConsole(path: config.console.device, baud: config.console.baud, logger: logger)
        } else {
            serial = nil
        }
    }

    /// The TCP port actually bound (for logs and tests).
    var tcpPort: Int? { network?.tcpPort }

    /// The fds to poll this turn.
    func interests() -> [Poller.Interest] {
        (network?.interests() ?? []) + (serial?.interests() ?? [])
    }

    /// Handles a ready fd that belongs to a front end; false when it is not one of theirs.
    func handle(_ readiness: Poller.Readiness, host player: MPDPlayerHost) -> Bool {
        if let network, network.owns(readiness.fd) {
            network.handle(readiness, host: player)
            return true
        }
        if let serial, serial.owns(readiness.fd) {
            serial.handle(readiness, host: player)
            return true
        }
        return false
    }

    /// The most the loop may sleep for the front ends (serial reopen attempts), in ms.
    func timeoutMilliseconds() -> Int32? { serial?.timeoutMilliseconds() }

    /// Once per loop turn, after everything else: idle notifications, reopen and timeouts.
    func afterTurn(_ machine: PlayerMachine) {
        let now = MonotonicClock.nanoseconds()
        if machine.state == .playing { playedNanoseconds += now - lastTurn }
        lastTurn = now
        let changes = observer.changes(machine)
        network?.notify(changes, now: now)
        serial?.notify(changes)
        network?.dropTimedOut(now: now)
        serial?.reopenIfDue(now: now)
    }

    /// The library was read again (at the start and after a scan).
    func libraryChanged(_ index: MPDLibrary) { library = index }

    /// A scan ended (its library, if it succeeded, is in).
    func scanFinished() {
        host.updatingJob = nil
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        host.databaseUpdateTime = Int64(now.tv_sec)
        observer.mark(.database)
        observer.mark(.update)
    }

    /// Builds the world for a request: the daemon fills in the machine.
    func world(machine: PlayerMachine, format: (rate: Int, channels: Int)?) -> MPDWorld {
        var info = host
        let now = MonotonicClock.nanoseconds()
        info.uptimeSeconds = Int64((now - startedAt) / 1_000_000_000)
        info.playTimeSeconds = Int64(playedNanoseconds / 1_000_000_000)
        info.audioFormat = format.map { "\($0.rate):16:\($0.channels)" }
        let root = musicDir
        var world = MPDWorld(
            machine: machine, library: library, observer: observer, now: Instant.now, host: info,
            hostPathProblem: { MPDFrontEnd.escapes(root: root, relative: $0) }, playlists: playlists,
            stickers: stickers, musicFolder: files,
            tagCards: TagCardMapping(
                store: stickers.store, lastUnknown: lastUnknownCard, lastCard: lastCard, cardReads: cardReads),
            replayGainMode: replayGainMode, crossfadeSeconds: crossfadeSeconds, mixRamp: mixRamp, messages: messages)
        world.lastLoadedPlaylist = lastLoadedPlaylist
        return world
    }

    static let replayGainSetting = "replay_gain_mode"
    static let crossfadeSetting = "crossfade"
    /// The level and the delay, separated by a space.
    static let mixRampSetting = "mixramp"
    static let outputSetting = "output_0_enabled"
    static func extraOutputSetting(_ id: Int) -> String { "output_\(id)_enabled" }

    /// Takes back what a request changed in the front end's state.
    func absorb(_ world: MPDWorld) {
        observer = world.observer
        lastLoadedPlaylist = world.lastLoadedPlaylist
        host.updatingJob = world.host.updatingJob
        host.lastJob = world.host.lastJob
        if world.replayGainMode != replayGainMode {
            replayGainMode = world.replayGainMode
            do {
                try stickers.store.setSetting(Self.replayGainSetting, to: replayGainMode.rawValue)
            } catch {
                logger.error("cannot save replay_gain_mode: \(error)")
            }
        }
        if world.crossfadeSeconds != crossfadeSeconds {
            crossfadeSeconds = world.crossfadeSeconds
            do {
                try stickers.store.setSetting(Self.crossfadeSetting, to: String(crossfadeSeconds))
            } catch {
                logger.error("cannot save crossfade: \(error)")
            }
        }
        if world.mixRamp != mixRamp {
            mixRamp = world.mixRamp
            do {
                try stickers.store.setSetting(Self.mixRampSetting, to: "\(mixRamp.db) \(mixRamp.delay)")
            } catch {
                logger.error("cannot save mixramp: \(error)")
            }
        }
        if world.host.outputEnabled != host.outputEnabled {
            host.outputEnabled = world.host.outputEnabled
            do {
                try stickers.store.setSetting(Self.outputSetting, to: host.outputEnabled ? "1" : "0")
            } catch {
                logger.error("cannot save the output's state: \(error)")
            }
        }
        for (index, output) in world.host.extraOutputs.enumerated() where output != host.extraOutputs[index] {
            host.extraOutputs[index] = output
            do {
                try stickers.store.setSetting(Self.extraOutputSetting(index + 1), to: output.enabled ? "1" : "0")
            } catch {
                logger.error("cannot save the output's state: \(error)")
            }
        }
        for notice in world.notices { logger.info("\(notice)") }
    }

    /// A line from the human stdin console that its own language did not know: the MPD
    /// reply, or nil when it is no MPD command either (the console then says so its own way).
    func stdinLine(_ line: String, host player: MPDPlayerHost) -> String? {
        guard case .success(let request) = MPDProtocol.tokenize(line), MPDCommands.isKnown(request.command.lowercased())
        else { return nil }
        // On a copy: a card's command line runs while the request that read the card is running.
        var session = stdinSession
        defer { stdinSession = session }
        return player.runMPD { world in session.handle(line: line, world: &world).text }
    }

    /// Closes every client and the console (at shutdown).
    func shutdown() {
        network?.closeAll()
        serial?.close()
    }

    /// A problem when `relative` (already free of `..` and absolute forms) resolves, through
    /// symlinks, to somewhere outside `root`; nil when it stays inside or does not exist.
    static func escapes(root: String, relative: String) -> String? {
        guard let resolvedRoot = realpath(root, nil) else { return nil }
        defer { free(resolvedRoot) }
        guard let resolved = realpath("\(root)/\(relative)", nil) else { return nil }
        defer { free(resolved) }
        let base = String(cString: resolvedRoot)
        let target = String(cString: resolved)
        if target == base || target.hasPrefix(base.hasSuffix("/") ? base : base + "/") { return nil }
        return "Access denied: the path leaves the music folder"
    }
}
