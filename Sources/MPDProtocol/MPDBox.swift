import JukeboxCore

/// The box's own state that MPD has no word for, as the daemon hands it to a request: what
/// the box's commands (`sleep`, `chapter`, `recent`, `podcast`) answer from, and what they
/// ask the daemon to do afterwards.
public struct MPDBox {
    /// The sleep timer's target (nil: off) and what is left of it (nil: unknown or off).
    public var sleep: SleepTarget?
    public var sleepLeftMs: Int64?
    /// The playing track's chapters.
    public var chapters: ChapterList?
    /// The Recently played list, newest first.
    public var recent: [RecentlyPlayed.Entry] = []
    /// The podcast subscriptions; nil: `podcast` is refused.
    public var podcasts: (any MPDPodcastShelf)?
    /// The daemon's facts for `system` (version, uptime, library, free space, config file),
    /// made only when asked (it reads the file system); nil: `system` is refused.
    public var system: (() -> [(String, String)])?

    /// Speaks a text (`say`): nil when it was taken (spoken now or after what waits), else
    /// why not (no libespeak-ng, the line full); nil: `say` is refused as speech is off.
    public var speak: ((String) -> String?)?

    /// The family's rules refuse a start now (from stopped or paused) with this message; a
    /// command that would start is answered with it as an ACK and changes nothing.
    public var startRefusal: String?
    /// What `rules` answers (`ListeningRules.statusFields`).
    public var rulesFields: [(String, String)] = [("rules", "none")]

    /// Set by a `podcast` command that changed the subscriptions or the cache.
    public var podcastsChanged = false
    /// What the commands asked for, in order, for the daemon to perform after the request.
    public var requests: [Request] = []

    /// Something only the daemon can do.
    public enum Request: Sendable, Equatable {
        /// Set the sleep timer (nil: off).
        case sleep(SleepTarget?)
        /// Play a source from a track and position, as the menu does.
        case play(PlaySource, trackPath: String?, positionMs: Int64)
        /// Play a podcast's episode (numbers from 1, as `podcast list` and `podcast N` show).
        case playEpisode(podcast: Int, episode: Int)
        /// Save the place as a stop does and start the daemon again (its config read anew).
        case restart

        /// Whether the request starts music (what the family's rules may refuse).
        public var startsPlaying: Bool {
            switch self {
            case .play, .playEpisode: true
            case .sleep, .restart: false
            }
        }
    }

    /// A box with nothing set.
    public init(
        sleep: SleepTarget? = nil, sleepLeftMs: Int64? = nil, chapters: ChapterList? = nil,
        recent: [RecentlyPlayed.Entry] = [], podcasts: (any MPDPodcastShelf)? = nil
    ) {
        self.sleep = sleep
        self.sleepLeftMs = sleepLeftMs
        self.chapters = chapters
        self.recent = recent
        self.podcasts = podcasts
    }

    /// The sleep timer's lines: `sleep: 30 min` and `sleep_left: 1795` (whole seconds, rounded up).
    public var sleepFields: [(String, String)] {
        guard let sleep else { return [("sleep", "off")] }
        return [("sleep", "\(sleep)")] + (sleepLeftMs.map { [("sleep_left", "\(($0 + 999) / 1000)")] } ?? [])
    }

    /// The chapter lines at `positionMs` (none for a track without chapters).
    public func chapterFields(positionMs: Int64) -> [(String, String)] {
        guard let chapters else { return [] }
        let moment = chapters.moment(at: positionMs)
        var fields = [
            ("chapter", "\(moment.index + 1)"), ("chapters", "\(moment.count)"), ("chapter_title", moment.title),
            ("chapter_elapsed", ReplyLine.seconds(moment.elapsedMs)),
        ]
        if let length = moment.lengthMs { fields.append(("chapter_duration", ReplyLine.seconds(length))) }
        return fields
    }
}

/// The podcast subscriptions as the `podcast` command manages them (the daemon's).
public protocol MPDPodcastShelf {
    /// Runs `command` (not `.play`); the reply's lines, or an error with its message.
    func run(_ command: PodcastCommand) throws -> [String]
}

