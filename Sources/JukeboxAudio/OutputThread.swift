import ALSA
import Glibc
import LinuxSupport

// jb-output: owns the ALSA PCM. It drains the ring one period at a time into snd_pcm_writei,
// applies the software gain, and turns ring markers into events. It does not allocate, log,
// or do file I/O on its path (the buffers below are allocated when the thread starts, the
// history grown when the device is opened), and it never holds `lock` while in
// snd_pcm_writei or snd_pcm_drain: a period is copied out of the ring into the history under
// the lock, the lock is released, then the gain is applied (into the period buffer; at a
// steady 1.0 the history itself is written) and the period is written. It wakes at least once
// per period (snd_pcm_writei returns after about a period once the buffer is full; idle waits
// time out), so a command reaches the device within one period:
// - pause/seek/skip/stop: rewind what ALSA holds (snd_pcm_rewindable/rewind), note the
//   position actually played (frames written − snd_pcm_delay), then snd_pcm_drop;
// - software volume: rewind the frames still queued and re-render them from a history of
//   source frames with the new gain (from the next period when rewinding is not possible).
// Underruns and suspends are recovered (PCM.recover) and counted; the control side logs them.

/// jb-output's own state. Only jb-output touches it.
struct OutputLocals {
    var pcm: PCM?
    var format: AudioFormat?
    var clock = false
    var period = 441
    /// Frames per write: one period, so that a command is seen within one period; a whole
    /// buffer on a PCM that does not play in real time (ALSA `null` without clock pacing,
    /// the benchmark's case), where per-write overhead would dominate.
    var block = 441
    var buffer = 1764
    /// Frames written to the PCM since it was opened, minus what was rewound or dropped:
    /// the index of the next frame, and the index into `history`.
    var written: Int64 = 0
    var epoch: UInt64 = 0
    var retryAtNs: UInt64 = 0

    var item: PlaybackItem?
    /// `written` index that corresponds to frame 0 of `item`.
    var itemOrigin: Int64 = 0
    var itemFirstWritten: Int64 = 0
    var prevItem: PlaybackItem?
    var prevOrigin: Int64 = 0
    /// After a flush the next audio chunk anchors the item bookkeeping again.
    var reanchor = true

    /// The source frames of what was written (a ring indexed by `written`), to re-render
    /// what ALSA still holds with a new gain. It only has to cover the device buffer and one
    /// block, so it is sized when the device is opened (a few KiB at 40 ms), not for the
    /// largest buffer the config allows: a 512 KiB ring cost page faults and cache misses.
    private(set) var history: UnsafeMutablePointer<Int16>
    private(set) var historyFrames = 4096
    var historyStart: Int64 = 0
    /// Frames in `written ..< replayEnd` are re-rendered from `history` before the ring is read.
    var replayEnd: Int64 = 0
    let periodBuffer: UnsafeMutablePointer<Int16>
    let periodCapacity = 16384

    var gainTarget: Float = 1
    var gain: Float = 1
    var rampStep: Float = 0
    var rampLeft = 0

    var clockBaseNs: UInt64 = 0
    var clockBaseFrames: Int64 = 0

    init() {
        history = .allocate(capacity: historyFrames * AudioPipeline.maxChannels)
        history.initialize(repeating: 0, count: historyFrames * AudioPipeline.maxChannels)
        periodBuffer = .allocate(capacity: periodCapacity * AudioPipeline.maxChannels)
        periodBuffer.initialize(repeating: 0, count: periodCapacity * AudioPipeline.maxChannels)
    }

    /// Grows the history to at least `frames` frames. Only at device open, never per period.
    mutating func fitHistory(toCover frames: Int) {
        guard frames > historyFrames else { return }
        history.deallocate()
        historyFrames = frames
        history = .allocate(capacity: historyFrames * AudioPipeline.maxChannels)
        history.initialize(repeating: 0, count: historyFrames * AudioPipeline.maxChannels)
    }

    func release() {
        history.deallocate()
        periodBuffer.deallocate()
    }

    var channels: Int { format?.channels ?? 2 }
    var rate: Int { format?.rate ?? 44100 }

    /// Frames the virtual (clock-paced) device has played.
    func virtualPlayed(_ now: UInt64) -> Int64 {
        guard now > clockBaseNs else { return min(written, clockBaseFrames) }
        let elapsed = Int64((now - clockBaseNs) * UInt64(rate) / 1_000_000_000)
        return min(written, clockBaseFrames + elapsed)
    }

    mutating func rebaseClock(_ now: UInt64) {
        clockBaseNs = now
        clockBaseFrames = written
    }

