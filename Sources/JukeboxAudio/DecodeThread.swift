import LinuxSupport

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

    private static func open(_ item: PlaybackItem, at start: StartPosition) -> Opened {
        do {
            let decoder = try item.openDecoder()
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

    /// What jb-decode does next, decided under the lock and done without it.
    private enum DecodeStep {
        case again
        /// A command replaced the work: start `request` (nil: none), at the end of an item
        /// when `atEnd`.
        case restart(request: (item: PlaybackItem, start: StartPosition, announce: Bool)?, atEnd: Bool)
        /// Go on gaplessly with the follow-up.
        case openNext(PlaybackItem)
        /// Decode into ring slot `slot`.
        case decode(slot: Int)
        case exit
    }

    func decodeMain() {
        var decoder: (any AudioDecoder)?
        var item = PlaybackItem(token: 0, path: "")
        /// `item`'s serial in the item table.
        var serial: UInt32 = 0
        // The decoder a pause or a seek stopped, kept for a request for the same item.
        var parked: (decoder: any AudioDecoder, item: PlaybackItem)?
        var nextFrame: Int64 = 0
        var gen: UInt64 = 0
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
                return .decode(slot: (s.ringHead + s.ringCount) % slots)
            }
            switch step {
            case .exit:
                return
            case .again:
                continue
            case .restart(let request, let restartAtEnd):
                if let d = decoder { parked = (d, item) }
                decoder = nil
                pending = nil
                atEnd = restartAtEnd
                guard let request else { continue }
                let reusable = parked.flatMap { $0.item.token == request.item.token ? $0.decoder : nil }
                parked = nil
                let opened =
                    reusable.map { Self.reposition($0, request.item, at: request.start) }
                    ?? Self.open(request.item, at: request.start)
                switch opened {
                case .ok(let d, let frame, let usedHint):
                    guard register(request.item, failure: nil, usedHint: usedHint) else { continue }
                    decoder = d
                    item = request.item
                    nextFrame = frame
                    announce = request.announce
                case .failed(let message):
                    guard register(request.item, failure: message, usedHint: nil) else { continue }
                    pending = ChunkInfo(kind: .failed, serial: serial, token: request.item.token)
                    atEnd = true
                }
            case .openNext(let next):
                switch Self.open(next, at: .frame(0)) {
                case .ok(let d, _, _):
                    guard register(next, failure: nil, usedHint: nil) else { continue }
                    decoder = d
                    item = next
                    nextFrame = 0
                    atEnd = false
                    announce = true
                case .failed(let message):
                    guard register(next, failure: message, usedHint: nil) else { continue }
                    pending = ChunkInfo(kind: .failed, serial: serial, token: next.token)
                }
            case .decode(let slot):
                guard let d = decoder else { continue }
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
                    read: 0, format: format, announce: announce)
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
                if failure != nil || result.isEnd {
                    pending = ChunkInfo(kind: failure != nil ? .failed : .finished, serial: serial, token: item.token)
                    decoder = nil
                    atEnd = true
                }
            }
        }
    }
}