/// The box's commands beyond MPD's: one table entry each with its help line, so that every
/// front end (MPD clients, the serial console, the stdin console) has them and `help` lists them.
extension MPDCommands {
    struct BoxCommand {
        var name: String
        var help: String
        var spec: Spec
    }

    static let boxCommands: [BoxCommand] = [
        // Knob turns and button gestures, as if made on the box (`knob +2`, `button next long`).
        BoxCommand(
            name: "knob", help: InjectedInput.helpText,
            spec: Spec(permission: .control, min: 1, max: 2) { w, c in try inject(["knob"] + c.arguments, into: &w) }),
        BoxCommand(
            name: "button", help: "",
            spec: Spec(permission: .control, min: 2, max: 2) { w, c in try inject(["button"] + c.arguments, into: &w) }),
        BoxCommand(
            name: "favourite", help: ControlAction.favouriteHelpText,
            spec: Spec(permission: .control, min: 0, max: 1) { w, c in
                switch ControlAction.parseFavourite(["favourite"] + c.arguments) {
                case .success(let edit)?: w.favouriteEdits.append(edit)
                case .failure(let error)?: throw MPDError(.argument, error.message)
                case nil: break
                }
            }),
        BoxCommand(name: "favourites", help: "favourites   play the Favourites playlist", spec: playFavourites),
        BoxCommand(name: "favorites", help: "", spec: playFavourites),
        BoxCommand(
            name: "recent", help: "recent [N]   list Recently played; recent N continues entry N where it was left",
            spec: Spec(permission: .read, min: 0, max: 1) { w, c in try recent(&w, &c) }),
        BoxCommand(
            name: "card", help: TagCardCommand.helpText,
            spec: Spec(permission: .control, min: 1, max: -1) { w, c in try card(&w, &c) }),
        BoxCommand(
            name: "podcast", help: PodcastCommand.helpText,
            spec: Spec(permission: .read, min: 0, max: 3) { w, c in try podcast(&w, &c) }),
        BoxCommand(
            name: "sleep", help: "sleep [30|90s|track|album|chapter|off]   the sleep timer: show it, or set it",
            spec: Spec(permission: .read, min: 0, max: 1) { w, c in try sleep(&w, &c) }),
        BoxCommand(
            name: "rules", help: "rules        the family's rules now: profile, quiet hours, listening time left",
            spec: Spec(permission: .read, min: 0, max: 0) { w, c in
                for (key, value) in w.box.rulesFields { c.response.add(key, value) }
            }),
        BoxCommand(
            name: "chapter", help: "chapter [next|previous]   the playing chapter, or move by chapter",
            spec: Spec(permission: .read, min: 0, max: 1) { w, c in try chapter(&w, &c) }),
        // Playback speed with the pitch kept, the console's words; `status` shows it as `speed:`.
        BoxCommand(
            name: "speed",
            help: "speed X      play X times as fast (0.5 to 2), the pitch kept; speed +0.25, speed -0.25, speed cycle",
            spec: Spec(permission: .control, min: 1, max: 1) { w, c in
                w.run(try parsed(CommandParser.parse("speed " + c.arguments[0])))
            }),
        // Spoken announcements: the music ducks under the voice, then comes back.
        BoxCommand(
            name: "say",
            help: "say \"TEXT\"   speak TEXT aloud over the music (at most \(Announcements.maxCharacters) characters)",
            spec: Spec(permission: .control, min: 1, max: 1) { w, c in
                let text = c.arguments[0]
                if let refusal = Announcements.refusal(of: text, enabled: w.box.speak != nil) {
                    throw MPDError(.argument, "say: \(refusal)")
                }
                if let refusal = w.box.speak?(text) { throw MPDError(.system, "say: \(refusal)") }
            }),
        // `lyrics`: the line at the played position; `lyrics offset ±MS` nudges this track's
        // lyrics (positive: sooner), saved per track by the daemon.
        BoxCommand(
            name: "lyrics",
            help: """
                lyrics       the current lyric line
                lyrics offset +200  show this song's lyrics 200 ms sooner (-200 later, 0 reset)
                """,
            spec: Spec(permission: .read, min: 0, max: 2) { w, c in try lyrics(&w, &c) }),
    ]