    /// Frames written but not yet played.
    func delay(_ now: UInt64) -> Int {
        if clock { return Int(written - virtualPlayed(now)) }
        guard let pcm else { return 0 }
        return max(0, (try? pcm.delay()) ?? 0)
    }

    /// The item and frame the device is playing, given the device delay.
    func audible(delay: Int) -> (PlaybackItem, Int64)? {
        guard let item, !reanchor else { return nil }
        let played = written - Int64(delay)
        if played >= itemFirstWritten { return (item, played - itemOrigin) }
        if let prevItem { return (prevItem, played - prevOrigin) }
        return (item, itemFirstWritten - itemOrigin)
    }

    /// Copies `frames` frames from `source` into the history at `written`.
    func saveHistory(_ source: UnsafePointer<Int16>, frames: Int) {
        let ch = channels
        let index = Int(written % Int64(historyFrames))
        let first = min(frames, historyFrames - index)
        (history + index * ch).update(from: source, count: first * ch)
        if first < frames { history.update(from: source + first * ch, count: (frames - first) * ch) }
    }

    /// Copies `frames` frames of history starting at `written` into the period buffer.
    func loadHistory(frames: Int) {
        let ch = channels
        let index = Int(written % Int64(historyFrames))
        let first = min(frames, historyFrames - index)
        periodBuffer.update(from: history + index * ch, count: first * ch)
        if first < frames { (periodBuffer + first * ch).update(from: history, count: (frames - first) * ch) }
    }

    /// The `frames` frames at `written`, ready to write: straight from the history when the
    /// gain is a steady 1.0 and they do not wrap (saving a copy per sample, the common case),
    /// else copied into the period buffer with the gain applied.
    mutating func renderPeriod(frames: Int) -> UnsafePointer<Int16> {
        let index = Int(written % Int64(historyFrames))
        if rampLeft == 0 && gain == 1.0 && index + frames <= historyFrames {
            return UnsafePointer(history + index * channels)
        }
        loadHistory(frames: frames)
        applyGain(frames: frames)
        return UnsafePointer(periodBuffer)
    }

    /// Applies the gain (with its ramp) to the period buffer in place. A steady gain of exactly
    /// 1.0 leaves the samples untouched.
    mutating func applyGain(frames: Int) {
        if rampLeft == 0 && gain == 1.0 { return }
        let ch = channels
        var i = 0
        for _ in 0..<frames {
            if rampLeft > 0 {
                gain += rampStep
                rampLeft -= 1
                if rampLeft == 0 { gain = gainTarget }
            }
            for _ in 0..<ch {
                let v = (Float(periodBuffer[i]) * gain).rounded()
                periodBuffer[i] = Int16(max(-32768, min(32767, v)))
                i += 1
            }
        }
    }
}

