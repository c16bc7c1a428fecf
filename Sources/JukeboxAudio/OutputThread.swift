import ALSA
import Glibc
import JukeboxCore
import LinuxSupport

// jb-output: owns the audio sink. It drains the ring one period at a time into the sink,
// applies the software gain, and turns ring markers into events. It does not allocate, log,
// retain or do file I/O on its path (the buffers below are allocated when the thread starts,
// the history grown when the device is opened; ring slots hold plain data), and it never
// calls the device or sleeps while holding the lock: each step is decided under the lock
// (`nextStep`, with what a command needs copied out) and done without it (`OutputStep`); a
// period is copied out of the ring into the history under the lock, the lock is released,
// then the gain is applied (into the period buffer; at a steady 1.0 the history itself is
// written) and the period is written. Waits are on its condition, with a deadline.
// This file is the command loop; the parts without a device are beside it, as MPD splits
// output/Thread, Control and the filters: `OutputTimeline` (frames written ↔ track time, and
// what the device holds), `GainStage` (volume ramps, ReplayGain, crossfades), `FeedbackCue`
// and `OutputDeviceState` (the device's states and their transitions).
// With a deep buffer (a sound card granted `deep_buffer_ms`) it fills the buffer, then
// sleeps on its condition until the buffer has drained to `buffer_ms` (timer-based
// scheduling, as PulseAudio's): a few wake-ups a second instead of one per period, and a
// command wakes it at once. Otherwise it writes one period at a time (a write returns after
// about a period once the buffer is full; idle waits time out), so a command reaches the
// device within one period; a quarter period on ALSA's `file` PCM, whose writes go on into
// a FIFO at once (see `OutputLocals.block`).
// Commands (`OutputCommand`) are handled in one switch:
// - play/pause/seek/skip/stop: rewind what ALSA holds (snd_pcm_rewindable/rewind), note the
//   position actually played (frames written − snd_pcm_delay), then snd_pcm_drop;
// - software volume: rewind the frames still queued and re-render them from a history of
//   source frames with the new gain (from the next period when rewinding is not possible).
// Feedback sounds (a card read, a limit) are mixed in after the gain, at their place in the
// `written` count, so a re-render mixes them again where they were; paused or stopped, the
// output writes them over silence (opening the device if it is closed) and then stops writing.
// Device faults, as snd_pcm_recover treats them: -EINTR is retried; an underrun (-EPIPE) is
// prepared; a suspend (-ESTRPIPE) resumed (retried while the driver says -EAGAIN), else
// prepared; anything else means the device is gone (a USB DAC pulled out): it is closed,
// opened again with a backoff of 0.1 s doubling to 2 s, and playback continues at the frame
// that was audible when it went. Each is counted; the control side logs them.

/// jb-output's own state. Only jb-output touches it.
struct OutputLocals<Sink: AudioSink>: ~Copyable {
    var sink: Sink
    var device = OutputDeviceState.closed
    var isOpen: Bool { device.isOpen }
    var format: AudioFormat?
    /// The device is open in a wide format (S32_LE, S24_LE, S24_3LE): the history and the
    /// period buffer then hold Int32 samples, two Int16 words each, 32-bit chunks
    /// (`ChunkInfo.wide`) copied as they are and S16 ones widened (exact), so a change of
    /// source depth needs no reopening. Stays so across reopens once it was (see `openDevice`).
    var wide = false
    var words: Int { wide ? 2 : 1 }
    var clock = false
    var period = 441
    /// Frames per write: one period, so that a command is seen within one period; a whole
    /// buffer on a PCM that does not play in real time (ALSA `null` without clock pacing,
    /// the benchmark's case), where per-write overhead would dominate; a quarter period on
    /// one that passes writes on at once (`SinkGrant.writesThrough`).
    var block = 441
    var buffer = 1764
    /// Frames written (`timeline.written` is also the index into `history`), the track time
    /// they stand for, and what the device holds.
    var timeline = OutputTimeline()
    /// Deep-buffer scheduling: keep up to `fill` frames queued; once full, sleep until no
    /// more than `lowMark` are left (`refilling` false meanwhile).
    var deep = false
    var fill = 0
    var lowMark = 0
    var refilling = true
    /// Whether the device was seen to take back what it holds; one that does not is kept at
    /// the configured buffer (volume changes would otherwise wait for the deep buffer).
    var rewindChecked = false
    /// With a deep buffer `.started` is posted when the item's first frame is audible (at
    /// `written` index `at`), not when it is written half a second earlier.
    var pendingStart: (token: UInt64, at: Int64)?
    /// When to try opening the device again, and the wait after the next failure.
    var retryAtNs: UInt64 = 0
    var backoffNs = firstBackoffNs

    /// The source frames of what was written (a ring indexed by `written`), to re-render
    /// what ALSA still holds with a new gain. It only has to cover the device buffer and one
    /// block, so it is sized when the device is opened (a few KiB at 40 ms), not for the
    /// largest buffer the config allows: a 512 KiB ring cost page faults and cache misses.
    private(set) var history: SampleBuffer
    private(set) var historyFrames = 4096
    private(set) var historyWords = 1
    var historyStart: Int64 = 0
    /// Frames in `written ..< replayEnd` are re-rendered from `history` before the ring is read.
    var replayEnd: Int64 = 0
    private(set) var periodBuffer: SampleBuffer
    let periodCapacity = 16384

    /// The volume's ramps and the item's ReplayGain, applied to each period, and crossfades.
    var gainStage = GainStage()

    /// Where the frames that played go too (the Snapcast output), and the `written` index up
    /// to which they went: a frame goes once it can no longer be rewound.
    let playedAudio: PlayedAudioRing?
    var publishedUpTo: Int64 = 0
    /// Narrows 32-bit samples, and rounds products of ReplayGain, for `playedAudio` (S16).
    var playedDither = TPDFDither()
    /// The feedback sound mixed in after the gain.
    var cue = FeedbackCue()

