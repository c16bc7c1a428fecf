import ALSA
import Glibc
import JukeboxCore
import LinuxSupport
import Logging

/// The playback engine: jb-decode fills a preallocated PCM ring, jb-output drains it into the
/// audio sink one period at a time. All public methods are called from the control thread;
/// they lock `shared` briefly, never wait for audio, and wake the audio thread concerned.
///
/// Commands reach the device within one period: jb-output wakes at least once per period,
/// rewinds and drops what ALSA holds on pause/seek/skip/stop (keeping exact position
/// bookkeeping), and re-renders the frames still queued in ALSA on a software volume change.
public final class AudioPipeline: @unchecked Sendable {
    static let chunkFrames = 2048
    static let maxChannels = 2
    /// The most channels a file may have: the formats place at most eight (`SpeakerPosition`).
    static let maxSourceChannels = 8

    let config: AudioOutputConfig
    let playedAudio: PlayedAudioRing?
    /// Where jb-decode notes the file it opens, and what it refuses: a file being read when
    /// the previous run died.
    let inFlight: InFlightFiles?
    let wakeup: @Sendable () -> Void
    let logger: Logger
    /// The state the three threads share, reachable only inside `shared.withLock`. A
    /// priority-inheriting mutex: jb-output runs SCHED_FIFO, the others do not. Never held by
    /// jb-output while it writes to or drains the device, nor by jb-decode while it decodes
    /// or allocates.
    let shared: PILock<SharedState>
    /// jb-decode waits on it: the ring has room, or a new request or follow-up came.
    let decodeWork = LockCondition()
    /// jb-output waits on it: chunks were published, or a command came.
    let outputWork = LockCondition()
    /// The web radio stations this pipeline's items opened (jb-decode opens them).
    public let streams = LiveStreams()
    /// The files it may play while they download (podcast episodes).
    public let growingFiles = GrowingFiles()
    /// Ring samples: `slots` slots of `chunkFrames * maxChannels` samples. Slot contents belong
    /// to jb-decode until published, then to jb-output until released (see `SharedState`).
    let samples: SampleBuffer
    let slots: Int
    private var mixer: Mixer?
    /// The speech handed to jb-output that it may still read (control thread only).
    private var speechClips: [SpeechClip] = []
    private var loggedUnderruns = 0
    private var loggedSuspends = 0
    private var loggedError: String?
    private var loggedRealtime = false
    private var decodeThread: NamedThread?
    private var outputThread: NamedThread?

    /// Starts jb-decode and jb-output on the ALSA device of `config`. The device is opened
    /// lazily, at the first audio. `wakeup` is called (from the audio threads) whenever an
    /// event is queued.
    /// What played also goes to `playedAudio` (the Snapcast output), when given.
    public convenience init(
        config: AudioOutputConfig, logger: Logger = Logger(label: "jukebox.audio"),
        playedAudio: PlayedAudioRing? = nil, inFlight: InFlightFiles? = nil, wakeup: @escaping @Sendable () -> Void
    ) {
        self.init(
            config: config, sink: ALSASink(), logger: logger, playedAudio: playedAudio, inFlight: inFlight,
            wakeup: wakeup)
    }

    /// The same on another sink (tests inject faults with one); jb-output owns `sink`.
    public init<Sink: AudioSink>(
        config: AudioOutputConfig, sink: Sink, logger: Logger = Logger(label: "jukebox.audio"),
        playedAudio: PlayedAudioRing? = nil, inFlight: InFlightFiles? = nil, wakeup: @escaping @Sendable () -> Void
    ) {
        self.playedAudio = playedAudio
        self.inFlight = inFlight
        self.config = config
        self.wakeup = wakeup
        self.logger = logger
        slots = 48
        samples = SampleBuffer(count: slots * Self.chunkFrames * Self.maxChannels)
        shared = PILock(SharedState(slots: slots))
        if let control = config.mixer, !control.isEmpty {
            let card = config.mixerCard ?? Self.card(of: config.device)
            do {
                mixer = try Mixer(card: card, control: control)
            } catch {
                logger.info("hardware mixer unavailable, using software volume", metadata: ["error": "\(error)"])
            }
        }
        decodeThread = NamedThread(name: "jb-decode") { [unowned self] in self.decodeMain() }
        // Handed over to jb-output, which is its only user from here on.
        nonisolated(unsafe) let outputSink = sink
        outputThread = NamedThread(name: "jb-output") { [unowned self] in self.outputMain(outputSink) }
    }

