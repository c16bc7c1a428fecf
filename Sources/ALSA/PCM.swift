import CALSA
import Glibc
import LinuxSupport

/// A sample format a device may take (little-endian, interleaved). The pipeline's samples are
/// S16; a device that does not take S16 (an I2S DAC that takes only S32_LE, say) gets them
/// widened by `PCM.write`, which is exact: the value in the top bits, zeros below.
public enum PCMSampleFormat: Sendable, Equatable, CaseIterable {
    case s16
    case s32
    /// 24 bits in the low three bytes of four (S24_LE).
    case s24
    /// 24 bits in three bytes (S24_3LE).
    case s24Packed

    var alsa: snd_pcm_format_t {
        switch self {
        case .s16: SND_PCM_FORMAT_S16_LE
        case .s32: SND_PCM_FORMAT_S32_LE
        case .s24: SND_PCM_FORMAT_S24_LE
        case .s24Packed: SND_PCM_FORMAT_S24_3LE
        }
    }

    public var bytesPerSample: Int { self == .s16 ? 2 : self == .s24Packed ? 3 : 4 }
}

/// What `PCM.open` asks for. alsa-lib may grant something near it; `PCM.granted` says what.
public struct PCMRequest: Sendable, Equatable {
    public var device: String
    public var rate: UInt32
    public var channels: UInt32
    public var periodMicroseconds: UInt32
    public var bufferMicroseconds: UInt32
    /// The buffer to ask of a sound card instead (0: none): not of the `file` and `null`
    /// PCMs, which swallow what they are given. Playback still starts once
    /// `bufferMicroseconds` are written.
    public var deepBufferMicroseconds: UInt32
    /// The sample formats to try, in order: the first the device takes is used. S16 first (the
    /// pipeline's own, written as it is), then the wider ones in the order MPD tries them.
    public var formats: [PCMSampleFormat]

    public init(
        device: String, rate: UInt32, channels: UInt32, periodMicroseconds: UInt32, bufferMicroseconds: UInt32,
        deepBufferMicroseconds: UInt32 = 0, formats: [PCMSampleFormat] = [.s16, .s32, .s24, .s24Packed]
    ) {
        self.formats = formats
        self.deepBufferMicroseconds = deepBufferMicroseconds
        self.device = device
        self.rate = rate
        self.channels = channels
        self.periodMicroseconds = periodMicroseconds
        self.bufferMicroseconds = bufferMicroseconds
    }
}

/// The hardware parameters alsa-lib actually granted (interleaved access).
public struct PCMGranted: Sendable, Equatable {
    public var format: PCMSampleFormat
    public var rate: UInt32
    public var channels: UInt32
    public var periodFrames: Int
    public var bufferFrames: Int
    /// The deep buffer was asked for (`PCMRequest.deepBufferMicroseconds`).
    public var deep: Bool
    /// The device takes one of the wide formats the request offers (whichever it was opened in).
    public var takesWide: Bool
}

/// The state of a PCM. The corresponding C type is snd_pcm_state_t.
public enum PCMState: Sendable, Equatable {
    case open, setup, prepared, running, xrun, draining, paused, suspended, disconnected, other(UInt32)

    init(_ raw: snd_pcm_state_t) {
        switch raw {
        case SND_PCM_STATE_OPEN: self = .open
        case SND_PCM_STATE_SETUP: self = .setup
        case SND_PCM_STATE_PREPARED: self = .prepared
        case SND_PCM_STATE_RUNNING: self = .running
        case SND_PCM_STATE_XRUN: self = .xrun
        case SND_PCM_STATE_DRAINING: self = .draining
        case SND_PCM_STATE_PAUSED: self = .paused
        case SND_PCM_STATE_SUSPENDED: self = .suspended
        case SND_PCM_STATE_DISCONNECTED: self = .disconnected
        default: self = .other(raw.rawValue)
        }
    }
}

/// The kind of PCM plugin at the top of the chain (snd_pcm_type_t). The pipeline uses it to
/// tell the unpaced `null` PCM (which swallows data at once) from a real device.
public enum PCMType: Sendable, Equatable {
    case hardware, null, file, plug, other(String)
}

/// One playback PCM: the single owner of a `snd_pcm_t`, closed in `deinit`
/// (snd_pcm_close). Not thread-safe: only the output thread that opened it may use it.
public final class PCM {
    private let handle: OpaquePointer
    public let device: String
    public let granted: PCMGranted
    public let type: PCMType
    /// Where `write` widens S16 for a device that does not take it (nil for an S16 device):
    /// room for `widenedFrames` frames, allocated here so that writing allocates nothing.
    private let widened: UnsafeMutableRawPointer?
    private let widenedFrames: Int
    /// The kernel zeroes what the device has played (silence_size = boundary).
    private let zeroesPlayed: Bool

