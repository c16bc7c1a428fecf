/// A request to the audio pipeline to play a track from a position. The token tells the
/// pipeline's later events apart; the machine assigns increasing tokens.
public struct PlaybackRequest: Sendable, Equatable {
    public var token: UInt64
    public var trackID: TrackID
    public var fromMs: Int64

    /// A request; tokens come from `PlayerMachine`.
    public init(token: UInt64, trackID: TrackID, fromMs: Int64) {
        self.token = token
        self.trackID = trackID
        self.fromMs = fromMs
    }
}

/// Whether the player is making sound.
public enum PlayState: String, Sendable, Equatable, CaseIterable {
    case stopped
    case playing
    case paused

    /// The `state:` word of status replies (the console's and MPD's).
    public var statusWord: String {
        switch self {
        case .stopped: "stop"
        case .playing: "play"
        case .paused: "pause"
        }
    }
}

/// What the player does on start-up with the restored state (`[resume] on_start`).
public enum ResumeOnStart: String, Sendable, Equatable, CaseIterable {
    /// Continue playing the same track at the same position.
    case play
    /// Position on the same track and position, paused.
    case paused
    /// Stay stopped; the queue is kept.
    case off
}

/// How important a log line is.
public enum LogLevel: String, Sendable, Equatable, CaseIterable {
    case debug
    case info
    case warning
    case error
}

/// Something that happened, for the `PlayerMachine` to react to.
public enum PlayerEvent: Sendable, Equatable {
    /// A command from any front end.
    case command(Command)
    /// The first sample of the request with this token reached the device.
    case started(token: UInt64)
    /// The request with this token played to its end.
    case finished(token: UInt64)
    /// The request with this token could not be played (undecodable or missing file).
    case failed(token: UInt64, message: String)
    /// The pipeline has played everything it was given.
    case endOfStream
    /// The exact played position of the current track (ignored while nothing is loaded).
    case position(ms: Int64)
    /// The library was rescanned and holds these tracks: queue entries of any other track are
    /// dropped (as MPD drops a file that disappeared); nothing is added.
    case libraryChanged(Set<TrackID>)
    /// Metadata for tracks (durations decide the resume rule; titles appear in `status`).
    /// Send it before `.restored`, so that the restored track's duration is known.
    case tracksDescribed([TrackInfo])
    /// Saved positions of long tracks, as loaded from the store.
    case savedPositionsLoaded([TrackID: Int64])
    /// The speeds long tracks were left at and the box's speed for the others, as loaded
    /// from the store. Send it before `.restored`.
    case savedSpeedsLoaded([TrackID: PlaybackSpeed], box: PlaybackSpeed)
    /// The persisted state, on start-up. A snapshot that was playing or paused resumes the same
    /// track at the same position as `onStart` says; a stopped one stays stopped. The volume comes
    /// back at most at `startVolume` (power-up is at a safe volume), and always as a `.setVolume`.
    case restored(PlayerMachine.Snapshot, onStart: ResumeOnStart)
    /// The headphone-detect line changed: plugged-in headphones bring the volume down to
    /// `headphoneMaxVolume` at once; unplugging them leaves it where it is.
    case headphones(plugged: Bool)
    /// A profile of the family's rules began (`ListeningRules`): the volume is held at most at
    /// `maxVolume` (nil: the configured maximum) and set to `volume` when given.
    case volumeProfile(maxVolume: Int?, volume: Int?)
}

