import JukeboxCore
import LinuxSupport

// The family's rules (`[rules]`, JukeboxCore/Rules, composed into the box machine): the wall
// time fed in each turn, the used listening time read at start-up and written when the
// machine says, starts refused while they say so, and their actions performed. Nothing here
// decides.

extension Daemon {
    /// The file beside the database that keeps the listening time used today (one line,
    /// replaced whole: a power cut leaves the old line or the new one).
    var listeningUsagePath: String { config.database + ".listening" }

    /// The local wall time, when the rules may trust it (`[rules] clock`); nil otherwise.
    var rulesWallTime: LocalWallTime? {
        guard config.rules.clock == .system || WallClock.isSynchronized else { return nil }
        let now = WallClock.local()
        return LocalWallTime(utcSeconds: now.utcSeconds, utcOffsetSeconds: now.utcOffsetSeconds)
    }

    /// At start-up: the listening time used, as last written.
    func restoreListeningUsage() {
        guard !config.rules.isEmpty else { return }
        guard FileSystem.exists(listeningUsagePath) else { return }
        do {
            let text = String(decoding: try readWholeFile(listeningUsagePath, limit: 4096), as: UTF8.self)
            guard let usage = ListeningUsage.parse(text) else {
                logger.error("\(listeningUsagePath): not a listening-time line ('\(text.prefix(80))'); counting from 0")
                return
            }
            perform(boxMachine.handle(.listeningRestored(usage), now: Instant.now))
        } catch {
            logger.error("cannot read the listening time used: \(error); counting from 0")
        }
    }

    /// Each turn: the wall time for the rules (nothing to do without rules).
    func feedRulesClock(now: Instant) {
        guard !config.rules.isEmpty else { return }
        perform(boxMachine.handle(.wallClock(rulesWallTime), now: now))
    }

    /// Why the rules refuse a start now (nil: allowed). A track change while playing is no
    /// start; the card being put on the reader, or the one whose music the queue holds,
    /// may be an allowed one.
    func startRefusal(card: String? = nil) -> StartRefusal? {
        guard !config.rules.isEmpty, !alarmStarting, boxMachine.rules.lastState != .playing else { return nil }
        return boxMachine.rules.refusal(card: card ?? startingCard ?? holdingCard?.id)
    }

    /// Says that a start was refused: the log, the console, the screen and a sound.
    func announceRefusal(_ refusal: StartRefusal) {
        logger.info("rules: \(refusal)")
        console?.announce("\(refusal)")
        display?.announce(refusal == .quietHours ? "Quiet hours" : "Time is up", now: Instant.now)
        feedback(.refused)
    }

    /// The player's actions less the starts the rules refuse (the player then goes back to
    /// stopped, or to paused for a resume).
    func withoutRefusedStarts(_ actions: [PlayerAction]) -> [PlayerAction] {
        guard actions.contains(where: \.startsPlaying), let refusal = startRefusal() else { return actions }
        announceRefusal(refusal)
        let resumed = actions.contains(.resume)
        let kept = actions.filter { !$0.startsPlaying && !isSetNext($0) }
        // The machine believes it plays: back to where it was, so that status says the truth.
        let back = machine.handle(.command(resumed ? .pause : .stop), now: Instant.now)
        return kept + back.filter { $0 != .pause }
    }

    private func isSetNext(_ action: PlayerAction) -> Bool {
        if case .setNext = action { return true }
        return false
    }

    func perform(_ action: ListeningRules.Action) {
        switch action {
        case .applyProfile(let profile):
            if let profile {
                logger.info(
                    "rules: profile \(profile.name)\(profile.maxVolume.map { ", at most \($0)" } ?? "")\(profile.startVolume.map { ", volume \($0)" } ?? "")"
                )
            } else {
                logger.info("rules: no profile holds; the volumes of [audio]")
            }
            perform(
                machine.handle(
                    .volumeProfile(maxVolume: profile?.maxVolume, volume: profile?.startVolume), now: Instant.now))
        case .warn(let leftMs):
            let text = "listening time ends in \(ScreenLayout.clock(leftMs))"
            logger.info("rules: \(text)")
            console?.announce(text)
            display?.announce("Time ends in \(ScreenLayout.clock(leftMs))", now: Instant.now)
            if !announce(.listeningTimeLeft(ms: leftMs)) { feedback(.listeningTimeWarning) }
        case .budgetEnded:
            logger.info("rules: today's listening time is used up; stopping")
            console?.announce("today's listening time is used up")
            display?.announce("Time is up", now: Instant.now)
            perform(machine.handle(.command(.stop), now: Instant.now))
            // After the stop: the voice plays alone.
            _ = announce(.listeningTimeOver)
        case .persist(let usage):
            do {
                try FileSystem.writeAtomically(Array((usage.line + "\n").utf8), to: listeningUsagePath)
            } catch {
                logger.error("cannot keep the listening time used (\(listeningUsagePath)): \(error)")
            }
        case .setFade:
            break  // the box machine turns it into its own setFade
        }
    }
}

extension TagCard.Content {
    /// Music or a stream (a start the rules may refuse), not a command.
    var isMusic: Bool {
        if case .command = self { return false }
        return true
    }
}