    /// Opens `request.device` for blocking playback, interleaved in the first of
    /// `request.formats` it takes (snd_pcm_hw_params_test_format), and sets hardware
    /// parameters with snd_pcm_hw_params_set_rate_near/_period_time_near/_buffer_time_near,
    /// then software parameters: start threshold = `bufferMicroseconds` (the whole buffer unless
    /// it is the deep one), avail_min = one period.
    /// The corresponding C functions are snd_pcm_open, snd_pcm_hw_params, snd_pcm_sw_params.
    public init(_ request: PCMRequest) throws(ALSAError) {
        let device = request.device
        var pcm: OpaquePointer?
        try check(snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, 0), "snd_pcm_open", device)
        guard let pcm else { throw ALSAError(code: EINVAL, call: "snd_pcm_open", device: device) }
        let kind = snd_pcm_type(pcm)
        do throws(ALSAError) {
            let deep =
                request.deepBufferMicroseconds > request.bufferMicroseconds
                && kind != SND_PCM_TYPE_FILE && kind != SND_PCM_TYPE_NULL
            // ALSA's `file` and `null` PCMs play nothing: zeroing their buffer would only write
            // the zeros into the file.
            zeroesPlayed = kind != SND_PCM_TYPE_FILE && kind != SND_PCM_TYPE_NULL
            granted = try Self.configure(pcm, request, deep: deep, zeroPlayed: zeroesPlayed)
        } catch {
            // "snd_pcm_close: Closes the specified PCM handle and frees all associated resources."
            snd_pcm_close(pcm)
            throw error
        }
        handle = pcm
        self.device = device
        if granted.format == .s16 {
            widened = nil
            widenedFrames = 0
        } else {
            widenedFrames = max(granted.periodFrames, 1024)
            widened = .allocate(
                byteCount: widenedFrames * Int(granted.channels) * granted.format.bytesPerSample, alignment: 4)
        }
        switch kind {
        case SND_PCM_TYPE_HW: type = .hardware
        case SND_PCM_TYPE_NULL: type = .null
        case SND_PCM_TYPE_FILE: type = .file
        case SND_PCM_TYPE_PLUG: type = .plug
        case let t: type = .other(String(cString: snd_pcm_type_name(t)))
        }
    }

    deinit {
        snd_pcm_close(handle)
        widened?.deallocate()
    }

    private static func configure(
        _ pcm: OpaquePointer, _ r: PCMRequest, deep: Bool, zeroPlayed: Bool
    ) throws(ALSAError) -> PCMGranted {
        let dev = r.device
        var hw: OpaquePointer?
        try check(snd_pcm_hw_params_malloc(&hw), "snd_pcm_hw_params_malloc", dev)
        defer { snd_pcm_hw_params_free(hw) }
        try check(snd_pcm_hw_params_any(pcm, hw), "snd_pcm_hw_params_any", dev)
        try check(
            snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access", dev)
        // The first format the device takes; when it takes none, set_format's error for the first.
        let format: PCMSampleFormat =
            r.formats.first(where: { snd_pcm_hw_params_test_format(pcm, hw, $0.alsa) == 0 }) ?? r.formats[0]
        let takesWide = r.formats.contains { $0 != .s16 && snd_pcm_hw_params_test_format(pcm, hw, $0.alsa) == 0 }
        try check(snd_pcm_hw_params_set_format(pcm, hw, format.alsa), "snd_pcm_hw_params_set_format", dev)
        try check(snd_pcm_hw_params_set_channels(pcm, hw, r.channels), "snd_pcm_hw_params_set_channels", dev)
        var rate = r.rate
        var dir: Int32 = 0
        try check(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &dir), "snd_pcm_hw_params_set_rate_near", dev)
        var buffer = deep ? r.deepBufferMicroseconds : r.bufferMicroseconds
        dir = 0
        try check(
            snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &buffer, &dir), "snd_pcm_hw_params_set_buffer_time_near",
            dev)
        var period = r.periodMicroseconds
        dir = 0
        try check(
            snd_pcm_hw_params_set_period_time_near(pcm, hw, &period, &dir), "snd_pcm_hw_params_set_period_time_near",
            dev)
        try check(snd_pcm_hw_params(pcm, hw), "snd_pcm_hw_params", dev)
        var periodFrames: snd_pcm_uframes_t = 0
        var bufferFrames: snd_pcm_uframes_t = 0
        dir = 0
        try check(snd_pcm_hw_params_get_period_size(hw, &periodFrames, &dir), "snd_pcm_hw_params_get_period_size", dev)
        try check(snd_pcm_hw_params_get_buffer_size(hw, &bufferFrames), "snd_pcm_hw_params_get_buffer_size", dev)

        var sw: OpaquePointer?
        try check(snd_pcm_sw_params_malloc(&sw), "snd_pcm_sw_params_malloc", dev)
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(pcm, sw), "snd_pcm_sw_params_current", dev)
        // Start once `bufferMicroseconds` are written (whole periods), also in a deep buffer.
        let whole = max(periodFrames, 1)
        let startFrames =
            deep
            ? min(bufferFrames, snd_pcm_uframes_t(UInt64(rate) * UInt64(r.bufferMicroseconds) / 1_000_000))
            : bufferFrames
        try check(
            snd_pcm_sw_params_set_start_threshold(pcm, sw, max(whole, startFrames - startFrames % whole)),
            "snd_pcm_sw_params_set_start_threshold", dev)
        try check(snd_pcm_sw_params_set_avail_min(pcm, sw, periodFrames), "snd_pcm_sw_params_set_avail_min", dev)
        // The kernel zeroes what the device has played, so an underrun or the end of a drain
        // plays silence, not the stale period left in the buffer (a 20 ms buzz at snd-aloop's
        // capture on the virtual board). The corresponding C functions are
        // snd_pcm_sw_params_get_boundary, snd_pcm_sw_params_set_silence_threshold and _size.
        if zeroPlayed {
            var boundary: snd_pcm_uframes_t = 0
            try check(snd_pcm_sw_params_get_boundary(sw, &boundary), "snd_pcm_sw_params_get_boundary", dev)
            try check(
                snd_pcm_sw_params_set_silence_threshold(pcm, sw, 0), "snd_pcm_sw_params_set_silence_threshold", dev)
            try check(
                snd_pcm_sw_params_set_silence_size(pcm, sw, boundary), "snd_pcm_sw_params_set_silence_size", dev)
        }
        try check(snd_pcm_sw_params(pcm, sw), "snd_pcm_sw_params", dev)
        return PCMGranted(
            format: format, rate: rate, channels: r.channels, periodFrames: Int(periodFrames),
            bufferFrames: Int(bufferFrames),
            deep: deep, takesWide: takesWide)
    }

    /// Writes interleaved S16 frames (widened to the device's format, `widenedFrames` at a
    /// time, when it is not S16); blocks until alsa-lib took some. Returns the frames
    /// written, or throws (-EPIPE underrun, -ESTRPIPE suspend: pass to `recover`) when none were.
    /// The corresponding C function is snd_pcm_writei.
    public func write(_ samples: UnsafePointer<Int16>, frames: Int) throws(ALSAError) -> Int {
        guard granted.format != .s16 else { return try writei(samples, frames: frames) }
        let channels = Int(granted.channels)
        return try writeConverted(frames: frames) { done, count, widened in
            Self.widen(samples + done * channels, count: count * channels, to: granted.format, into: widened)
        }
    }

    /// Writes interleaved 32-bit frames (the value in the top bits) to a device opened in a
    /// wide format: as they are for S32_LE, their top 24 bits for S24_LE and S24_3LE (exact for
    /// sources of up to 24 bits), `widenedFrames` at a time. As `write` otherwise.
    public func write(wide samples: UnsafePointer<Int32>, frames: Int) throws(ALSAError) -> Int {
        precondition(granted.format != .s16, "PCM.write(wide:) on an S16 device")
        guard granted.format != .s32 else { return try writei(samples, frames: frames) }
        let channels = Int(granted.channels)
        return try writeConverted(frames: frames) { done, count, widened in
            Self.narrow(samples + done * channels, count: count * channels, to: granted.format, into: widened)
        }
    }

    /// snd_pcm_writei of samples already in the device's format.
    private func writei(_ samples: UnsafeRawPointer, frames: Int) throws(ALSAError) -> Int {
        let n = snd_pcm_writei(handle, samples, snd_pcm_uframes_t(frames))
        if n < 0 { throw ALSAError(code: Int32(n), call: "snd_pcm_writei", device: device) }
        return Int(n)
    }

    /// Writes `frames` frames `widenedFrames` at a time, each block put into the device's
    /// format in `widened` by `convert(done, count, widened)` first.
    private func writeConverted(
        frames: Int, _ convert: (Int, Int, UnsafeMutableRawPointer) -> Void
    ) throws(ALSAError) -> Int {
        guard let widened else { preconditionFailure("no conversion buffer for \(granted.format)") }
        var done = 0
        while done < frames {
            let count = min(frames - done, widenedFrames)
            convert(done, count, widened)
            let n = snd_pcm_writei(handle, widened, snd_pcm_uframes_t(count))
            if n < 0 {
                if done > 0 { return done }
                throw ALSAError(code: Int32(n), call: "snd_pcm_writei", device: device)
            }
            done += Int(n)
            if n < count { break }
        }
        return done
    }

    /// 32-bit samples in a 24-bit little-endian format: their top 24 bits.
    private static func narrow(
        _ source: UnsafePointer<Int32>, count: Int, to format: PCMSampleFormat, into target: UnsafeMutableRawPointer
    ) {
        if format == .s24 {
            let out = target.assumingMemoryBound(to: Int32.self)
            for i in 0..<count { out[i] = (source[i] >> 8).littleEndian }
            return
        }
        let out = target.assumingMemoryBound(to: UInt8.self)
        for i in 0..<count {
            let v = UInt32(bitPattern: source[i])
            out[3 * i] = UInt8(truncatingIfNeeded: v >> 8)
            out[3 * i + 1] = UInt8(truncatingIfNeeded: v >> 16)
            out[3 * i + 2] = UInt8(truncatingIfNeeded: v >> 24)
        }
    }

    /// S16 samples in a wider little-endian format: the value in the top bits, zeros below.
    private static func widen(
        _ source: UnsafePointer<Int16>, count: Int, to format: PCMSampleFormat, into target: UnsafeMutableRawPointer
    ) {
        switch format {
        case .s16: target.copyMemory(from: source, byteCount: count * 2)
        case .s32, .s24:
            let out = target.assumingMemoryBound(to: Int32.self)
            let shift: Int32 = format == .s32 ? 16 : 8
            for i in 0..<count { out[i] = (Int32(source[i]) << shift).littleEndian }
        case .s24Packed:
            let out = target.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count {
                let v = UInt16(bitPattern: source[i])
                out[3 * i] = 0
                out[3 * i + 1] = UInt8(truncatingIfNeeded: v)
                out[3 * i + 2] = UInt8(truncatingIfNeeded: v >> 8)
            }
        }
    }

    /// Stops at once and discards the pending frames. The corresponding C function is snd_pcm_drop.
    public func drop() throws(ALSAError) { try check(snd_pcm_drop(handle), "snd_pcm_drop", device) }

    /// Plays out the pending frames, then stops. The corresponding C function is snd_pcm_drain.
    /// A device that zeroes what it played (every PCM but `file` and `null`) is first left to
    /// play to its end, where it stops as at an underrun (playing zeros): snd-aloop in Linux 6.1
    /// garbles the last timer tick of a DRAINING stream at its capture side (it copies up to
    /// the end, then clears from the tick's start instead of after the copy: 4-8 ms of the
    /// music's end zeroed and as much stale capture data after it; docs/VIRTUAL-BOARD.md).
    /// (A device not started yet is drained at once; the wait is bounded by twice the buffer.)
    public func drain() throws(ALSAError) {
        if zeroesPlayed {
            var waited = 0
            while state == .running, waited < 2 * granted.bufferFrames, let queued = try? delay(), queued > 0 {
                MonotonicClock.sleep(nanoseconds: UInt64(queued) * 1_000_000_000 / UInt64(granted.rate) + 1_000_000)
                waited += queued
            }
        }
        try check(snd_pcm_drain(handle), "snd_pcm_drain", device)
    }

    /// Prepares for playback after drop/xrun. The corresponding C function is snd_pcm_prepare.
    public func prepare() throws(ALSAError) { try check(snd_pcm_prepare(handle), "snd_pcm_prepare", device) }

    /// Frames written but not yet played. The corresponding C function is snd_pcm_delay.
    public func delay() throws(ALSAError) -> Int {
        var d: snd_pcm_sframes_t = 0
        try check(snd_pcm_delay(handle, &d), "snd_pcm_delay", device)
        return Int(d)
    }

    /// Frames that can be written without blocking. The corresponding C function is snd_pcm_avail.
    public func avail() throws(ALSAError) -> Int {
        let n = snd_pcm_avail(handle)
        if n < 0 { throw ALSAError(code: Int32(n), call: "snd_pcm_avail", device: device) }
        return Int(n)
    }

    /// Frames the application pointer can safely move back. The corresponding C function is snd_pcm_rewindable.
    public func rewindable() -> Int { max(0, Int(snd_pcm_rewindable(handle))) }

    /// Moves the application pointer back by up to `frames`; returns how far it moved.
    /// The corresponding C function is snd_pcm_rewind.
    public func rewind(_ frames: Int) throws(ALSAError) -> Int {
        guard frames > 0 else { return 0 }
        let n = snd_pcm_rewind(handle, snd_pcm_uframes_t(frames))
        if n < 0 { throw ALSAError(code: Int32(n), call: "snd_pcm_rewind", device: device) }
        return Int(n)
    }

    /// The corresponding C function is snd_pcm_state.
    public var state: PCMState { PCMState(snd_pcm_state(handle)) }

    /// Wakes a suspended PCM (after -ESTRPIPE). Throws -EAGAIN while the driver is still
    /// waking up (try again), or another error when it cannot resume (prepare instead).
    /// The corresponding C function is snd_pcm_resume.
    public func resume() throws(ALSAError) { try check(snd_pcm_resume(handle), "snd_pcm_resume", device) }
}