/// What the daemon should do, in order.
public enum PlayerAction: Sendable, Equatable {
    /// Flush the pipeline and start this request.
    case startPlayback(PlaybackRequest)
    /// The gapless follow-up to continue with when the current track ends (nil: none).
    case setNext(PlaybackRequest?)
    case pause
    case resume
    case stop
    case seek(ms: Int64)
    /// Apply this volume percent (already within the limits); map it with `VolumeCurve`.
    case setVolume(Int)
    /// Play at this speed from now on (the pipeline; positions stay in track time).
    case setSpeed(PlaybackSpeed)
    /// Store a chosen speed: the long track's own, or (nil) the box's for the other tracks.
    case rememberSpeed(PlaybackSpeed, track: TrackID?)
    /// Save `PlayerMachine.snapshot` (hand the kind to `ResumeKeeper`).
    case persist(PersistKind)
    /// Text for the console that sent the command.
    case reply(String)
    case log(LogLevel, String)
    /// A volume request went past a limit (or came while the volume is locked): the box
    /// says so without a screen (`FeedbackCues`).
    case limitReached(VolumeLimit)
    /// An add did not fit in the queue (what fitted was added): log it, and say it on the
    /// console and the screen.
    case queueFull(QueueOverflow)
}

extension PlayerAction {
    /// Whether it makes sound start: a start or a resume (the family's rules may refuse it).
    public var startsPlaying: Bool {
        switch self {
        case .startPlayback, .resume: true
        default: false
        }
    }
}

/// The volume limit a request hit.
public enum VolumeLimit: Sendable, Equatable {
    case maximum, minimum, lockedAtRest
}

/// The player: queue, play options, volume, play state and positions, as a state machine
/// driven by commands and pipeline events. It never does I/O: it returns `PlayerAction`s for
/// the daemon.
///
/// Every `.startPlayback` is followed by a `.setNext` (the pipeline was flushed); `.setNext` also
/// comes whenever the follow-up changes (options or queue change, a gapless advance, a failed
/// follow-up). When the pipeline reports `.started` for the follow-up, the machine moves its
/// current entry there. In single mode without repeat there is no follow-up: at the end of a
/// song the next entry becomes current, paused (MPD's border pause; `oneshot` then turns
/// single off). A failed track is skipped; when as many tracks as the queue holds have
/// failed in a row, the player stops instead of looping.
///
/// Resume rule: a track longer than `longTrackMs` starts from its own saved position when it
/// is started by next, previous, play N or auto-advance; shorter tracks start from 0.
public struct PlayerMachine: Sendable, Equatable {
    /// Settings from the config file.
    public struct Configuration: Sendable, Equatable {
        public var maxVolume: Int
        public var startVolume: Int
        /// No path sets a volume below this (a silent box looks broken).
        public var minVolume: Int
        /// The maximum while headphones are plugged in.
        public var headphoneMaxVolume: Int
        /// Volume changes are ignored unless playing, so that a knob turned at rest cannot
        /// make the next start loud.
        public var volumeLockedAtRest: Bool
        public var longTrackMs: Int64
        /// `previous` restarts the current track when it is further in than this.
        public var restartThresholdMs: Int64

        /// The settings; volumes are clamped to 0...100 (`headphoneMaxVolume` defaults to `maxVolume`).
        public init(
            maxVolume: Int = 100, startVolume: Int = 40, minVolume: Int = 0, headphoneMaxVolume: Int? = nil,
            volumeLockedAtRest: Bool = false, longTrackMs: Int64 = 600_000, restartThresholdMs: Int64 = 3000
        ) {
            self.maxVolume = min(max(maxVolume, 0), 100)
            self.startVolume = min(max(startVolume, 0), 100)
            self.minVolume = min(max(minVolume, 0), 100)
            self.headphoneMaxVolume = min(max(headphoneMaxVolume ?? maxVolume, 0), 100)
            self.volumeLockedAtRest = volumeLockedAtRest
            self.longTrackMs = longTrackMs
            self.restartThresholdMs = restartThresholdMs
        }

        /// The range every volume is held in, with or without headphones.
        func volumeRange(headphones: Bool) -> ClosedRange<Int> {
            let ceiling = headphones ? headphoneMaxVolume : maxVolume
            return min(minVolume, ceiling)...ceiling
        }
    }

