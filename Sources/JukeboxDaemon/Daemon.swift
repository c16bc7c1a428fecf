// The control loop (thread `jb-control`, the main thread).
//
// It owns the core's PlayerMachine and ResumeKeeper, the LibraryStore connection, the
// position journal and the console, and it is the only thread that changes any of them. It
// performs what the keeper decides to save; it decides nothing about saving itself. It sleeps in one poll()
// over: the termination signalfd, a WakeupEvent (signalled by the audio pipeline on track
// boundaries and errors, and by the scan thread when it finishes) and the console fd; the
// poll timeout is the next checkpoint or position tick. It never blocks on audio: commands
// go to the pipeline as non-blocking requests that the output thread picks up within one
// period.

import Glibc
import JukeboxAudio
import JukeboxConfigFile
import JukeboxCore
import JukeboxDevices
import JukeboxStore
import LinuxSupport
import Logging
import MPDProtocol

/// The running daemon: wiring plus the control loop.
final class Daemon {
    let config: JukeboxConfig
    let logger: Logger
    var machine: PlayerMachine
    /// What to save when and how durably (the decisions); this class performs them.
    var keeper: ResumeKeeper
    let store: LibraryStore
    private let journal: ResumeJournal
    let pipeline: AudioPipeline
    private let wakeup: WakeupEvent
    private let signals: FileDescriptor
    var console: Console?
    /// MPD protocol clients (network) and the serial console.
    var mpd: MPDFrontEnd!
    /// Buttons and the encoder (GPIO lines, input devices); nil when none is wired.
    private var controls: ControlInputs?
    /// The `[card_reader.NAME]` readers; nil when none is configured.
    private var cardReaders: CardReaders?
    let scan: ScanRunner
    let display: DisplayController?
    /// The playing track's lyrics (display, `lyrics` on every console, the nudge gesture).
    let lyrics: TrackLyrics
    /// The files being read, kept where a crash leaves them (the next start skips them).
    let inFlight: InFlightFiles?
    /// Tracks by id, for paths and durations; refreshed after each scan. Podcast episodes
    /// with a file are here too, under ids of their own (`Podcasts.trackID`).
    var library: [TrackID: TrackInfo] = [:]
    /// The library's tracks decoded wider than 16 bits (none on a box of MP3s), and whether
    /// the queue holds one, as last told to the pipeline (it then opens the device wide).
    var wideTracks: Set<TrackID> = []
    var queueHoldsWide = false
    /// Web radio stations and what the playing one says (Daemon+Radio).
    var radio = RadioState()
    /// Feeds, episodes and their downloads.
    var podcasts: Podcasts!
    /// The source the queue holds and Recently played (saved with the resume commits).
    var history = PlayHistory()
    /// The paths in the `Favourites` playlist, for the mark on the display.
    var favouritePaths: Set<String> = []
    /// Playback requests the pipeline knows, by token (for the track path and id).
    private var requests: [UInt64: PlaybackRequest] = [:]
    private var stopping = false
    /// `restart` asked for a stop that starts again (the loop then returns `Jukeboxd.restartStatus`).
    private var restartRequested = false
    /// The config file as given (`system`), and when this start began (wall clock, ms since
    /// the epoch: it differs after a restart, which the web page waits for).
    let configPath: String
    let startedAtMs: Int64
    private let startedMonotonicMs = Int64(MonotonicClock.nanoseconds() / 1_000_000)
    /// What played, for the Snapcast output; its writer thread. Nil without `[snapcast] fifo`.
    private var playedAudio: PlayedAudioRing?
    private var snapcast: SnapcastOutput?
    /// READY=1, the watchdog pings and STOPPING=1 for systemd (`Type=notify`).
    private var serviceManager: ServiceManagerLink
    /// On a first start there is nothing to resume: the queue is the library (and plays, with
    /// `on_start = "play"`) once a scan has found music, unless the queue was edited meanwhile
    /// (its version moved on from this one): a client that cleared it and added a song before
    /// the first scan ended keeps its queue. After that only queue commands change it.
    private var fillQueueAtVersion: UInt32?
    /// The request whose start from a seek hint was logged.
    private var loggedHintToken: UInt64?
    /// The knob's menu over the library, kept in the box machine (which closes it when idle).
    var menu: Menu {
        get { boxMachine.menu }
        set { boxMachine.menu = newValue }
    }
    /// The library changed since the menu's catalog was built: it is built again when next
    /// needed (`updateMenuCatalog`), not at every start and scan.
    var menuCatalogIsStale = true
    /// The box's policies over time (the sleep timer, idle power-off, card presence, the
    /// menu's timeout, the podcast refresh, the start-up scan, scrubbing): events in, actions out (Daemon+Box).
    var boxMachine: BoxMachine
    /// `[audio] headphone_detect`, read each tick; nil when none is configured or it failed.
    private var headphones: HeadphoneDetect?
    /// `[sleep] hold_line`: held from start-up to power-off.
    private var powerHold: PowerHold?
    /// The stored playlists (Favourites among them), for the menu.
    let playlistFolder: PlaylistFolder
    /// The card whose music the queue holds, while it does.
    var holdingCard: TagCard?
    /// The card being put on the reader, while its music starts (the rules' allowed cards).
    var startingCard: String?
    /// The wake-up alarms (`[[alarm]]`): events in, actions out (Daemon+Alarms).
    var alarms: WakeUpAlarms
    /// An alarm's music is starting: the rules do not refuse it.
    var alarmStarting = false
    /// An alarm's music was asked for and has not reached the output yet (its failure is the
    /// alarm's, which then falls back).
    var alarmAwaitingStart = false
    /// An unknown card waiting for the menu to choose what it plays.
    var learningCard: String?
    /// Feedback without a screen: the sounds' decisions, the status LED's pattern and line.
    var cues: FeedbackCues
    /// Spoken announcements: the core's line of texts, jb-speech, and the speech made last
    /// (until the output takes it).
    var announcements: Announcements
    let speech: SpeechRunner
    var madeSpeech: SpeechClip?
    var light = StatusLight()
    var statusLED: StatusLED?
    var ledLit: Bool?