    init(sink: consuming Sink, playedAudio: PlayedAudioRing?) {
        self.sink = sink
        self.playedAudio = playedAudio
        history = SampleBuffer(count: historyFrames * AudioPipeline.maxChannels)
        periodBuffer = SampleBuffer(count: periodCapacity * AudioPipeline.maxChannels)
    }

    /// Moves the device state on `event` (one the state allows: see `OutputDeviceState.after`).
    mutating func deviceDid(_ event: OutputDeviceState.Event) {
        let next = device.after(event)
        assert(next != nil, "no device transition from \(device) on \(event)")
        device = next ?? device
    }

    /// Zeros as the source of the `frames` frames at `written` (the cue sounds over them).
    func saveSilence(frames: Int) {
        let ch = channels * words
        let index = Int(timeline.written % Int64(historyFrames))
        let first = min(frames, historyFrames - index)
        (history.base + index * ch).update(repeating: 0, count: first * ch)
        if first < frames { history.base.update(repeating: 0, count: (frames - first) * ch) }
    }

    /// The device cannot take back what it holds: keep only the configured buffer in it
    /// (`lowMark` + one period), written a period at a time, so that commands and volume
    /// changes are heard as soon as without a deep buffer.
    mutating func keepShallow(period: Int) {
        fill = lowMark + period
        lowMark = fill - period
        block = period
    }

    /// Grows the history to at least `frames` frames. Only at device open, never per period.
    /// At the device's sample width (`words`), with the period buffer.
    mutating func fitHistory(toCover frames: Int) {
        guard frames > historyFrames || words > historyWords else { return }
        historyFrames = max(frames, historyFrames)
        historyWords = words
        history = SampleBuffer(count: historyFrames * AudioPipeline.maxChannels * words)
        if periodBuffer.count < periodCapacity * AudioPipeline.maxChannels * words {
            periodBuffer = SampleBuffer(count: periodCapacity * AudioPipeline.maxChannels * words)
        }
    }

    /// `buffer`'s words as 32-bit samples.
    func wideSamples(_ buffer: borrowing SampleBuffer) -> UnsafeMutablePointer<Int32> {
        UnsafeMutableRawPointer(buffer.base).assumingMemoryBound(to: Int32.self)
    }

    var channels: Int { format?.channels ?? 2 }
    var rate: Int { format?.rate ?? 44100 }

    /// Hands the history's frames up to `end` (they played) to `playedAudio`, as they sounded
    /// but for the volume (each listener has its own): with the item's ReplayGain.
    mutating func publishPlayed(upTo end: Int64) {
        guard let playedAudio else { return }
        var from = max(publishedUpTo, historyStart, end - Int64(historyFrames))
        publishedUpTo = max(publishedUpTo, end)
        while from < end {
            let index = Int(from % Int64(historyFrames))
            let count = min(Int(end - from), historyFrames - index)
            if wide {
                playedAudio.publish(
                    wide: wideSamples(history) + index * channels, count: count, channels: channels, rate: rate,
                    gain: gainStage.itemGain, dither: &playedDither)
            } else {
                playedAudio.publish(
                    history.base + index * channels, count: count, channels: channels, rate: rate,
                    gain: gainStage.itemGain, dither: &playedDither)
            }
            from += Int64(count)
        }
    }

    /// After a flush or a lost device: nothing is queued and the next chunk anchors again.
    /// What had played up to `written` is published first.
    mutating func restartStream(_ now: UInt64) {
        publishPlayed(upTo: timeline.written)
        publishedUpTo = timeline.written
        timeline.rebaseClock(now)
        historyStart = timeline.written
        replayEnd = timeline.written
        timeline.reanchor = true
        timeline.lastDelay = 0
        refilling = true
        pendingStart = nil
    }

    /// Copies `frames` frames from `source` (32-bit samples when `wide`, else S16) into the
    /// history at `written`; S16 into a wide history widened, the value in the top bits.
    func saveHistory(_ source: UnsafePointer<Int16>, frames: Int, wide sourceWide: Bool) {
        let index = Int(timeline.written % Int64(historyFrames))
        let first = min(frames, historyFrames - index)
        guard wide && !sourceWide else {
            let ch = channels * words
            (history.base + index * ch).update(from: source, count: first * ch)
            if first < frames { history.base.update(from: source + first * ch, count: (frames - first) * ch) }
            return
        }
        let ch = channels
        let target = wideSamples(history)
        for i in 0..<first * ch { target[index * ch + i] = Int32(source[i]) << 16 }
        for i in 0..<(frames - first) * ch { target[i] = Int32(source[first * ch + i]) << 16 }
    }

    /// Writes into the history at `written` a crossfade of `frames` frames: `outgoing` fading
    /// out and `incoming` (scaled by `scale`, its ReplayGain over the outgoing one's, which
    /// the gain stage applies) fading in, linearly over a fade of `length` frames from its
    /// frame `at` on, as MPD mixes them (in S16 with dither, widened into a wide history).
    /// Mixed in the period buffer, free until the period is rendered.
    mutating func saveCrossfade(
        _ outgoing: UnsafePointer<Int16>, _ incoming: UnsafePointer<Int16>, frames: Int, at: Int, length: Int,
        scale: Float
    ) {
        let mixed = periodBuffer.base
        gainStage.crossfade(
            outgoing, incoming, frames: frames, channels: channels, at: at, length: length, scale: scale, into: mixed)
        saveHistory(mixed, frames: frames, wide: false)
    }

    /// Copies `frames` frames of history starting at `written` into the period buffer.
    func loadHistory(frames: Int) {
        let ch = channels * words
        let index = Int(timeline.written % Int64(historyFrames))
        let first = min(frames, historyFrames - index)
        periodBuffer.base.update(from: history.base + index * ch, count: first * ch)
        if first < frames { (periodBuffer.base + first * ch).update(from: history.base, count: (frames - first) * ch) }
    }