    /// Everything the daemon persists.
    public struct Snapshot: Sendable, Equatable {
        public var queue: PlayQueue.Snapshot
        /// The track at the queue's current index (a cross-check when the library changed).
        public var currentTrack: TrackID?
        public var positionMs: Int64
        public var state: PlayState
        public var volume: Int
        public var savedPositions: [TrackID: Int64]

        /// A snapshot of the player.
        public init(
            queue: PlayQueue.Snapshot, currentTrack: TrackID?, positionMs: Int64, state: PlayState, volume: Int,
            savedPositions: [TrackID: Int64] = [:]
        ) {
            self.queue = queue
            self.currentTrack = currentTrack
            self.positionMs = positionMs
            self.state = state
            self.volume = volume
            self.savedPositions = savedPositions
        }
    }

    /// The settings it was created with.
    public let configuration: Configuration
    public internal(set) var queue: PlayQueue
    public private(set) var state: PlayState = .stopped
    public private(set) var volume: Int
    /// Whether the headphone-detect line says headphones are plugged in.
    public private(set) var headphonesPlugged = false
    /// The maximum of the rules' profile holding now; nil: none.
    public private(set) var profileMaxVolume: Int?
    /// The position in the current track, as last reported (or set by a seek/start).
    public internal(set) var positionMs: Int64 = 0
    /// Saved positions of long tracks.
    public private(set) var savedPositions: [TrackID: Int64] = [:]
    /// The speed playing now; the one for tracks without their own; the long tracks' own.
    public internal(set) var speed = PlaybackSpeed.normal
    public internal(set) var boxSpeed = PlaybackSpeed.normal
    public internal(set) var savedSpeeds: [TrackID: PlaybackSpeed] = [:]
    public private(set) var tracks: [TrackID: TrackInfo] = [:]
    /// The request playing (or being started) in the pipeline; nil when nothing is loaded.
    public private(set) var currentRequest: PlaybackRequest?
    /// The gapless follow-up given to the pipeline.
    public private(set) var nextRequest: PlaybackRequest?
    /// The queue as it will be once the follow-up starts.
    private var followUpQueue: PlayQueue?
    private var lastToken: UInt64 = 0
    /// Failures since the last successful start.
    public private(set) var consecutiveFailures = 0

    /// A stopped player over `queue`, at the start volume (at most the maximum).
    public init(configuration: Configuration = Configuration(), queue: PlayQueue) {
        self.configuration = configuration
        self.queue = queue
        self.volume = configuration.startVolume.clamped(to: configuration.volumeRange(headphones: false))
    }

    /// The volumes allowed now.
    public var volumeRange: ClosedRange<Int> {
        let range = configuration.volumeRange(headphones: headphonesPlugged)
        guard let cap = profileMaxVolume, cap < range.upperBound else { return range }
        return min(range.lowerBound, cap)...cap
    }

    /// The play options (kept by the queue).
    public var options: PlayOptions { queue.options }

    /// Everything to persist: give it to the store on `.persist`.
    public var snapshot: Snapshot {
        Snapshot(
            queue: queue.snapshot, currentTrack: queue.currentTrack, positionMs: positionMs, state: state,
            volume: volume,
            savedPositions: savedPositions)
    }