extension AudioPipeline {
    func outputMain() {
        if let refusal = NamedThread.requestRealtimePriority(40) {
            lock.withLock { s.realtimeRefusal = refusal.description }
        }
        var o = OutputLocals()
        lock.lock()
        while !s.shutdown {
            if s.epoch != o.epoch {
                handleFlush(&o)
                continue
            }
            if s.gainTarget != o.gainTarget { handleGain(&o) }
            guard s.state == .playing else {
                lock.wait(nanoseconds: 100_000_000)
                continue
            }
            let replaying = o.pcm != nil && o.written < o.replayEnd
            if !replaying && s.ringCount == 0 {
                if s.awaitingNext {
                    endOfStream(&o)
                } else {
                    s.outputWaitsFor = o.written > o.historyStart ? max(1, slots / 4) : 1
                    lock.wait(nanoseconds: periodNanoseconds(o))
                    s.outputWaitsFor = 1
                }
                continue
            }
            let head = s.ringHead
            if !replaying {
                let c = s.chunks[head]
                if c.kind != .audio || c.read >= c.frames {
                    switch c.kind {
                    case .audio: break
                    case .finished: post(.finished(c.item.token))
                    case .failed(let message): post(.failed(c.item.token, message))
                    }
                    popChunk()
                    continue
                }
                if o.pcm == nil || o.format != c.format {
                    openDevice(&o, c.format)
                    continue
                }
            }
            guard let pcm = o.pcm else { continue }
            let now = MonotonicClock.nanoseconds()
            if o.clock {
                let played = o.virtualPlayed(now)
                if played >= o.written { o.rebaseClock(now) }
                let queued = Int(o.written - o.virtualPlayed(now))
                let excess = queued + o.period - o.buffer
                if excess > 0 {
                    lock.wait(nanoseconds: UInt64(excess) * 1_000_000_000 / UInt64(o.rate) + 1)
                    continue
                }
            }
            // Compose one period.
            var frames: Int
            var startedToken: UInt64?
            if replaying {
                frames = min(o.block, Int(o.replayEnd - o.written))
            } else {
                let c = s.chunks[head]
                if o.reanchor || (c.announce && c.read == 0) || o.item?.token != c.item.token {
                    if !o.reanchor, let current = o.item {
                        o.prevItem = current
                        o.prevOrigin = o.itemOrigin
                    } else {
                        o.prevItem = nil
                    }
                    o.item = c.item
                    o.itemOrigin = o.written - (c.frameOffset + Int64(c.read))
                    o.itemFirstWritten = o.written
                    o.reanchor = false
                    if c.announce && c.read == 0 { startedToken = c.item.token }
                }
                frames = min(o.block, c.frames - c.read)
                let source = samples + head * Self.chunkFrames * Self.maxChannels + c.read * c.format.channels
                o.saveHistory(source, frames: frames)
                s.chunks[head].read += frames
                if s.chunks[head].read >= c.frames { popChunk() }
            }
            lock.unlock()
            let period = o.renderPeriod(frames: frames)

            var done = 0
            var underruns = 0
            var failure: ALSAError?
            while done < frames {
                do {
                    done += try pcm.write(period + done * o.channels, frames: frames - done)
                } catch {
                    if error.code == EPIPE || error.code == ESTRPIPE {
                        underruns += 1
                        do { try pcm.recover(from: error) } catch {
                            failure = error
                            break
                        }
                    } else {
                        failure = error
                        break
                    }
                }
            }
            let deviceDelay = o.clock ? 0 : max(0, (try? pcm.delay()) ?? 0)

            lock.lock()
            o.written += Int64(done)
            s.underruns += underruns
            if let startedToken { post(.started(startedToken)) }
            if let failure {
                s.deviceError = failure.description
                o.pcm = nil
                o.retryAtNs = MonotonicClock.nanoseconds() + 2_000_000_000
                continue
            }
            let d = o.clock ? o.delay(MonotonicClock.nanoseconds()) : deviceDelay
            if let (item, frame) = o.audible(delay: d) {
                s.positionToken = item.token
                s.positionFrames = frame
            }
        }
        lock.unlock()
        o.pcm = nil
        o.release()
    }

    private func periodNanoseconds(_ o: OutputLocals) -> UInt64 {
        UInt64(max(o.period, 1)) * 1_000_000_000 / UInt64(o.rate)
    }

    /// Releases the head slot to jb-decode. Call with `lock` held. jb-decode is woken only
    /// when the ring has drained to half (it then refills it in one burst): waking it for
    /// every chunk cost two context switches per 46 ms of audio, more CPU than the copying.
    private func popChunk() {
        s.ringHead = (s.ringHead + 1) % slots
        s.ringCount -= 1
        s.consumedSeq += 1
        if s.ringCount <= slots / 2 { lock.broadcast() }
    }

    /// A command flushed the device: rewind and drop what it holds, resolve the audible
    /// position when asked, and restart decoding where playback must continue.
    /// Call with `lock` held.
    private func handleFlush(_ o: inout OutputLocals) {
        o.epoch = s.epoch
        let resolve = s.needsResolve
        s.needsResolve = false
        let now = MonotonicClock.nanoseconds()
        var audibleNow: (PlaybackItem, Int64)?
        if let pcm = o.pcm {
            let rewound: Int
            if o.clock {
                rewound = Int(o.written - o.virtualPlayed(now))
            } else {
                rewound = (try? pcm.rewind(pcm.rewindable())) ?? 0
            }
            o.written -= Int64(rewound)
            let d = o.clock ? 0 : max(0, (try? pcm.delay()) ?? 0)
            if resolve { audibleNow = o.audible(delay: d) }
            _ = try? pcm.drop()
            _ = try? pcm.prepare()
            o.written -= Int64(d)
        }
        o.rebaseClock(now)
        o.historyStart = o.written
        o.replayEnd = o.written
        o.reanchor = true
        if let (item, frame) = audibleNow {
            s.anchor = (item, .frame(max(0, frame)))
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
        }
        if s.state == .playing, !s.anchorDecoding, let anchor = s.anchor {
            s.clearRing()
            s.decodeRequest = (anchor.item, anchor.start, false)
            s.decodeGen &+= 1
            s.anchorDecoding = true
            lock.broadcast()
        }
    }