    deinit {
        precondition(decodeThread == nil && outputThread == nil, "AudioPipeline: shutdown() was not called")
    }

    /// "hw:1,0" / "plughw:1" → "hw:1"; anything else → "default".
    static func card(of device: String) -> String {
        for prefix in ["plughw:", "hw:"] where device.hasPrefix(prefix) {
            let rest = device.dropFirst(prefix.count)
            return "hw:" + rest.prefix { $0 != "," }
        }
        return "default"
    }

    /// Flushes everything and starts `item` at `fromMs`, with `next` as the gapless follow-up
    /// (set atomically, so an item that fails at once still hands over to it).
    public func play(_ item: PlaybackItem, fromMs: Int64 = 0, next: PlaybackItem? = nil) {
        // A decoder waiting on a stream's pipe sees its end and lets go.
        streams.stop(except: item.path)
        shared.withLock { s in
            s.send(.play)
            s.state = .playing
            s.anchor = (item, .ms(max(0, fromMs)))
            s.needsResolve = false
            s.pendingSeekMs = nil
            s.nextItem = next
            s.clearRing()
            s.restartDecoding((item, .ms(max(0, fromMs)), true))
            s.anchorDecoding = true
            s.startPending = true
        }
        decodeWork.broadcast()
        outputWork.broadcast()
    }

    /// Sets (or clears) the gapless follow-up of the audible item: when its decoder ends,
    /// decoding continues with this one in the same ring. If jb-decode already moved on to a
    /// previous follow-up that has not reached the device yet, that one is dropped from the
    /// ring and replaced. Once the follow-up is audible, this sets the follow-up of that one.
    public func setNext(_ item: PlaybackItem?) {
        shared.withLock { s in
            guard s.followUpReplaceable else {
                s.nextItem = item
                return
            }
            s.dropFollowUp()
            if let origin = s.fadeOrigin {
                // The old follow-up was mixed into the end of the item before it: decode that
                // end again, towards the new follow-up.
                s.fadeOrigin = nil
                s.followUpSeq = nil
                s.nextItem = item
                s.restartDecoding((origin.item, origin.start, false))
                s.restartAtEnd = false
                return
            }
            s.nextItem = nil
            s.restartDecoding(item.map { ($0, .frame(0), true) })
            if item != nil {
                s.restartAtEnd = false
            } else {
                s.restartAtEnd = true
                s.followUpSeq = nil
            }
        }
        decodeWork.broadcast()
    }

    /// MPD's `crossfade`: from the next transition to a follow-up on, its first `seconds`
    /// overlap the end of the item before it, mixed linearly (MPD's way) by jb-output, when
    /// both have the same format and the follow-up is longer than that. 0: gapless. A skip
    /// (`play`) never fades, as with MPD.
    public func setCrossfade(seconds: Int) {
        shared.withLock { s in s.crossfadeSeconds = max(0, seconds) }
    }

    /// Whether the queue holds a source wider than 16 bits (the library knows each track's
    /// depth): the device is then opened in a wide format from the first item on, even for a
    /// 16-bit one, so the first join to a wide source does not reopen it. A device already
    /// open in S16 switches at the next stop, pause, seek or skip (a gap anyway), else at the
    /// first wide chunk. False (the default): a box that plays only 16-bit sources keeps S16.
    public func setQueueHoldsWide(_ holdsWide: Bool) {
        shared.withLock { s in s.queueHoldsWide = holdsWide }
    }

    /// Stops output within a period; `resume()` continues at the sample that was audible.
    public func pause() {
        shared.withLock { s in
            guard s.state == .playing else { return }
            s.send(.pause)
            s.state = .paused
            if s.anchorDecoding && !s.startPending { s.needsResolve = true }
            s.stopDecoding()
        }
        // jb-output first: it takes the audio back, jb-decode only stops. On one core the
        // thread woken first runs first (0.5 ms sooner silence on the virtual board).
        outputWork.broadcast()
        decodeWork.broadcast()
    }

    /// Continues after `pause()`.
    public func resume() {
        shared.withLock { s in
            guard s.state == .paused else { return }
            s.send(.resume)
            s.state = .playing
        }
        outputWork.broadcast()
    }

    /// Moves within the audible item (keeps the paused state).
    public func seek(toMs ms: Int64) {
        shared.withLock { s in
            guard s.state != .stopped else { return }
            s.send(.seek)
            if s.anchorDecoding && !s.startPending { s.needsResolve = true }
            s.pendingSeekMs = max(0, ms)
            s.stopDecoding()
        }
        decodeWork.broadcast()
        outputWork.broadcast()
    }