    /// Reacts to one event and returns what the daemon must do, in order.
    public mutating func handle(_ event: PlayerEvent, now: Instant) -> [PlayerAction] {
        var actions: [PlayerAction] = []
        switch event {
        case .command(let command):
            handle(command, into: &actions)
        case .started(let token):
            started(token, into: &actions)
        case .finished(let token):
            if token == currentRequest?.token, let track = currentRequest?.trackID, savedPositions[track] != nil {
                savedPositions[track] = nil
                actions.append(.persist(.event))
            }
        case .failed(let token, let message):
            failed(token, message: message, into: &actions)
        case .endOfStream:
            endOfStream(into: &actions)
        case .position(let ms):
            let clamped = max(ms, 0)
            if clamped != positionMs, currentRequest != nil {
                positionMs = clamped
                actions.append(.persist(.progress))
            }
        case .libraryChanged(let available):
            libraryChanged(available, into: &actions)
        case .tracksDescribed(let infos):
            for info in infos { tracks[info.id] = info }
        case .savedPositionsLoaded(let positions):
            savedPositions.merge(positions) { _, new in new }
        case .savedSpeedsLoaded(let speeds, let box):
            savedSpeeds.merge(speeds) { _, new in new }
            boxSpeed = box
        case .restored(let snapshot, let onStart):
            restore(snapshot, onStart: onStart, into: &actions)
        case .headphones(let plugged):
            headphonesPlugged = plugged
            let held = volume.clamped(to: volumeRange)
            if held != volume {
                volume = held
                actions.append(.setVolume(held))
                actions.append(.persist(.event))
            }
        case .volumeProfile(let maxVolume, let set):
            profileMaxVolume = maxVolume
            let held = (set ?? volume).clamped(to: volumeRange)
            if held != volume {
                volume = held
                actions.append(.setVolume(held))
                actions.append(.persist(.event))
            }
        }
        return actions
    }

    // MARK: commands

    private mutating func handle(_ command: Command, into actions: inout [PlayerAction]) {
        switch command {
        case .play(let index):
            if let index {
                guard queue.items.indices.contains(index) else {
                    actions.append(
                        .reply(
                            queue.isEmpty
                                ? "play: the queue is empty"
                                : "play: no entry \(index + 1) (the queue has \(queue.count))"))
                    return
                }
                leaveCurrentTrack()
                queue.jump(to: index)
                startCurrent(from: resumePosition(for: queue.currentTrack), into: &actions)
            } else {
                play(into: &actions)
            }
        case .pause:
            guard state == .playing else { return }
            pause(into: &actions)
        case .resume:
            switch state {
            case .paused: resume(into: &actions)
            case .stopped: play(into: &actions)
            case .playing: break
            }
        case .toggle:
            switch state {
            case .playing: pause(into: &actions)
            case .paused: resume(into: &actions)
            case .stopped: play(into: &actions)
            }
        case .stop:
            guard state != .stopped else { return }
            leaveCurrentTrack()
            stop(into: &actions)
            actions.append(.persist(.event))
        case .next:
            guard !queue.isEmpty else { return actions.append(.reply("next: the queue is empty")) }
            leaveCurrentTrack()
            guard queue.next(userInitiated: true) != nil else {
                stop(into: &actions)
                actions.append(.log(.info, "end of the queue"))
                actions.append(.persist(.event))
                return
            }
            moved(into: &actions)
        case .previous, .previousSong:
            guard !queue.isEmpty else { return actions.append(.reply("previous: the queue is empty")) }
            if command == .previous, queue.currentIndex != nil, positionMs > configuration.restartThresholdMs {
                positionMs = 0
                if state == .stopped {
                    actions.append(.persist(.event))
                } else {
                    startCurrent(from: 0, into: &actions)
                }
                return
            }
            leaveCurrentTrack()
            if queue.previous() == nil {
                if queue.currentIndex == nil { queue.jump(to: 0) }
                positionMs = 0
                if state == .stopped {
                    actions.append(.persist(.event))
                } else {
                    startCurrent(from: 0, into: &actions)
                }
                return
            }
            moved(into: &actions)
        case .seek(let target):
            guard state != .stopped, let track = queue.currentTrack else {
                return actions.append(.reply("seek: nothing is playing"))
            }
            var ms: Int64
            switch target {
            case .absolute(let absolute): ms = absolute
            case .relative(let delta): ms = positionMs &+ delta
            }
            positionMs = clamped(ms, in: track)
            if currentRequest != nil { actions.append(.seek(ms: positionMs)) }
            actions.append(.persist(.event))
        case .seekEntry(let index, let ms):
            seekEntry(index, ms: ms, into: &actions)
        case .setVolume(let percent):
            setVolume(percent, into: &actions)
        case .changeVolume(let delta):
            setVolume(
                volume.addingReportingOverflow(delta).overflow ? (delta > 0 ? 100 : 0) : volume + delta, into: &actions)
        case .setMode(let mode):
            setOptions(PlayOptions(mode), into: &actions)
        case .setOptions(let options):
            setOptions(options, into: &actions)
        case .cycleMode:
            setOptions(queue.options.cycled, into: &actions)
        case .setSpeed(let chosen):
            choose(chosen, into: &actions)
        case .changeSpeed(let step):
            choose(PlaybackSpeed(clamping: speed.hundredths + step), into: &actions)
        case .cycleSpeed:
            choose(speed.nextInCycle, into: &actions)
        case .status:
            actions.append(.reply(statusText))
        case .help:
            actions.append(.reply(CommandParser.helpText))
        case .editQueue(let edit):
            editQueue(edit, into: &actions)
        }
    }

