import JukeboxCore

// The box machine's side of the control loop: what the player is doing, as the machine looks
// at it each turn, and the actions it returns, performed here. The policies are the machine's
// (JukeboxCore/Box); nothing here decides.

extension Daemon {
    /// The player as the box machine sees it now.
    var playerView: BoxMachine.PlayerView {
        let playing = machine.state == .playing
        let trackLeft = playing ? currentTrackInfo?.durationMs.map { max($0 - machine.positionMs, 0) } : nil
        return BoxMachine.PlayerView(
            state: machine.state, speed: machine.speed, track: machine.queue.currentTrack,
            positionMs: machine.positionMs, trackLeftMs: trackLeft,
            albumLeftMs: playing ? albumLeftMs(trackLeft) : nil, chapters: currentChapters, card: holdingCard?.id)
    }

    /// The track's rest plus the following queue entries of the same album.
    private func albumLeftMs(_ trackLeft: Int64?) -> Int64? {
        guard let trackLeft, let album = currentTrackInfo?.album, let index = machine.queue.currentIndex else {
            return trackLeft
        }
        var left = trackLeft
        for id in machine.queue.entries[(index + 1)...] {
            guard let info = library[id], info.album == album, let duration = info.durationMs else { break }
            left += duration
        }
        return left
    }

    func perform(_ actions: [BoxMachine.Action]) {
        for action in actions {
            switch action {
            case .setFade(let gain):
                pipeline.setFade(gain)
            case .sleepExpired:
                logger.info("sleep timer: time is up (\(config.sleep.then.rawValue))")
                perform(machine.handle(.command(.stop), now: Instant.now))
            case .powerOff(let reason):
                powerOff(reason: reason)
            case .card(let action):
                perform(action)
            case .menu(let action):
                perform([action])
            case .refreshPodcasts:
                podcasts.refresh()
            case .startScan:
                scan.start()
            case .scrubTo(let target):
                logger.info("scrub: to \(ScreenLayout.clock(target))")
                perform(machine.handle(.command(.seek(.absolute(ms: target))), now: Instant.now))
            case .scrubDropped:
                logger.info("scrub: dropped, no release came")
            case .rules(let action):
                perform(action)
            }
        }
    }
}