    /// A new software gain: start a ~5 ms ramp and re-render what ALSA still holds.
    /// Call with `lock` held.
    private func handleGain(_ o: inout OutputLocals) {
        o.gainTarget = s.gainTarget
        let ramp = max(1, o.rate / 200)
        o.rampStep = (o.gainTarget - o.gain) / Float(ramp)
        o.rampLeft = ramp
        guard let pcm = o.pcm, s.state == .playing, !o.reanchor else { return }
        let oldest = max(o.historyStart, o.itemFirstWritten, o.written - Int64(o.historyFrames - o.period))
        let available = Int(max(0, o.written - oldest))
        let rewound: Int
        if o.clock {
            rewound = min(available, o.delay(MonotonicClock.nanoseconds()))
        } else {
            rewound = (try? pcm.rewind(min(available, pcm.rewindable()))) ?? 0
        }
        guard rewound > 0 else { return }
        o.written -= Int64(rewound)
        o.replayEnd = max(o.replayEnd, o.written + Int64(rewound))
    }

    /// Opens (or reopens, after playing out the old format) the PCM for `format`.
    /// Call with `lock` held; releases it around the blocking calls.
    private func openDevice(_ o: inout OutputLocals, _ format: AudioFormat) {
        let now = MonotonicClock.nanoseconds()
        if now < o.retryAtNs {
            lock.wait(nanoseconds: o.retryAtNs - now)
            return
        }
        if let old = o.pcm {
            let remaining = o.clock ? o.delay(now) : 0
            lock.unlock()
            if o.clock {
                MonotonicClock.sleep(nanoseconds: UInt64(remaining) * 1_000_000_000 / UInt64(o.rate))
            } else {
                _ = try? old.drain()
            }
            lock.lock()
        }
        o.pcm = nil
        let request = PCMRequest(
            device: config.device, rate: UInt32(format.rate), channels: UInt32(format.channels),
            periodMicroseconds: UInt32(config.periodMs * 1000), bufferMicroseconds: UInt32(config.bufferMs * 1000))
        lock.unlock()
        let opened = Result { () throws(ALSAError) in try PCM(request) }
        lock.lock()
        switch opened {
        case .success(let pcm):
            o.pcm = pcm
            o.format = format
            o.period = min(pcm.granted.periodFrames, o.periodCapacity)
            o.buffer = pcm.granted.bufferFrames
            o.clock = config.pacing == .clock || (config.pacing == .auto && pcm.type == .null)
            o.block = pcm.type == .null && !o.clock ? min(max(o.buffer, o.period), o.periodCapacity) : o.period
            o.fitHistory(toCover: o.buffer + o.block + o.period)
            let shift = o.written
            o.written = 0
            o.itemOrigin -= shift
            o.itemFirstWritten -= shift
            o.prevOrigin -= shift
            o.historyStart = 0
            o.replayEnd = 0
            o.rebaseClock(MonotonicClock.nanoseconds())
            s.format = format
            s.periodFrames = pcm.granted.periodFrames
            s.bufferFrames = pcm.granted.bufferFrames
            s.pacing = o.clock ? .clock : .device
            s.deviceError = nil
            s.deviceOpens += 1
        case .failure(let error):
            s.deviceError = error.description
            o.retryAtNs = MonotonicClock.nanoseconds() + 2_000_000_000
        }
    }

    /// Nothing is left and no follow-up came: play out what ALSA holds, then report the end.
    /// Call with `lock` held; releases it around snd_pcm_drain.
    private func endOfStream(_ o: inout OutputLocals) {
        let epoch = o.epoch
        if let pcm = o.pcm {
            if o.clock {
                let remaining = o.delay(MonotonicClock.nanoseconds())
                if remaining > 0 {
                    lock.wait(nanoseconds: UInt64(remaining) * 1_000_000_000 / UInt64(o.rate) + 1)
                    return
                }
            } else {
                lock.unlock()
                _ = try? pcm.drain()
                _ = try? pcm.prepare()
                lock.lock()
            }
        }
        guard epoch == s.epoch, s.ringCount == 0, s.awaitingNext, s.state == .playing else { return }
        post(.endOfStream)
        s.state = .stopped
        s.anchor = nil
        s.anchorDecoding = false
        s.decodeRequest = nil
        s.decodeGen &+= 1
        s.positionToken = nil
        s.positionFrames = 0
        o.reanchor = true
        o.historyStart = o.written
        o.replayEnd = o.written
        o.rebaseClock(MonotonicClock.nanoseconds())
    }
}
