import JukeboxCore

/// One thing to play: the caller's token (echoed in events) and the file (or a span of it),
/// with where to start reading it when it starts past its beginning (see `SeekHint`; ignored
/// when it does not fit the file).
public struct PlaybackItem: Sendable, Equatable {
    public var token: UInt64
    public var path: String
    public var seekHint: SeekHint?
    /// The ReplayGain mode in effect for it (`ReplayGainMode.effective`): which of the file's
    /// gains jb-decode applies.
    public var replayGainMode: ReplayGainMode
    /// The frames of the file to play (a CUE sheet's track; `.max` as the end: to the file's
    /// end), nil for the whole file. Positions and seeks are then the span's, frame 0 its first.
    public var span: Range<Int64>?

    public init(
        token: UInt64, path: String, seekHint: SeekHint? = nil, span: Range<Int64>? = nil,
        replayGainMode: ReplayGainMode = .off
    ) {
        self.token = token
        self.path = path
        self.seekHint = seekHint
        self.span = span
        self.replayGainMode = replayGainMode
    }
}

/// How the output thread paces its writes.
public enum OutputPacing: String, Sendable, Equatable {
    /// `.clock` when the PCM is ALSA's `null` plugin (which swallows data at once), else `.device`.
    case auto
    /// No extra pacing: the device (or whatever blocks in snd_pcm_writei) sets the pace.
    case device
    /// A virtual sound card paced by CLOCK_MONOTONIC (for the silent `null` PCM).
    case clock
}

/// The `[audio]` part of the configuration the pipeline needs.
public struct AudioOutputConfig: Sendable, Equatable {
    public var device: String
    public var periodMs: Int
    public var bufferMs: Int
    /// The buffer asked of a sound card that can take back what it holds (0: `bufferMs`):
    /// kept full, topped up once it drained to `bufferMs`, so that jb-output wakes a few
    /// times a second instead of once per period.
    public var deepBufferMs: Int
    /// An ALSA simple mixer control for hardware volume; nil or empty = software gain.
    public var mixer: String?
    /// The mixer's card ("hw:0"); derived from `device` when nil.
    public var mixerCard: String?
    public var pacing: OutputPacing
    /// The ReplayGain preamps.
    public var replayGain: ReplayGainSettings

    public init(
        device: String = "default", periodMs: Int = 10, bufferMs: Int = 40, deepBufferMs: Int = 0,
        mixer: String? = nil, mixerCard: String? = nil, pacing: OutputPacing = .auto,
        replayGain: ReplayGainSettings = ReplayGainSettings()
    ) {
        self.deepBufferMs = deepBufferMs
        self.replayGain = replayGain
        self.device = device
        self.periodMs = periodMs
        self.bufferMs = bufferMs
        self.mixer = mixer
        self.mixerCard = mixerCard
        self.pacing = pacing
    }
}

/// Playing, paused or stopped, as the control thread last asked (stopped again after end of stream).
public enum PipelineState: String, Sendable, Equatable {
    case stopped, playing, paused
}

/// A snapshot for the control thread.
public struct PipelineStatus: Sendable, Equatable {
    public var state: PipelineState
    /// The item whose samples the device is playing (or that is paused).
    public var token: UInt64?
    /// Position in the item, from the samples the device has played (frames written − delay).
    public var positionFrames: Int64
    public var positionMs: Int64
    /// The format the PCM is open with.
    public var format: AudioFormat?
    /// Underruns (-EPIPE) recovered since start.
    public var underruns: Int
    /// Suspends (-ESTRPIPE) recovered since start.
    public var suspends = 0
    /// Times the device went away while playing (any other write error, e.g. -ENODEV when a
    /// USB DAC is pulled out); playback continues where it stopped once it opens again.
    public var deviceLosses = 0
    /// Opens tried after a loss or a failed open (retried with a backoff of 0.1 s doubling to 2 s).
    public var reopenAttempts = 0
    /// The last ALSA error (device name + snd_strerror), nil while the device works.
    public var error: String?
    /// Period and buffer granted by ALSA, in frames.
    public var periodFrames: Int
    public var bufferFrames: Int
    /// The pacing in effect (`.device` or `.clock`).
    public var pacing: OutputPacing
    /// How often the PCM was opened (it is reopened only when rate or channels change).
    public var deviceOpens: Int
    /// Where to start reading `token`'s file to come back to a position at or before the
    /// current one (nil when not known yet, or for a WAV file).
    public var seekHint: SeekHint? = nil
    /// Whether `token` was opened at its start position by way of its item's seek hint.
    public var startedFromSeekHint = false
}

/// Things the control thread learns about; `wakeup` is called when one is queued.
public enum PipelineEvent: Sendable, Equatable {
    /// The first sample of the item was written to the device.
    case started(UInt64)
    /// The last sample of the item was written to the device.
    case finished(UInt64)
    /// The item could not be opened or failed while decoding (what decoded was played).
    /// Playback continues with the follow-up item, as after `.finished`.
    case failed(UInt64, String)
    /// Nothing is left to play and no follow-up was set: the pipeline stopped.
    case endOfStream
    /// The speech of `AudioPipeline.speak` was heard to its end (or replaced by another cue, or
    /// not heard: the device opened at another rate), and its memory was freed.
    case speechEnded
}
