import ALSA

/// What an opened sink granted: the period and buffer in frames, and whether it swallows
/// data at once (ALSA's `null` PCM), so that the output thread paces it by the clock.
public struct SinkGrant: Sendable, Equatable {
    /// The rate the device runs at (another than the one asked for when it does not take that).
    public var rate: Int
    public var periodFrames: Int
    public var bufferFrames: Int
    public var swallowsData: Bool
    /// Each write is passed on as it comes, beyond the reach of snd_pcm_rewind (ALSA's `file`
    /// PCM: what a write pushes out of its own buffer goes into its file, a FIFO that a
    /// player reads at the real rate, and the write blocks until the FIFO takes it).
    public var writesThrough: Bool
    /// The buffer is the deep one (`PCMRequest.deepBufferMicroseconds`): jb-output keeps it
    /// full, wakes when it drained to the configured buffer, and takes it back on commands.
    public var deep: Bool
    /// The sample format it was opened in, and whether it takes a wide one (S32_LE, S24_LE or
    /// S24_3LE) when asked.
    public var format: PCMSampleFormat
    public var takesWide: Bool

    public init(
        rate: Int, periodFrames: Int, bufferFrames: Int, swallowsData: Bool, writesThrough: Bool = false,
        deep: Bool = false, format: PCMSampleFormat = .s16, takesWide: Bool? = nil
    ) {
        self.writesThrough = writesThrough
        self.format = format
        self.takesWide = takesWide ?? (format != .s16)
        self.deep = deep
        self.rate = rate
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
        self.swallowsData = swallowsData
    }
}

/// The device jb-output writes to, opened and closed by jb-output only. The calls and their
/// errors are ALSA's (negative errno values as `ALSAError`): -EPIPE underrun, -ESTRPIPE
/// suspend, -EINTR interrupted, anything else from `write` means the device is gone.
/// The pipeline is generic over it, so the real sink costs no dynamic dispatch; tests wrap
/// the real sink to inject faults.
public protocol AudioSink: SendableMetatype {
    /// Opens the device for `request`, taking S16 interleaved (written in the first of
    /// `request.formats` the device takes; the sink is closed when called).
    mutating func open(_ request: PCMRequest) throws(ALSAError) -> SinkGrant
    /// Closes the device (what it still holds is played or dropped, as the device does).
    mutating func close()
    /// Writes up to `frames` frames, blocking while the device is full; returns how many it took.
    mutating func write(_ samples: UnsafePointer<Int16>, frames: Int) throws(ALSAError) -> Int
    /// As `write`, from 32-bit samples (the value in the top bits); only when it was opened
    /// in a wide format (`SinkGrant.format` not S16).
    mutating func write(wide samples: UnsafePointer<Int32>, frames: Int) throws(ALSAError) -> Int
    /// Frames written but not played yet.
    mutating func delay() throws(ALSAError) -> Int
    /// Frames that can be taken back.
    mutating func rewindable() -> Int
    /// Takes back up to `frames` frames; returns how many.
    mutating func rewind(_ frames: Int) throws(ALSAError) -> Int
    /// Discards what the device holds.
    mutating func drop() throws(ALSAError)
    /// Plays out what the device holds.
    mutating func drain() throws(ALSAError)
    /// Makes the device ready for writing again (after drop, an underrun or a failed resume).
    mutating func prepare() throws(ALSAError)
    /// Wakes a suspended device; -EAGAIN while it is still waking up.
    mutating func resume() throws(ALSAError)
}

/// The real sink: an ALSA playback PCM (`PCM`), open between `open` and `close`.
public struct ALSASink: AudioSink {
    private var pcm: PCM?

    public init() {}

    public mutating func open(_ request: PCMRequest) throws(ALSAError) -> SinkGrant {
        let opened = try PCM(request)
        pcm = opened
        return SinkGrant(
            rate: Int(opened.granted.rate), periodFrames: opened.granted.periodFrames,
            bufferFrames: opened.granted.bufferFrames,
            swallowsData: opened.type == .null, writesThrough: opened.type == .file, deep: opened.granted.deep,
            format: opened.granted.format,
            takesWide: opened.granted.takesWide)
    }

    public mutating func close() { pcm = nil }

    public mutating func write(_ samples: UnsafePointer<Int16>, frames: Int) throws(ALSAError) -> Int {
        try pcm!.write(samples, frames: frames)
    }

    public mutating func write(wide samples: UnsafePointer<Int32>, frames: Int) throws(ALSAError) -> Int {
        try pcm!.write(wide: samples, frames: frames)
    }

    public mutating func delay() throws(ALSAError) -> Int { try pcm!.delay() }
    public mutating func rewindable() -> Int { pcm!.rewindable() }
    public mutating func rewind(_ frames: Int) throws(ALSAError) -> Int { try pcm!.rewind(frames) }
    public mutating func drop() throws(ALSAError) { try pcm!.drop() }
    public mutating func drain() throws(ALSAError) { try pcm!.drain() }
    public mutating func prepare() throws(ALSAError) { try pcm!.prepare() }
    public mutating func resume() throws(ALSAError) { try pcm!.resume() }
}
