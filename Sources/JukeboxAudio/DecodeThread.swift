import LinuxSupport

// jb-decode: owns the decoder of the current (and then the follow-up) item and fills the PCM
// ring. It never touches ALSA. It decodes into a slot without holding the lock and publishes
// the slot under the lock, after checking that no command invalidated the work meanwhile
// (`decodeGen`). At the end of an item it queues a `.finished` marker and continues with the
// follow-up in the same ring (gapless), or waits for one (`awaitingNext`).

extension AudioPipeline {
    private enum Opened {
        case ok(any AudioDecoder, Int64, usedHint: Bool)
        case failed(String)
    }

    private static func open(_ item: PlaybackItem, at start: StartPosition) -> Opened {
        do {
            let decoder = try openDecoder(path: item.path)
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

    func decodeMain() {
        var decoder: (any AudioDecoder)?
        var item = PlaybackItem(token: 0, path: "")
        // The decoder a pause or a seek stopped, kept for a request for the same item.
        var parked: (decoder: any AudioDecoder, item: PlaybackItem)?
        var nextFrame: Int64 = 0
        var gen: UInt64 = 0
        var atEnd = false
        var announce = false
        var pending: [(ChunkKind, PlaybackItem)] = []
        let slotSamples = Self.chunkFrames * Self.maxChannels

        lock.lock()
        while !s.shutdown {
            if s.decodeGen != gen {
                gen = s.decodeGen
                if let d = decoder { parked = (d, item) }
                decoder = nil
                atEnd = false
                pending.removeAll()
                s.awaitingNext = false
                atEnd = s.restartAtEnd
                s.restartAtEnd = false
                guard let request = s.decodeRequest else { continue }
                let reusable = parked.flatMap { $0.item.token == request.item.token ? $0.decoder : nil }
                parked = nil
                lock.unlock()
                let opened =
                    reusable.map { Self.reposition($0, request.item, at: request.start) }
                    ?? Self.open(request.item, at: request.start)
                lock.lock()
                guard gen == s.decodeGen else { continue }
                s.decodingItem = request.item
                switch opened {
                case .ok(let d, let frame, let usedHint):
                    decoder = d
                    item = request.item
                    nextFrame = frame
                    announce = request.announce
                    s.seekHint = nil
                    s.openedFromSeekHint = usedHint ? item.token : nil
                case .failed(let message):
                    pending.append((.failed(message), request.item))
                    atEnd = true
                }
                continue
            }
            if let (kind, markerItem) = pending.first {
                if s.ringCount == slots {
                    lock.wait()
                    continue
                }
                s.publish(ChunkInfo(kind: kind, item: markerItem, frameOffset: 0, frames: 0, read: 0), slots: slots)
                pending.removeFirst()
                lock.broadcast()
                continue
            }
            guard let d = decoder else {
                if atEnd, let next = s.nextItem {
                    s.nextItem = nil
                    s.awaitingNext = false
                    s.followUpSeq = s.publishedSeq
                    lock.unlock()
                    let opened = Self.open(next, at: .frame(0))
                    lock.lock()
                    guard gen == s.decodeGen else { continue }
                    s.decodingItem = next
                    switch opened {
                    case .ok(let nd, _, _):
                        decoder = nd
                        item = next
                        nextFrame = 0
                        atEnd = false
                        announce = true
                    case .failed(let message):
                        pending.append((.failed(message), next))
                    }
                    continue
                }
                if atEnd { s.awaitingNext = true }
                lock.wait()
                continue
            }
            if s.ringCount == slots {
                lock.wait()
                continue
            }
            let slot = (s.ringHead + s.ringCount) % slots
            let format = d.format
            lock.unlock()
            let buffer = samples + slot * slotSamples
            var result = DecodeResult(frames: 0, isEnd: true, formatChanged: false)
            var failure: String?
            do {
                result = try d.read(into: buffer, capacityFrames: slotSamples / format.channels)
            } catch {
                failure = "\(error)"
            }
            let hint = d.seekHint
            lock.lock()
            guard gen == s.decodeGen else { continue }
            if let hint, s.seekHint?.token != item.token || s.seekHint?.hint != hint {
                s.seekHint = (item.token, hint)
            }
            if result.frames > 0 {
                s.publish(
                    ChunkInfo(
                        kind: .audio, item: item, frameOffset: nextFrame, frames: result.frames, read: 0,
                        format: format, announce: announce), slots: slots)
                announce = false
                nextFrame += Int64(result.frames)
                if s.ringCount >= s.outputWaitsFor || result.isEnd { lock.broadcast() }
            }
            if let failure {
                pending.append((.failed(failure), item))
                decoder = nil
                atEnd = true
            } else if result.isEnd {
                pending.append((.finished, item))
                decoder = nil
                atEnd = true
            }
        }
        lock.unlock()
    }
}