    private mutating func play(into actions: inout [PlayerAction]) {
        switch state {
        case .playing: return
        case .paused: return resume(into: &actions)
        case .stopped: break
        }
        guard !queue.isEmpty else { return actions.append(.reply("play: the queue is empty")) }
        if queue.currentIndex == nil {
            queue.next(userInitiated: true)
            positionMs = resumePosition(for: queue.currentTrack)
        }
        startCurrent(from: positionMs, into: &actions)
    }

    private mutating func pause(into actions: inout [PlayerAction]) {
        state = .paused
        rememberPosition()
        actions.append(.pause)
        actions.append(.persist(.event))
    }

    private mutating func resume(into actions: inout [PlayerAction]) {
        if currentRequest != nil {
            state = .playing
            actions.append(.resume)
            actions.append(.persist(.event))
        } else {
            startCurrent(from: positionMs, into: &actions)
        }
    }

    /// Stops; the current entry stays selected, positioned by the resume rule for a later `play`.
    mutating func stop(into actions: inout [PlayerAction]) {
        state = .stopped
        positionMs = resumePosition(for: queue.currentTrack)
        unload(into: &actions)
    }

    private mutating func setVolume(_ percent: Int, into actions: inout [PlayerAction]) {
        if configuration.volumeLockedAtRest, state != .playing {
            actions.append(.limitReached(.lockedAtRest))
            return actions.append(.reply("volume: \(volume) (locked while nothing plays)"))
        }
        let range = volumeRange
        let clamped = percent.clamped(to: range)
        if clamped != volume {
            volume = clamped
            actions.append(.setVolume(clamped))
            actions.append(.persist(.event))
        }
        let hit: VolumeLimit? = clamped < percent ? .maximum : clamped > max(percent, 0) ? .minimum : nil
        if let hit { actions.append(.limitReached(hit)) }
        let limit = hit == .maximum ? " (the maximum)" : hit == .minimum ? " (the minimum)" : ""
        actions.append(.reply("volume: \(clamped)\(limit)"))
    }

    private mutating func setOptions(_ options: PlayOptions, into actions: inout [PlayerAction]) {
        if options != queue.options {
            queue.setOptions(options)
            refreshFollowUp(into: &actions)
            actions.append(.persist(.event))
        }
        actions.append(.reply("mode: \(options)"))
    }

    /// MPD's `seek`/`seekid`: entry `index` at `ms`. A paused player stays paused (on the new
    /// entry, with nothing loaded until it resumes); a stopped one starts playing.
    private mutating func seekEntry(_ index: Int, ms: Int64, into actions: inout [PlayerAction]) {
        guard queue.items.indices.contains(index) else {
            return actions.append(.reply("seek: no entry \(index + 1) (the queue has \(queue.count))"))
        }
        if index == queue.currentIndex, state != .stopped {
            return handle(.seek(.absolute(ms: ms)), into: &actions)
        }
        leaveCurrentTrack()
        queue.jump(to: index)
        let from = queue.currentTrack.map { clamped(ms, in: $0) } ?? 0
        guard state == .paused else { return startCurrent(from: from, into: &actions) }
        unload(into: &actions)
        positionMs = from
        actions.append(.persist(.event))
    }

