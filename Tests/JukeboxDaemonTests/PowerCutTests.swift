import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Pulls the plug on the real daemon (SIGKILL) at random instants, during plain playback,
/// right after a seek, a skip, a volume change and during a library rescan. Every restart
/// must find a sound database and resume on the same track within 2 s of where it was.
@Suite(.serialized) struct PowerCutTests {
    enum Action: CaseIterable {
        case play, seek, skip, volume, scan
    }

    struct Expectation {
        var songID: Int64
        var positionSeconds: Double
        var volume: Int?
        var action: Action
    }

    @Test func killNineAtRandomInstantsLosesAtMostTwoSeconds() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks)
        var random = TestRandom(seed: 0x5EED_0F_C0FFEE)
        var expectation: Expectation?
        var checked = 0
        var kills = 0
        var losses: [Double] = []
        var attempts = 0

        while checked < 50 && attempts < 90 {
            attempts += 1
            let process = try harness.start()
            let playing = process.waitForOutputLine(matching: "playing", on: .stderr, timeout: .seconds(10))
            try #require(playing != nil, "no playback after restart \(attempts):\n\(harness.log)")

            // 1. Where did it come back?
            let resumedStatus = try #require(harness.status(), "no status after restart:\n\(harness.log)")
            if let expected = expectation {
                // Position it resumed at = what it reports minus what it played since then.
                let resumedAt = resumedStatus.elapsed - seconds(from: playing!.nanoseconds, to: resumedStatus.at)
                #expect(
                    resumedStatus.songID == expected.songID,
                    "restart \(attempts) after \(expected.action): wrong track\n\(harness.log)")
                let loss = expected.positionSeconds - resumedAt
                losses.append(loss)
                #expect(
                    loss <= 2.0 && loss >= -0.25,
                    "restart \(attempts) after \(expected.action): expected ~\(expected.positionSeconds) s, resumed at \(resumedAt) s"
                )
                if let volume = expected.volume {
                    #expect(resumedStatus.volume == volume, "volume change lost (restart \(attempts))")
                }
                checked += 1
            }

            // 2. Do something, then pull the plug at a random instant.
            let action = Action.allCases[Int(random.next() % UInt64(Action.allCases.count))]
            var volume: Int?
            sleepMilliseconds(random.milliseconds(100...1200))
            switch action {
            case .play: break
            case .seek: harness.send("seek +\(random.milliseconds(1...4))")
            case .skip: harness.send(random.next() % 2 == 0 ? "next" : "previous")
            case .volume:
                volume = random.milliseconds(10...90)
                harness.send("volume \(volume!)")
            case .scan:
                // Touch every file so the rescan rewrites rows while we kill it.
                for name in (try? FileManager.default.contentsOfDirectory(atPath: harness.musicDir)) ?? [] {
                    _ = utimes("\(harness.musicDir)/\(name)", nil)
                }
                harness.send("update")
            }
            sleepMilliseconds(random.milliseconds(0...700))
            let before = try #require(harness.status(), "no status before the kill:\n\(harness.log)")
            sleepMilliseconds(random.milliseconds(0...600))
            let killedAt = MonotonicClock.nanoseconds()
            process.kill(SIGKILL)
            kills += 1
            #expect(process.waitForExit(timeout: .seconds(5)) == 128 + SIGKILL)

            // 3. The database survives every cut.
            let integrity = try harness.integrityCheck()
            #expect(integrity == ["ok"], "integrity_check after kill \(kills): \(integrity)")

            let position = before.elapsed + (before.state == "play" ? seconds(from: before.at, to: killedAt) : 0)
            if let duration = before.duration, let song = before.songID, position < duration - 0.5,
                before.state == "play"
            {
                expectation = Expectation(songID: song, positionSeconds: position, volume: volume, action: action)
            } else {
                expectation = nil  // the track ended around the cut: no single right answer
            }
        }
        #expect(kills >= 50)
        #expect(checked >= 50, "only \(checked) checked restarts in \(attempts) attempts")
        let worst = losses.max() ?? 0
        let mean = losses.isEmpty ? 0 : losses.reduce(0, +) / Double(losses.count)
        print("power cut: \(kills) kills, \(checked) checked restarts, loss mean \(mean) s, worst \(worst) s")
        if let process = harness.process {
            process.kill(SIGTERM)
            _ = process.waitForExit(timeout: .seconds(3))
        }
    }
}
