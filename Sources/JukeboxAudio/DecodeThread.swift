import JukeboxCore
import LinuxSupport
import Soxr

// jb-decode: owns the decoder of the current (and then the follow-up) item and fills the PCM
// ring. It never touches ALSA. It decodes into a slot without holding the lock and publishes
// the slot under the lock, after checking that no command invalidated the work meanwhile
// (`decodeGen`). It opens, decodes and allocates only without the lock, and what it drops
// (decoders, items) is released after unlocking. At the end of an item it queues a `.finished` marker and continues with the
// follow-up in the same ring (gapless), or waits for one (`awaitingNext`).

extension AudioPipeline {
    private enum Opened {
        case ok(any AudioDecoder, Int64, usedHint: Bool)
        case failed(String)
    }

    /// Opens `item`'s decoder, resampled to `deviceRate` when the device takes only that
    /// rate and the file has another, going on with `carried` (the previous item's resampler
    /// and the tail it holds) when the rates are the same, and stretched to `speed` when that
    /// is not 1.
    private static func open(
        _ item: PlaybackItem, at start: StartPosition, deviceRate: Int?, speed: Double, carried: Resampler? = nil,
        streams: LiveStreams, growing: GrowingFiles, inFlight: InFlightFiles?
    ) -> Opened {
        do {
            // A file being read when the previous run died is skipped, not tried again.
            if let inFlight, inFlight.isSuspect(item.path) {
                throw AudioFileError(path: item.path, reason: InFlightFiles.skipReason)
            }
            inFlight?.note(.decode, item.path)
            var decoder = try item.openDecoder(streams: streams, growing: growing)
            var usedHint = false
            let sourceRate = decoder.format.rate
            if case .decoderFrame(let frame) = start, frame > 0 {
                usedHint = try decoder.seek(toFrame: frame, hint: item.seekHint)
            }
            if let deviceRate, decoder.format.rate != deviceRate {
                do { decoder = try ResampledDecoder(decoder, outputRate: deviceRate, continuing: carried) } catch {
                    throw AudioFileError(path: item.path, reason: "resampling to \(deviceRate) Hz: \(error)")
                }
            }
            decoder = try stretched(decoder, item, speed: speed)
            if case .decoderFrame(let frame) = start {
                // Already there; counted from here on in the (resampled) output's frames.
                return .ok(decoder, frame * Int64(decoder.format.rate) / Int64(sourceRate), usedHint: usedHint)
            }
            let frame = start.frames(rate: decoder.format.rate)
            if frame > 0 { usedHint = try decoder.seek(toFrame: frame, hint: item.seekHint) }
            return .ok(decoder, frame, usedHint: usedHint)
        } catch {
            return .failed("\(error)")
        }
    }

    /// `decoder` at `speed`: itself at 1, else through libsonic.
    private static func stretched(_ decoder: any AudioDecoder, _ item: PlaybackItem, speed: Double) throws
        -> any AudioDecoder
    {
        guard speed != 1 else { return decoder }
        do { return try StretchedDecoder(decoder, speed: speed) } catch {
            throw AudioFileError(path: item.path, reason: "playing at \(speed)x: \(error)")
        }
    }

    /// The same item again (play after pause, a seek, a new speed): the decoder it had seeks in
    /// place, from the frames it noted while decoding, instead of a new one reading from the
    /// file's start.
    private static func reposition(
        _ parked: any AudioDecoder, _ item: PlaybackItem, at start: StartPosition, speed: Double
    ) -> Opened {
        do {
            let decoder = try stretched(parked, item, speed: speed)
            let frame = start.frames(rate: decoder.format.rate)
            let usedHint = try decoder.seek(toFrame: frame, hint: item.seekHint)
            return .ok(decoder, frame, usedHint: usedHint)
        } catch {
            return .failed("\(error)")
        }
    }

    private func replayGainScale(_ decoder: any AudioDecoder, _ item: PlaybackItem) -> Float {
        Float(ReplayGain.scale(decoder.replayGain, mode: item.replayGainMode, settings: config.replayGain))
    }