    /// Plays `speed` times as fast with the pitch kept (libsonic on jb-decode; at exactly 1 the
    /// decoders' samples go to the device as they are). While playing, what the device holds
    /// fades out over ~5 ms and the audio from the frame where it ends comes at the new speed,
    /// fading in; positions stay in track time. Paused or stopped, the next start uses it.
    public func setSpeed(_ speed: Double) {
        let changed = shared.withLock { s -> Bool in
            guard s.speed != speed else { return false }
            s.speed = speed
            if s.state == .paused, s.anchorDecoding, let anchor = s.anchor {
                // Decoded ahead while paused (see `settle`): again, at the new speed.
                s.clearRing()
                s.restartDecoding((anchor.item, anchor.start, false))
                return true
            }
            guard s.state == .playing else { return false }
            s.send(.speed)
            if s.anchorDecoding && !s.startPending { s.needsResolve = true }
            s.stopDecoding()
            return true
        }
        guard changed else { return }
        decodeWork.broadcast()
        outputWork.broadcast()
    }

    /// Stops and forgets the current and the follow-up item.
    public func stop() {
        streams.stop(except: nil)
        shared.withLock { s in
            s.send(.stop)
            s.state = .stopped
            s.anchor = nil
            s.needsResolve = false
            s.startPending = false
            s.pendingSeekMs = nil
            s.nextItem = nil
            s.stopDecoding()
            s.positionToken = nil
            s.positionFrames = 0
            s.positionNs = 0
        }
        decodeWork.broadcast()
        outputWork.broadcast()
    }

    /// Sets the volume: through the hardware mixer (`percent`) when one is configured, else as
    /// a software gain (`gain`, 1.0 leaves samples bit-identical) ramped over about 5 ms and
    /// applied to the frames still queued in ALSA (rewind and re-render) where possible.
    public func setVolume(percent: Int, gain: Float) {
        if let mixer {
            do { try mixer.setVolume(percent: percent) } catch {
                logger.info("mixer volume failed", metadata: ["error": "\(error)"])
            }
            return
        }
        shared.withLock { s in
            s.volumeGain = max(0, gain)
            s.gainTarget = s.muted ? 0 : s.volumeGain * s.fadeGain
            s.send(.gain)
        }
        outputWork.broadcast()
    }

    /// Fades the output to `gain` (1: none) through the software gain stage and its ramp,
    /// also when a hardware mixer sets the volume: the sleep timer's fade-out.
    public func setFade(_ gain: Float) {
        shared.withLock { s in
            s.fadeGain = min(max(gain, 0), 1)
            s.gainTarget = s.muted ? 0 : s.volumeGain * s.fadeGain
            s.send(.gain)
        }
        outputWork.broadcast()
    }

    /// Mixes `sound` into the output at `level` (a gain, as `VolumeCurve` gives) from the next
    /// period, over the music, or over silence when paused or stopped (the device is opened
    /// for it if it is closed). A new sound replaces the one sounding.
    public func play(_ sound: FeedbackSound, level: Float) {
        shared.withLock { s in
            s.cue = .sound(sound)
            s.cueLevel = min(max(level, 0), 1)
            s.cueSerial &+= 1
        }
        outputWork.broadcast()
    }

    /// The rate to make speech at: the device's (44.1 kHz before it ever opened). Speech made
    /// for another rate than the device has when it plays is not heard (`.speechEnded` comes).
    public var speechRate: Int { shared.withLock { s in s.format?.rate ?? 44100 } }

    /// Mixes `clip` into the output from the next period, as `play` mixes a sound, at `level`,
    /// with the music under it lowered to `duck` (a gain) while the voice speaks: the music
    /// plays on under the voice, none of its samples lost or moved. A new cue replaces it.
    /// `.speechEnded` is posted when it was heard (the pipeline frees it then).
    public func speak(_ clip: SpeechClip, level: Float, duck: Float) {
        let view = clip.view(duck: duck)
        clip.serial = shared.withLock { s in
            s.cueSerial &+= 1
            s.cue = .speech(view)
            s.cueLevel = min(max(level, 0), 1)
            return s.cueSerial
        }
        outputWork.broadcast()
        speechClips.append(clip)
        releaseSpeech()
    }