    /// The box itself: only for a client on the box (`Permission.local`: the Unix socket, a
    /// loopback peer such as jukebox-web, the consoles), so nobody elsewhere on the network
    /// restarts it or reads its paths; with `[network] password` set, a signed-in one.
    static let systemCommands: [BoxCommand] = [
        BoxCommand(
            name: "restart", help: "restart      save the place and start jukeboxd again (its config file read anew)",
            spec: Spec(permission: [.admin, .local], min: 0, max: 0) { w, _ in w.box.requests.append(.restart) }),
        BoxCommand(
            name: "system", help: "system       version, uptime, library size, free space, the config file",
            spec: Spec(permission: [.read, .local], min: 0, max: 0) { w, c in
                guard let facts = w.box.system else { throw MPDError(.system, "no system facts here") }
                for (key, value) in facts() { c.response.add(key, value) }
            }),
    ]

    static let playFavourites = Spec(permission: .control, min: 0, max: 0) { w, _ in
        w.box.requests.append(.play(.favourites, trackPath: nil, positionMs: 0))
    }

    /// `help`'s lines for the box's commands.
    public static let boxHelp = (boxCommands + systemCommands).map(\.help).filter { !$0.isEmpty }.joined(
        separator: "\n")

    /// Lines of a reply that has no fields: plain for a person, `key: line` for a client.
    static func add(_ key: String, lines: [String], to c: inout Call) {
        for line in lines { c.response.append(c.human ? "\(line)\n" : "\(key): \(ReplyLine.oneLine(line))\n") }
    }

    /// What a core parser read, or its message as an argument error.
    static func parsed<T>(_ result: Result<T, CommandError>) throws -> T {
        switch result {
        case .success(let value): return value
        case .failure(let error): throw MPDError(.argument, error.message)
        }
    }

    static func requireControl(_ c: Call, _ what: String) throws {
        guard c.permission.contains(.control) else {
            throw MPDError(.permission, "you don't have permission for \"\(what)\"")
        }
    }

    static func sleep(_ w: inout MPDWorld, _ c: inout Call) throws {
        guard let argument = c.arguments.first else {
            for (key, value) in w.box.sleepFields { c.response.add(key, value) }
            return
        }
        try requireControl(c, "sleep")
        switch SleepTarget.parse(argument) {
        case .success(let target):
            w.box.sleep = target
            w.box.sleepLeftMs = nil
            w.box.requests.append(.sleep(target))
            c.response.add("sleep", target.map { "\($0)" } ?? "off")
        case .failure(let error):
            throw MPDError(.argument, error.message)
        }
    }

    /// `chapter`: the playing chapter's lines; `chapter next|previous`: what the console's
    /// `next` and `previous` do in a file with chapters (a track without: they move by track).
    static func chapter(_ w: inout MPDWorld, _ c: inout Call) throws {
        guard let argument = c.arguments.first?.lowercased() else {
            if w.machine.state != .stopped {
                for (key, value) in w.box.chapterFields(positionMs: w.machine.positionMs) { c.response.add(key, value) }
            }
            return
        }
        let command: Command
        switch argument {
        case "next": command = .next
        case "previous", "prev": command = .previous
        default: throw MPDError(.argument, "usage: chapter [next|previous]")
        }
        try requireControl(c, "chapter")
        guard w.machine.state != .stopped else { throw MPDError(.playerSync, "Not playing") }
        w.run(
            ChapterNavigation.command(
                for: command, chapters: w.box.chapters, positionMs: w.machine.positionMs,
                restartThresholdMs: w.machine.configuration.restartThresholdMs))
    }