    /// The `frames` frames at `written`, ready to write: straight from the history when the
    /// gain is a steady 1.0 and they do not wrap (saving a copy per sample, the common case),
    /// else copied into the period buffer with the gain applied and the cue mixed in.
    mutating func renderPeriod(frames: Int) -> UnsafePointer<Int16> {
        let first = timeline.written
        let index = Int(first % Int64(historyFrames))
        let cueSounds = cue.sounds(frames: frames, at: first)
        if !cueSounds && gainStage.isUnity && index + frames <= historyFrames {
            return UnsafePointer(history.base + index * channels * words)
        }
        loadHistory(frames: frames)
        if wide {
            let samples = wideSamples(periodBuffer)
            gainStage.apply(wide: samples, frames: frames, channels: channels, first: first)
            if cueSounds { cue.mix(wide: samples, frames: frames, channels: channels, at: first) }
        } else {
            gainStage.apply(periodBuffer.base, frames: frames, channels: channels, first: first)
            if cueSounds { cue.mix(into: periodBuffer.base, frames: frames, channels: channels, at: first) }
        }
        return UnsafePointer(periodBuffer.base)
    }
}

/// Waits before opening the device again after a failure: 0.1 s, doubling up to 2 s.
private let firstBackoffNs: UInt64 = 100_000_000
private let lastBackoffNs: UInt64 = 2_000_000_000

/// What jb-output does next, decided under the lock and done without it.
private enum OutputStep {
    /// The shared state changed (or a wait ended): decide again.
    case again
    /// Write `frames` frames at `written`; `started` is the item whose first chunk they begin.
    case write(frames: Int, started: UInt64?)
    /// Open the device for `format` (after playing out the old one when it is open); `wide`:
    /// the chunk is 32-bit; `wideFirst`: ask for a wide format first (the chunk is 32-bit or
    /// the queue holds one).
    case open(AudioFormat, wide: Bool, wideFirst: Bool)
    /// Nothing is left and no follow-up came: play out what the device holds.
    case drain
    /// A command taken from the queue: its device calls are made without the lock.
    case command(CommandWork)
    /// A new feedback sound while not playing, on a device that may have run dry after the
    /// last one: drop and prepare it, then start the sound.
    case restartForCue(CueSource, level: Float)
    case exit
}

/// A command's device part, with what it needs from the shared state copied under the lock.
private enum CommandWork {
    /// Take back and drop what the device holds (play, pause, resume, seek, stop, or a speed
    /// change with nothing to replay); `closeForWide`: close it too, to open it wide.
    case flush(closeForWide: Bool)
    /// Fade out what the device holds and play on at the new speed from where the fade ends
    /// (`serial`: the item being written).
    case speed(serial: UInt32)
    /// Ramp to `target`, re-rendering what the device holds when `sounding`.
    case gain(target: Float, sounding: Bool)
}

/// What a write of one period came to.
private struct WriteOutcome {
    var done = 0
    var underruns = 0
    var suspends = 0
    var lost: ALSAError?
}

extension AudioPipeline {
    func outputMain<Sink: AudioSink>(_ sink: consuming Sink) {
        if let refusal = NamedThread.requestRealtimePriority(40) {
            shared.withLock { s in s.realtimeRefusal = refusal.description }
        }
        var o = OutputLocals(sink: sink, playedAudio: playedAudio)
        // Each action ends by deciding the next step under the same lock it accounts under:
        // one lock per period.
        var step = OutputStep.again
        while true {
            switch step {
            case .again: step = shared.withLock { s in nextStep(&s, &o) }
            case .write(let frames, let started): step = writePeriod(&o, frames: frames, started: started)
            case .open(let format, let wide, let wideFirst):
                step = openDevice(&o, format, wide: wide, wideFirst: wideFirst)
            case .drain: step = drainAtEnd(&o)
            case .command(let work): step = performCommand(work, &o)
            case .restartForCue(let cue, let level): step = restartForCue(&o, cue, level: level)
            case .exit:
                if o.isOpen { o.sink.close() }
                return
            }
        }
    }