    /// Starts everything and runs until SIGTERM/SIGINT. Returns the exit status.
    static func run(
        settings: LoadedConfig, logger: Logger, inputReplayFifo: String? = nil, ledRecord: String? = nil,
        libraryLoadGate: String? = nil
    ) -> Int32 {
        // One malloc arena for the whole process. glibc gives each thread that allocates its
        // own arena (jb-decode: mpg123's handles, jb-scan: its SQLite connection), and each
        // keeps its high-water mark resident: 150-200 kB while playing. Only the control
        // thread allocates often and jb-output never does, so there is no contention to avoid.
        ProcessSettings.limitMallocArenas(to: 1)
        // FFmpeg's AAC decoder allocates a 0.55 MB context per file. The first is mapped;
        // freeing it raises glibc's threshold, so the next file's comes from the heap and stays
        // resident after it is freed. Fixed at the default 128 kB: 0.35 MB less peak while
        // playing AAC; nothing on the audio path allocates that much, so no mapping per block.
        ProcessSettings.mapMallocChunks(ofAtLeast: 128 * 1024)
        let signals: FileDescriptor
        do {
            signals = try TerminationSignals.open()
        } catch {
            logger.critical("cannot set up signal handling: \(error)")
            return 1
        }
        do {
            let daemon = try Daemon(
                config: settings.config, configPath: settings.path, forceStdinConsole: settings.forceStdinConsole,
                signals: signals, logger: logger, inputReplayFifo: inputReplayFifo, ledRecord: ledRecord,
                libraryLoadGate: libraryLoadGate)
            return daemon.loop()
        } catch {
            logger.critical("cannot start: \(error)")
            // EX_DATAERR for a newer jukeboxd's database: the unit does not restart into it.
            return error is LibraryStore.NewerDatabase ? 65 : 1
        }
    }

