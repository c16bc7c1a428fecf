// The control loop (thread `jb-control`, the main thread).
//
// It owns the core's PlayerMachine, the LibraryStore connection, the position journal and
// the console, and it is the only thread that changes any of them. It sleeps in one poll()
// over: the termination signalfd, a WakeupEvent (signalled by the audio pipeline on track
// boundaries and errors, and by the scan thread when it finishes) and the console fd; the
// poll timeout is the next checkpoint or position tick. It never blocks on audio: commands
// go to the pipeline as non-blocking requests that the output thread picks up within one
// period.

import Glibc
import JukeboxAudio
import JukeboxCore
import JukeboxStore
import LinuxSupport
import Logging

/// The running daemon: wiring plus the control loop.
final class Daemon {
    private let config: JukeboxConfig
    private let logger: Logger
    private var machine: PlayerMachine
    private var policy: CheckpointPolicy
    private let store: LibraryStore
    private let journal: ResumeJournal
    private let pipeline: AudioPipeline
    private let wakeup: WakeupEvent
    private let signals: FileDescriptor
    private var console: Console?
    /// MPD protocol clients (network) and the serial console.
    private var mpd: MPDFrontEnd!
    /// Buttons and the encoder (GPIO lines, input devices); nil when none is wired.
    private var controls: ControlInputs?
    private let scan: ScanRunner
    private let display: DisplayController?
    /// The playing track's lyrics (display, `lyrics` on every console, the nudge gesture).
    private let lyrics: TrackLyrics
    /// Tracks by id, for paths and durations; refreshed after each scan.
    private var library: [TrackID: TrackInfo] = [:]
    /// Playback requests the pipeline knows, by token (for the track path and id).
    private var requests: [UInt64: PlaybackRequest] = [:]
    private var stopping = false
    /// On a first start there is nothing to resume: play once the scan has found music.
    private var playWhenLibraryArrives = false
    /// The queue's entries as the database has them (nil: not known to be saved). A skip
    /// moves the current entry but leaves these, and the table is not rewritten for it.
    private var savedQueueEntries: [TrackID]?
    /// When the start-up rescan begins, if it waits for playback to start.
    private var startupScanDue: Instant?
    /// An event was saved without fsync since the last durable commit.
    private var eventSinceDurableSave = false
    /// Per-track positions as the database has them.
    private var persistedPositions: [TrackID: Int64] = [:]
    /// Where to start reading a track to resume it fast (see `SeekHint`): the current track's
    /// latest from the pipeline (it goes into every journal record) and the long tracks' that
    /// keep their own position (stored with that position in the database).
    private var seekHints: [TrackID: SeekHint] = [:]
    private var loggedHintToken: UInt64?
    /// An event (pause, seek, skip, volume, mode) changed the state since the last save.
    private var eventNotSaved = false
    /// What the database holds (nil until the first save of this run).
    private var lastSavedRecord: PlaybackRecord?

    /// Starts everything and runs until SIGTERM/SIGINT. Returns the exit status.
    static func run(settings: LoadedConfig, logger: Logger, inputReplayFifo: String? = nil) -> Int32 {
        // One malloc arena for the whole process. glibc gives each thread that allocates its
        // own arena (jb-decode: mpg123's handles, jb-scan: its SQLite connection), and each
        // keeps its high-water mark resident: 150-200 kB while playing. Only the control
        // thread allocates often and jb-output never does, so there is no contention to avoid.
        ProcessSettings.limitMallocArenas(to: 1)
        let signals: FileDescriptor
        do {
            signals = try TerminationSignals.open()
        } catch {
            logger.critical("cannot set up signal handling: \(error)")
            return 1
        }
        do {
            let daemon = try Daemon(
                config: settings.config, forceStdinConsole: settings.forceStdinConsole,
                signals: signals, logger: logger, inputReplayFifo: inputReplayFifo)
            return daemon.loop()
        } catch {
            logger.critical("cannot start: \(error)")
            return 1
        }
    }