    /// What jb-decode does next, decided under the lock and done without it.
    private enum DecodeStep {
        case again
        /// A command replaced the work: start `request` (nil: none), at the end of an item
        /// when `atEnd`.
        case restart(request: (item: PlaybackItem, start: StartPosition, announce: Bool)?, atEnd: Bool)
        /// Go on gaplessly with the follow-up.
        case openNext(PlaybackItem)
        /// Decode into ring slot `slot`, at most `limit` frames (where a crossfade begins).
        case decode(slot: Int, followUp: Bool, limit: Int)
        /// Open the follow-up now: its first `frames` frames overlap the current item's last.
        case beginFade(PlaybackItem, frames: Int)
        /// Decode the current item into `slot` and as many frames of the follow-up into the
        /// slot after it, for jb-output to mix.
        case decodePair(slot: Int, partner: Int)
        case exit
    }

    func decodeMain() {
        var decoder: (any AudioDecoder)?
        /// The resampler of an item that ended with a follow-up coming: the follow-up goes on
        /// with it, so the resampled stream has no edge at the join.
        var carried: Resampler?
        var item = PlaybackItem(token: 0, path: "")
        /// `item`'s serial in the item table.
        var serial: UInt32 = 0
        // The decoder a pause or a seek stopped, kept for a request for the same item.
        var parked: (decoder: any AudioDecoder, item: PlaybackItem)?
        var gen: UInt64 = 0
        /// The only rate the device takes, when it refused a file's (read with each request).
        var deviceRate: Int?
        /// Every source is read in S16: the device took no wide format, or a crossfade is set
        /// (mixed in S16, dithered). Read with each request.
        var narrowOnly = false
        /// `d` read in 32 bits: its source is wider than 16 bits and the device may take that
        /// (a resampled or stretched source is S16).
        func wideSource(_ d: any AudioDecoder) -> (any WideAudioDecoder)? {
            guard !narrowOnly, let w = d as? any WideAudioDecoder, w.bitsPerSample > 16 else { return nil }
            return w
        }
        /// The playback speed (read with each request) and the one of the current decoder.
        var speed = 1.0
        var decoderSpeed = 1.0
        /// The item frame the current decoder started at, and the (stretched) frames it gave since.
        var startFrame: Int64 = 0
        var framesOut: Int64 = 0
        /// The current item's ReplayGain factor.
        var gain: Float = 1
        var atEnd = false
        var announce = false
        /// The current decoder's length in frames, when it knows it (a crossfade needs it).
        var length: Int64?
        /// A crossfade into the follow-up under way: its decoder, its serial and ReplayGain
        /// factor, the frames the fade lasts, how many of them were decoded and how many the
        /// follow-up gave.
        var fade:
            (
                decoder: any AudioDecoder, item: PlaybackItem, serial: UInt32, gain: Float, frames: Int, done: Int,
                taken: Int
            )?
        /// A follow-up that cannot be faded into (another format, too short, or failing to
        /// open): it follows gaplessly.
        var unfadeable: UInt64?
        // A marker waiting for room in the ring: at most one, as decoding stops at an end or failure.
        var pending: ChunkInfo?
        let slotSamples = Self.chunkFrames * Self.maxChannels

        /// Registers the item just opened (or that failed to open) unless a command came
        /// meanwhile; returns whether it did. What it replaced is released after unlocking.
        func register(_ opened: PlaybackItem, failure: String?, usedHint: Bool?) -> Bool {
            let retired = shared.withLock { s -> (ItemTable.Entry, PlaybackItem?)? in
                guard gen == s.decodeGen else { return nil }
                let previous = s.decodingItem
                s.decodingItem = opened
                let (newSerial, entry) = s.items.register(opened, failure: failure)
                serial = newSerial
                if let usedHint {
                    s.seekHint = nil
                    s.openedFromSeekHint = usedHint ? opened.token : nil
                }
                return (entry, previous)
            }
            return retired != nil
        }

        /// Publishes a decoded chunk (and its crossfade partner) unless a command came
        /// meanwhile; returns whether it did.
        func publish(_ chunk: ChunkInfo, partner: ChunkInfo?, hint: SeekHint?, isEnd: Bool, failure: String?) -> Bool {
            shared.withLock { s -> Bool in
                guard gen == s.decodeGen else { return false }
                if let hint, s.seekHint?.token != chunk.token || s.seekHint?.hint != hint {
                    s.seekHint = (chunk.token, hint)
                }
                if chunk.frames > 0 {
                    s.publish(chunk)
                    if let partner { s.publish(partner) }
                    if s.ringCount >= s.outputWaitsFor || isEnd { outputWork.broadcast() }
                }
                if let failure { s.items.setFailure(chunk.serial, failure) }
                return true
            }
        }

        while true {
            let step = shared.withLock { s -> DecodeStep in
                if s.shutdown { return .exit }
                deviceRate = s.deviceRate
                narrowOnly = s.wideRefused || s.crossfadeSeconds > 0
                speed = s.speed
                if s.decodeGen != gen {
                    gen = s.decodeGen
                    s.awaitingNext = false
                    let restartAtEnd = s.restartAtEnd
                    s.restartAtEnd = false
                    return .restart(request: s.decodeRequest, atEnd: restartAtEnd)
                }
                if let marker = pending {
                    if s.ringCount == slots {
                        shared.wait(decodeWork, &s)
                        return .again
                    }
                    s.publish(marker)
                    pending = nil
                    outputWork.broadcast()
                    return .again
                }
                guard decoder != nil else {
                    if atEnd, let next = s.nextItem {
                        s.nextItem = nil
                        s.awaitingNext = false
                        s.followUpSeq = s.publishedSeq
                        // Already, so that jb-output restarting the decode meanwhile (a device
                        // that refused the rate) keeps it as the follow-up.
                        s.decodingItem = next
                        return .openNext(next)
                    }
                    if atEnd { s.awaitingNext = true }
                    shared.wait(decodeWork, &s)
                    return .again
                }
                if fade != nil {
                    if s.ringCount > slots - 2 {
                        shared.wait(decodeWork, &s)
                        return .again
                    }
                    let slot = (s.ringHead + s.ringCount) % slots
                    return .decodePair(slot: slot, partner: (slot + 1) % slots)
                }
                var limit = Int.max
                if s.crossfadeSeconds > 0, decoderSpeed == 1, let next = s.nextItem, next.token != unfadeable,
                    let length,
                    let rate = decoder?.format.rate
                {
                    let left = length - (startFrame + framesOut)
                    let fadeFrames = Int64(s.crossfadeSeconds) * Int64(rate)
                    if left > 0 && left <= fadeFrames { return .beginFade(next, frames: Int(left)) }
                    limit = Int(min(left - fadeFrames, Int64(Int.max)))
                }
                if s.ringCount == slots {
                    shared.wait(decodeWork, &s)
                    return .again
                }
                return .decode(slot: (s.ringHead + s.ringCount) % slots, followUp: s.nextItem != nil, limit: limit)
            }
            switch step {
            case .exit:
                return
            case .again:
                continue
            case .restart(let request, let restartAtEnd):
                // Parked unstretched, so that a request at another speed can take it.
                if let d = decoder { parked = ((d as? StretchedDecoder)?.source ?? d, item) }
                carried = nil
                decoder = nil
                fade = nil
                pending = nil
                atEnd = restartAtEnd
                guard let request else { continue }
                let reusable = parked.flatMap {
                    $0.item.token == request.item.token
                        && (deviceRate ?? $0.decoder.format.rate) == $0.decoder.format.rate
                        && !StreamDecoder.pausedTooLong($0.decoder)
                        ? $0.decoder : nil
                }
                parked = nil
                let opened =
                    reusable.map { Self.reposition($0, request.item, at: request.start, speed: speed) }
                    ?? Self.open(
                        request.item, at: request.start, deviceRate: deviceRate, speed: speed, streams: streams,
                        growing: growingFiles, inFlight: inFlight)
                switch opened {
                case .ok(let d, let frame, let usedHint):
                    guard register(request.item, failure: nil, usedHint: usedHint) else {
                        // A newer command came meanwhile (a seek overtaken by another): kept
                        // for it, or a new decoder would read from the file's start again.
                        parked = ((d as? StretchedDecoder)?.source ?? d, request.item)
                        continue
                    }
                    decoder = d
                    length = d.lengthFrames
                    item = request.item
                    gain = replayGainScale(d, item)
                    startFrame = frame
                    framesOut = 0
                    decoderSpeed = speed
                    announce = request.announce
                case .failed(let message):
                    guard register(request.item, failure: message, usedHint: nil) else { continue }
                    pending = ChunkInfo(kind: .failed, serial: serial, token: request.item.token)
                    atEnd = true
                }
            case .openNext(let next):
                let continuing = carried
                carried = nil
                switch Self.open(
                    next, at: .frame(0), deviceRate: deviceRate, speed: speed, carried: continuing, streams: streams,
                    growing: growingFiles, inFlight: inFlight)
                {
                case .ok(let d, _, _):
                    guard register(next, failure: nil, usedHint: nil) else { continue }
                    decoder = d
                    length = d.lengthFrames
                    item = next
                    gain = replayGainScale(d, item)
                    startFrame = 0
                    framesOut = 0
                    decoderSpeed = speed
                    atEnd = false
                    announce = true
                case .failed(let message):
                    guard register(next, failure: message, usedHint: nil) else { continue }
                    pending = ChunkInfo(kind: .failed, serial: serial, token: next.token)
                }
            case .beginFade(let next, let frames):
                unfadeable = next.token
                // A station has no known length: never faded into (nor connected to for a look).
                guard let format = decoder?.format, !StationPlaylist.isStreamURL(next.path),
                    case .ok(let d, _, _) = Self.open(
                        next, at: .frame(0), deviceRate: deviceRate, speed: 1, streams: streams, growing: growingFiles,
                        inFlight: inFlight),
                    d.format == format, let nextLength = d.lengthFrames, nextLength > Int64(frames)
                else { continue }
                // As MPD: only into a follow-up of the same format that is longer than the fade.
                let began = shared.withLock { s -> (ItemTable.Entry, PlaybackItem?)? in
                    guard gen == s.decodeGen, s.nextItem?.token == next.token else { return nil }
                    s.nextItem = nil
                    s.followUpSeq = s.publishedSeq
                    s.fadeOrigin = (item, .frame(startFrame + framesOut))
                    let previous = s.decodingItem
                    s.decodingItem = next
                    let (fadeSerial, entry) = s.items.register(next)
                    fade = (d, next, fadeSerial, replayGainScale(d, next), frames, 0, 0)
                    return (entry, previous)
                }
                if began == nil { continue }
            case .decodePair(let slot, let partner):
                guard let d = decoder, var f = fade else { continue }
                let format = d.format
                let channels = format.channels
                var result = DecodeResult(frames: 0, isEnd: true, formatChanged: false)
                var failure: String?
                do {
                    let frames = min(slotSamples / channels, f.frames - f.done)
                    result = try d.read(
                        into: UnsafeMutableBufferPointer(
                            start: samples.base + slot * slotSamples, count: frames * channels))
                } catch {
                    failure = "\(error)"
                }
                // The follow-up's frames for as many: what it cannot give is silence. A
                // follow-up whose format changed (a joined file) gives no more to the fade.
                let into = samples.base + partner * slotSamples
                var got = 0
                while got < result.frames, f.decoder.format == format {
                    let room = UnsafeMutableBufferPointer(
                        start: into + got * channels, count: (result.frames - got) * channels)
                    guard let r = try? f.decoder.read(into: room), r.frames > 0 else { break }
                    got += r.frames
                    if r.isEnd || r.formatChanged { break }
                }
                (into + got * channels).update(repeating: 0, count: (result.frames - got) * channels)
                let chunk = ChunkInfo(
                    kind: .audio, serial: serial, token: item.token, frameOffset: startFrame + framesOut,
                    frames: result.frames, read: 0, format: format, gain: gain, announce: announce, fadeStart: f.done,
                    fadeLength: f.frames)
                let mixed = ChunkInfo(
                    kind: .audio, serial: f.serial, token: f.item.token, frameOffset: Int64(f.done),
                    frames: result.frames, format: format, gain: f.gain, partner: true)
                guard publish(chunk, partner: mixed, hint: d.seekHint, isEnd: result.isEnd, failure: failure)
                else { continue }
                if chunk.frames > 0 { announce = false }
                framesOut += Int64(chunk.frames)
                f.done += result.frames
                f.taken += got
                fade = f
                if failure != nil || result.isEnd || result.formatChanged || f.done >= f.frames {
                    // The item ends here (what it has past the fade is dropped); the follow-up
                    // goes on after the frames the fade took.
                    pending = ChunkInfo(kind: failure != nil ? .failed : .finished, serial: serial, token: item.token)
                    decoder = f.decoder
                    item = f.item
                    serial = f.serial
                    gain = f.gain
                    length = f.decoder.lengthFrames
                    startFrame = Int64(f.taken)
                    framesOut = 0
                    announce = true
                    fade = nil
                }
            case .decode(let slot, let followUp, let limit):
                guard let d = decoder else { continue }
                // Named at each read: a follow-up opened ahead was noted since (a copy into a
                // mapped page, no system call).
                inFlight?.note(.decode, item.path)
                let resampled = d as? ResampledDecoder
                resampled?.keepsTail = followUp
                let format = d.format
                let wide = wideSource(d)
                var result = DecodeResult(frames: 0, isEnd: true, formatChanged: false)
                var failure: String?
                do {
                    let into = samples.base + slot * slotSamples
                    if let wide {
                        let frames = min(slotSamples / 2 / format.channels, max(1, limit))
                        result = try wide.read(
                            wide: UnsafeMutableBufferPointer(
                                start: UnsafeMutableRawPointer(into).assumingMemoryBound(to: Int32.self),
                                count: frames * format.channels))
                    } else {
                        let frames = min(slotSamples / format.channels, max(1, limit))
                        result = try d.read(
                            into: UnsafeMutableBufferPointer(start: into, count: frames * format.channels))
                    }
                } catch {
                    failure = "\(error)"
                }
                var chunk = ChunkInfo(
                    kind: .audio, serial: serial, token: item.token,
                    frameOffset: startFrame + trackFrames(framesOut, speed: decoderSpeed), frames: result.frames,
                    read: 0, format: format, gain: gain, announce: announce, speed: decoderSpeed)
                chunk.wide = wide != nil
                guard publish(chunk, partner: nil, hint: d.seekHint, isEnd: result.isEnd, failure: failure) else {
                    continue
                }
                if chunk.frames > 0 {
                    announce = false
                    framesOut += Int64(chunk.frames)
                }
                if failure == nil, result.isEnd, let resampled, resampled.keepsTail { carried = resampled.resampler }
                // A part at another rate (a joined file) on a device that keeps one rate: from
                // here on through a resampler, as a file of that rate would be.
                if failure == nil, result.formatChanged, let deviceRate, d.format.rate != deviceRate {
                    do { decoder = try ResampledDecoder(d, outputRate: deviceRate, continuing: nil) } catch {
                        failure =
                            "\(AudioFileError(path: item.path, reason: "resampling to \(deviceRate) Hz: \(error)"))"
                    }
                }
                if failure != nil || result.isEnd {
                    pending = ChunkInfo(kind: failure != nil ? .failed : .finished, serial: serial, token: item.token)
                    decoder = nil
                    atEnd = true
                }
            }
        }
    }
}
