import Foundation
import Glibc
import JukeboxCore
import JukeboxStore
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
        var random = SplitMix64(seed: 0x5EED_0F_C0FFEE)
        var expectation: Expectation?
        var checked = 0
        var kills = 0
        var losses: [Double] = []
        var attempts = 0

        while checked < 50 && attempts < 90 {
            attempts += 1
            // 1. Where did it come back?
            let (process, resumedStatus, resumedAt) = try restart(harness, attempt: attempts)
            if let expected = expectation {
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

            // 2. Do something, then pull the plug at a random instant (the sleeps choose the
            // instants: the schedule under test, not a synchronisation).
            let action = Action.allCases[Int(random.next() % UInt64(Action.allCases.count))]
            sleepMilliseconds(random.next(in: 100...1200))
            let volume = act(action, on: harness, random: &random)
            sleepMilliseconds(random.next(in: 0...700))
            let before = try #require(harness.status(), "no status before the kill:\n\(harness.log)")
            sleepMilliseconds(random.next(in: 0...600))
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

    /// A power cut also empties RAM: the restart finds only what reached the card (the journal
    /// sector, fdatasync'd every `sync_interval_s` = 4 s while playing and right after an
    /// action, and the database). The box then resumes half an interval after the last
    /// checkpoint, so it must come back within 2 s either side of where the power went.
    /// Simulated by SIGKILL plus deleting the RAM journal, as a reboot would; unsynced writes
    /// survive in the page cache here (the lazy file system test below loses them).
    @Test func powerCutWithRAMLostResumesWithinTwoSecondsEitherSide() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks)
        let run = try cutRepeatedly(
            harness, seed: 0xB007_C0DE, actions: [.play, .seek, .skip, .volume], checks: 20, attempts: 40
        ) {
            try harness.forgetRAMJournal()
        }
        print("power cut with RAM lost: \(run.summary)")
    }

    /// The real thing: the state folder is a lazy file system (Tests/Tools/lazyfs.py) that
    /// loses every write not fsync'd or fdatasync'd when the power goes, so a missing sync
    /// shows here and not in the test above. The daemon syncs its journal sector and its
    /// transactions within 2 s of an action, before these cuts come; what stays unsynced is
    /// a rescan's commits (durable with the next durable commit) and SQLite's -shm index.
    /// So rescans are among the actions, and some cut must lose WAL frames, or this would
    /// prove no more than the test above.
    @Test(.enabled(if: LazyFS.isUsable, "needs root, /dev/fuse and python3-fusepy (Tests/Tools/lazyfs.py)"))
    func powerCutLosingUnsyncedWritesResumesWithinTwoSecondsEitherSide() throws {
        let harness = try DaemonHarness(tracks: DaemonTests.demoTracks, lazyState: true)
        var cuts: [LazyFS.Cut] = []
        let run = try cutRepeatedly(
            harness, seed: 0x1A2F_5CAFE, actions: Action.allCases, checks: 12, attempts: 24
        ) {
            cuts.append(try harness.cutPower())
        }
        let walLost = cuts.map { $0.lost["jukebox.sqlite-wal", default: 0] }
        print("power cut on lazyfs: \(run.summary); unsynced WAL bytes lost per cut \(walLost)")
        for (index, cut) in cuts.enumerated() { print("  cut \(index + 1): \(cut.line)") }
        #expect(walLost.contains { $0 > 0 }, "no cut lost an unsynced commit: \(cuts.map(\.line))")
    }

    /// What a run of `cutRepeatedly` found.
    struct CutRun {
        var checked = 0
        var attempts = 0
        /// Restarts that resumed from a card checkpoint, half a sync interval on.
        var shifted = 0
        /// Expected minus resumed position, in seconds, per checked restart.
        var errors: [Double] = []

        var summary: String {
            let worst = errors.map(abs).max() ?? 0
            let mean = errors.isEmpty ? 0 : errors.map(abs).reduce(0, +) / Double(errors.count)
            return
                "\(checked) restarts (\(shifted) from a card checkpoint), |error| mean \(mean) s, worst \(worst) s; errors \(errors.map { (($0 * 100).rounded() / 100) })"
        }
    }

    /// Plays, does one of `actions`, and pulls the plug 2.1 to 6.6 s after it, when the
    /// action's own checkpoint is on the card (a burst of actions is made durable at most
    /// every 2 s; the kill test above covers the instants right after an action). After SIGKILL, `powerGoes` takes away what the power cut takes (at least the
    /// RAM journal); then the database must pass `integrity_check`, and the restart must
    /// resume the same track within 2.1 s either side of the cut, with a volume change kept.
    /// Runs until `checks` restarts were checked or `attempts` cuts were made.
    private func cutRepeatedly(
        _ harness: DaemonHarness, seed: UInt64, actions: [Action], checks: Int, attempts maxAttempts: Int,
        powerGoes: () throws -> Void
    ) throws -> CutRun {
        var random = SplitMix64(seed: seed)
        var expectation: Expectation?
        var run = CutRun()

        while run.checked < checks && run.attempts < maxAttempts {
            run.attempts += 1
            let attempts = run.attempts
            let (process, resumedStatus, resumedAt) = try restart(harness, attempt: attempts)
            if let expected = expectation {
                #expect(
                    resumedStatus.songID == expected.songID,
                    "power cut \(attempts) after \(expected.action): wrong track\n\(harness.log)")
                let error = expected.positionSeconds - resumedAt
                run.errors.append(error)
                #expect(
                    abs(error) <= 2.1,
                    "power cut \(attempts) after \(expected.action): expected ~\(expected.positionSeconds) s, resumed at \(resumedAt) s\n\(harness.log)"
                )
                if let volume = expected.volume {
                    #expect(resumedStatus.volume == volume, "volume change lost (power cut \(attempts))")
                }
                if harness.log.contains("continuing half a sync interval after it") { run.shifted += 1 }
                run.checked += 1
            }

            let action = actions[Int(random.next() % UInt64(actions.count))]
            // Random instants for the action and the cut (the schedule under test).
            sleepMilliseconds(random.next(in: 100...1200))
            let volume = act(action, on: harness, random: &random)
            sleepMilliseconds(2100 + random.next(in: 0...4500))
            let before = try #require(harness.status(), "no status before the cut:\n\(harness.log)")
            let cutAt = MonotonicClock.nanoseconds()
            process.kill(SIGKILL)
            #expect(process.waitForExit(timeout: .seconds(5)) == 128 + SIGKILL)
            try powerGoes()
            #expect(try harness.integrityCheck() == ["ok"])

            let position = before.elapsed + (before.state == "play" ? seconds(from: before.at, to: cutAt) : 0)
            if let duration = before.duration, let song = before.songID, before.state == "play",
                position > 0.5, position < duration - 3
            {
                expectation = Expectation(songID: song, positionSeconds: position, volume: volume, action: action)
            } else {
                expectation = nil  // near a track's start or end: the checkpoint may name either track
            }
        }
        #expect(run.checked >= checks, "only \(run.checked) checked restarts in \(run.attempts) attempts")
        // The shift must really be in use, not the journal being fresher than it should be.
        #expect(
            run.shifted >= run.checked / 2,
            "only \(run.shifted) of \(run.checked) restarts resumed from a card checkpoint")
        if let process = harness.process {
            process.kill(SIGTERM)
            _ = process.waitForExit(timeout: .seconds(3))
        }
        return run
    }

    /// The same cut with `[resume] checkpoint_device` set (a zeroed file standing in for a raw
    /// partition): the card checkpoints go there, nothing is written beside the database.
    @Test func powerCutWithACheckpointDeviceResumesFromIt() throws {
        let (nvram, device, harness) = try harnessWithACheckpointDevice()
        defer { nvram.remove() }
        var random = SplitMix64(seed: 0x5EC7_0B)
        var expected: (song: Int64, position: Double)?
        var checked = 0
        var attempts = 0
        while checked < 6 && attempts < 12 {
            attempts += 1
            let (process, status, resumedAt) = try restart(harness, attempt: attempts)
            #expect(harness.log.contains("power-cut checkpoints go to \(device)"), "\(harness.log)")
            if let expected {
                #expect(status.songID == expected.song, "cut \(attempts): wrong track\n\(harness.log)")
                #expect(
                    abs(expected.position - resumedAt) <= 2.1,
                    "cut \(attempts): expected ~\(expected.position) s, resumed at \(resumedAt) s\n\(harness.log)")
                #expect(harness.log.contains("continuing half a sync interval after it"))
                checked += 1
            }
            sleepMilliseconds(2100 + random.next(in: 0...4000))  // a random instant for the cut
            let before = try #require(harness.status(), "no status before the cut:\n\(harness.log)")
            let cutAt = MonotonicClock.nanoseconds()
            process.kill(SIGKILL)
            #expect(process.waitForExit(timeout: .seconds(5)) == 128 + SIGKILL)
            try harness.forgetRAMJournal()
            let position = before.elapsed + seconds(from: before.at, to: cutAt)
            if let duration = before.duration, let song = before.songID, before.state == "play",
                position > 0.5, position < duration - 3
            {
                expected = (song, position)
            } else {
                expected = nil
            }
        }
        #expect(checked >= 6, "only \(checked) checked restarts in \(attempts) attempts")
        #expect(access(harness.database + "-position", F_OK) != 0, "a checkpoint file beside the database")
        if let process = harness.process {
            process.kill(SIGTERM)
            _ = process.waitForExit(timeout: .seconds(3))
        }
    }

    /// A boot where the checkpoint device cannot be opened (the unit's `checkpoint-file.sh`
    /// failed) checkpoints in the file beside the database, with numbers below the device's
    /// (it cannot read them); the next boot with the device must still resume from that file.
    /// With the device, a power cut; without it (the stand-in file moved away), playback from
    /// the database's place and a power cut; with it again, the resume within 2 s.
    @Test func theNewestCheckpointWinsAfterABootWithoutTheDevice() throws {
        let (nvram, device, harness) = try harnessWithACheckpointDevice()
        defer { nvram.remove() }
        func cut(_ process: DaemonProcess) throws {
            process.kill(SIGKILL)
            #expect(process.waitForExit(timeout: .seconds(5)) == 128 + SIGKILL)
            try harness.forgetRAMJournal()
        }
        func onDevice() -> PositionJournal.Entry? {
            (try? PositionJournal(path: device, logger: harness.quietLogger, create: false))?.read()
        }

        // Long enough for the device's numbers (one a second) to pass those of the boot without it.
        let (withDevice, _, _) = try restart(harness, attempt: 1)
        #expect(
            waitUntil(timeout: .seconds(40)) { (onDevice()?.sequence ?? 0) >= 24 },
            "no checkpoint on the device:\n\(harness.log)")
        try cut(withDevice)

        try FileManager.default.moveItem(atPath: device, toPath: device + "-away")
        let (withoutDevice, _, resumedAt) = try restart(harness, attempt: 2)
        #expect(harness.log.contains("checkpoint_device not used"), "\(harness.log)")
        let played = waitUntil(timeout: .seconds(15)) {
            guard let record = harness.checkpoint() else { return false }
            return record.inPlaceOfDevice && Double(record.positionMs) / 1000 >= resumedAt + 6
        }
        #expect(played, "no checkpoint beside the database:\n\(harness.log)")
        let before = try #require(harness.status(), "no status before the cut:\n\(harness.log)")
        let cutAt = MonotonicClock.nanoseconds()
        try cut(withoutDevice)
        let position = before.elapsed + seconds(from: before.at, to: cutAt)
        try #require(before.state == "play" && position < (before.duration ?? 0) - 3, "cut at \(position) s")

        try FileManager.default.moveItem(atPath: device + "-away", toPath: device)
        #expect((harness.checkpoint()?.sequence ?? 0) < (onDevice()?.sequence ?? 0), "the device's numbers are higher")
        let (again, status, resumedAgain) = try restart(harness, attempt: 3)
        #expect(status.songID == before.songID, "wrong track\n\(harness.log)")
        #expect(
            abs(position - resumedAgain) <= 2.1,
            "expected ~\(position) s, resumed at \(resumedAgain) s\n\(harness.log)")
        #expect(harness.log.contains("moved onto it"), "\(harness.log)")
        again.kill(SIGTERM)
        _ = again.waitForExit(timeout: .seconds(3))
    }

    /// A harness with `[resume] checkpoint_device` set to a zeroed 4 KiB file (standing in for
    /// a raw partition) in `nvram`, which the caller removes.
    private func harnessWithACheckpointDevice() throws -> (
        nvram: TemporaryDirectory, device: String, harness: DaemonHarness
    ) {
        let nvram = try TemporaryDirectory(prefix: "jukebox-nvram")
        let device = nvram.file("checkpoint")
        try Data(count: 4096).write(to: URL(fileURLWithPath: device))
        let harness = try DaemonHarness(
            tracks: DaemonTests.demoTracks, resumeExtra: "checkpoint_device = \"\(device)\"")
        return (nvram, device, harness)
    }

    /// Sends `action` to the daemon; returns the volume it set, if it set one.
    private func act(_ action: Action, on harness: DaemonHarness, random: inout SplitMix64) -> Int? {
        switch action {
        case .play: break
        case .seek: harness.send("seek +\(random.next(in: 1...4))")
        case .skip: harness.send(random.next() % 2 == 0 ? "next" : "previous")
        case .volume:
            let volume = random.next(in: 10...90)
            harness.send("volume \(volume)")
            return volume
        case .scan:
            // Touch every file so the rescan rewrites rows.
            for name in (try? FileManager.default.contentsOfDirectory(atPath: harness.musicDir)) ?? [] {
                _ = utimes("\(harness.musicDir)/\(name)", nil)
            }
            harness.send("update")
        }
        return nil
    }

    /// Starts the daemon; returns it, its first status and the position it resumed at (what
    /// it reports minus what it played since its "playing" line).
    private func restart(_ harness: DaemonHarness, attempt: Int) throws -> (
        DaemonProcess, DaemonHarness.Status, Double
    ) {
        let process = try harness.start()
        let playing = process.waitForOutputLine(matching: "playing", on: .stderr, timeout: .seconds(10))
        try #require(playing != nil, "no playback after restart \(attempt):\n\(harness.log)")
        let status = try #require(harness.status(), "no status after restart:\n\(harness.log)")
        return (process, status, status.elapsed - seconds(from: playing!.nanoseconds, to: status.at))
    }
}
