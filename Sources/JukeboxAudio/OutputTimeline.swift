/// The frame the device is playing: the item's serial and token, and the frame within it.
struct Audible: Equatable {
    var serial: UInt32
    var token: UInt64
    var frame: Int64
}

/// jb-output's timeline, with no device: the frames written to the device since it was opened
/// (`written`), the item frames (track time, at the item's speed) they stand for, and what
/// the device still holds, measured or, on a clock-paced device, counted from the clock.
/// Times are CLOCK_MONOTONIC nanoseconds passed in.
struct OutputTimeline {
    var rate = 44100
    /// Frames written to the PCM since it was opened, minus what was rewound or dropped:
    /// the index of the next frame.
    var written: Int64 = 0
    /// The device delay after the last write: what was lost with it if it goes away.
    var lastDelay = 0
    /// When `lastDelay` was measured: with it, what the device holds now is estimated.
    var lastDelayNs: UInt64 = 0
    /// A clock-paced device played `clockBaseFrames` at `clockBaseNs`, and one frame per
    /// 1/rate s since, up to what was written.
    var clockBaseNs: UInt64 = 0
    var clockBaseFrames: Int64 = 0

    /// The item being written (by serial and token) and the one before it.
    var item: (serial: UInt32, token: UInt64)?
    /// `written` index at which `item` was anchored, the item frame (track time) there, and
    /// the speed its frames play at (each written frame is `itemSpeed` item frames).
    var itemOrigin: Int64 = 0
    var itemBase: Int64 = 0
    var itemSpeed = 1.0
    var itemFirstWritten: Int64 = 0
    var prevItem: (serial: UInt32, token: UInt64)?
    var prevOrigin: Int64 = 0
    var prevBase: Int64 = 0
    var prevSpeed = 1.0
    /// After a flush the next audio chunk anchors the item bookkeeping again.
    var reanchor = true

    /// Frames the virtual (clock-paced) device has played.
    func virtualPlayed(_ now: UInt64) -> Int64 {
        guard now > clockBaseNs else { return min(written, clockBaseFrames) }
        let elapsed = Int64((now - clockBaseNs) * UInt64(rate) / 1_000_000_000)
        return min(written, clockBaseFrames + elapsed)
    }

    /// Frames written but not yet played on the clock-paced device.
    func virtualDelay(_ now: UInt64) -> Int { Int(written - virtualPlayed(now)) }

    mutating func rebaseClock(_ now: UInt64) {
        clockBaseNs = now
        clockBaseFrames = written
    }

    /// What the device holds now: on a clock-paced one (`clock`) counted, else from the delay
    /// measured after the last write.
    func queuedEstimate(_ now: UInt64, clock: Bool) -> Int {
        if clock { return virtualDelay(now) }
        let elapsed = now > lastDelayNs ? Int((now - lastDelayNs) * UInt64(rate) / 1_000_000_000) : 0
        return max(0, lastDelay - elapsed)
    }

    /// The next frame written begins `serial`'s audio at item frame `base`, played at `speed`;
    /// the item before it (unless the stream restarted) stays known for the frames of it the
    /// device still holds.
    mutating func anchor(serial: UInt32, token: UInt64, base: Int64, speed: Double) {
        prevItem = reanchor ? nil : item
        prevOrigin = itemOrigin
        prevBase = itemBase
        prevSpeed = itemSpeed
        item = (serial, token)
        itemOrigin = written
        itemBase = base
        itemSpeed = speed
        itemFirstWritten = written
        reanchor = false
    }

    /// The item and frame the device is playing, given the device delay.
    func audible(delay: Int) -> Audible? {
        guard let item, !reanchor else { return nil }
        let played = written - Int64(delay)
        if played >= itemFirstWritten {
            return Audible(serial: item.serial, token: item.token, frame: itemFrame(at: played))
        }
        if let prevItem {
            return Audible(
                serial: prevItem.serial, token: prevItem.token,
                frame: prevBase + trackFrames(played - prevOrigin, speed: prevSpeed))
        }
        return Audible(serial: item.serial, token: item.token, frame: itemFrame(at: itemFirstWritten))
    }

    /// The frame of `item` (track time) that `written` index `index` plays.
    func itemFrame(at index: Int64) -> Int64 {
        itemBase + trackFrames(index - itemOrigin, speed: itemSpeed)
    }

    /// How far the position of the item audible with `delay` frames queued may advance with
    /// the clock (the last frame of it written so far), and at what speed (track frames per
    /// device frame). `audibleFrame`: that item's audible frame.
    func positionLimit(delay: Int, audibleFrame: Int64) -> (limit: Int64, speed: Double) {
        let played = written - Int64(delay)
        if played >= itemFirstWritten { return (itemFrame(at: written), itemSpeed) }
        if prevItem != nil {
            return (prevBase + trackFrames(itemFirstWritten - prevOrigin, speed: prevSpeed), prevSpeed)
        }
        return (audibleFrame, itemSpeed)
    }

    /// The device was opened again: `written` counts from 0, and the anchors move with it.
    /// Returns how far they moved.
    mutating func restartCount() -> Int64 {
        let shift = written
        written = 0
        itemOrigin -= shift
        itemFirstWritten -= shift
        prevOrigin -= shift
        lastDelay = 0
        return shift
    }
}
