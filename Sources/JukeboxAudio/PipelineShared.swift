import JukeboxCore
import LinuxSupport

/// Where to start decoding an item.
enum StartPosition: Equatable {
    case ms(Int64)
    case frame(Int64)

    func frames(rate: Int) -> Int64 {
        switch self {
        case .ms(let ms): return ms * Int64(rate) / 1000
        case .frame(let f): return f
        }
    }
}

/// What a ring slot holds: audio, or an in-order marker the output thread turns into an event.
enum ChunkKind: Equatable {
    case audio
    case finished
    case failed(String)
}

/// Metadata of one ring slot; the samples live in `PCMRing.samples`.
struct ChunkInfo {
    var kind: ChunkKind = .audio
    var item = PlaybackItem(token: 0, path: "")
    /// Frame index within the item of the slot's first frame.
    var frameOffset: Int64 = 0
    var frames = 0
    /// Frames the output thread has taken.
    var read = 0
    var format = AudioFormat(rate: 44100, channels: 2)
    /// The first chunk of an item that `play` or a gapless transition started: jb-output
    /// sends `.started` when it has written it (not after resume or seek).
    var announce = false
}

/// The state shared by the control thread, jb-decode and jb-output. Every field is guarded
/// by `AudioPipeline.lock`; this struct *is* the locked state (MPD's PlayerControl).
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
    /// Bumped by every command that flushes the device (play, pause, resume, seek, stop).
    var epoch: UInt64 = 0
    /// Where playback is anchored: the item and start position of the current decode, or the
    /// paused position once jb-output resolved it.
    var anchor: (item: PlaybackItem, start: StartPosition)?
    /// `anchor` is being decoded (false while paused or waiting for jb-output to resolve).
    var anchorDecoding = false
    /// jb-output must compute the audible position before it drops the device's frames.
    var needsResolve = false
    var pendingSeekMs: Int64?
    var gainTarget: Float = 1.0

    // MARK: reported by jb-output
    var events: [PipelineEvent] = []
    var positionToken: UInt64?
    var positionFrames: Int64 = 0
    var format: AudioFormat?
    var underruns = 0
    var deviceError: String?
    var periodFrames = 0
    var bufferFrames = 0
    var pacing: OutputPacing = .device
    var deviceOpens = 0
    var realtimeRefusal: String?

    init(slots: Int) {
        chunks = Array(repeating: ChunkInfo(), count: slots)
        events.reserveCapacity(256)
    }

    /// Empties the ring (the decoder's unpublished slot is dropped by its generation check).
    mutating func clearRing() {
        ringCount = 0
        consumedSeq = publishedSeq
        followUpSeq = nil
    }

    /// Publishes the slot after the last filled one.
    /// How many chunks jb-output waits for when the ring ran dry mid-stream: one after a
    /// start or flush (first sample at once), a quarter ring when it outran the decoder, so
    /// that an unpaced device does not ping-pong the two threads for every chunk.
    var outputWaitsFor = 1

    mutating func publish(_ info: ChunkInfo, slots: Int) {
        chunks[(ringHead + ringCount) % slots] = info
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
}