    private init(
        config: JukeboxConfig, forceStdinConsole: Bool, signals: FileDescriptor, logger: Logger,
        inputReplayFifo: String?
    ) throws {
        self.config = config
        self.logger = logger
        self.signals = signals
        let wakeup = try WakeupEvent()
        self.wakeup = wakeup

        let opened = try LibraryStore.open(path: config.database, logger: logger)
        store = opened.store
        if let message = opened.recoveryMessage { logger.error("\(message)") }
        journal = ResumeJournal(
            databasePath: config.database, checkpointDevice: config.resume.checkpointDevice, logger: logger)

        pipeline = AudioPipeline(
            config: AudioOutputConfig(
                device: config.audio.device, periodMs: config.audio.periodMs, bufferMs: config.audio.bufferMs,
                mixer: config.audio.mixer.isEmpty ? nil : config.audio.mixer,
                pacing: OutputPacing(rawValue: config.audio.pacing.rawValue) ?? .auto),
            logger: logger,
            wakeup: { wakeup.signal() })

        let seed = MonotonicClock.nanoseconds() ^ UInt64(UInt32(bitPattern: getpid())) << 32
        machine = PlayerMachine(
            configuration: config.playerConfiguration, queue: PlayQueue(mode: config.queue.mode, seed: seed))
        policy = CheckpointPolicy(journalIntervalMs: 1000, syncIntervalMs: config.resume.syncIntervalMs)
        scan = ScanRunner(
            databasePath: config.database, musicDirectory: config.musicDir, lyricsDirectory: config.lyricsDir,
            logger: logger, wakeup: wakeup)
        // A tty path is the serial console, which speaks the MPD protocol (MPDFrontEnd).
        console =
            config.console.device.hasPrefix("/")
            ? nil : Console.open(device: config.console.device, force: forceStdinConsole, logger: logger)
        mpd = MPDFrontEnd(config: config, logger: logger)
        display = DisplayController.make(config: config, logger: logger)
        lyrics = TrackLyrics(config: config, logger: logger)
        controls = ControlInputs.open(config: config, replayFifo: inputReplayFifo, logger: logger)
    }

    // MARK: - start-up

    private func restore() {
        reloadLibrary()
        let now = Instant.now
        var record: PlaybackRecord?
        var queue: [TrackID] = []
        do {
            record = try store.loadPlayback()
            queue = try store.loadQueue()
            persistedPositions = try store.savedTrackPositions()
            seekHints = try store.savedSeekHints()
            if !persistedPositions.isEmpty {
                perform(machine.handle(.savedPositionsLoaded(persistedPositions), now: now))
            }
        } catch {
            logger.error("cannot read the saved state, starting afresh: \(error)")
        }
        // The journal is newer than the last database save after a crash or a power cut: it
        // has the track, the queue entry, the position and the volume since then.
        if var saved = record {
            // The same sequence: a durable save wrote both; the journal adds whether it moved on.
            let found = journal.read()
            if let found, let hint = found.entry.seekHint { seekHints[found.entry.trackID] = hint }
            if let found, found.entry.sequence >= saved.journalSequence {
                let entry = found.entry
                if let index = entry.queueIndex, queue.indices.contains(index), queue[index] == entry.trackID {
                    saved.queueIndex = index
                } else if entry.trackID != saved.trackID {
                    saved.queueIndex = queue.firstIndex(of: entry.trackID) ?? saved.queueIndex
                }
                saved.trackID = entry.trackID
                saved.positionMs = entry.positionMs
                if found.survivedRestart && entry.playing {
                    afterPowerCut(entry, record: &saved, queue: queue)
                }
                if let volume = entry.volume { saved.volume = volume }
            }
            journal.continueAfter(saved.journalSequence)
            record = saved
        }
        guard let record, !queue.isEmpty else {
            playWhenLibraryArrives = config.resume.onStart == .play
            if !library.isEmpty { fillQueueFromLibrary() }
            return
        }
        var snapshot = PlayerMachine.Snapshot(record: record, queue: queue, fallbackMode: config.queue.mode)
        snapshot.savedPositions = persistedPositions
        perform(machine.handle(.restored(snapshot, onStart: config.resume.onStart), now: now))
        logger.info(
            "resuming \(describe(machine.queue.currentTrack)) at \(formatTime(ms: machine.positionMs)) (on_start = \(config.resume.onStart.rawValue))"
        )
    }

