import JukeboxCore
import LinuxSupport

/// Where to start decoding an item.
enum StartPosition: Equatable {
    case ms(Int64)
    case frame(Int64)
    /// A frame as the file's own decoder counts it, before any resampler: where audio that
    /// was decoded once is to be decoded again. Exact where a time is not: across the parts
    /// of a joined file at other rates, the decoder's count mixes them.
    case decoderFrame(Int64)

    func frames(rate: Int) -> Int64 {
        switch self {
        case .ms(let ms): return ms * Int64(rate) / 1000
        case .frame(let f), .decoderFrame(let f): return f
        }
    }
}

/// What a ring slot holds: audio, or an in-order marker the output thread turns into an event
/// (a failure's message is in the item table).
enum ChunkKind: Equatable {
    case audio
    case finished
    case failed
}

/// Metadata of one ring slot; the samples live in `AudioPipeline.samples`. Plain data only
/// (no String, no class): jb-output copies it every period, which must not retain anything.
struct ChunkInfo {
    var kind: ChunkKind = .audio
    /// The slot's item in `SharedState.items`, and its token.
    var serial: UInt32 = 0
    var token: UInt64 = 0
    /// Frame index within the item (track time) of the slot's first frame.
    var frameOffset: Int64 = 0
    var frames = 0
    /// Frames the output thread has taken.
    var read = 0
    var format = AudioFormat(rate: 44100, channels: 2)
    /// The item's ReplayGain factor, applied by jb-output with the volume.
    var gain: Float = 1
    /// The first chunk of an item that `play` or a gapless transition started: jb-output
    /// sends `.started` when it has written it (not after resume or seek).
    var announce = false
    /// The playback speed its frames were stretched to: each stands for `speed` item frames.
    var speed = 1.0
    /// A crossfade: this chunk's frames are mixed with the next slot's (the follow-up's
    /// first frames), its first frame being frame `fadeStart` of a fade of `fadeLength`.
    var fadeStart = 0
    var fadeLength = 0
    /// The follow-up's frames mixed into the chunk before it: jb-output only releases it.
    var partner = false
    /// Its samples are 32-bit (a source wider than 16 bits, the value in the top bits), half
    /// as many frames in the slot's memory; jb-output opens the device wide for them.
    var wide = false
}

/// The item frames (track time) that `frames` frames played at `speed` stand for; exactly
/// `frames` at 1.
func trackFrames(_ frames: Int64, speed: Double) -> Int64 {
    speed == 1 ? frames : Int64((Double(frames) * speed).rounded())
}

/// The items ring slots refer to, by serial, so that slots carry no String. jb-decode
/// registers each item it starts; jb-output looks one up only on a command or a failure
/// marker, never per period. An entry is reused after `capacity` newer items: more than the
/// ring has slots, so every item in the ring and the one jb-output plays are still there.
struct ItemTable {
    struct Entry {
        var serial: UInt32 = .max
        var item: PlaybackItem?
        /// Why decoding failed (for a `.failed` marker).
        var failure: String?
    }

    static let capacity = 64
    private var entries = [Entry](repeating: Entry(), count: capacity)
    private var nextSerial: UInt32 = 0

    /// Registers `item`; returns its serial and the entry it replaced (for the caller to
    /// release after unlocking: freeing its strings is no work for the lock holder).
    mutating func register(_ item: PlaybackItem, failure: String? = nil) -> (serial: UInt32, retired: Entry) {
        let serial = nextSerial
        nextSerial &+= 1
        var entry = Entry(serial: serial, item: item, failure: failure)
        swap(&entry, &entries[Int(serial) % Self.capacity])
        return (serial, entry)
    }

    mutating func setFailure(_ serial: UInt32, _ message: String) {
        let i = Int(serial) % Self.capacity
        if entries[i].serial == serial { entries[i].failure = message }
    }

    func item(_ serial: UInt32) -> PlaybackItem? {
        let e = entries[Int(serial) % Self.capacity]
        return e.serial == serial ? e.item : nil
    }

    func failure(_ serial: UInt32) -> String? {
        let e = entries[Int(serial) % Self.capacity]
        return e.serial == serial ? e.failure : nil
    }
}