    private init(
        config: JukeboxConfig, configPath: String, forceStdinConsole: Bool, signals: FileDescriptor, logger: Logger,
        inputReplayFifo: String?, ledRecord: String?, libraryLoadGate: String?
    ) throws {
        self.config = config
        self.configPath = configPath
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        startedAtMs = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
        self.logger = logger
        self.signals = signals
        serviceManager = ServiceManagerLink(notifier: ServiceNotifier.fromEnvironment(), logger: logger)
        let wakeup = try WakeupEvent()
        self.wakeup = wakeup

        let opened = try LibraryStore.open(path: config.database, logger: logger)
        store = opened.store
        if let message = opened.recoveryMessage { logger.error("\(message)") }
        inFlight = InFlightFiles.open(path: config.database + ".in-flight", logger: logger)
        journal = ResumeJournal(
            databasePath: config.database, checkpointDevice: config.resume.checkpointDevice, logger: logger)

        if !config.snapcast.fifo.isEmpty, let rate = config.snapcast.rate {
            let ring = PlayedAudioRing()
            playedAudio = ring
            snapcast = SnapcastOutput(fifoPath: config.snapcast.fifo, rate: rate, ring: ring, logger: logger)
        }
        pipeline = AudioPipeline(
            config: AudioOutputConfig(
                device: config.audio.device, periodMs: config.audio.periodMs, bufferMs: config.audio.bufferMs,
                // The Snapcast rooms get what played as it plays: a deep buffer would hand it
                // over in bursts every few hundred ms, late by as much (1.43 s against 1.0 s).
                deepBufferMs: config.snapcast.fifo.isEmpty ? config.audio.deepBufferMs : 0,
                mixer: config.audio.mixer.isEmpty ? nil : config.audio.mixer,
                pacing: OutputPacing(rawValue: config.audio.pacing.rawValue) ?? .auto,
                replayGain: config.audio.replayGain),
            logger: logger, playedAudio: playedAudio, inFlight: inFlight, wakeup: { wakeup.signal() })
        if let missing = MP4FileDecoder.minimalFFmpegMissing { logger.notice("\(missing)") }

        let seed = MonotonicClock.nanoseconds() ^ UInt64(UInt32(bitPattern: getpid())) << 32
        machine = PlayerMachine(
            configuration: config.playerConfiguration,
            queue: PlayQueue(mode: config.queue.mode, seed: seed, limit: config.queue.maxLength))
        // A first start (nothing to resume) plays at start_volume too, not at the pipeline's unity gain.
        pipeline.setVolume(percent: machine.volume, gain: VolumeCurve.gain(percent: machine.volume))
        keeper = ResumeKeeper(syncIntervalMs: config.resume.syncIntervalMs)
        scan = ScanRunner(
            databasePath: config.database, musicDirectory: config.musicDir, lyricsDirectory: config.lyricsDir,
            chapters: config.chapters, logger: logger, wakeup: wakeup, inFlight: inFlight, loadGate: libraryLoadGate)
        // A tty path is the serial console, which speaks the MPD protocol (MPDFrontEnd).
        console =
            config.console.device.hasPrefix("/")
            ? nil : Console.open(device: config.console.device, force: forceStdinConsole, logger: logger)
        mpd = MPDFrontEnd(config: config, store: store, logger: logger)
        podcasts = Podcasts(
            config: config, store: store, logger: logger, wakeup: wakeup, growingFiles: pipeline.growingFiles)
        playlistFolder = PlaylistFolder(path: config.playlistFolder, musicDir: config.musicDir)
        display = DisplayController.make(config: config, logger: logger)
        lyrics = TrackLyrics(config: config, logger: logger, inFlight: inFlight)
        boxMachine = BoxMachine(config: config)
        alarms = Self.alarmsRestored(config.alarms, store: store, logger: logger)
        if let line = config.sleep.holdLine {
            do {
                powerHold = try PowerHold(chip: config.sleep.holdChip, line: line, level: config.sleep.holdHigh)
            } catch {
                logger.error("power hold line: \(error)")
            }
        }
        if let line = config.audio.headphoneDetect {
            do {
                headphones = try HeadphoneDetect(chip: config.audio.headphoneChip, line: line)
            } catch {
                logger.error("headphone detect: \(error); the maximum stays max_volume")
            }
        }
        cues = FeedbackCues(enabled: config.feedback.sounds)
        announcements = Announcements(enabled: config.speech.enabled)
        speech = SpeechRunner(
            voice: config.speech.voice, wordsPerMinute: config.speech.rate, wakeup: wakeup, logger: logger)
        do {
            if let ledRecord {
                statusLED = try StatusLED(recordingTo: ledRecord, line: config.feedback.ledLine ?? 0)
            } else if let line = config.feedback.ledLine {
                statusLED = try StatusLED(chip: config.feedback.ledChip, line: line)
            }
        } catch {
            logger.error("status LED: \(error)")
        }
        controls = ControlInputs.open(config: config, replayFifo: inputReplayFifo, logger: logger)
        if !config.cardReaders.isEmpty {
            cardReaders = CardReaders(configs: config.cardReaders, logger: logger, now: Instant.now)
        }
    }

    // MARK: - start-up