    /// Where to resume after a power cut while playing. The last checkpoint on the card is
    /// 0 to `sync_interval_s` old, and nothing tells when the power went, so the middle of
    /// that window is the best guess: it puts the resume within half an interval (2 s by
    /// default) either side of where playback stopped, with half the card writes that a
    /// checkpoint every 2 s taken as-is would need for the same bound. Past the track's end
    /// it continues into the track that followed it, as playback did.
    private func afterPowerCut(_ entry: PositionJournal.Entry, record: inout PlaybackRecord, queue: [TrackID]) {
        guard let duration = library[entry.trackID]?.durationMs else { return }
        let shifted = entry.positionMs + config.resume.syncIntervalMs / 2
        logger.info(
            "power cut while the music ran: the last checkpoint on the card was at \(formatTime(ms: entry.positionMs)); continuing half a sync interval after it"
        )
        if shifted < duration - 500 {
            record.positionMs = shifted
            return
        }
        let snapshot = PlayerMachine.Snapshot(record: record, queue: queue, fallbackMode: config.queue.mode)
        guard let next = PlayQueue(snapshot: snapshot.queue).following() else { return }
        let track = queue[next]
        record.queueIndex = next
        record.trackID = track
        let into = max(0, shifted - duration)
        record.positionMs = into < (library[track]?.durationMs ?? 0) - 500 ? into : 0
    }

    /// First start (or a rebuilt database): the queue is the whole library in path order.
    private func fillQueueFromLibrary() {
        let order = library.values.sorted { $0.path < $1.path }.map(\.id)
        perform(machine.handle(.libraryReplaced(order), now: Instant.now))
        if playWhenLibraryArrives, !order.isEmpty {
            playWhenLibraryArrives = false
            perform(machine.handle(.command(.play(index: nil)), now: Instant.now))
        }
    }

    // MARK: - the loop