/// What the control thread asks of jb-output, handled in order by one `switch` in
/// `outputMain` (as MPD's AudioOutputControl::Command). The data a command acts on is in
/// `SharedState` (anchor, pending seek, gain target), set by the control thread together
/// with the command, so jb-output always acts on the latest.
enum OutputCommand: Equatable {
    /// A new item (play or skip): drop what the device holds and play the anchor.
    case play
    /// Drop what the device holds and keep the position that was audible.
    case pause
    /// Play on from the paused position.
    case resume
    /// Drop what the device holds and play from `pendingSeekMs`.
    case seek
    /// Drop what the device holds and forget the items.
    case stop
    /// Fade out what the device holds over ~5 ms, then play on from there at `SharedState.speed`.
    case speed
    /// Ramp to `gainTarget` and re-render what the device still holds.
    case gain
    /// Close the device and end the thread.
    case shutdown

    /// Commands with the same handler: a queued one covers a newer one, because handlers act
    /// on the latest shared fields.
    var isFlush: Bool {
        switch self {
        case .play, .pause, .resume, .seek, .stop, .speed: return true
        case .gain, .shutdown: return false
        }
    }
}

/// The state shared by the control thread, jb-decode and jb-output: MPD's PlayerControl.
/// It lives inside `AudioPipeline.shared` (a `PILock`), so every access is inside
/// `withLock { s in … }`.
struct SharedState {
    var shutdown = false
    var state: PipelineState = .stopped

    // MARK: ring (a fixed array of slots; jb-decode fills the slot after the last filled one
    // without the lock, then publishes it under the lock; jb-output reads `ringHead`)
    var chunks: [ChunkInfo]
    var ringHead = 0
    var ringCount = 0
    /// Chunks ever published / released; `followUpSeq` is the published count at which the
    /// follow-up item began (nil when no gapless transition is in the ring).
    var publishedSeq = 0
    var consumedSeq = 0
    var followUpSeq: Int?
    /// When the follow-up began with a crossfade: where the item it fades out of was when the
    /// fade began (replacing the follow-up decodes that item's end again).
    var fadeOrigin: (item: PlaybackItem, start: StartPosition)?
    var items = ItemTable()

    // MARK: decoding
    /// Bumped whenever jb-decode must drop its decoder and look at `decodeRequest` again.
    var decodeGen: UInt64 = 0
    var decodeRequest: (item: PlaybackItem, start: StartPosition, announce: Bool)?
    /// The item jb-decode is decoding (after a gapless transition: the follow-up).
    var decodingItem: PlaybackItem?
    /// jb-decode's latest seek hint and the item it belongs to; the token whose start position
    /// was reached by way of its item's hint.
    var seekHint: (token: UInt64, hint: SeekHint)?
    var openedFromSeekHint: UInt64?
    var nextItem: PlaybackItem?
    /// jb-decode reached the end of its item and no follow-up was set yet.
    var awaitingNext = false
    /// Tells jb-decode, with a new `decodeGen` and no request, that it is at the end of an item
    /// (the follow-up was withdrawn), so it waits for another follow-up.
    var restartAtEnd = false

    // MARK: commands for jb-output
    /// Queued commands, oldest first; at most one flush and one gain (see `send`), so the
    /// reserved capacity is never exceeded.
    var commands: [OutputCommand] = []
    /// Where playback is anchored: the item and start position of the current decode, or the
    /// paused position once jb-output resolved it.
    var anchor: (item: PlaybackItem, start: StartPosition)?
    /// `anchor` is being decoded (false while jb-output has yet to resolve it, and while
    /// paused on a stream; paused on a file, it is decoded ahead).
    var anchorDecoding = false
    /// jb-output must compute the audible position before it drops the device's frames.
    var needsResolve = false
    /// `play` set the anchor and jb-output has not taken it up yet: what the device holds is
    /// still the previous item, so the audible position says nothing about the anchor, and
    /// the position to report is the anchor's start.
    var startPending = false
    var pendingSeekMs: Int64?
    var gainTarget: Float = 1.0
    /// The rate the device gave when asked for another: jb-decode resamples every file at
    /// another rate to it (set by jb-output when it opens the device).
    var deviceRate: Int?
    /// The device took no wide format when asked: jb-decode narrows every source to S16
    /// (with dither) from then on.
    var wideRefused = false
    /// The queue holds a source wider than 16 bits: jb-output opens the device wide first.
    var queueHoldsWide = false
    /// The software volume's gain (1.0 with a hardware mixer) and the output's mute: the
    /// gain target is 0 while muted, else the volume's.
    var volumeGain: Float = 1.0
    var muted = false
    /// The sleep timer's fade (1: none), on top of the volume, also with a hardware mixer.
    var fadeGain: Float = 1.0
    /// The playback speed jb-decode stretches to (1: the decoder's samples as they are).
    var speed = 1.0
    /// MPD's `crossfade`: seconds by which the end of an item overlaps the start of its
    /// follow-up (0: gapless).
    var crossfadeSeconds = 0
    /// The feedback sound asked for last, its level, and a serial that changes with each
    /// request (jb-output starts the sound when it sees a new one).
    var cue: CueSource?
    var cueLevel: Float = 0
    var cueSerial: UInt32 = 0
    /// The serial jb-output took last, and that of the speech it let go of last (set by
    /// jb-output): a clip with a serial below the first, or equal to the second, is no longer
    /// read and may be freed (by the control side, outside the lock).
    var cueTaken: UInt32 = 0
    var speechReleased: UInt32 = 0