    private func restore() {
        // Before the player's state: a resume at start-up is a start the rules may refuse.
        restoreListeningUsage()
        feedRulesClock(now: Instant.now)
        loadHistory()
        do {
            install(try LibrarySnapshot(store: store))
        } catch {
            logger.error("cannot read the library: \(error)")
            install(LibrarySnapshot())
        }
        if !mpd.host.outputEnabled { pipeline.setMuted(true) }
        if mpd.host.extraOutputs.first?.enabled == false { playedAudio?.isEnabled = false }
        applyCrossfade()
        var saved: PlaybackRecord?
        var start = ResumeStart(saved: nil, savedSequence: 0, journal: nil, journalSurvivedRestart: false)
        do {
            saved = try store.loadPlayback()
            let queue = try store.loadQueue()
            start.saved = saved.map {
                PlayerMachine.Snapshot(record: $0, queue: queue, fallbackMode: config.queue.mode)
            }
            start.positions = try store.savedTrackPositions().merging(podcasts.savedPositions()) { a, _ in a }
            start.seekHints = try store.savedSeekHints()
        } catch {
            logger.error("cannot read the saved state, starting afresh: \(error)")
        }
        if !start.positions.isEmpty {
            perform(machine.handle(.savedPositionsLoaded(start.positions), now: Instant.now))
        }
        loadSpeeds()
        if let saved {
            let found = journal.read()
            start.savedSequence = saved.journalSequence
            start.journal = found?.entry
            start.journalSurvivedRestart = found?.survivedRestart ?? false
            start.durations = library.compactMapValues(\.durationMs)
            journal.continueAfter(saved.journalSequence)
        }
        perform(keeper.handle(.start(start), now: Instant.now))
        notePlayingEpisode()
        podcasts.start()
    }

    /// First start (or a rebuilt database), once the library has tracks: the queue is the
    /// library in path order, its first `[queue] max_length` tracks when it has more.
    private func fillQueueFromLibrary() {
        guard let version = fillQueueAtVersion, !library.isEmpty else { return }
        fillQueueAtVersion = nil
        guard machine.queue.version == version else {
            logger.info("first start: the queue was edited before the library arrived; it is kept as it is")
            return
        }
        let room = machine.queue.room
        var order = library.values.map { (path: $0.path, id: $0.id) }
        order.sort { $0.path < $1.path }
        if order.count > room {
            logger.notice(
                "first start: the library has \(order.count) tracks; the queue holds its first \(room) in path order ([queue] max_length)"
            )
        }
        let first = order.prefix(room).map(\.id)
        perform(machine.handle(.command(.editQueue(.add(first, at: nil))), now: Instant.now))
        if config.resume.onStart == .play {
            perform(machine.handle(.command(.play(index: nil)), now: Instant.now))
        }
    }

    // MARK: - the loop

    private func loop() -> Int32 {
        restore()
        serviceManager.ready(now: Instant.now)
        perform(boxMachine.handle(.startedUp(resuming: machine.currentRequest != nil), now: Instant.now))
        if config.console.input == .keys, console?.enableKeys(ControlMap(config: config)) == false {
            logger.info("console: [console] input = \"keys\" needs a terminal on stdin; reading lines")
        }
        console?.greet()
        for suspect in inFlight?.suspects ?? [] {
            let name = suspect.path.split(separator: "/").last.map(String.init) ?? suspect.path
            display?.announce("skipped \(name)", now: Instant.now)
            console?.announce("skipped \(suspect.path): the previous start stopped abnormally while reading it")
        }
        while !stopping {
            var interests = [Poller.Interest(fd: signals.rawValue), Poller.Interest(fd: wakeup.fd.rawValue)]
            if let console { interests.append(Poller.Interest(fd: console.inputFD)) }
            interests += mpd.interests()
            for fd in controls?.fds ?? [] { interests.append(Poller.Interest(fd: fd)) }
            for fd in cardReaders?.fds ?? [] { interests.append(Poller.Interest(fd: fd)) }
            let ready: [Poller.Readiness]
            do {
                ready = try Poller.wait(interests, timeoutMilliseconds: pollTimeout())
            } catch {
                logger.critical("\(error)")
                break
            }
            for readiness in ready {
                if readiness.fd == signals.rawValue {
                    let signal = (try? signals.readSignal()) ?? -1
                    logger.info("received signal \(signal); saving state and stopping")
                    stopping = true
                } else if readiness.fd == wakeup.fd.rawValue {
                    wakeup.drain()
                    handlePipelineEvents()
                    handleScanResult()
                    handlePodcastReports()
                    handleSpeechMade()
                } else if let console, readiness.fd == console.inputFD {
                    for event in console.read() {
                        switch event {
                        case .line(let line): handleConsoleLine(line)
                        case .action(let action): perform(action, source: "key")
                        case .input(let input): handleInjected(input, map: ControlMap(config: config))
                        }
                    }
                    if console.isClosed {
                        console.close()
                        self.console = nil
                    }
                } else if let controls, controls.owns(readiness.fd) {
                    handleControls(controls.read(fd: readiness.fd, now: Instant.now))
                } else if let cardReaders, cardReaders.owns(readiness.fd) {
                    handleCardReads(cardReaders.read(fd: readiness.fd, now: Instant.now))
                } else {
                    _ = mpd.handle(readiness, host: self)
                }
            }
            if let controls { handleControls(controls.advance(to: Instant.now)) }
            if let cardReaders { handleCardReads(cardReaders.advance(to: Instant.now)) }
            tick()
            mpd.afterTurn(machine)
            serviceManager.pingIfDue(now: Instant.now)
        }
        shutdown()
        return restartRequested ? Jukeboxd.restartStatus : 0
    }