    /// `ms` within the track (0 up to its duration when known).
    private func clamped(_ ms: Int64, in track: TrackID) -> Int64 {
        let ms = max(ms, 0)
        guard let duration = tracks[track]?.durationMs else { return ms }
        return min(ms, duration)
    }

    /// Flushes the pipeline and forgets the loaded requests, keeping the play state (a paused
    /// player resumes by starting the current entry afresh).
    private mutating func unload(into actions: inout [PlayerAction]) {
        currentRequest = nil
        nextRequest = nil
        followUpQueue = nil
        actions.append(.stop)
    }

    /// After the queue moved to a new current entry by next/previous: play it when playing, else just position.
    private mutating func moved(into actions: inout [PlayerAction]) {
        let from = resumePosition(for: queue.currentTrack)
        if state == .stopped {
            positionMs = from
            actions.append(.persist(.event))
        } else {
            startCurrent(from: from, into: &actions)
        }
    }

    // MARK: pipeline events

    private mutating func started(_ token: UInt64, into actions: inout [PlayerAction]) {
        if token == currentRequest?.token {
            consecutiveFailures = 0
            return
        }
        if let next = nextRequest, token == next.token, let upcoming = followUpQueue {
            // An automatic advance is progress, not a user event: the position journal
            // (which names the track) records it; the database is written only when a
            // remembered position has to go.
            var forgot = false
            if let finished = currentRequest?.trackID { forgot = savedPositions.removeValue(forKey: finished) != nil }
            queue = upcoming
            currentRequest = next
            positionMs = next.fromMs
            consecutiveFailures = 0
            let reset = resetPriorityOfCurrent()
            followSpeed(of: next.trackID, into: &actions)
            refreshFollowUp(into: &actions, always: true)
            actions.append(.persist(forgot || reset ? .event : .progress))
            return
        }
        if token > (currentRequest?.token ?? 0), token <= lastToken, state == .playing, currentRequest != nil {
            actions.append(.log(.debug, "the pipeline started a superseded follow-up; restarting with the right track"))
            advanceAfterEnd(userInitiated: false, into: &actions)
            return
        }
        actions.append(.log(.debug, "ignoring start of stale request \(token)"))
    }

    private mutating func failed(_ token: UInt64, message: String, into actions: inout [PlayerAction]) {
        if let next = nextRequest, token == next.token, var upcoming = followUpQueue {
            actions.append(.log(.warning, "skipping \(describe(next.trackID)): \(message)"))
            consecutiveFailures += 1
            if consecutiveFailures >= queue.count {
                nextRequest = nil
                followUpQueue = nil
                actions.append(.setNext(nil))
                actions.append(.log(.error, "every track in the queue failed to play; stopping after this one"))
                return
            }
            if upcoming.next(userInitiated: true) != nil, let track = upcoming.currentTrack {
                followUpQueue = upcoming
                nextRequest = makeRequest(track, from: track == currentRequest?.trackID ? 0 : nil)
            } else {
                followUpQueue = nil
                nextRequest = nil
            }
            actions.append(.setNext(nextRequest))
            return
        }
        guard let current = currentRequest, token == current.token else {
            actions.append(.log(.debug, "ignoring failure of stale request \(token): \(message)"))
            return
        }
        actions.append(.log(.warning, "skipping \(describe(current.trackID)): \(message)"))
        consecutiveFailures += 1
        if consecutiveFailures >= queue.count {
            stop(into: &actions)
            actions.append(.log(.error, "every track in the queue failed to play; stopped"))
            actions.append(.persist(.event))
            consecutiveFailures = 0
            return
        }
        advanceAfterEnd(userInitiated: true, into: &actions)
    }

