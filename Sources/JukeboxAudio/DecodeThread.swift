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
    /// and the tail it holds) when the rates are the same.
    private static func open(
        _ item: PlaybackItem, at start: StartPosition, deviceRate: Int?, carried: Resampler? = nil,
        streams: LiveStreams
    ) -> Opened {
        do {
            var decoder = try item.openDecoder(streams: streams)
            if let deviceRate, decoder.format.rate != deviceRate {
                do { decoder = try ResampledDecoder(decoder, outputRate: deviceRate, continuing: carried) } catch {
                    throw AudioFileError(path: item.path, reason: "resampling to \(deviceRate) Hz: \(error)")
                }
            }
            let frame = start.frames(rate: decoder.format.rate)
            var usedHint = false
            if frame > 0 { usedHint = try decoder.seek(toFrame: frame, hint: item.seekHint) }
            return .ok(decoder, frame, usedHint: usedHint)
        } catch {
            return .failed("\(error)")
        }
    }

    /// The same item again (play after pause, a seek): the decoder it had seeks in place, from
    /// the frames it noted while decoding, instead of a new one reading from the file's start.
    private static func reposition(_ decoder: any AudioDecoder, _ item: PlaybackItem, at start: StartPosition)
        -> Opened
    {
        do {
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
        /// Decode into ring slot `slot`.
        case decode(slot: Int, followUp: Bool)
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
        var nextFrame: Int64 = 0
        var gen: UInt64 = 0
        /// The only rate the device takes, when it refused a file's (read with each request).
        var deviceRate: Int?
        /// The current item's ReplayGain factor.
        var gain: Float = 1
        var atEnd = false
        var announce = false
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

        while true {
            let step = shared.withLock { s -> DecodeStep in
                if s.shutdown { return .exit }
                deviceRate = s.deviceRate
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
                if s.ringCount == slots {
                    shared.wait(decodeWork, &s)
                    return .again
                }
                return .decode(slot: (s.ringHead + s.ringCount) % slots, followUp: s.nextItem != nil)
            }
            switch step {
            case .exit:
                return
            case .again:
                continue
            case .restart(let request, let restartAtEnd):
                if let d = decoder { parked = (d, item) }
                carried = nil
                decoder = nil
                pending = nil
                atEnd = restartAtEnd
                guard let request else { continue }
                let reusable = parked.flatMap {
                    $0.item.token == request.item.token
                        && (deviceRate ?? $0.decoder.format.rate) == $0.decoder.format.rate
                        ? $0.decoder : nil
                }
                parked = nil
                let opened =
                    reusable.map { Self.reposition($0, request.item, at: request.start) }
                    ?? Self.open(request.item, at: request.start, deviceRate: deviceRate, streams: streams)
                switch opened {
                case .ok(let d, let frame, let usedHint):
                    guard register(request.item, failure: nil, usedHint: usedHint) else { continue }
                    decoder = d
                    item = request.item
                    gain = replayGainScale(d, item)
                    nextFrame = frame
                    announce = request.announce
                case .failed(let message):
                    guard register(request.item, failure: message, usedHint: nil) else { continue }
                    pending = ChunkInfo(kind: .failed, serial: serial, token: request.item.token)
                    atEnd = true
                }
            case .openNext(let next):
                let continuing = carried
                carried = nil
                switch Self.open(next, at: .frame(0), deviceRate: deviceRate, carried: continuing, streams: streams) {
                case .ok(let d, _, _):
                    guard register(next, failure: nil, usedHint: nil) else { continue }
                    decoder = d
                    item = next
                    gain = replayGainScale(d, item)
                    nextFrame = 0
                    atEnd = false
                    announce = true
                case .failed(let message):
                    guard register(next, failure: message, usedHint: nil) else { continue }
                    pending = ChunkInfo(kind: .failed, serial: serial, token: next.token)
                }
            case .decode(let slot, let followUp):
                guard let d = decoder else { continue }
                let resampled = d as? ResampledDecoder
                resampled?.keepsTail = followUp
                let format = d.format
                var result = DecodeResult(frames: 0, isEnd: true, formatChanged: false)
                var failure: String?
                do {
                    result = try d.read(
                        into: samples.base + slot * slotSamples, capacityFrames: slotSamples / format.channels)
                } catch {
                    failure = "\(error)"
                }
                let hint = d.seekHint
                let chunk = ChunkInfo(
                    kind: .audio, serial: serial, token: item.token, frameOffset: nextFrame, frames: result.frames,
                    read: 0, format: format, gain: gain, announce: announce)
                let published = shared.withLock { s -> Bool in
                    guard gen == s.decodeGen else { return false }
                    if let hint, s.seekHint?.token != chunk.token || s.seekHint?.hint != hint {
                        s.seekHint = (chunk.token, hint)
                    }
                    if chunk.frames > 0 {
                        s.publish(chunk)
                        if s.ringCount >= s.outputWaitsFor || result.isEnd { outputWork.broadcast() }
                    }
                    if let failure { s.items.setFailure(chunk.serial, failure) }
                    return true
                }
                guard published else { continue }
                if chunk.frames > 0 {
                    announce = false
                    nextFrame += Int64(chunk.frames)
                }
                if failure == nil, result.isEnd, let resampled, resampled.keepsTail { carried = resampled.resampler }
                if failure != nil || result.isEnd {
                    pending = ChunkInfo(kind: failure != nil ? .failed : .finished, serial: serial, token: item.token)
                    decoder = nil
                    atEnd = true
                }
            }
        }
    }
}
