import JukeboxCore

// Chapters of long files (the core's ChapterList, stored with the track by the scanner):
// next/previous by chapter, the chapter lines of `status`, and scrubbing with the knob.

extension Daemon {
    /// The playing track's chapters.
    var currentChapters: ChapterList? { currentTrackInfo?.chapters }

    /// A user's command (console, buttons, keys) as it acts: `next`/`previous` move by
    /// chapter in a file with chapters (`[chapters] navigate`). MPD clients' commands are not
    /// passed through here: for them a file is one song.
    func userCommand(_ command: Command) -> Command {
        guard config.chapters.navigate, command == .next || command == .previous, machine.state != .stopped,
            let chapters = currentChapters
        else { return command }
        refreshPosition()
        return ChapterNavigation.command(
            for: command, chapters: chapters, positionMs: machine.positionMs,
            restartThresholdMs: config.playerConfiguration.restartThresholdMs)
    }

    /// Clicks turned with the scrub button held: the target moves (the display shows it).
    func scrub(_ units: Int, at: Instant) {
        guard machine.state != .stopped, !menu.isOpen else { return }
        if boxMachine.scrubber.targetMs == nil { refreshPosition() }
        let turn = BoxMachine.Event.scrub(
            units, positionMs: machine.positionMs, durationMs: currentTrackInfo?.durationMs)
        perform(boxMachine.handle(turn, now: at))
        if let target = boxMachine.scrubber.targetMs { console?.announce("scrub to \(ScreenLayout.clock(target))") }
    }

    /// The scrub button let go: jump to the target.
    func endScrub() {
        perform(boxMachine.handle(.scrubReleased, now: Instant.now))
    }
}
