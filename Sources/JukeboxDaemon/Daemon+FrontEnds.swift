import JukeboxCore
import JukeboxDevices
import MPDProtocol

// What the front ends ask of the daemon: console lines, buttons and keys, MPD requests. All
// run on the control thread; the player's actions they cause are performed as any others.

extension Daemon {
    /// A console line: the console's own words (`play 3` counts from 1, `next` moves by
    /// chapter, `seek 1:23`), else a command of the MPD table, which holds the box's words too
    /// (sleep, podcast, recent, card, chapter, knob, button, favourite, speed, lyrics).
    func handleConsoleLine(_ line: String) {
        let trimmed = line.trimmedSpaces
        if trimmed.isEmpty { return }
        switch ConsoleLanguage.daemonLine(trimmed) {
        case .rescan?:
            scan.start()
            console?.reply("OK scanning \(config.musicDir)")
            return
        case .help?:
            console?.reply([CommandParser.helpText, MPDCommands.boxHelp].joined(separator: "\n"))
            return
        case .clearCache?:
            console?.reply(mpd.stdinLine("podcast clear cache", host: self) ?? "")
            return
        case nil: break
        }
        // Commands act on the exact played position (status, seek ±, previous's 3 s rule, a
        // long track's remembered position, the lyric line), not on the last tick's.
        refreshPosition()
        if let reply = lyrics.handleConsole(trimmed, positionMs: machine.positionMs) {
            console?.reply(reply)
            return
        }
        switch CommandParser.parse(trimmed) {
        case .success(let command):
            let volumeBefore = machine.volume
            perform(machine.handle(.command(userCommand(command)), now: Instant.now))
            alarmVolumeSet(from: volumeBefore)
            if command == .status, let lines = boxStatusLines { console?.reply(lines) }
            if command == .status, let line = bufferingStatusLine { console?.reply(line) }
        case .failure(let error):
            // Words the console does not know may be MPD commands (currentsong, playlistinfo, add, ...).
            if case .unknownCommand = error, let reply = mpd.stdinLine(trimmed, host: self) {
                console?.reply(reply)
            } else {
                console?.reply("error: \(error.message)")
            }
        }
    }

    /// Gestures and encoder turns: commands go to the core like console commands. While the
    /// menu is open, the knob's clicks and the gestures it takes go to it instead, and their
    /// mapped actions (volume, toggle) are dropped.
    func handleControls(_ outputs: [ControlOutput]) {
        // An action follows its gesture; an action after no gesture is the knob's turn.
        var afterGesture = false
        var gestureTaken = false
        for output in outputs {
            switch output {
            case .gesture(let event):
                logger.debug("input: \(output)")
                gestureTaken = menuTakes(event)
                afterGesture = true
            case .detent(let direction, let at):
                logger.debug("input: \(output)")
                if menu.isOpen { perform(boxMachine.handle(.menu(.turn(direction)), now: at)) }
                afterGesture = false
            case .action(let action, _):
                defer { afterGesture = false }
                if afterGesture ? gestureTaken : menu.isOpen { continue }
                perform(action, source: "input")
            case .scrub(let units, let at):
                logger.debug("input: \(output)")
                scrub(units, at: at)
                afterGesture = false
            case .scrubEnd:
                logger.debug("input: \(output)")
                endScrub()
                afterGesture = false
            }
        }
        if !outputs.isEmpty { ControlInputs.reapChildren() }
    }

    /// A `knob` or `button` line from a console: a typed turn moves the open menu exactly
    /// (it has no speed to accelerate by); the rest is what the hardware would have made.
    func handleInjected(_ input: InjectedInput, map: ControlMap) {
        if menu.isOpen, case .turn(let detents) = input {
            perform(boxMachine.handle(.menu(.move(detents)), now: Instant.now))
            return
        }
        handleControls(input.outputs(map: map, at: Instant.now))
    }

    /// A gesture's (or a key's) action: commands go to the core like console commands.
    func perform(_ action: ControlAction, source: String) {
        logger.debug("\(source): -> \(action)")
        if let control = alarmControl(for: action) {
            // While an alarm rings a press stops or snoozes it, instead of what it does otherwise.
            perform(alarms.handle(.control(control), now: Instant.now))
            guard control == .takeOver || action == .shutdown else { return }
        }
        switch action {
        case .command(let command):
            perform(machine.handle(.command(userCommand(command)), now: Instant.now))
        case .lyricsOffset(let nudge):
            lyrics.follow(currentTrackInfo)
            if let offset = lyrics.nudge(nudge) {
                console?.announce("lyrics offset \(offset) ms")
            } else {
                logger.info("\(source): lyrics offset: no lyrics for this track")
            }
        case .favourite(let edit):
            editFavourites(edit, source: source)
        case .menu:
            if menu.isOpen {
                perform(boxMachine.handle(.menu(.close), now: Instant.now))
            } else {
                openMenu(at: Instant.now)
            }
        case .sleep(let target):
            console?.announce(setSleep(target))
        case .sayAddress:
            sayAddress()
        case .shutdown:
            powerOff(reason: "controls: shutdown gesture")
        }
    }
}