    /// Frees the clips jb-output no longer reads (control thread).
    func releaseSpeech() {
        let (taken, released) = shared.withLock { s in (s.cueTaken, s.speechReleased) }
        speechClips.removeAll { $0.serial < taken || $0.serial == released }
    }

    /// Silences the device (an MPD client disabled the output) or lets it sound again, through
    /// the software gain stage with its ramp, also when a hardware mixer sets the volume. The
    /// device keeps playing zeros, so the audio clock, positions and track changes go on.
    public func setMuted(_ muted: Bool) {
        shared.withLock { s in
            s.muted = muted
            s.gainTarget = muted ? 0 : s.volumeGain * s.fadeGain
            s.send(.gain)
        }
        outputWork.broadcast()
    }

    /// A snapshot; also logs what jb-output recovered since the last call (underruns at debug,
    /// suspends) and a device error when it appears.
    public func status() -> PipelineStatus {
        let (status, rt) = shared.withLock { s -> (PipelineStatus, String?) in
            var frames = s.positionFrames
            var token = s.positionToken
            let rate = Int64(s.format?.rate ?? 44100)
            if s.positionNs != 0 && s.state == .playing {
                let now = MonotonicClock.nanoseconds()
                let wall = now > s.positionNs ? Int64((now - s.positionNs) * UInt64(rate) / 1_000_000_000) : 0
                frames = min(s.positionLimit, frames + trackFrames(wall, speed: s.positionSpeed))
            }
            if s.state == .paused || (s.state == .playing && !s.anchorDecoding) || s.startPending,
                let anchor = s.anchor, !s.needsResolve
            {
                token = anchor.item.token
                frames = anchor.start.frames(rate: s.format?.rate ?? 44100)
            }
            // A seek jb-output has not applied yet: report where it is going, never the stale
            // position (the control loop saves what it reads here).
            if let pending = s.pendingSeekMs { frames = pending * rate / 1000 }
            return (
                PipelineStatus(
                    state: s.state, token: s.state == .stopped ? nil : token, positionFrames: frames,
                    positionMs: frames * 1000 / rate, format: s.format, underruns: s.underruns,
                    suspends: s.suspends, deviceLosses: s.deviceLosses, reopenAttempts: s.reopenAttempts,
                    error: s.deviceError, periodFrames: s.periodFrames, bufferFrames: s.bufferFrames,
                    pacing: s.pacing, deviceOpens: s.deviceOpens,
                    seekHint: token != nil && s.seekHint?.token == token ? s.seekHint?.hint : nil,
                    startedFromSeekHint: token != nil && s.openedFromSeekHint == token),
                s.realtimeRefusal
            )
        }
        if status.underruns != loggedUnderruns {
            logger.debug(
                "ALSA underruns recovered", metadata: ["count": "\(status.underruns - loggedUnderruns)"])
            loggedUnderruns = status.underruns
        }
        if status.suspends != loggedSuspends {
            logger.info(
                "audio device resumed after a suspend", metadata: ["count": "\(status.suspends - loggedSuspends)"])
            loggedSuspends = status.suspends
        }
        if status.error != loggedError {
            if let e = status.error { logger.info("audio output error, retrying", metadata: ["error": "\(e)"]) }
            loggedError = status.error
        }
        if let rt, !loggedRealtime {
            logger.info("SCHED_FIFO refused for jb-output; continuing", metadata: ["reason": "\(rt)"])
            loggedRealtime = true
        }
        return status
    }

    /// Events queued since the last call, in order.
    public func takeEvents() -> [PipelineEvent] {
        var fresh: [PipelineEvent] = []
        fresh.reserveCapacity(256)
        // Swapped, so that neither side allocates or frees under the lock.
        shared.withLock { s in swap(&fresh, &s.events) }
        if fresh.contains(.speechEnded) { releaseSpeech() }
        return fresh
    }

    /// Stops both threads and joins them; closes the device.
    public func shutdown() {
        shared.withLock { s in
            s.shutdown = true
            s.send(.shutdown)
        }
        decodeWork.broadcast()
        outputWork.broadcast()
        // A decoder waiting on a station's pipe sees its end.
        streams.stop(except: nil)
        decodeThread?.join()
        outputThread?.join()
        decodeThread = nil
        outputThread = nil
        streams.shutdown()
    }
}

extension AudioPipeline {
    /// Queues an event and wakes the control loop; does not allocate while fewer than 256
    /// events are pending.
    func post(_ event: PipelineEvent, _ s: inout SharedState) {
        s.events.append(event)
        wakeup()
    }
}