    static func recent(_ w: inout MPDWorld, _ c: inout Call) throws {
        let entries = w.box.recent
        guard let argument = c.arguments.first else {
            add(
                "recent",
                lines: entries.isEmpty
                    ? ["nothing played yet"]
                    : entries.enumerated().map { offset, entry in
                        "\(offset + 1) \(entry.source.title): \(entry.trackPath) at \(ScreenLayout.clock(entry.positionMs))"
                    }, to: &c)
            return
        }
        try requireControl(c, "recent")
        guard let number = Int(argument), entries.indices.contains(number - 1) else {
            throw MPDError(.argument, "recent: expected an entry number from 1 to \(entries.count)")
        }
        let entry = entries[number - 1]
        w.box.requests.append(.play(entry.source, trackPath: entry.trackPath, positionMs: entry.positionMs))
    }

    static func podcast(_ w: inout MPDWorld, _ c: inout Call) throws {
        let command = try parsed(PodcastCommand.parse(c.arguments))
        switch command {
        case .list, .episodes: break
        default:
            try requireControl(c, "podcast")
            w.box.podcastsChanged = true
        }
        if case .play(let podcast, let episode) = command {
            w.box.requests.append(.playEpisode(podcast: podcast, episode: episode))
            return
        }
        guard let shelf = w.box.podcasts else { throw MPDError(.unknown, "no podcasts here") }
        do {
            // A person reads "OK podcast 1: URL"; a client gets the reply's OK at its end.
            let lines = try shelf.run(command)
            let answer = c.human ? lines : lines.map { $0.hasPrefix("OK ") ? String($0.dropFirst(3)) : $0 }
            add("podcast", lines: answer, to: &c)
        } catch {
            throw MPDError(.noExist, "\(error)")
        }
    }

    /// NFC/RFID cards: manage the mapping, or stand in for a reader (`card 04A1B2`, `card none`).
    static func card(_ w: inout MPDWorld, _ c: inout Call) throws {
        let command = try parsed(TagCardCommand.parse(c.arguments))
        switch command {
        case .read(let id): w.tagCardEvents.append(.read(id))
        case .removed: w.tagCardEvents.append(.removed)
        default:
            guard let cards = w.tagCards else { throw MPDError(.unknown, "no card mapping here") }
            do {
                let lines = try cards.run(command)
                // `info`, `unknown` and `last` answer in key: value lines of their own.
                if [.info, .unknown, .last].contains(command) {
                    for line in lines { c.response.append("\(line)\n") }
                } else {
                    add("card", lines: lines, to: &c)
                }
            } catch {
                throw MPDError(.system, "\(error)")
            }
            if ![.list, .info, .unknown, .last].contains(command) { w.observer.mark(.cards) }
        }
    }

    static func lyrics(_ w: inout MPDWorld, _ c: inout Call) throws {
        guard var lyrics = w.lyrics else { throw MPDError(.noExist, "No lyrics for the current song") }
        if let word = c.arguments.first {
            guard word.lowercased() == "offset", c.arguments.count == 2 else {
                throw MPDError(.argument, "usage: lyrics [offset +MS|-MS|MS]")
            }
            try requireControl(c, "lyrics offset")
            guard let nudge = LyricNudge.parse(c.arguments[1]) else { throw MPDError(.argument, LyricNudge.usage) }
            lyrics.timeline.nudgeMs = nudge.applied(to: lyrics.timeline.nudgeMs)
            // Absolute, so that several nudges in one command list add up once.
            w.lyricNudge = LyricNudge(relative: false, ms: lyrics.timeline.nudgeMs)
            w.lyrics = lyrics
        }
        let moment = lyrics.timeline.moment(at: lyrics.positionMs)
        if let line = moment.current { c.response.add("line", line.text) }
        if let line = moment.next { c.response.add("next", line.text) }
        if moment.current != nil {
            c.response.add("offset", ReplyLine.seconds(lyrics.positionMs - moment.lineStartMs))
        }
        c.response.add("lyrics_offset", "\(lyrics.timeline.nudgeMs)")
        if let source = lyrics.source { c.response.add("source", source) }
    }
}