    private mutating func endOfStream(into actions: inout [PlayerAction]) {
        guard state == .playing, currentRequest != nil else { return }
        if consecutiveFailures >= queue.count && consecutiveFailures > 0 {
            stop(into: &actions)
            actions.append(.persist(.event))
            consecutiveFailures = 0
            return
        }
        if let track = currentRequest?.trackID { savedPositions[track] = nil }
        advanceAfterEnd(userInitiated: false, into: &actions)
    }

    /// The current track is over (ended or failed): go on with the next entry, or stop at the end.
    /// A song that ended in single mode without repeat leaves the next entry paused.
    private mutating func advanceAfterEnd(userInitiated: Bool, into actions: inout [PlayerAction]) {
        guard queue.next(userInitiated: userInitiated) != nil else {
            stop(into: &actions)
            actions.append(.log(.info, "end of the queue"))
            actions.append(.persist(.event))
            return
        }
        guard !userInitiated, queue.options.pausesAtSongEnd else {
            return startCurrent(from: resumePosition(for: queue.currentTrack), into: &actions)
        }
        state = .paused
        positionMs = resumePosition(for: queue.currentTrack)
        unload(into: &actions)
        if queue.options.single == .oneshot {
            var options = queue.options
            options.single = .off
            queue.setOptions(options)
        }
        actions.append(.persist(.event))
    }

    /// Drops the entries whose track left the library, as MPD does (the playing one goes on
    /// with the entry that takes its place, as when it is deleted).
    private mutating func libraryChanged(_ available: Set<TrackID>, into actions: inout [PlayerAction]) {
        // `items`, not `entries`: each `entries` builds the whole list anew.
        var index = queue.count
        while index > 0 {
            index -= 1
            guard !available.contains(queue.items[index].track) else { continue }
            var start = index
            while start > 0, !available.contains(queue.items[start - 1].track) { start -= 1 }
            editQueue(.remove(start..<index + 1), into: &actions)
            index = start
        }
    }

    private mutating func restore(_ snapshot: Snapshot, onStart: ResumeOnStart, into actions: inout [PlayerAction]) {
        queue = PlayQueue(snapshot: snapshot.queue, limit: queue.limit)
        if snapshot.queue.items.count > queue.count {
            let held = snapshot.queue.items.count
            actions.append(
                .log(
                    .warning,
                    "the saved queue held \(held) entries, past the limit: kept \(queue.count), the current one among them"
                ))
        }
        savedPositions = snapshot.savedPositions.filter { $0.value > 0 }
        currentRequest = nil
        nextRequest = nil
        followUpQueue = nil
        state = .stopped
        positionMs = 0
        if let track = snapshot.currentTrack, queue.currentTrack != track {
            if let index = queue.entries.firstIndex(of: track) {
                queue.jump(to: index)
                positionMs = max(snapshot.positionMs, 0)
            }
        } else if queue.currentTrack != nil {
            positionMs = max(snapshot.positionMs, 0)
        }
        if let track = queue.currentTrack, let duration = tracks[track]?.durationMs, positionMs >= duration {
            positionMs = 0
        }
        volume = min(snapshot.volume, configuration.startVolume).clamped(to: volumeRange)
        actions.append(.setVolume(volume))
        guard queue.currentTrack != nil, snapshot.state != .stopped else { return }
        switch onStart {
        case .play:
            startCurrent(from: positionMs, into: &actions)
        case .paused:
            state = .paused
        case .off:
            break
        }
    }

    // MARK: helpers

    /// Flushes the pipeline and plays the current entry from `from`, then sets the follow-up.
    mutating func startCurrent(from: Int64, into actions: inout [PlayerAction]) {
        guard let track = queue.currentTrack else { return }
        let request = makeRequest(track, from: from)
        currentRequest = request
        positionMs = request.fromMs
        state = .playing
        resetPriorityOfCurrent()
        followSpeed(of: track, into: &actions)
        actions.append(.startPlayback(request))
        refreshFollowUp(into: &actions, always: true)
        actions.append(.persist(.event))
    }