    /// The command loop's decision, under the lock: a queued command first, then a new
    /// feedback sound, then (playing) the next period, or a wait on the condition.
    private func nextStep<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>) -> OutputStep {
        if !s.commands.isEmpty { return commandStep(s.commands.removeFirst(), s, &o) }
        // Speech is let go of once no re-render can reach it (playing: the history; idle:
        // the silence after it is written), or when another cue replaces it.
        if o.cue.speech != nil,
            s.cueSerial != o.cue.serial
                || o.timeline.written >= o.cue.end + Int64(s.state == .playing ? o.historyFrames : o.buffer)
        {
            o.cue.dropSpeech()
            s.speechReleased = o.cue.serial
            post(.speechEnded, &s)
        }
        if s.cueSerial != o.cue.serial, let cue = s.cue {
            o.cue.serial = s.cueSerial
            s.cueTaken = s.cueSerial
            if s.state != .playing && o.isOpen && !o.clock { return .restartForCue(cue, level: s.cueLevel) }
            o.cue.begin(cue, level: s.cueLevel, at: o.timeline.written)
        }
        guard s.state == .playing else {
            // Only after a cue (serial 0: none yet), or it would write a buffer of silence at start.
            if o.cue.serial != 0 && o.timeline.written < o.cue.end + Int64(o.buffer) { return idleCue(&s, &o) }
            shared.wait(outputWork, &s, nanoseconds: 100_000_000)
            return .again
        }
        let now = o.deep ? MonotonicClock.nanoseconds() : 0
        if o.deep, let start = o.pendingStart,
            o.timeline.written - Int64(o.timeline.queuedEstimate(now, clock: o.clock)) >= start.at
        {
            post(.started(start.token), &s)
            o.pendingStart = nil
            publishPosition(&s, o, delay: o.timeline.queuedEstimate(now, clock: o.clock), at: now)
        }
        let replaying = o.isOpen && o.timeline.written < o.replayEnd
        if !replaying {
            if s.ringCount == 0 {
                if s.awaitingNext { return endOfStream(&s, &o) }
                s.outputWaitsFor = o.timeline.written > o.historyStart ? max(1, slots / 4) : 1
                shared.wait(outputWork, &s, nanoseconds: periodNanoseconds(o))
                s.outputWaitsFor = .max
                return .again
            }
            if let step = headStep(&s, &o) { return step }
        }
        if paceClock(&s, &o) || paceDeepBuffer(&s, &o, now: now) { return .again }
        if replaying { return .write(frames: min(o.block, Int(o.replayEnd - o.timeline.written)), started: nil) }
        return composePeriod(&s, &o)
    }

    /// A command taken from the queue: its device part goes to `performCommand`.
    private func commandStep<Sink>(
        _ command: OutputCommand, _ s: borrowing SharedState, _ o: inout OutputLocals<Sink>
    ) -> OutputStep {
        switch command {
        case .play, .pause, .resume, .seek, .stop: return .command(flushWork(s))
        case .speed: return .command(speedWork(s, &o))
        case .gain: return .command(.gain(target: s.gainTarget, sounding: s.state == .playing))
        case .shutdown: return .exit
        }
    }

    /// What the ring's head asks before its audio is written, if anything: a marker or a
    /// crossfade partner to release, a chunk to decode again, or the device to open (again)
    /// for its format. Nil when its audio can be written.
    private func headStep<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>) -> OutputStep? {
        let c = s.chunks[s.ringHead]
        if c.partner {
            // Its frames went out mixed into the chunk before it.
            popChunk(&s)
            return .again
        }
        if c.kind != .audio || c.read >= c.frames {
            switch c.kind {
            case .audio: break
            case .finished: post(.finished(c.token), &s)
            case .failed: post(.failed(c.token, s.items.failure(c.serial) ?? "decoding failed"), &s)
            }
            popChunk(&s)
            return .again
        }
        if o.isOpen && o.format == c.format && c.wide && s.wideRefused {
            // Decoded wide before the device was found to take S16 only: again, narrowed.
            decodeAgain(&s, &o, from: c.format)
            return .again
        }
        // A wide device takes S16 chunks too (widened): a change of depth reopens only a
        // device open in S16 for a 32-bit chunk.
        guard !o.isOpen || o.format != c.format || (c.wide && !o.wide) else { return nil }
        let now = MonotonicClock.nanoseconds()
        if now < o.retryAtNs {
            shared.wait(outputWork, &s, nanoseconds: o.retryAtNs - now)
            return .again
        }
        // What the open device holds plays out first (woken by commands meanwhile).
        if let waited = waitUntilPlayedOut(&s, &o) { return waited }
        return .open(c.format, wide: c.wide, wideFirst: c.wide || s.queueHoldsWide)
    }

    /// With a deep buffer: once full, waits (woken by commands) until it drained to the low
    /// mark, or to a pending start's first frame; returns true when it waited or the buffer
    /// just filled (decide again).
    private func paceDeepBuffer<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>, now: UInt64) -> Bool {
        guard o.deep else { return false }
        let queued = o.timeline.queuedEstimate(now, clock: o.clock)
        if !o.refilling {
            if queued > o.lowMark {
                var frames = queued - o.lowMark
                if let start = o.pendingStart {
                    frames = min(frames, max(1, Int(start.at - (o.timeline.written - Int64(queued)))))
                }
                shared.wait(outputWork, &s, nanoseconds: UInt64(frames) * 1_000_000_000 / UInt64(o.rate) + 1)
                return true
            }
            o.refilling = true
        }
        if queued + o.block > o.fill {
            o.refilling = false
            return true
        }
        return false
    }

    /// Composes one period from the ring's head chunk into the history (anchoring the item
    /// when it begins there), releases the chunk once read, and has the period written.
    private func composePeriod<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>) -> OutputStep {
        let head = s.ringHead
        let c = s.chunks[head]
        var started: UInt64?
        if o.timeline.reanchor || (c.announce && c.read == 0) || o.timeline.item?.serial != c.serial {
            o.timeline.anchor(
                serial: c.serial, token: c.token, base: c.frameOffset + trackFrames(Int64(c.read), speed: c.speed),
                speed: c.speed)
            o.gainStage.fadeInIfAsked(over: max(1, o.rate / 200))
            if c.announce && c.read == 0 { started = c.token }
        }
        let frames = min(o.block, c.frames - c.read)
        o.gainStage.itemGain = c.gain
        let source =
            samples.base + head * Self.chunkFrames * Self.maxChannels + c.read * c.format.channels * (c.wide ? 2 : 1)
        if c.fadeLength > 0 {
            let partner = (head + 1) % slots
            let incoming = samples.base + partner * Self.chunkFrames * Self.maxChannels + c.read * c.format.channels
            o.saveCrossfade(
                source, incoming, frames: frames, at: c.fadeStart + c.read, length: c.fadeLength,
                scale: s.chunks[partner].gain / c.gain)
        } else {
            o.saveHistory(source, frames: frames, wide: c.wide)
        }
        s.chunks[head].read += frames
        if s.chunks[head].read >= c.frames { popChunk(&s) }
        return .write(frames: frames, started: started)
    }

    /// On a clock-paced device: waits while a period would overfill the virtual buffer
    /// (returns true then: decide again).
    /// A clock-paced card (no device time) waits until a period fits its buffer; a deep
    /// buffer is paced by its own marks instead, but for a cue sounding while paused.
    private func paceClock<Sink>(
        _ s: inout SharedState, _ o: inout OutputLocals<Sink>, evenWhenDeep: Bool = false
    ) -> Bool {
        guard o.clock, evenWhenDeep || !o.deep else { return false }
        let now = MonotonicClock.nanoseconds()
        if o.timeline.virtualPlayed(now) >= o.timeline.written { o.timeline.rebaseClock(now) }
        let queued = o.timeline.virtualDelay(now)
        let excess = queued + o.period - o.buffer
        guard excess > 0 else { return false }
        shared.wait(outputWork, &s, nanoseconds: UInt64(excess) * 1_000_000_000 / UInt64(o.rate) + 1)
        return true
    }

    /// Paused or stopped with a cue to sound: the cue over silence, a period at a time (the
    /// device opened for it at the last format when it is closed), then a buffer of silence
    /// that pushes its end out of the device (a device that runs dry drops what it holds).
    /// After that the output writes nothing more, as before the cue.
    private func idleCue<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>) -> OutputStep {
        if !o.isOpen {
            let now = MonotonicClock.nanoseconds()
            if now < o.retryAtNs {
                shared.wait(outputWork, &s, nanoseconds: o.retryAtNs - now)
                return .again
            }
            return .open(
                o.format ?? AudioFormat(rate: 44100, channels: 2), wide: o.wide, wideFirst: o.wide || s.queueHoldsWide)
        }
        if paceClock(&s, &o, evenWhenDeep: true) { return .again }
        let frames = min(o.block, Int(o.cue.end + Int64(o.buffer) - o.timeline.written))
        o.saveSilence(frames: frames)
        return .write(frames: frames, started: nil)
    }

    /// Writes the period composed at `written` (without the lock), recovering what can be
    /// recovered, then accounts for it under the lock and decides the next step.
    private func writePeriod<Sink>(_ o: inout OutputLocals<Sink>, frames: Int, started: UInt64?) -> OutputStep {
        let period = o.renderPeriod(frames: frames)
        let outcome = write(&o, period, frames: frames)
        let deviceDelay = outcome.lost != nil || o.clock ? 0 : max(0, (try? o.sink.delay()) ?? 0)
        let measuredAt = o.deep ? MonotonicClock.nanoseconds() : 0
        if o.deep && !o.rewindChecked && deviceDelay >= 2 * o.lowMark {
            o.rewindChecked = true
            if o.sink.rewindable() < deviceDelay - o.lowMark { o.keepShallow(period: o.period) }
        }
        let next = shared.withLock { s -> OutputStep in
            o.timeline.written += Int64(outcome.done)
            s.underruns += outcome.underruns
            s.suspends += outcome.suspends
            if let started {
                if o.deep {
                    // Two starts within one buffer: the earlier one is posted now.
                    if let earlier = o.pendingStart { post(.started(earlier.token), &s) }
                    o.pendingStart = (started, o.timeline.itemFirstWritten)
                } else {
                    post(.started(started), &s)
                }
            }
            if let lost = outcome.lost {
                deviceLost(&s, &o, lost)
                return .again
            }
            let d = o.clock ? o.timeline.virtualDelay(MonotonicClock.nanoseconds()) : deviceDelay
            o.timeline.lastDelay = d
            o.publishPlayed(upTo: o.timeline.written - Int64(d))
            o.timeline.lastDelayNs = measuredAt
            publishPosition(&s, o, delay: d, at: measuredAt)
            return nextStep(&s, &o)
        }
        if outcome.lost != nil {
            o.sink.close()
            o.deviceDid(.closed)
        }
        return next
    }

    /// Writes `frames` frames, as snd_pcm_recover would recover: -EINTR again, -EPIPE
    /// prepared, -ESTRPIPE resumed; anything else ends the write as a lost device.
    private func write<Sink>(_ o: inout OutputLocals<Sink>, _ period: UnsafePointer<Int16>, frames: Int)
        -> WriteOutcome
    {
        var outcome = WriteOutcome()
        let channels = o.channels
        while outcome.done < frames {
            do throws(ALSAError) {
                outcome.done +=
                    o.wide
                    ? try o.sink.write(
                        wide: UnsafeRawPointer(period).assumingMemoryBound(to: Int32.self) + outcome.done * channels,
                        frames: frames - outcome.done)
                    : try o.sink.write(period + outcome.done * channels, frames: frames - outcome.done)
                o.deviceDid(.wrote)
            } catch {
                switch error.code {
                case EINTR:
                    continue
                case EPIPE:
                    outcome.underruns += 1
                    o.deviceDid(.underrun)
                    do throws(ALSAError) {
                        try o.sink.prepare()
                        o.deviceDid(.prepared)
                    } catch {
                        o.deviceDid(.failed)
                        outcome.lost = error
                        return outcome
                    }
                case ESTRPIPE:
                    outcome.suspends += 1
                    o.deviceDid(.suspend)
                    if let failure = resumeAfterSuspend(&o) {
                        o.deviceDid(.failed)
                        outcome.lost = failure
                        return outcome
                    }
                default:
                    o.deviceDid(.failed)
                    outcome.lost = error
                    return outcome
                }
            }
        }
        return outcome
    }

    /// A suspended device (the machine slept): resume it, trying again every 10 ms for up to
    /// a second while the driver answers -EAGAIN, else prepare it (snd_pcm_recover's way).
    /// Returns the error when neither works. Between tries jb-output waits on its condition
    /// (without the lock), not in a sleep.
    private func resumeAfterSuspend<Sink>(_ o: inout OutputLocals<Sink>) -> ALSAError? {
        let giveUpAt = MonotonicClock.nanoseconds() + 1_000_000_000
        while true {
            do throws(ALSAError) {
                try o.sink.resume()
                o.deviceDid(.resumed)
                return nil
            } catch {
                guard error.code == EAGAIN else { break }
                o.deviceDid(.stillWaking)
            }
            let now = MonotonicClock.nanoseconds()
            guard now < giveUpAt else { break }
            _ = shared.withLock { s in shared.wait(outputWork, &s, nanoseconds: min(10_000_000, giveUpAt - now)) }
        }
        do throws(ALSAError) {
            try o.sink.prepare()
            o.deviceDid(.prepared)
            return nil
        } catch {
            return error
        }
    }

    /// The device went away while playing. What it held is gone with it, so playback goes on,
    /// once it opens again, at the frame that was audible: decoding starts again from there.
    /// The caller closes the sink after unlocking.
    private func deviceLost<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>, _ error: ALSAError) {
        s.deviceLosses += 1
        s.deviceError = error.description
        // With a start pending the device held the previous item: the anchor stays the start.
        let audible = s.startPending ? nil : o.timeline.audible(delay: o.timeline.lastDelay)
        o.timeline.written -= Int64(o.timeline.lastDelay)
        o.timeline.lastDelay = 0
        o.restartStream(MonotonicClock.nanoseconds())
        o.backoffNs = firstBackoffNs
        o.retryAtNs = MonotonicClock.nanoseconds() + o.backoffNs
        if audible != nil { s.anchorDecoding = false }
        settle(&s, audible: audible)
    }

    /// Reports the audible item and frame with `delay` frames queued. With a deep buffer the
    /// position then advances with the clock (see `SharedState.positionNs`) until the item's
    /// last frame written so far.
    private func publishPosition<Sink>(
        _ s: inout SharedState, _ o: borrowing OutputLocals<Sink>, delay: Int, at now: UInt64
    ) {
        guard let audible = o.timeline.audible(delay: delay) else { return }
        s.positionToken = audible.token
        s.positionFrames = audible.frame
        s.positionNs = o.deep ? max(now, 1) : 0
        // In track time (an item's frames may be stretched to another speed).
        (s.positionLimit, s.positionSpeed) = o.timeline.positionLimit(delay: delay, audibleFrame: audible.frame)
    }

    private func periodNanoseconds<Sink>(_ o: borrowing OutputLocals<Sink>) -> UInt64 {
        UInt64(max(o.period, 1)) * 1_000_000_000 / UInt64(o.rate)
    }

    /// Releases the head slot to jb-decode. jb-decode is woken only when the ring has drained
    /// to half (it then refills it in one burst): waking it for every chunk cost two context
    /// switches per 46 ms of audio, more CPU than the copying.
    private func popChunk(_ s: inout SharedState) {
        s.ringHead = (s.ringHead + 1) % slots
        s.ringCount -= 1
        s.consumedSeq += 1
        if s.ringCount <= slots / 2 { decodeWork.broadcast() }
    }

    /// A flush command's work, as decided under the lock: a device open in S16 while the
    /// queue now holds a wide source the device takes is closed, to open it wide where the
    /// audio breaks anyway, not at a join.
    private func flushWork(_ s: borrowing SharedState) -> CommandWork {
        .flush(closeForWide: s.queueHoldsWide && !s.wideRefused)
    }

    /// A speed command's work: a replay fading out what the device holds when the audible
    /// position is to be resolved on an item being written, else an ordinary flush (the
    /// device just started, or is gone), fading in at the next anchor when it is open.
    private func speedWork<Sink>(_ s: borrowing SharedState, _ o: inout OutputLocals<Sink>) -> CommandWork {
        guard s.needsResolve, o.isOpen, !o.timeline.reanchor, !s.startPending, let item = o.timeline.item,
            s.items.item(item.serial) != nil
        else {
            o.gainStage.fadeInAtAnchor = o.isOpen
            return flushWork(s)
        }
        return .speed(serial: item.serial)
    }

    /// Does a command's device calls without the lock, then (under it) what follows in the
    /// shared state, and decides the next step.
    private func performCommand<Sink>(_ work: CommandWork, _ o: inout OutputLocals<Sink>) -> OutputStep {
        switch work {
        case .flush(let closeForWide):
            let now = MonotonicClock.nanoseconds()
            let held = flushDevice(&o, now: now, closeForWide: closeForWide)
            return shared.withLock { s in
                settleFlush(&s, &o, held: held, now: now)
                return nextStep(&s, &o)
            }
        case .speed(let serial):
            let resumeAt = replayFadingOut(&o)
            return shared.withLock { s in
                // A stop or another item that came meanwhile goes next, and the speed change
                // then has no position to keep.
                if s.state != .stopped, !s.startPending, let playing = s.items.item(serial) {
                    s.needsResolve = false
                    s.anchor = (playing, .frame(resumeAt))
                }
                settle(&s, audible: nil)
                return nextStep(&s, &o)
            }
        case .gain(let target, let sounding):
            rampGain(&o, to: target, sounding: sounding)
            return .again
        }
    }

    /// A flush's device part: takes back what the device holds (rewind) and drops the rest,
    /// closing it when `closeForWide`. Returns the frames it still held after the rewind
    /// (nil when it was not open): the audible position is resolved from them under the lock.
    private func flushDevice<Sink>(_ o: inout OutputLocals<Sink>, now: UInt64, closeForWide: Bool) -> Int? {
        guard o.isOpen else { return nil }
        let rewound: Int
        if o.clock {
            rewound = o.timeline.virtualDelay(now)
        } else {
            let rewindable = o.sink.rewindable()
            rewound = (try? o.sink.rewind(rewindable)) ?? 0
        }
        o.timeline.written -= Int64(rewound)
        let held = o.clock ? 0 : max(0, (try? o.sink.delay()) ?? 0)
        _ = try? o.sink.drop()
        _ = try? o.sink.prepare()
        o.deviceDid(.prepared)
        if closeForWide && !o.wide {
            o.sink.close()
            o.deviceDid(.closed)
        }
        return held
    }

    /// A flush's accounting: posts a start that became audible, resolves the audible position
    /// when asked (from the `held` frames the device still had), and restarts decoding where
    /// playback must continue.
    private func settleFlush<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>, held: Int?, now: UInt64) {
        let resolve = s.needsResolve
        s.needsResolve = false
        var audibleNow: Audible?
        if let held {
            if let start = o.pendingStart, o.timeline.written - Int64(held) >= start.at {
                post(.started(start.token), &s)
            }
            if resolve && !s.startPending { audibleNow = o.timeline.audible(delay: held) }
            o.timeline.written -= Int64(held)
        }
        o.restartStream(now)
        s.startPending = false
        settle(&s, audible: audibleNow)
    }

    /// A new speed while playing: what the device holds is rewound, its first ~5 ms played
    /// again from the history fading out, and decoding starts again at the item frame where
    /// the fade ends (returned), at the new speed, fading in (click-free, heard within about a
    /// period).
    private func replayFadingOut<Sink>(_ o: inout OutputLocals<Sink>) -> Int64 {
        let rewound = rewindForReplay(&o)
        let fade = min(rewound, max(1, o.rate / 200))
        let resumeAt = o.timeline.written + Int64(fade)
        if fade > 0 {
            o.replayEnd = resumeAt
            o.gainStage.ramp(to: 0, over: fade)
        }
        let frame = max(0, o.timeline.itemFrame(at: resumeAt))
        o.timeline.reanchor = true
        o.gainStage.fadeInAtAnchor = true
        return frame
    }

    /// A feedback sound while not playing: the device may have run dry after the last one,
    /// so it starts afresh (without the lock), then the sound starts.
    private func restartForCue<Sink>(_ o: inout OutputLocals<Sink>, _ cue: CueSource, level: Float) -> OutputStep {
        let held = max(0, (try? o.sink.delay()) ?? 0)
        _ = try? o.sink.drop()
        _ = try? o.sink.prepare()
        o.deviceDid(.prepared)
        o.timeline.written -= Int64(held)
        o.restartStream(MonotonicClock.nanoseconds())
        o.cue.begin(cue, level: level, at: o.timeline.written)
        return .again
    }

    /// After a flush or a lost device: anchors playback at `audible` (when known) or at the
    /// pending seek, and has jb-decode start there if playing and not decoding it already.
    /// Paused on a file, jb-decode decodes from there too: `resume()` then writes at once,
    /// instead of after a seek and a read (28 ms for a read over the virtual board's 9p on a
    /// busy host, more than the rest of a button's path). A stream is not read while paused.
    private func settle(_ s: inout SharedState, audible: Audible?) {
        if let audible, let item = s.items.item(audible.serial) {
            s.anchor = (item, .frame(max(0, audible.frame)))
            if let decoding = s.decodingItem, decoding.token != item.token, s.nextItem == nil {
                s.nextItem = decoding
            }
        }
        if let ms = s.pendingSeekMs, let anchor = s.anchor {
            s.anchor = (anchor.item, .ms(ms))
        }
        s.pendingSeekMs = nil
        if let anchor = s.anchor, s.state != .stopped {
            s.positionToken = anchor.item.token
            s.positionFrames = anchor.start.frames(rate: s.format?.rate ?? 44100)
            s.positionNs = 0
        }
        if let anchor = s.anchor, !s.anchorDecoding,
            s.state == .playing || (s.state == .paused && !StationPlaylist.isStreamURL(anchor.item.path))
        {
            s.clearRing()
            s.restartDecoding((anchor.item, anchor.start, false))
            s.anchorDecoding = true
            decodeWork.broadcast()
        }
    }

    /// Takes back what the device still holds as far as the history can play it again (not
    /// past the item's first frame, nor `notBefore`); returns how many frames `written` went
    /// back.
    private func rewindForReplay<Sink>(_ o: inout OutputLocals<Sink>, notBefore: Int64 = 0) -> Int {
        let oldest = max(
            o.historyStart, o.timeline.itemFirstWritten, o.timeline.written - Int64(o.historyFrames - o.period),
            notBefore)
        let available = Int(max(0, o.timeline.written - oldest))
        let rewound: Int
        if o.clock {
            rewound = min(available, o.timeline.virtualDelay(MonotonicClock.nanoseconds()))
        } else {
            rewound = (try? o.sink.rewind(min(available, o.sink.rewindable()))) ?? 0
        }
        o.timeline.written -= Int64(max(0, rewound))
        return max(0, rewound)
    }

    /// A new software gain `target`: start a ~5 ms ramp and re-render what ALSA still holds
    /// when the output is `sounding` (playing on an open device).
    private func rampGain<Sink>(_ o: inout OutputLocals<Sink>, to target: Float, sounding: Bool) {
        o.gainStage.fadeInAtAnchor = false
        guard o.isOpen, sounding else { return o.gainStage.jump(to: target, at: o.timeline.written) }
        // Mid-ramp (two changes within ~5 ms, e.g. fade steps from a late control loop), the
        // frames already written are not at `gain`: go on from the last one without taking
        // any back; otherwise take back only frames rendered at the steady `gain`.
        let steadyFrom = o.gainStage.rampLeft > 0 ? o.timeline.written : o.gainStage.steadyFrom
        o.gainStage.target = target
        o.gainStage.ramp(to: target, over: max(1, o.rate / 200))
        guard !o.timeline.reanchor else { return }
        let rewound = rewindForReplay(&o, notBefore: steadyFrom)
        o.replayEnd = max(o.replayEnd, o.timeline.written + Int64(rewound))
        o.timeline.lastDelay = max(0, o.timeline.lastDelay - rewound)
        o.refilling = true
    }

    /// Opens (or reopens, after the old format played out: see `waitUntilPlayedOut`) the
    /// device for `format`, in a wide sample format first when `wideFirst` (32-bit samples,
    /// or the queue holds a wide source) or when it was open wide before (a rate change, a lost device: it stays wide,
    /// so a later change of depth is gapless; a box that never plays a wide source keeps
    /// S16); on failure, tries again after the backoff. A device granted a wide format is used
    /// wide whatever the chunk's depth.
    private func openDevice<Sink>(
        _ o: inout OutputLocals<Sink>, _ format: AudioFormat, wide: Bool, wideFirst: Bool
    ) -> OutputStep {
        if o.isOpen {
            // A clock-paced device played out meanwhile; a real one plays out here.
            if !o.clock { _ = try? o.sink.drain() }
            o.publishPlayed(upTo: o.timeline.written)
            o.sink.close()
            o.deviceDid(.closed)
        }
        let request = PCMRequest(
            device: config.device, rate: UInt32(format.rate), channels: UInt32(format.channels),
            periodMicroseconds: UInt32(config.periodMs * 1000), bufferMicroseconds: UInt32(config.bufferMs * 1000),
            deepBufferMicroseconds: UInt32(config.deepBufferMs * 1000),
            formats: wideFirst || o.wide ? [.s32, .s24, .s24Packed, .s16] : [.s16, .s32, .s24, .s24Packed])
        let opened = Result { () throws(ALSAError) in try o.sink.open(request) }
        // The feedback sounds at the device's rate, before taking the lock.
        if case .success(let grant) = opened { o.cue.tones.render(rate: grant.rate) }
        return shared.withLock { s in
            if o.device == .reopening { s.reopenAttempts += 1 }
            switch opened {
            case .success(let grant):
                o.format = AudioFormat(rate: grant.rate, channels: format.channels)
                o.wide = grant.format != .s16
                accept(grant, &s, &o)
                // The device does not take this rate, or no wide format: it stays open as it
                // is, and decoding starts again where the ring's head is, resampled to its
                // rate (MPD's way too) or narrowed to S16 with dither.
                if grant.rate != format.rate { s.deviceRate = grant.rate }
                if !grant.takesWide { s.wideRefused = true }
                if grant.rate != format.rate || (wide && !o.wide) { decodeAgain(&s, &o, from: format) }
            case .failure(let error):
                s.deviceError = error.description
                o.deviceDid(.openFailed)
                o.retryAtNs = MonotonicClock.nanoseconds() + o.backoffNs
                o.backoffNs = min(o.backoffNs * 2, lastBackoffNs)
            }
            return nextStep(&s, &o)
        }
    }

    /// Takes over what the device granted, at `o.format`.
    private func accept<Sink>(_ grant: SinkGrant, _ s: inout SharedState, _ o: inout OutputLocals<Sink>) {
        o.deviceDid(.opened)
        o.backoffNs = firstBackoffNs
        o.period = min(grant.periodFrames, o.periodCapacity)
        o.buffer = grant.bufferFrames
        o.clock = config.pacing == .clock || (config.pacing == .auto && grant.swallowsData)
        o.block =
            grant.swallowsData && !o.clock ? min(max(o.buffer, o.period), o.periodCapacity) : o.period
        // A write that a FIFO holds up (ALSA's `file` PCM) keeps jb-output from a command until
        // it returns, and its audio can no longer be taken back: a quarter period at a time
        // keeps both short (a press reached the audio in 23 ms p95 with whole periods; 4x the
        // writes, on such devices only).
        if grant.writesThrough && !o.clock { o.block = max(1, o.period / 4) }
        // Wake when the deep buffer has drained to the configured one (at least two periods).
        let low = max(config.bufferMs * grant.rate / 1000, 2 * o.period)
        // The clock-paced virtual card takes back exactly what it holds: as deep as asked.
        if o.clock && config.deepBufferMs > config.bufferMs { o.buffer = config.deepBufferMs * grant.rate / 1000 }
        o.deep = (grant.deep || o.clock) && o.buffer >= 2 * low
        o.rewindChecked = o.clock
        if o.deep {
            o.fill = o.buffer
            o.lowMark = low
            // Fewer, larger writes: one ring chunk at most, and never more than fits.
            o.block = min(max(o.period, o.fill - o.lowMark), Self.chunkFrames, o.periodCapacity)
        }
        o.fitHistory(toCover: o.buffer + o.block + o.period)
        o.timeline.rate = grant.rate
        o.cue.reopened(shift: o.timeline.restartCount())
        o.refilling = true
        o.pendingStart = nil
        o.historyStart = 0
        o.replayEnd = 0
        o.publishedUpTo = 0
        o.timeline.rebaseClock(MonotonicClock.nanoseconds())
        s.format = o.format
        s.periodFrames = grant.periodFrames
        s.bufferFrames = grant.bufferFrames
        s.pacing = o.clock ? .clock : .device
        s.deviceError = nil
        s.deviceOpens += 1
    }

    /// The ring holds audio at `format`, which the device refused: it is dropped and decoding
    /// starts again at the head chunk's position (with its announcement, when nothing of it was
    /// written), now at the device's rate and width. A follow-up jb-decode had moved on to
    /// stays the follow-up.
    private func decodeAgain<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>, from format: AudioFormat) {
        let c = s.chunks[s.ringHead]
        guard s.ringCount > 0, c.kind == .audio, let item = s.items.item(c.serial) else { return }
        if let decoding = s.decodingItem, decoding.token != item.token, s.nextItem == nil { s.nextItem = decoding }
        let frame = c.frameOffset + trackFrames(Int64(c.read), speed: c.speed)
        o.restartStream(MonotonicClock.nanoseconds())
        s.clearRing()
        s.anchor = (item, .ms(frame * 1000 / Int64(format.rate)))
        s.restartDecoding((item, .decoderFrame(frame), c.announce && c.read == 0))
        s.anchorDecoding = true
        decodeWork.broadcast()
    }

    /// Nothing is left and no follow-up came: on a clock-paced device wait until it played
    /// out (then report the end), else have the device drained without the lock.
    private func endOfStream<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>) -> OutputStep {
        if let waited = waitUntilPlayedOut(&s, &o) { return waited }
        if o.isOpen && !o.clock { return .drain }
        finishStream(&s, &o)
        return .again
    }

    /// Waits (woken by commands) while a clock-paced or deep buffer still plays, so that the
    /// blocking drain before a close or at the end holds jb-output for no more than the
    /// estimate missed. Nil once it has played out.
    private func waitUntilPlayedOut<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>) -> OutputStep? {
        guard o.isOpen && (o.clock || o.deep) else { return nil }
        let now = MonotonicClock.nanoseconds()
        let remaining = o.clock ? o.timeline.virtualDelay(now) : o.timeline.queuedEstimate(now, clock: o.clock)
        guard remaining > 0 else { return nil }
        shared.wait(outputWork, &s, nanoseconds: UInt64(remaining) * 1_000_000_000 / UInt64(o.rate) + 1)
        return .again
    }

    private func drainAtEnd<Sink>(_ o: inout OutputLocals<Sink>) -> OutputStep {
        if let start = o.pendingStart {
            shared.withLock { s in post(.started(start.token), &s) }
            o.pendingStart = nil
        }
        _ = try? o.sink.drain()
        _ = try? o.sink.prepare()
        o.deviceDid(.prepared)
        return shared.withLock { s in
            // A command or a follow-up that came meanwhile goes first.
            if s.commands.isEmpty, s.ringCount == 0, s.awaitingNext, s.state == .playing { finishStream(&s, &o) }
            return nextStep(&s, &o)
        }
    }

    private func finishStream<Sink>(_ s: inout SharedState, _ o: inout OutputLocals<Sink>) {
        post(.endOfStream, &s)
        s.state = .stopped
        s.anchor = nil
        s.anchorDecoding = false
        s.restartDecoding(nil)
        s.positionToken = nil
        s.positionFrames = 0
        s.positionNs = 0
        o.restartStream(MonotonicClock.nanoseconds())
        decodeWork.broadcast()
    }
}