    private func loop() -> Int32 {
        restore()
        // With something to resume, the first sample comes first: the start-up rescan waits
        // until playback started (or 2 s), so it does not compete with it for the CPU.
        if machine.currentRequest == nil {
            scan.start(probe: Self.probe)
        } else {
            startupScanDue = Instant.now.adding(milliseconds: 2000)
        }
        if config.console.input == .keys, console?.enableKeys(ControlMap(config: config)) == false {
            logger.info("console: [console] input = \"keys\" needs a terminal on stdin; reading lines")
        }
        console?.greet()
        while !stopping {
            var interests = [Poller.Interest(fd: signals.rawValue), Poller.Interest(fd: wakeup.fd.rawValue)]
            if let console { interests.append(Poller.Interest(fd: console.inputFD)) }
            interests += mpd.interests()
            for fd in controls?.fds ?? [] { interests.append(Poller.Interest(fd: fd)) }
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
                } else if let console, readiness.fd == console.inputFD {
                    for event in console.read() {
                        switch event {
                        case .line(let line): handleConsoleLine(line)
                        case .action(let action): perform(action, source: "key")
                        }
                    }
                    if console.isClosed {
                        console.close()
                        self.console = nil
                    }
                } else if let controls, controls.owns(readiness.fd) {
                    handleControls(controls.read(fd: readiness.fd, now: Instant.now))
                } else {
                    _ = mpd.handle(readiness, host: self)
                }
            }
            if let controls { handleControls(controls.advance(to: Instant.now)) }
            tick()
            mpd.afterTurn(machine)
        }
        shutdown()
        return 0
    }

    private func pollTimeout() -> Int32 {
        let now = Instant.now
        var timeout: Int64 = machine.state == .playing ? 250 : 60_000
        if let due = startupScanDue {
            timeout = min(timeout, max(0, (due.nanoseconds - now.nanoseconds) / 1_000_000 + 1))
        }
        if let deadline = policy.nextDeadline {
            timeout = min(timeout, max(0, (deadline.nanoseconds - now.nanoseconds) / 1_000_000 + 1))
        }
        if let limit = display?.sleepLimitMs(now: now) { timeout = min(timeout, limit) }
        if let deadline = controls?.nextDeadline {
            timeout = min(timeout, max(0, (deadline.nanoseconds - now.nanoseconds + 999_999) / 1_000_000))
        }
        if let mpdTimeout = mpd.timeoutMilliseconds() { timeout = min(timeout, Int64(mpdTimeout)) }
        return Int32(timeout)
    }

    /// Position report to the core and the checkpoint policy's writes.
    private func tick() {
        let now = Instant.now
        if let due = startupScanDue, now >= due {
            startupScanDue = nil
            scan.start(probe: Self.probe)
        }
        if machine.state == .playing || machine.state == .paused, refreshPosition().current {
            policy.note(.progress, now: now)
        }
        let due = policy.due(now: now)
        if due.durable {
            if eventSinceDurableSave && !journalCoversChanges() {
                save(durable: true)
            } else {
                // Only the position, the volume or play/pause changed: the journal carries
                // them, so making them durable is one sector and an fdatasync, not a transaction.
                eventNotSaved = false
                eventSinceDurableSave = false
                if let track = machine.queue.currentTrack {
                    journal.recordDurably(journalEntry(track: track))
                }
            }
        } else if eventNotSaved {
            // Saved at once for a crash (it reaches the kernel); the fsync follows when the
            // policy's 2 s window closes, so a turning knob costs one fsync, not twenty.
            if journalCoversChanges() {
                eventNotSaved = false
                writeJournal()
            } else {
                save(durable: false)
            }
        } else if due.journal {
            writeJournal()
        }
        updateDisplay(now: now)
    }

    /// The display and the lyrics follow the player; the position is the audio clock's (the
    /// tick just took it from the pipeline).
    private func updateDisplay(now: Instant) {
        let track = currentTrackInfo
        lyrics.follow(track)
        guard let display else { return }
        display.update(
            now: now, track: track, lyrics: lyrics.timeline, lyricsVersion: lyrics.version, state: machine.state,
            positionMs: machine.positionMs, volume: machine.volume, mode: machine.mode)
    }

    /// The library entry of the queue's current track.
    private var currentTrackInfo: TrackInfo? { machine.queue.currentTrack.flatMap { library[$0] } }

    // MARK: - events

    private func handlePipelineEvents() {
        let now = Instant.now
        for event in pipeline.takeEvents() {
            switch event {
            case .started(let token):
                defer { writeJournal() }  // the journal names the new track at once
                if startupScanDue != nil {
                    startupScanDue = nil
                    scan.start(probe: Self.probe)
                }
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
                requests[token] = nil
            case .endOfStream:
                perform(machine.handle(.endOfStream, now: now))
            }
        }

    }

    private func handleScanResult() {
        guard let result = scan.takeResult(probe: Self.probe) else { return }
        switch result {
        case .success(let report):
            reloadLibrary()
            mpd.libraryChanged(library.values, scanFinished: true)
            if report.added + report.removed > 0 || machine.queue.entries.isEmpty {
                fillQueueFromLibrary()
            }
        case .failure(let error):
            logger.error("library scan failed: \(error)")
            mpd.libraryChanged(library.values, scanFinished: true)
        }
    }

    private func handleConsoleLine(_ line: String) {
        let trimmed = line.trimmingWhitespace
        if trimmed.isEmpty { return }
        switch trimmed.lowercased() {
        case "update", "rescan":
            scan.start(probe: Self.probe)
            console?.reply("OK scanning \(config.musicDir)")
            return
        default: break
        }
        // Commands act on the exact played position (status, seek ±, previous's 3 s rule, a
        // long track's remembered position, the lyric line), not on the last tick's.
        refreshPosition()
        if let reply = lyrics.handleConsole(trimmed, positionMs: machine.positionMs) {
            console?.reply(reply)
            return
        }
        switch CommandParser.parse(trimmed) {
        case .success(let command):
            perform(machine.handle(.command(command), now: Instant.now))
        case .failure(let error):
            // Words the console does not know may be MPD commands (currentsong, playlistinfo, add, ...).
            if case .unknownCommand = error, let reply = mpd.stdinLine(trimmed, host: self) {
                console?.reply(reply)
            } else {
                console?.reply("error: \(error.message)")
            }
        }
    }

    /// Gestures and encoder turns: commands go to the core like console commands.
    private func handleControls(_ outputs: [ControlOutput]) {
        for output in outputs {
            switch output {
            case .gesture, .detent:
                logger.debug("input: \(output)")
            case .action(let action, _):
                perform(action, source: "input")
            }
        }
        if !outputs.isEmpty { ControlInputs.reapChildren() }
    }

    /// A gesture's (or a key's) action: commands go to the core like console commands.
    private func perform(_ action: ControlAction, source: String) {
        logger.debug("\(source): -> \(action)")
        switch action {
        case .command(let command):
            perform(machine.handle(.command(command), now: Instant.now))
        case .lyricsOffset(let nudge):
            lyrics.follow(currentTrackInfo)
            if let offset = lyrics.nudge(nudge) {
                console?.announce("lyrics offset \(offset) ms")
            } else {
                logger.info("\(source): lyrics offset: no lyrics for this track")
            }
        case .shutdown:
            save(durable: true)
            ControlInputs.runShutdownCommand(config.buttons.shutdownCommand, logger: logger)
        }
    }

    // MARK: - actions

    private func perform(_ actions: [PlayerAction]) {
        for action in actions {
            switch action {
            case .startPlayback(let request):
                guard let item = playbackItem(request) else { continue }
                pipeline.play(item, fromMs: request.fromMs)
            case .setNext(let request):
                pipeline.setNext(request.flatMap(playbackItem))
            case .pause: pipeline.pause()
            case .resume: pipeline.resume()
            case .stop: pipeline.stop()
            case .seek(let ms):
                pipeline.seek(toMs: ms)
                mpd.observer.mark(.player)
            case .setVolume(let percent):
                pipeline.setVolume(percent: percent, gain: VolumeCurve.gain(percent: percent))
            case .persist(let kind):
                policy.note(kind, now: Instant.now)
                if kind == .event {
                    eventNotSaved = true
                    eventSinceDurableSave = true
                }
            case .reply(let text):
                console?.reply(text)
            case .log(let level, let message):
                logger.log(level: level.swiftLogLevel, "\(message)")
                if level != .debug { console?.announce(message) }
            }
        }
    }

    private func playbackItem(_ request: PlaybackRequest) -> PlaybackItem? {
        guard let track = library[request.trackID] else {
            logger.warning("track \(request.trackID) is no longer in the library")
            return nil
        }
        requests[request.token] = request
        return PlaybackItem(
            token: request.token, path: "\(config.musicDir)/\(track.path)", seekHint: seekHints[request.trackID])
    }

    // MARK: - persistence

    /// Takes the exact played position (the audio clock) from the pipeline when it plays the
    /// machine's current track. `current` says whether it did.
    @discardableResult
    private func refreshPosition() -> (status: PipelineStatus, current: Bool) {
        let status = pipeline.status()
        let current = status.token != nil && status.token == machine.currentRequest?.token
        if current {
            perform(machine.handle(.position(ms: status.positionMs), now: Instant.now))
            if let track = machine.currentRequest?.trackID {
                if let hint = status.seekHint { seekHints[track] = hint }
                if status.startedFromSeekHint, loggedHintToken != status.token {
                    loggedHintToken = status.token
                    logger.info(
                        "\(describe(track)): read from MPEG frame \(seekHints[track]?.mpegFrame ?? 0) on (a seek hint), not from its start"
                    )
                }
            }
        }
        return (status, current)
    }

    /// The every-second checkpoint: one pwrite to RAM. Returns the journal's sequence number.
    @discardableResult
    private func writeJournal() -> UInt64 {
        refreshPosition()
        guard let track = machine.queue.currentTrack else { return 0 }
        return journal.record(journalEntry(track: track))
    }

    /// The journal record for the current state (the journal numbers it). `stopping`: the
    /// position stops moving here (a clean exit), so a restart must not add time to it.
    private func journalEntry(track: TrackID, stopping: Bool = false) -> PositionJournal.Entry {
        PositionJournal.Entry(
            trackID: track, positionMs: machine.positionMs, sequence: 0, volume: machine.volume,
            queueIndex: machine.queue.currentIndex, playing: machine.state == .playing && !stopping,
            seekHint: seekHints[track])
    }

    /// Whether everything that changed since the last database save is in the journal
    /// (queue entry, track, position, volume; playing and paused restore alike): a seek, a
    /// pause, a volume change, a skip or a track change outside shuffle. A mode or queue
    /// change, a stop, a skip in shuffle (its cursor and history move), or a long track's
    /// remembered position needs a transaction.
    private func journalCoversChanges() -> Bool {
        guard let saved = lastSavedRecord, machine.snapshot.savedPositions == persistedPositions,
            machine.queue.entries == savedQueueEntries
        else { return false }
        func essentials(_ record: PlaybackRecord) -> PlaybackRecord {
            var record = record
            record.positionMs = 0
            record.volume = 0
            record.journalSequence = 0
            // The journal has the entry; the version only tells MPD clients to refresh.
            record.queueIndex = nil
            record.trackID = nil
            record.queueVersion = 0
            if record.state == PlayState.paused.rawValue { record.state = PlayState.playing.rawValue }
            return record
        }
        return essentials(machine.snapshot.record(sequence: 0)) == essentials(saved)
    }

    /// One transaction with everything (fsync'd when `durable`); the queue rides along
    /// (un-synced) only when it changed, and the commit after it makes it durable too (WAL order).
    /// A durable save puts the same record on the card's journal, so that after a power cut
    /// the newest checkpoint still says whether playback was moving on (`stopping`: it was not).
    private func save(durable: Bool, stopping: Bool = false) {
        eventNotSaved = false
        if durable { eventSinceDurableSave = false }
        var sequence: UInt64 = 0
        if durable, let track = machine.queue.currentTrack {
            refreshPosition()
            sequence = journal.recordDurably(journalEntry(track: track, stopping: stopping))
        } else {
            sequence = writeJournal()
        }
        let snapshot = machine.snapshot
        do {
            if snapshot.queue.entries != savedQueueEntries {
                try store.saveQueue(snapshot.queue.entries, durable: false)
                savedQueueEntries = snapshot.queue.entries
            }
            // Long tracks keep their own position (audiobooks); only changed ones are written.
            for (track, position) in snapshot.savedPositions where persistedPositions[track] != position {
                try store.setPosition(position, hint: seekHints[track], ofTrack: track)
                persistedPositions[track] = position
            }
            for track in persistedPositions.keys where snapshot.savedPositions[track] == nil {
                try store.setPosition(nil, ofTrack: track)
                persistedPositions[track] = nil
            }
            // Hints for the current track and for tracks that keep their own position only.
            seekHints = seekHints.filter { $0.key == snapshot.currentTrack || snapshot.savedPositions[$0.key] != nil }
            let record = snapshot.record(sequence: sequence)
            try store.savePlayback(record, durable: durable)
            lastSavedRecord = record
        } catch {
            logger.error("cannot save the playback state: \(error)")
        }
    }

    private func shutdown() {
        mpd.shutdown()
        save(durable: true, stopping: true)
        display?.close()
        console?.close()
        pipeline.shutdown()
        scan.abandon()
        logger.info("stopped")
    }

    // MARK: - library

    private func reloadLibrary() {
        do {
            library = Dictionary(uniqueKeysWithValues: try store.playableTracks().map { ($0.id, $0.info) })
        } catch {
            logger.error("cannot read the library: \(error)")
        }
        perform(machine.handle(.tracksDescribed(Array(library.values)), now: Instant.now))
        mpd?.libraryChanged(library.values, scanFinished: false)
    }

    static let probe: @Sendable (String) throws -> ProbedTags = { path in
        let media = try MediaProbe.probe(path: path)
        return ProbedTags(
            title: media.title, artist: media.artist, album: media.album, trackNumber: media.trackNumber,
            durationMs: media.durationMs)
    }

    private func describe(_ id: TrackID?) -> String {
        guard let id, let track = library[id] else { return "nothing" }
        let title = track.title ?? track.path
        if let artist = track.artist, !artist.isEmpty { return "\"\(title)\" by \(artist)" }
        return "\"\(title)\""
    }
}

extension Daemon: MPDPlayerHost {
    /// Runs MPD requests against the player with the exact played position, then performs
    /// what they asked for (player actions, a rescan).
    func runMPD<T>(_ body: (inout MPDWorld) -> T) -> T {
        let status = refreshPosition().status
        var world = mpd.world(machine: machine, format: status.format.map { ($0.rate, $0.channels) })
        lyrics.follow(currentTrackInfo)
        world.lyrics = lyrics.atPosition(machine.positionMs)
        let result = body(&world)
        machine = world.machine
        mpd.absorb(world)
        if let nudge = world.lyricNudge { lyrics.nudge(nudge) }
        perform(world.actions)
        if !world.updateRequests.isEmpty { scan.start(probe: Self.probe) }
        return result
    }
}

func formatTime(ms: Int64) -> String {
    let seconds = ms / 1000
    let tenths = (ms % 1000) / 100
    return "\(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60).\(tenths)"
}

extension Instant {
    /// The monotonic clock, read here in the shell so that the core never reads one.
    static var now: Instant { Instant(nanoseconds: Int64(MonotonicClock.nanoseconds())) }
}

extension String {
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}