    /// `restart` (a local client or console): the loop ends after this turn, saves the place
    /// as a SIGTERM does, and the daemon starts again (`RunCommand.startAgain`).
    func requestRestart() {
        logger.notice("restart requested: saving state and stopping, then starting again")
        restartRequested = true
        stopping = true
    }

    /// systemd runs this daemon (`Type=notify` gives it $NOTIFY_SOCKET): a restart is its job.
    static var isSupervised: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// What `system` answers: the build, this start, the library, the card's free space, the files.
    func systemFacts() -> [(String, String)] {
        let musicFree = (try? FileSystem.freeBytes(config.musicDir)).map { String($0) } ?? "unknown"
        let uptimeMs = Int64(MonotonicClock.nanoseconds() / 1_000_000) - startedMonotonicMs
        var facts: [(String, String)] = [
            ("version", JukeboxVersion.string), ("build", Jukeboxd.build), ("pid", String(getpid())),
            ("started_ms", String(startedAtMs)), ("uptime", String(uptimeMs / 1000)),
            ("tracks", String(library.count)), ("music_dir", config.musicDir), ("music_free", musicFree),
            ("config", absolutePath(configPath)), ("database", config.database),
            ("restart_by", Self.isSupervised ? "systemd" : "exec"),
        ]
        for line in RecentProblems.shared.lines { facts.append(("problem", line)) }
        return facts
    }

