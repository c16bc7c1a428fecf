import Testing

@testable import JukeboxCore

@Suite struct SleepTimerTests {
    static func at(_ ms: Int64) -> Instant { Instant.zero.adding(milliseconds: ms) }

    @Test(arguments: [
        ("30", SleepTarget?.some(.after(ms: 1_800_000))), ("track", .endOfTrack), ("ALBUM", .endOfAlbum), ("off", nil),
        ("chapter", .endOfChapter),
        ("90s", .after(ms: 90_000)),
    ])
    func parsesTheArgument(word: String, target: SleepTarget?) {
        #expect(SleepTarget.parse(word) == .success(target))
    }

    @Test(arguments: ["0.5", "-3", "1441", "soon", "0s", "s"])
    func rejectsNonsenseWithOneMessage(word: String) {
        #expect(
            SleepTarget.parse(word)
                == .failure(
                    .badArgument(
                        command: "sleep",
                        problem:
                            "expected minutes (1 to 1440), seconds like 90s, track, album, chapter or off, found '\(word)'"
                    )
                ))
    }

    @Test(arguments: [
        ("sleep 30", ControlAction.sleep(.after(ms: 1_800_000))), ("sleep 90s", .sleep(.after(ms: 90_000))),
        ("Sleep Track", .sleep(.endOfTrack)), ("sleep off", .sleep(nil)), ("sleep chapter", .sleep(.endOfChapter)),
    ])
    func aGestureCanSetTheTimer(text: String, action: ControlAction) {
        #expect(ControlAction.parse(text) == .success(action))
        #expect(ControlAction.parse(action.description) == .success(action))
    }

    @Test func aBadGestureMappingIsOneMessage() {
        #expect(
            ControlAction.parse("sleep")
                == .failure(
                    .badArgument(command: "sleep", problem: "expected minutes, 90s, track, album, chapter or off")))
    }

    @Test func aTimedTargetRunsFadesAndExpiresOnce() {
        var timer = SleepTimer(fadeMs: 10_000)
        #expect(timer.step(now: Self.at(0), trackLeftMs: 5000, albumLeftMs: 5000) == .off)
        timer.set(.after(ms: 60_000), now: Self.at(1000))
        #expect(timer.step(now: Self.at(1000), trackLeftMs: nil, albumLeftMs: nil) == .running(leftMs: 60_000))
        #expect(timer.step(now: Self.at(51_000), trackLeftMs: nil, albumLeftMs: nil) == .running(leftMs: 10_000))
        #expect(
            timer.step(now: Self.at(56_000), trackLeftMs: nil, albumLeftMs: nil) == .fading(leftMs: 5000, gain: 0.25))
        #expect(timer.step(now: Self.at(61_000), trackLeftMs: nil, albumLeftMs: nil) == .expired)
        #expect(timer.step(now: Self.at(62_000), trackLeftMs: nil, albumLeftMs: nil) == .off)
        #expect(timer.target == nil)
    }

    /// A 60 s timer, stepped every 250 ms of the clock at `hundredths`: when on the clock it
    /// fades and expires.
    @Test(arguments: [(150, Int64(40_000)), (50, 120_000), (100, 60_000)])
    func aTimedTargetCountsTrackTimeAtTheSpeed(hundredths: Int, expiresAtMs: Int64) {
        var timer = SleepTimer(fadeMs: 10_000)
        let speed = PlaybackSpeed(clamping: hundredths)
        timer.set(.after(ms: 60_000), now: Self.at(0))
        var fadeFrom: Int64?
        var expiredAt: Int64?
        for ms in stride(from: Int64(250), through: 200_000, by: 250) where expiredAt == nil {
            switch timer.step(now: Self.at(ms), speed: speed, trackLeftMs: nil, albumLeftMs: nil) {
            case .fading: fadeFrom = fadeFrom ?? ms
            case .expired: expiredAt = ms
            default: break
            }
        }
        #expect(expiredAt == expiresAtMs)
        // The fade is the last 10 s of track time: 10 s / speed on the clock (to a step).
        let fadeMs = fadeFrom.map { expiresAtMs - $0 } ?? 0
        #expect(abs(fadeMs - 10_000 * 100 / Int64(hundredths)) <= 250)
    }

    @Test func aSpeedChangeCountsEachStretchAtItsSpeed() {
        var timer = SleepTimer(fadeMs: 0)
        timer.set(.after(ms: 60_000), now: Self.at(0))
        let fast = PlaybackSpeed(clamping: 150)
        let slow = PlaybackSpeed(clamping: 50)
        // 30 s at 1.5× is 45 s of track time; the last 15 s at 0.5× take 30 s.
        #expect(
            timer.step(now: Self.at(30_000), speed: fast, trackLeftMs: nil, albumLeftMs: nil)
                == .running(leftMs: 15_000))
        #expect(
            timer.step(now: Self.at(59_000), speed: slow, trackLeftMs: nil, albumLeftMs: nil) == .running(leftMs: 500))
        #expect(timer.step(now: Self.at(60_000), speed: slow, trackLeftMs: nil, albumLeftMs: nil) == .expired)
    }

    @Test func theFadeNeverRises() {
        var timer = SleepTimer(fadeMs: 4000)
        timer.set(.endOfTrack, now: Self.at(0))
        var gains: [Float] = []
        // The track's end moves away (a seek back) in the middle of the fade.
        for left: Int64 in [5000, 3000, 2000, 3500, 1000, 500] {
            if case .fading(_, let gain) = timer.step(now: Self.at(0), trackLeftMs: left, albumLeftMs: nil) {
                gains.append(gain)
            }
        }
        #expect(gains == [0.5625, 0.25, 0.25, 0.0625, 0.015625])
        #expect(timer.step(now: Self.at(0), trackLeftMs: 0, albumLeftMs: nil) == .expired)
    }

    @Test(arguments: [(SleepTarget.endOfTrack, Int64(7000)), (.endOfAlbum, 95_000), (.endOfChapter, 4000)])
    func trackAlbumAndChapterTargetsFollowWhatIsLeft(target: SleepTarget, left: Int64) {
        var timer = SleepTimer(fadeMs: 3000)
        timer.set(target, now: Self.at(0))
        #expect(
            timer.step(now: Self.at(500), trackLeftMs: 7000, albumLeftMs: 95_000, chapterLeftMs: 4000)
                == .running(leftMs: left))
        #expect(timer.step(now: Self.at(500), trackLeftMs: nil, albumLeftMs: nil) == .running(leftMs: Int64.max))
    }

    @Test func theEndOfAChapterFadesAndExpires() {
        var timer = SleepTimer(fadeMs: 4000)
        timer.set(.endOfChapter, now: Self.at(0))
        #expect(
            timer.step(now: Self.at(0), trackLeftMs: 600_000, albumLeftMs: nil, chapterLeftMs: 2000)
                == .fading(leftMs: 2000, gain: 0.25))
        #expect(timer.step(now: Self.at(0), trackLeftMs: 598_000, albumLeftMs: nil, chapterLeftMs: 0) == .expired)
    }

    @Test func settingAgainOrOffStartsOver() {
        var timer = SleepTimer(fadeMs: 4000)
        timer.set(.after(ms: 2000), now: Self.at(0))
        #expect(
            timer.step(now: Self.at(1000), trackLeftMs: nil, albumLeftMs: nil) == .fading(leftMs: 1000, gain: 0.0625))
        timer.set(.after(ms: 60_000), now: Self.at(1000))
        #expect(timer.step(now: Self.at(1000), trackLeftMs: nil, albumLeftMs: nil) == .running(leftMs: 60_000))
        timer.set(nil, now: Self.at(1000))
        #expect(timer.step(now: Self.at(100_000), trackLeftMs: nil, albumLeftMs: nil) == .off)
    }
}
