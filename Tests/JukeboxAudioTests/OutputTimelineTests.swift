import Testing

@testable import JukeboxAudio

/// jb-output's timeline without a device: written frames to track time across items and
/// speeds, and what a device (measured or clock-paced) still holds.
@Suite struct OutputTimelineTests {
    /// 1000 frames of item 1 at speed 1 from its frame 500, then item 2 at speed 1.5 from 0.
    func twoItems() -> OutputTimeline {
        var t = OutputTimeline()
        t.anchor(serial: 1, token: 11, base: 500, speed: 1)
        t.written += 1000
        t.anchor(serial: 2, token: 22, base: 0, speed: 1.5)
        t.written += 400
        return t
    }

    @Test func theAudibleFrameIsInTheItemTheDeviceIsPlaying() {
        let t = twoItems()
        // 400 queued: item 2's first frame is audible.
        #expect(t.audible(delay: 400) == Audible(serial: 2, token: 22, frame: 0))
        // 100 queued: 300 frames of item 2 played, at 1.5 track frames each.
        #expect(t.audible(delay: 100) == Audible(serial: 2, token: 22, frame: 450))
        // 600 queued: item 1 still plays, 200 frames before its end.
        #expect(t.audible(delay: 600) == Audible(serial: 1, token: 11, frame: 1300))
    }

    @Test func afterAFlushNothingIsAudibleUntilTheNextAnchor() {
        var t = twoItems()
        t.reanchor = true
        #expect(t.audible(delay: 0) == nil)
        t.anchor(serial: 3, token: 33, base: 42, speed: 1)
        #expect(t.prevItem == nil)
        #expect(t.audible(delay: 0) == Audible(serial: 3, token: 33, frame: 42))
    }

    @Test func thePositionMayAdvanceUpToTheLastFrameWrittenOfTheAudibleItem() {
        let t = twoItems()
        #expect(t.positionLimit(delay: 100, audibleFrame: 450) == (600, 1.5))
        #expect(t.positionLimit(delay: 600, audibleFrame: 1300) == (1500, 1))
    }

    @Test func aClockPacedDeviceHoldsWhatTheClockHasNotPlayed() {
        var t = OutputTimeline()
        t.rate = 48000
        t.rebaseClock(1_000_000_000)
        t.written = 9600
        #expect(t.virtualDelay(1_000_000_000) == 9600)
        #expect(t.virtualDelay(1_100_000_000) == 4800)
        // It never plays more than was written.
        #expect(t.virtualPlayed(2_000_000_000) == 9600)
        #expect(t.queuedEstimate(1_050_000_000, clock: true) == 7200)
    }

    @Test func aMeasuredDelayIsEstimatedDownWithTheClock() {
        var t = OutputTimeline()
        t.rate = 44100
        t.lastDelay = 4410
        t.lastDelayNs = 5_000_000_000
        #expect(t.queuedEstimate(5_000_000_000, clock: false) == 4410)
        #expect(t.queuedEstimate(5_050_000_000, clock: false) == 2205)
        #expect(t.queuedEstimate(6_000_000_000, clock: false) == 0)
        // Measured after `now`: nothing has played since.
        #expect(t.queuedEstimate(4_000_000_000, clock: false) == 4410)
    }

    @Test func aReopenedDeviceCountsFromZeroAndTheItemsMoveWithIt() {
        var t = twoItems()
        t.lastDelay = 300
        let before = t.audible(delay: 0)
        #expect(t.restartCount() == 1400)
        #expect(t.written == 0 && t.lastDelay == 0)
        #expect(t.audible(delay: 0) == before)
        #expect(t.audible(delay: 600) == Audible(serial: 1, token: 11, frame: 1300))
    }
}