    /// MPD's `playlist::SongStarted`: a song that starts playing loses its priority (an edit
    /// when it had one). Returns whether it had one.
    @discardableResult
    private mutating func resetPriorityOfCurrent() -> Bool {
        guard let index = queue.currentIndex, queue.items[index].priority != 0 else { return false }
        queue.setPriority(0, of: index..<index + 1)
        return true
    }

    /// Recomputes the gapless follow-up; emits `.setNext` when it changed (or always after a start).
    mutating func refreshFollowUp(into actions: inout [PlayerAction], always: Bool = false) {
        guard currentRequest != nil else { return }
        var upcoming = queue
        // Single without repeat pauses at the song's end: nothing to pre-load.
        let advances = !queue.options.pausesAtSongEnd && upcoming.next(userInitiated: false) != nil
        let track = advances ? upcoming.currentTrack : nil
        let unchanged = track == nextRequest?.trackID && upcoming.currentIndex == followUpQueue?.currentIndex
        if unchanged && !always {
            followUpQueue = track == nil ? nil : upcoming
            return
        }
        followUpQueue = track == nil ? nil : upcoming
        // A track that follows itself (repeat-one, a one-entry queue) starts again from 0.
        nextRequest = track.map { makeRequest($0, from: $0 == currentRequest?.trackID ? 0 : nil) }
        actions.append(.setNext(nextRequest))
    }

    private mutating func makeRequest(_ track: TrackID, from: Int64? = nil) -> PlaybackRequest {
        lastToken += 1
        return PlaybackRequest(token: lastToken, trackID: track, fromMs: from ?? resumePosition(for: track))
    }

    /// Where a track starts when started by next/previous/jump/auto-advance.
    public func resumePosition(for track: TrackID?) -> Int64 {
        guard let track, isLong(track), let saved = savedPositions[track] else { return 0 }
        if let duration = tracks[track]?.durationMs, saved >= duration { return 0 }
        return max(saved, 0)
    }

    func isLong(_ track: TrackID) -> Bool {
        guard let duration = tracks[track]?.durationMs else { return false }
        return duration > configuration.longTrackMs
    }

    /// Remembers the position of the current track when it is long.
    private mutating func rememberPosition() {
        guard let track = queue.currentTrack, isLong(track) else { return }
        savedPositions[track] = positionMs
    }

    /// Called before moving away from the current track by a user action.
    mutating func leaveCurrentTrack() {
        if state != .stopped { rememberPosition() }
    }

    private func describe(_ track: TrackID) -> String {
        tracks[track].map { "'\($0.path)'" } ?? "track \(track)"
    }

    /// The `status` reply: MPD-style `key: value` lines.
    public var statusText: String {
        var lines = ["state: \(state.statusWord)"]
        if let index = queue.currentIndex, let track = queue.currentTrack {
            lines.append("song: \(index)")
            lines.append("songid: \(track)")
            if state != .stopped {
                lines.append("elapsed: \(ReplyLine.seconds(positionMs))")
            }
            if let duration = tracks[track]?.durationMs {
                lines.append("duration: \(ReplyLine.seconds(duration))")
            }
        }
        lines.append("volume: \(volume)")
        if speed != .normal { lines.append("speed: \(speed)") }
        let options = queue.options
        lines.append("repeat: \(options.repeat ? 1 : 0)")
        lines.append("random: \(options.random ? 1 : 0)")
        lines.append("single: \(options.single.rawValue)")
        lines.append("consume: \(options.consume ? (options.consumeOneshot ? "oneshot" : "1") : "0")")
        lines.append("playlistlength: \(queue.count)")
        lines.append("mode: \(options)")
        if let track = queue.currentTrack, let info = tracks[track] {
            lines.append("title: \(ReplyLine.oneLine(info.shownTitle))")
            if let artist = info.artist { lines.append("artist: \(ReplyLine.oneLine(artist))") }
        }
        return lines.joined(separator: "\n")
    }
}