    // MARK: reported by jb-output
    var events: [PipelineEvent] = []
    var positionToken: UInt64?
    var positionFrames: Int64 = 0
    /// With a deep buffer jb-output writes only a few times a second: the position then
    /// advances with the clock from when it was measured (`positionNs`, 0: it does not), up to
    /// the last frame of that item written so far.
    var positionNs: UInt64 = 0
    var positionLimit: Int64 = 0
    /// Track frames per device frame of that advance (the playback speed of the item heard).
    var positionSpeed = 1.0
    var format: AudioFormat?
    var underruns = 0
    var suspends = 0
    var deviceLosses = 0
    var reopenAttempts = 0
    var deviceError: String?
    var periodFrames = 0
    var bufferFrames = 0
    var pacing: OutputPacing = .device
    var deviceOpens = 0
    var realtimeRefusal: String?

    init(slots: Int) {
        chunks = Array(repeating: ChunkInfo(), count: slots)
        events.reserveCapacity(256)
        commands.reserveCapacity(4)
    }

    /// Queues a command for jb-output. A queued command with the same handler already covers
    /// it (handlers read the latest fields); a later flush replaces the queued one, so that
    /// the queue says what was asked last.
    mutating func send(_ command: OutputCommand) {
        if command != .shutdown,
            let i = commands.firstIndex(where: { $0 != .shutdown && $0.isFlush == command.isFlush })
        {
            commands[i] = command
        } else {
            commands.append(command)
        }
    }

    /// Empties the ring (the decoder's unpublished slot is dropped by its generation check).
    mutating func clearRing() {
        ringCount = 0
        consumedSeq = publishedSeq
        followUpSeq = nil
        fadeOrigin = nil
    }

    /// How many chunks jb-output waits for when the ring ran dry mid-stream: one after a
    /// start or flush (first sample at once), a quarter ring when it outran the decoder, so
    /// that an unpaced device does not ping-pong the two threads for every chunk. `.max`
    /// while it is not waiting for the ring: jb-decode's refills then do not wake it (with a
    /// deep buffer it sleeps through a whole refill of the ring).
    var outputWaitsFor = Int.max

    /// Publishes the slot after the last filled one.
    mutating func publish(_ info: ChunkInfo) {
        chunks[(ringHead + ringCount) % chunks.count] = info
        ringCount += 1
        publishedSeq += 1
    }

    /// Whether the follow-up jb-decode already started can still be replaced: jb-output has
    /// not written any of it yet.
    var followUpReplaceable: Bool {
        guard let f = followUpSeq else { return false }
        if consumedSeq < f { return true }
        return consumedSeq == f && (ringCount == 0 || chunks[ringHead].read == 0)
    }

    /// Drops the follow-up's chunks from the ring (see `followUpReplaceable`).
    mutating func dropFollowUp() {
        guard let f = followUpSeq else { return }
        ringCount = f - consumedSeq
        publishedSeq = f
    }

    /// Has jb-decode drop its work and start `request` (none when nil). `awaitingNext` spoke
    /// of the dropped work: it is cleared at once, so that jb-output does not take the old
    /// item's end for the end of the new work before jb-decode has seen the request.
    mutating func restartDecoding(_ request: (item: PlaybackItem, start: StartPosition, announce: Bool)?) {
        decodeRequest = request
        decodeGen &+= 1
        awaitingNext = false
    }

    /// Stops jb-decode's work and empties the ring.
    mutating func stopDecoding() {
        anchorDecoding = false
        clearRing()
        restartDecoding(nil)
    }
}

/// Interleaved S16 samples in memory allocated once and freed when the owner goes away
/// (the ring's samples, jb-output's period buffer and history). Not copyable: one owner.
struct SampleBuffer: ~Copyable {
    let base: UnsafeMutablePointer<Int16>
    let count: Int

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: count)
        base.initialize(repeating: 0, count: count)
    }

    deinit { base.deallocate() }
}