    private func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/"), let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private func pollTimeout() -> Int32 {
        let now = Instant.now
        var timeout: Int64 = headphones != nil ? 250 : 60_000
        // Playing, the position is read when the journal is next due (every second), which the
        // other deadlines below do not cover: a tick every 250 ms was four times the work
        // (the virtual board's bench, docs/BENCHMARK.md). Until the first record, or while the
        // position does not move (a stream buffering), it is looked at every 250 ms.
        if machine.state == .playing {
            let due = keeper.nextPositionRead.map { $0.milliseconds(since: now) + 1 } ?? 0
            timeout = min(timeout, due > 0 ? due : 250)
        }
        let deadlines = [
            boxMachine.nextDeadline, keeper.nextDeadline, serviceManager.nextPing, announcements.nextDeadline,
            alarms.nextDeadline,
        ]
        for deadline in deadlines.compactMap({ $0 }) {
            timeout = min(timeout, max(0, deadline.milliseconds(since: now) + 1))
        }
        if let limit = display?.sleepLimitMs(now: now) { timeout = min(timeout, limit) }
        for deadline in [controls?.nextDeadline, cardReaders?.nextDeadline].compactMap({ $0 }) {
            timeout = min(timeout, max(0, (deadline.nanoseconds - now.nanoseconds + 999_999) / 1_000_000))
        }
        if let mpdTimeout = mpd.timeoutMilliseconds() { timeout = min(timeout, Int64(mpdTimeout)) }
        if statusLED != nil, let change = light.nextChange(after: now) {
            timeout = min(timeout, max(0, change.milliseconds(since: now) + 1))
        }
        return Int32(timeout)
    }

    /// Position report to the core and the checkpoint policy's writes.
    private func tick() {
        let now = Instant.now
        perform(boxMachine.handle(.tick, now: now))
        perform(boxMachine.handle(.podcasts(following: !podcasts.subscriptions.isEmpty), now: now))
        performSpeech(announcements.handle(.tick, now: now))
        defer { updateLight(now: Instant.now) }
        let positionKnown = machine.state != .stopped && refreshPosition().current
        // At a time after the position's read: its progress is noted when it is read, and a
        // tick at the earlier `now` found the record not yet due and wrote it on the next wake-up.
        perform(keeper.handle(.tick(machine.snapshot, positionKnown: positionKnown), now: Instant.now))
        if let plugged = try? headphones?.plugged(), plugged != machine.headphonesPlugged {
            logger.info("headphones \(plugged ? "plugged in" : "unplugged")")
            perform(machine.handle(.headphones(plugged: plugged), now: now))
        }
        feedRulesClock(now: now)
        feedAlarms(now: now)
        perform(boxMachine.handle(.player(playerView), now: now))
        followStation(pipeline.streams)
        updateDisplay(now: now)
    }

    /// Saves everything durably, then runs the power-off command.
    func powerOff(reason: String) {
        refreshPosition()
        perform(keeper.handle(.poweringOff(machine.snapshot), now: Instant.now))
        ControlInputs.runShutdownCommand(config.buttons.shutdownCommand, reason: reason, logger: logger)
        do { try powerHold?.release() } catch { logger.error("power hold line: \(error)") }
    }

    /// Sets the sleep timer (from a console, the menu or a gesture); the reply.
    func setSleep(_ target: SleepTarget?) -> String {
        perform(boxMachine.handle(.setSleep(target), now: Instant.now))
        tick()
        return target.map { "sleep: \($0)" } ?? "sleep: off"
    }

    /// The display and the lyrics follow the player; the position is the audio clock's (the
    /// tick just took it from the pipeline).
    private func updateDisplay(now: Instant) {
        let track = currentTrackInfo
        lyrics.follow(track)
        guard let display else { return }
        if menu.isOpen {
            menu.playMode = machine.options.preset ?? .inOrder
            menu.lyricsOffsetMs = lyrics.timeline?.nudgeMs
            menu.speed = machine.speed
            menu.sleepTarget = boxMachine.sleepTarget
            display.showMenu(menu, now: now)
            return
        }
        // A station's StreamTitle is its lyric line; an episode waiting for its download says so.
        let buffering = bufferingStatusLine != nil
        let note = radio.title ?? (buffering ? "Buffering: downloading" : nil)
        let station = note.map { LyricTimeline(lyrics: Lyrics.unsynced($0)) }
        display.update(
            now: now, track: track, lyrics: station ?? lyrics.timeline,
            lyricsVersion: lyrics.version + radio.version + (buffering ? 1 : 0),
            state: machine.state,
            positionMs: machine.positionMs, volume: machine.volume, options: machine.options,
            favourite: track.map { favouritePaths.contains($0.path) } ?? false, sleepLeftMs: boxMachine.sleepLeftMs,
            scrubTargetMs: boxMachine.scrubber.targetMs)
    }

    /// The library entry of the queue's current track.
    var currentTrackInfo: TrackInfo? { machine.queue.currentTrack.flatMap { library[$0] ?? stationTrack($0) } }

    // MARK: - events

    private func handlePipelineEvents() {
        let now = Instant.now
        for event in pipeline.takeEvents() {
            switch event {
            case .started(let token):
                defer {  // the journal names the new track at once
                    refreshPosition()
                    perform(keeper.handle(.trackStarted(machine.snapshot), now: Instant.now))
                }
                perform(boxMachine.handle(.playbackStarted, now: now))
                alarmMusicStarted()
                if let request = requests[token] {
                    logger.info("playing \(describe(request.trackID))")
                    console?.announce("playing \(describe(request.trackID))")
                }
                perform(machine.handle(.started(token: token), now: now))
            case .finished(let token):
                perform(machine.handle(.finished(token: token), now: now))
                requests[token] = nil
            case .failed(let token, let message):
                logger.warning("cannot play \(requests[token].map { describe($0.trackID) } ?? "track"): \(message)")
                perform(machine.handle(.failed(token: token, message: message), now: now))
                light.handle(.error, now: now)
                requests[token] = nil
                alarmMusicFailed(message)
            case .endOfStream:
                perform(machine.handle(.endOfStream, now: now))
            case .speechEnded:
                performSpeech(announcements.handle(.ended, now: now))
            }
        }

    }

    private func handleScanResult() {
        guard let result = scan.takeResult() else { return }
        switch result {
        case .success(let snapshot):
            install(snapshot)
            logger.info("library: the scanned \(snapshot.tracks.count) tracks in use")
            mpd.scanFinished()
            // A scan changes the library only: entries of files that went (or no longer
            // play) are dropped from the queue.
            perform(machine.handle(.libraryChanged(playableIDs), now: Instant.now))
            fillQueueFromLibrary()
        case .failure(let error):
            logger.error("library scan failed: \(error)")
            mpd.scanFinished()
        }
    }

    // MARK: - actions

    func perform(_ actions: [PlayerAction]) {
        let actions = withoutRefusedStarts(actions)
        if !actions.isEmpty && (queueHoldsWide || !wideTracks.isEmpty) {
            // Before a start, so its first open is already wide when a later track is.
            let holdsWide = machine.queue.items.contains { wideTracks.contains($0.track) }
            if holdsWide != queueHoldsWide {
                queueHoldsWide = holdsWide
                pipeline.setQueueHoldsWide(holdsWide)
            }
        }
        for action in actions {
            switch action {
            case .startPlayback(let request):
                guard let item = playbackItem(request) else { continue }
                pipeline.play(item, fromMs: request.fromMs)
            case .setNext(let request):
                pipeline.setNext(request.flatMap(playbackItem))
            case .pause:
                pipeline.pause()
                recordHistory(.reached(currentPlace))
            case .resume: pipeline.resume()
            case .stop:
                pipeline.stop()
                recordHistory(.reached(currentPlace))
            case .seek(let ms):
                pipeline.seek(toMs: ms)
                mpd.observer.mark(.player)
            case .setVolume(let percent):
                pipeline.setVolume(percent: percent, gain: VolumeCurve.gain(percent: percent))
            case .setSpeed(let speed):
                pipeline.setSpeed(speed.factor)
                mpd.observer.mark(.options)
            case .rememberSpeed(let speed, let track):
                rememberSpeed(speed, track: track)
            case .persist(let kind):
                _ = keeper.handle(.changed(kind), now: Instant.now)
            case .limitReached(let limit):
                feedback(.limit(limit))
            case .queueFull(let overflow):
                logger.warning("\(overflow.message)")
                console?.announce(overflow.message)
                display?.announce(overflow.screenText, now: Instant.now)
            case .reply(let text):
                console?.reply(text)
            case .log(let level, let message):
                logger.log(level: level.swiftLogLevel, "\(message)")
                if level != .debug { console?.announce(message) }
            }
        }
    }

    private func playbackItem(_ request: PlaybackRequest) -> PlaybackItem? {
        if let url = radio.stations[request.trackID] {
            requests[request.token] = request
            return PlaybackItem(token: request.token, path: url)
        }
        guard let track = library[request.trackID] else {
            logger.warning("track \(request.trackID) is no longer in the library")
            return nil
        }
        requests[request.token] = request
        return PlaybackItem(
            token: request.token,
            path: track.path.hasPrefix("/") ? track.path : "\(config.musicDir)/\(track.cue?.file ?? track.path)",
            seekHint: keeper.seekHints[request.trackID],
            span: track.cue.map { $0.startFrame..<max($0.startFrame, $0.endFrame ?? .max) },
            replayGainMode: mpd.replayGainMode.effective(random: machine.options.random))
    }

    /// An MPD client switched the Snapcast output (output 1): feed it or not.
    func switchSnapcast(enabled: Bool) {
        logger.info("output 1 (\(config.snapcast.name)) \(enabled ? "enabled" : "disabled")")
        playedAudio?.isEnabled = enabled
    }

    /// An MPD client switched the ALSA output (the front end keeps the choice): silence it or not.
    func switchOutput(enabled: Bool) {
        logger.info("output 0 (\(config.audio.device)) \(enabled ? "enabled" : "disabled")")
        pipeline.setMuted(!enabled)
    }

    /// The crossfade MPD clients set, for the pipeline's next transitions.
    func applyCrossfade() {
        pipeline.setCrossfade(seconds: mpd.crossfadeSeconds)
    }

    // MARK: - persistence

    /// Takes the exact played position (the audio clock) from the pipeline when it plays the
    /// machine's current track. `current` says whether it did.
    @discardableResult
    func refreshPosition() -> (status: PipelineStatus, current: Bool) {
        let status = pipeline.status()
        let current = status.token != nil && status.token == machine.currentRequest?.token
        if current {
            perform(machine.handle(.position(ms: status.positionMs), now: Instant.now))
            // A pause settles after the command (the output stops at its next period, later on a
            // loaded box): Recently played keeps where it stopped, as `status` shows, not where
            // the command found it (written only when the place moved).
            if machine.state == .paused { recordHistory(.reached(currentPlace)) }
            if let track = machine.currentRequest?.trackID {
                if let hint = status.seekHint { _ = keeper.handle(.seekHint(track, hint), now: Instant.now) }
                if status.startedFromSeekHint, loggedHintToken != status.token {
                    loggedHintToken = status.token
                    logger.info(
                        "\(describe(track)): read from MPEG frame \(keeper.seekHints[track]?.mpegFrame ?? 0) on (a seek hint), not from its start"
                    )
                }
            }
        }
        return (status, current)
    }

    /// Performs the keeper's writes in order; a commit carries the sequence of the journal
    /// write before it, or a new one (`ResumeAction.commit`).
    func perform(_ actions: [ResumeAction]) {
        var sequence: UInt64?
        do {
            for action in actions {
                switch action {
                case .writeRAM(let record): sequence = journal.record(record)
                case .writeCheckpoint(let record): sequence = journal.recordDurably(record)
                case .saveQueue(let entries): try store.saveQueue(entries.map(QueueRecord.init), durable: false)
                case .rememberPosition(let track, let positionMs, _) where Podcasts.episodeID(track) != nil:
                    podcasts.remember(positionMs: positionMs, ofTrack: track)
                case .rememberPosition(let track, let positionMs, let hint):
                    try store.setPosition(positionMs, hint: hint, ofTrack: track)
                case .forgetPosition(let track) where Podcasts.episodeID(track) != nil: podcasts.played(track: track)
                case .forgetPosition(let track): try store.setPosition(nil, ofTrack: track)
                case .commit(let snapshot, let durable):
                    // Recently played rides along unsynced; this commit makes it durable.
                    recordHistory(.reached(place(of: snapshot)))
                    try store.savePlayback(
                        snapshot.record(sequence: sequence ?? journal.newSequence()), durable: durable)
                case .resume(let snapshot, let source):
                    if case .powerCut(let checkpointMs) = source {
                        logger.info(
                            "power cut while the music ran: the last checkpoint on the card was at \(formatTime(ms: checkpointMs)); continuing half a sync interval after it"
                        )
                    }
                    perform(machine.handle(.restored(snapshot, onStart: config.resume.onStart), now: Instant.now))
                    logger.info(
                        "resuming \(describe(machine.queue.currentTrack)) at \(formatTime(ms: machine.positionMs)) (on_start = \(config.resume.onStart.rawValue))"
                    )
                case .startAfresh:
                    fillQueueAtVersion = machine.queue.version
                    fillQueueFromLibrary()
                }
            }
        } catch {
            logger.error("cannot save the playback state: \(error)")
            _ = keeper.handle(.saveFailed, now: Instant.now)
        }
    }

    private func shutdown() {
        serviceManager.stopping()
        mpd.shutdown()
        refreshPosition()
        perform(keeper.handle(.stop(machine.snapshot), now: Instant.now))
        display?.close()
        console?.close()
        pipeline.shutdown()
        snapcast?.shutdown()
        scan.abandon()
        speech.stop()
        podcasts.shutdown()
        inFlight?.markStopped()
        logger.info("stopped")
    }

    // MARK: - library

    /// Swaps in a library read from the database, with the podcast episodes on the card.
    private func install(_ snapshot: LibrarySnapshot) {
        let episodes = podcasts.tracks()
        library = snapshot.tracks
        wideTracks = snapshot.wideTracks
        var index = snapshot.index
        if !episodes.isEmpty {
            library.merge(episodes) { a, _ in a }
            wideTracks.formUnion(episodes.values.lazy.filter(\.isWide).map(\.id))
            index = MPDLibrary(tracks: Array(library.values))
        }
        perform(machine.handle(.tracksDescribed(Array(library.values)), now: Instant.now))
        loadStations()
        mpd.libraryChanged(index)
        menuCatalogIsStale = true
        if menu.isOpen { updateMenuCatalog() } else { refreshMenuLists() }
        // The scan and the snapshot's build freed far more than the library keeps (the rows,
        // their decoding, the old library): at 20,000 tracks tens of MiB that glibc would
        // otherwise keep resident between the long-lived blocks.
        ProcessSettings.returnFreeHeapPages()
    }

    private func describe(_ id: TrackID?) -> String {
        id.flatMap { library[$0]?.spoken ?? radio.stations[$0] } ?? "nothing"
    }
}