extension Daemon: MPDPlayerHost {
    /// Runs MPD requests against the player with the exact played position, then performs
    /// what they asked for (player actions, a rescan).
    func runMPD<T>(_ body: (inout MPDWorld) -> T) -> T {
        let status = refreshPosition().status
        let queueBefore = machine.queue.entries
        let placeBefore = currentPlace
        let volumeBefore = machine.volume
        var world = mpd.world(machine: machine, format: status.format.map { ($0.rate, $0.channels) })
        let stations = StationList(store: store)
        world.stations = stations
        if let id = machine.queue.currentTrack, radio.stations[id] != nil, let name = radio.name {
            world.stationNames[id] = name
        }
        lyrics.follow(currentTrackInfo)
        world.lyrics = lyrics.atPosition(machine.positionMs)
        notePlayingEpisode()
        world.box = box
        world.box.podcasts = PodcastShelf(podcasts: podcasts)
        world.box.system = { [unowned self] in self.systemFacts() }
        if config.speech.enabled { world.box.speak = { [unowned self] text in say(text) } }
        let result = body(&world)
        machine = world.machine
        alarmVolumeSet(from: volumeBefore)
        radio.stations.merge(stations.added) { _, new in new }
        let outputSwitched = world.host.outputEnabled != mpd.host.outputEnabled
        let extraSwitched = world.host.extraOutputs != mpd.host.extraOutputs
        mpd.absorb(world)
        if outputSwitched { switchOutput(enabled: world.host.outputEnabled) }
        if extraSwitched, let snapcast = world.host.extraOutputs.first { switchSnapcast(enabled: snapcast.enabled) }
        applyCrossfade()
        // A client's queue is no longer the source the box chose.
        if machine.queue.entries != queueBefore { recordHistory(.queueTakenOver(at: placeBefore)) }
        if world.observer.isMarked(.storedPlaylist) { refreshMenuLists() }
        for edit in world.favouriteEdits { editFavourites(edit, source: "mpd") }
        if let nudge = world.lyricNudge { lyrics.nudge(nudge) }
        perform(world.actions)
        if !world.injectedInputs.isEmpty {
            let map = ControlMap(config: config)
            for input in world.injectedInputs { handleInjected(input, map: map) }
        }
        if !world.updateRequests.isEmpty { scan.start() }
        for event in world.tagCardEvents { handleTagCard(event) }
        if world.box.podcastsChanged { refreshMenuLists() }
        for request in world.box.requests {
            switch request {
            case .sleep(let target): _ = setSleep(target)
            case .play(let source, let path, let positionMs):
                console?.announce(reply(playing: source, trackPath: path, positionMs: positionMs))
            case .playEpisode(let podcast, let episode): console?.announce(playEpisode(podcast, episode))
            case .restart: requestRestart()
            }
        }
        return result
    }

    /// The box's state the MPD table's box commands answer from (`sleep`, `chapter`, `recent`).
    var box: MPDBox {
        var box = MPDBox(
            sleep: boxMachine.sleepTarget, sleepLeftMs: boxMachine.sleepLeftMs,
            chapters: machine.state == .stopped ? nil : currentChapters, recent: history.recent.entries)
        box.startRefusal = startRefusal().map { "\($0)" }
        box.rulesFields = boxMachine.rules.statusFields
        box.alarmFields = alarms.statusFields(now: Instant.now)
        if !config.alarms.isEmpty { box.skipAlarm = { [unowned self] name, unskip in skipAlarm(name, unskip: unskip) } }
        return box
    }

    /// The lines the stdin console's `status` adds: the chapter, and the sleep timer when set.
    var boxStatusLines: String? {
        let box = box
        let fields = box.chapterFields(positionMs: machine.positionMs) + (box.sleep == nil ? [] : box.sleepFields)
        return fields.isEmpty ? nil : fields.map { "\($0): \($1)" }.joined(separator: "\n")
    }
}
