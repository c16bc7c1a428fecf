import ALSA
import Glibc
import LinuxSupport
import Logging

/// The playback engine: jb-decode fills a preallocated PCM ring, jb-output drains it into ALSA
/// one period at a time. All public methods are called from the control thread; they lock
/// `lock` briefly, never wait for audio, and wake the audio threads with a broadcast.
///
/// Commands reach the device within one period: jb-output wakes at least once per period,
/// rewinds and drops what ALSA holds on pause/seek/skip/stop (keeping exact position
/// bookkeeping), and re-renders the frames still queued in ALSA on a software volume change.
public final class AudioPipeline: @unchecked Sendable {
    static let chunkFrames = 2048
    static let maxChannels = 2

    let config: AudioOutputConfig
    let wakeup: @Sendable () -> Void
    let logger: Logger
    /// Guards `s`. Never held by jb-output while in snd_pcm_writei or snd_pcm_drain.
    let lock = ConditionLock()
    /// The shared state; guarded by `lock`.
    var s: SharedState
    /// Ring samples: `slots` slots of `chunkFrames * maxChannels` samples. Slot contents belong
    /// to jb-decode until published, then to jb-output until released (see `SharedState`).
    let samples: UnsafeMutablePointer<Int16>
    let slots: Int
    private var mixer: Mixer?
    private var loggedUnderruns = 0
    private var loggedError: String?
    private var loggedRealtime = false
    private var decodeThread: NamedThread?
    private var outputThread: NamedThread?

    /// Starts jb-decode and jb-output. The device is opened lazily, at the first audio.
    /// `wakeup` is called (from the audio threads) whenever an event is queued.
    public init(
        config: AudioOutputConfig, logger: Logger = Logger(label: "jukebox.audio"),
        wakeup: @escaping @Sendable () -> Void
    ) {
        self.config = config
        self.wakeup = wakeup
        self.logger = logger
        slots = 48
        samples = .allocate(capacity: slots * Self.chunkFrames * Self.maxChannels)
        samples.initialize(repeating: 0, count: slots * Self.chunkFrames * Self.maxChannels)
        s = SharedState(slots: slots)
        if let control = config.mixer, !control.isEmpty {
            let card = config.mixerCard ?? Self.card(of: config.device)
            do {
                mixer = try Mixer(card: card, control: control)
            } catch {
                logger.info("hardware mixer unavailable, using software volume", metadata: ["error": "\(error)"])
            }
        }
        decodeThread = NamedThread(name: "jb-decode") { [unowned self] in self.decodeMain() }
        outputThread = NamedThread(name: "jb-output") { [unowned self] in self.outputMain() }
    }

    deinit {
        precondition(decodeThread == nil && outputThread == nil, "AudioPipeline: shutdown() was not called")
        samples.deallocate()
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
        lock.withLock {
            s.epoch &+= 1
            s.state = .playing
            s.anchor = (item, .ms(max(0, fromMs)))
            s.needsResolve = false
            s.pendingSeekMs = nil
            s.nextItem = next
            s.clearRing()
            s.decodeRequest = (item, .ms(max(0, fromMs)), true)
            s.decodeGen &+= 1
            s.anchorDecoding = true
            s.positionToken = item.token
            s.positionFrames = 0
        }
        lock.broadcast()
    }

    /// Sets (or clears) the gapless follow-up of the audible item: when its decoder ends,
    /// decoding continues with this one in the same ring. If jb-decode already moved on to a
    /// previous follow-up that has not reached the device yet, that one is dropped from the
    /// ring and replaced. Once the follow-up is audible, this sets the follow-up of that one.
    public func setNext(_ item: PlaybackItem?) {
        lock.withLock {
            guard s.followUpReplaceable else {
                s.nextItem = item
                return
            }
            s.dropFollowUp()
            s.nextItem = nil
            s.decodeGen &+= 1
            if let item {
                s.decodeRequest = (item, .frame(0), true)
                s.restartAtEnd = false
            } else {
                s.decodeRequest = nil
                s.restartAtEnd = true
                s.followUpSeq = nil
            }
        }
        lock.broadcast()
    }

    /// Stops output within a period; `resume()` continues at the sample that was audible.
    public func pause() {
        lock.withLock {
            guard s.state == .playing else { return }
            s.epoch &+= 1
            s.state = .paused
            if s.anchorDecoding { s.needsResolve = true }
            stopDecoding()
        }
        lock.broadcast()
    }

    /// Continues after `pause()`.
    public func resume() {
        lock.withLock {
            guard s.state == .paused else { return }
            s.epoch &+= 1
            s.state = .playing
        }
        lock.broadcast()
    }

    /// Moves within the audible item (keeps the paused state).
    public func seek(toMs ms: Int64) {
        lock.withLock {
            guard s.state != .stopped else { return }
            s.epoch &+= 1
            if s.anchorDecoding { s.needsResolve = true }
            s.pendingSeekMs = max(0, ms)
            stopDecoding()
        }
        lock.broadcast()
    }

    /// Stops and forgets the current and the follow-up item.
    public func stop() {
        lock.withLock {
            s.epoch &+= 1
            s.state = .stopped
            s.anchor = nil
            s.needsResolve = false
            s.pendingSeekMs = nil
            s.nextItem = nil
            stopDecoding()
            s.positionToken = nil
            s.positionFrames = 0
        }
        lock.broadcast()
    }

    /// Call with `lock` held.
    private func stopDecoding() {
        s.anchorDecoding = false
        s.clearRing()
        s.decodeRequest = nil
        s.decodeGen &+= 1
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
        lock.withLock { s.gainTarget = max(0, gain) }
        lock.broadcast()
    }

    /// A snapshot; also logs (at debug) underruns counted by jb-output since the last call.
    public func status() -> PipelineStatus {
        let (status, rt) = lock.withLock { () -> (PipelineStatus, String?) in
            var frames = s.positionFrames
            var token = s.positionToken
            if s.state == .paused || (s.state == .playing && !s.anchorDecoding), let anchor = s.anchor,
                !s.needsResolve
            {
                token = anchor.item.token
                frames = anchor.start.frames(rate: s.format?.rate ?? 44100)
            }
            let rate = Int64(s.format?.rate ?? 44100)
            // A seek jb-output has not applied yet: report where it is going, never the stale
            // position (the control loop saves what it reads here).
            if let pending = s.pendingSeekMs { frames = pending * rate / 1000 }
            return (
                PipelineStatus(
                    state: s.state, token: s.state == .stopped ? nil : token, positionFrames: frames,
                    positionMs: frames * 1000 / rate, format: s.format, underruns: s.underruns,
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
        return lock.withLock {
            swap(&fresh, &s.events)
            return fresh
        }
    }

    /// Stops both threads and joins them; closes the device.
    public func shutdown() {
        lock.withLock { s.shutdown = true }
        lock.broadcast()
        decodeThread?.join()
        outputThread?.join()
        decodeThread = nil
        outputThread = nil
    }

    /// Queues an event and wakes the control loop. Call with `lock` held; does not allocate
    /// while fewer than 256 events are pending.
    func post(_ event: PipelineEvent) {
        s.events.append(event)
        wakeup()
    }
}
