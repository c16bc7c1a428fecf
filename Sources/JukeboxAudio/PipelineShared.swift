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

    // MARK: decoding
    /// Bumped whenever jb-decode must drop its decoder and look at `decodeRequest` again.
    var decodeGen: UInt64 = 0
    var decodeRequest: (item: PlaybackItem, start: StartPosition, announce: Bool)?
    /// The item jb-decode is decoding (after a gapless transition: the follow-up).
    var decodingItem: PlaybackItem?
    var nextItem: PlaybackItem?
    /// jb-decode reached the end of its item and no follow-up was set yet.
    var awaitingNext = false

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
    }
}
