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
    /// What `alarms` answers (`WakeUpAlarms.statusFields`).
    public var alarmFields: [(String, String)] = [("alarms", "none")]
    /// `alarms skip|unskip NAME` (`WakeUpAlarms.skipNext`): what was done, or why not; nil:
    /// the box has no alarms.
    public var skipAlarm: ((_ name: String, _ unskip: Bool) -> Result<String, CommandError>)?

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
        /// What docs/COMMANDS.md says of it, form by form (`CommandReference`).
        var reference: [CommandReferenceEntry] = []
        /// Why these arguments are no command of it (the core parser's message), without
        /// running it; nil when they are one (`ConsoleLanguage.problem(in:)`).
        var check: (@Sendable ([String]) -> String?)? = nil
        /// Read permission shows it; changing something needs control (`requireControl`).
        var controlToChange = false
    }

    /// A word that answers some of the box's fields and changes nothing (`rules`, `alarms`).
    static func fieldsCommand(
        _ name: String, help: String, description: String,
        fields: @escaping @Sendable (MPDBox) -> [(String, String)]
    ) -> BoxCommand {
        BoxCommand(
            name: name, help: help,
            spec: Spec(permission: .read, min: 0, max: 0) { w, c in
                for (key, value) in fields(w.box) { c.response.add(key, value) }
            },
            reference: [CommandReferenceEntry(.timers, name, description, examples: [name])])
    }

    /// The message of a core parser's refusal; nil for a success.
    static func refusal<T>(_ result: Result<T, CommandError>?) -> String? {
        if case .failure(let error)? = result { error.message } else { nil }
    }

    static let boxCommands: [BoxCommand] = [
        // Knob turns and button gestures, as if made on the box (`knob +2`, `button next long`).
        BoxCommand(
            name: "knob", help: InjectedInput.helpText,
            spec: Spec(permission: .control, min: 1, max: 2) { w, c in try inject(["knob"] + c.arguments, into: &w) },
            reference: [
                CommandReferenceEntry(
                    .controls, "knob ±N, knob press, knob long",
                    "as if the knob were turned N clicks, pressed or held: through the configured mapping",
                    examples: ["knob +3", "knob -1", "knob press", "knob long"]),
                CommandReferenceEntry(
                    .controls, "knob scrub ±N, knob scrub end",
                    "as if the knob were turned with the scrub button held (the target time shows), then the button let go (the jump)",
                    examples: ["knob scrub +3", "knob scrub end"]),
            ],
            check: { refusal(InjectedInput.parse(words: ["knob"] + $0)) }),
        BoxCommand(
            name: "button", help: "",
            spec: Spec(permission: .control, min: 2, max: 2) { w, c in try inject(["button"] + c.arguments, into: &w) },
            reference: [
                CommandReferenceEntry(
                    .controls, "button B G",
                    "gesture G (`short`, `long`, `double`, `repeat`, `very_long`) of button B (`play_pause`, `next`, `previous` or `switch`), as mapped; `chord`: two buttons held together",
                    examples: ["button next long", "button play_pause double", "button next+previous chord"])
            ],
            check: { refusal(InjectedInput.parse(words: ["button"] + $0)) }),
        BoxCommand(
            name: "favourite", help: ControlAction.favouriteHelpText,
            spec: Spec(permission: .control, min: 0, max: 1) { w, c in
                switch ControlAction.parseFavourite(["favourite"] + c.arguments) {
                case .success(let edit)?: w.favouriteEdits.append(edit)
                case .failure(let error)?: throw MPDError(.argument, error.message)
                case nil: break
                }
            },
            reference: [
                CommandReferenceEntry(
                    .controls, "favourite [add|remove]",
                    "the playing track in or out of the `Favourites` playlist (`favourite` alone: in if out, else out)",
                    examples: ["favourite", "favourite add", "favourite remove"])
            ],
            check: { refusal(ControlAction.parseFavourite(["favourite"] + $0)) }),
        BoxCommand(
            name: "favourites", help: "favourites   play the Favourites playlist", spec: playFavourites,
            reference: [
                CommandReferenceEntry(
                    .controls, "favourites", "play the Favourites playlist (also: favorites)",
                    examples: ["favourites", "favorites"])
            ]),
        BoxCommand(name: "favorites", help: "", spec: playFavourites),
        BoxCommand(
            name: "recent", help: "recent [N]   list Recently played; recent N continues entry N where it was left",
            spec: Spec(permission: .read, min: 0, max: 1) { w, c in try recent(&w, &c) },
            reference: [
                CommandReferenceEntry(
                    .library, "recent [N]",
                    "list Recently played; `recent N` continues entry N at its track and position",
                    examples: ["recent", "recent 2"])
            ],
            check: { $0.allSatisfy { Int($0) != nil } ? nil : "recent: expected an entry number" },
            controlToChange: true),
        BoxCommand(
            name: "card", help: TagCardCommand.helpText,
            spec: Spec(permission: .control, min: 1, max: -1) { w, c in try card(&w, &c) },
            reference: [
                CommandReferenceEntry(
                    .cards, "card ID, card none", "as if card ID were put on the reader, or taken off",
                    examples: ["card 04A1B2C3", "card none"]),
                CommandReferenceEntry(
                    .cards, "card assign ID KIND VALUE",
                    "what a card plays: KIND is `folder`, `album` (its name, or artist and name), `artist`, `playlist`, `url` (kept for when streams exist) or `command` (any console command: `stop`, `volume 30`, `mode shuffle`)",
                    examples: [
                        "card assign 04A1B2C3 folder \"Kids/Gruffalo\"", "card assign 04A1B2C3 album \"Abbey Road\"",
                        "card assign 04A1B2C3 command \"volume 30\"",
                    ]),
                CommandReferenceEntry(
                    .cards, "card policy ID continue|start|auto",
                    "where its music starts when it comes back after other music",
                    examples: ["card policy 04A1B2C3 continue"]),
                CommandReferenceEntry(
                    .cards, "card name ID NAME",
                    "the card's name, shown by `card list`, `card info` and the web page: in quotes when it has spaces, at most 64 characters, no control characters; `\"\"` clears it",
                    examples: ["card name 04A1B2C3 \"yellow car\"", "card name 04A1B2C3 \"\""]),
                CommandReferenceEntry(
                    .cards, "card list, card forget ID",
                    "the mapping, one card a line (with its name and when it was last put on the reader, as `used 2026-12-07T07:32:00Z`); forget a card",
                    examples: ["card list", "card forget 04A1B2C3"]),
                CommandReferenceEntry(
                    .cards, "card info, card unknown",
                    "the mapping in `key: value` lines (for programs): `card:`, `kind:`, `value:`, then when the card has them `artist:`, `policy:`, `place:` with `position:`, `name:` and `last_used:` (UTC, ISO 8601 as MPD's `Last-Modified`; recorded only while the box trusts its clock, `[rules] clock`); the last new card read that has no mapping yet",
                    examples: ["card info", "card unknown"]),
                CommandReferenceEntry(
                    .cards, "card last",
                    "the last card read (`last: ID`) and the reads since the daemon started (`reads: N`); every read raises the `cards` idle event, so a program (jukebox-mqtt's card trigger) tells a new scan of the same card by the count",
                    examples: ["card last"]),
                CommandReferenceEntry(
                    .cards, "card export FILE, card import FILE",
                    "the mapping as CSV (`card,kind,value,artist,policy,name`; a file without the `name` column, from before, still imports and keeps the names), or as TOML when FILE ends in `.toml` (a table `[card.ID]` per card: `folder = \"Kids/Gruffalo\"`, or `album` with `artist`, ..., `policy` and `name`); a file with a bad line imports nothing and each bad line is named",
                    examples: ["card export /home/pi/cards.csv", "card import /home/pi/cards.toml"]),
            ],
            check: { refusal(TagCardCommand.parse($0)) }),
        BoxCommand(
            name: "podcast", help: PodcastCommand.helpText,
            spec: Spec(permission: .read, min: 0, max: 3) { w, c in try podcast(&w, &c) },
            reference: [
                CommandReferenceEntry(
                    .podcasts, "podcast add URL, podcast remove N|URL, podcast refresh",
                    "follow an RSS or Atom feed (also `[podcasts] feeds`), stop following it, read every feed again",
                    examples: ["podcast add \"https://example.org/feed.xml\"", "podcast remove 1", "podcast refresh"]),
                CommandReferenceEntry(
                    .podcasts, "podcast list, podcast N",
                    "the podcasts, numbered; podcast N's episodes, new first, with what is downloaded",
                    examples: ["podcast list", "podcast 1"]),
                CommandReferenceEntry(
                    .podcasts, "podcast download N E, podcast play N E",
                    "download episode E of podcast N in the background; play it from where it was left (while it downloads: it waits where the download is, `status` says `buffering`; a restart, even kill -9, brings it back at its place and continues the download by Range)",
                    examples: ["podcast download 1 2", "podcast play 1 2"]),
                CommandReferenceEntry(
                    .podcasts, "podcast clear cache, clear cache",
                    "delete every downloaded episode (`clear cache` on a console); `[podcasts] cache_limit_mb` bounds the cache: played episodes go first, then the oldest",
                    examples: ["podcast clear cache", "clear cache"]),
            ],
            check: { refusal(PodcastCommand.parse($0)) }, controlToChange: true),
        BoxCommand(
            name: "sleep", help: "sleep [30|90s|track|album|chapter|off]   the sleep timer: show it, or set it",
            spec: Spec(permission: .read, min: 0, max: 1) { w, c in try sleep(&w, &c) },
            reference: [
                CommandReferenceEntry(
                    .timers, "sleep [M|Ss|track|album|chapter|off]",
                    "the sleep timer: minutes, seconds (of track time: at 1.5× `sleep 30` ends after 20 minutes on the clock), or to the end of the track, album or chapter; `sleep` alone shows it (`sleep: 30 min`, `sleep_left: 1795`), and so does the console's `status`",
                    examples: [
                        "sleep 30", "sleep 90s", "sleep track", "sleep album", "sleep chapter", "sleep off", "sleep",
                    ])
            ],
            check: { refusal($0.first.map(SleepTarget.parse)) }, controlToChange: true),
        fieldsCommand(
            "rules", help: "rules        the family's rules now: profile, quiet hours, listening time left",
            description:
                "the family's rules now (`[rules]`): `clock: known`, `profile: evening`, `max_volume: 40`, `quiet_hours: on`, `budget: 3600`, `budget_left: 754` (seconds); `rules: none` without rules. A start that the rules refuse (quiet hours, the listening time used up) is answered on the console and, to an MPD client, as `ACK [55@0] {play} quiet hours: nothing starts now`"
        ) { $0.rulesFields },
        BoxCommand(
            name: "alarms",
            help:
                "alarms [skip|unskip NAME]   the wake-up alarms: the next one, one ringing or snoozed; skip one's next ring",
            spec: Spec(permission: .read, min: 0, max: 2) { w, c in try alarms(&w, &c) },
            reference: [
                CommandReferenceEntry(
                    .timers, "alarms",
                    "the wake-up alarms (`[[alarm]]`): `clock: known` (or why they wait), `next: 2026-12-08 06:45 school`, `skipped: 2026-12-09 06:45 school`, `ringing: school` with `alarm_volume: 12` during the fade-in, `snoozed: school, rings again in 8:12`, then one `alarm:` line each; `alarms: none` without alarms. While one rings, play/pause (or the knob's press) stops it, next or previous snoozes it, turning the knob (or setting the volume from a client) keeps the music at that volume",
                    examples: ["alarms"]),
                CommandReferenceEntry(
                    .timers, "alarms skip NAME, alarms unskip NAME",
                    "alarm NAME does not ring at its next time (a holiday; kept across a power cut), or rings again at its next time; answers `alarm: school skipped on 2026-12-09 06:45`, and `alarms` then shows `skipped: 2026-12-09 06:45 school`",
                    examples: ["alarms skip school", "alarms unskip school"]),
            ],
            check: { arguments in
                guard let word = arguments.first?.lowercased() else { return nil }
                return ["skip", "unskip"].contains(word) && arguments.count == 2
                    ? nil : "usage: alarms [skip|unskip NAME]"
            },
            controlToChange: true),
        BoxCommand(
            name: "chapter", help: "chapter [next|previous]   the playing chapter, or move by chapter",
            spec: Spec(permission: .read, min: 0, max: 1) { w, c in try chapter(&w, &c) },
            reference: [
                CommandReferenceEntry(
                    .library, "chapter [next|previous]",
                    "the playing chapter's lines; move by chapter (as `next` and `previous` do on the console)",
                    examples: ["chapter", "chapter next", "chapter previous"])
            ],
            check: { arguments in
                guard let word = arguments.first?.lowercased() else { return nil }
                return ["next", "previous", "prev"].contains(word) ? nil : "usage: chapter [next|previous]"
            },
            controlToChange: true),
        // Playback speed with the pitch kept, the console's words; `status` shows it as `speed:`.
        BoxCommand(
            name: "speed",
            help: "speed X      play X times as fast (0.5 to 2), the pitch kept; speed +0.25, speed -0.25, speed cycle",
            spec: Spec(permission: .control, min: 1, max: 1) { w, c in
                w.run(try parsed(CommandParser.parse("speed " + c.arguments[0])))
            },
            reference: [
                CommandReferenceEntry(
                    .playing, "speed X, speed ±0.25, speed cycle",
                    "play 0.5–2× as fast with the pitch kept (libsonic); a long track (a book) keeps its own speed, other tracks the box's; positions stay in track time; `status` shows `speed:`, and so does Settings > Speed in the menu",
                    examples: ["speed 1.5", "speed +0.25", "speed -0.25", "speed cycle"])
            ],
            check: { refusal(CommandParser.parse((["speed"] + $0).joined(separator: " "))) }),
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
            },
            reference: [
                CommandReferenceEntry(
                    .timers, "say TEXT",
                    "speak the text aloud with espeak-ng (`[speech]`): the music ducks under the voice to `[speech] duck` and comes back after it, playing on meanwhile (nothing of it is missed); paused or stopped, the voice alone. At most \(Announcements.maxCharacters) characters; a text asked for while another is spoken waits (at most 4 wait). Refused with the reason: too long, nothing to say, the line full, `[speech] enabled = false`, or `speech needs libespeak-ng1` on a box without the library",
                    examples: ["say \"Good night, Anna\"", "say hello"])
            ]),
        // `lyrics`: the line at the played position; `lyrics offset ±MS` nudges this track's
        // lyrics (positive: sooner), saved per track by the daemon.
        BoxCommand(
            name: "lyrics",
            help: """
                lyrics       the current lyric line
                lyrics offset +200  show this song's lyrics 200 ms sooner (-200 later, 0 reset)
                """,
            spec: Spec(permission: .read, min: 0, max: 2) { w, c in try lyrics(&w, &c) },
            reference: [
                CommandReferenceEntry(
                    .library, "lyrics, lyrics offset ±MS",
                    "the lyric file and the current line; nudge this track's lyrics (positive: sooner; 0 resets; saved per track)",
                    examples: ["lyrics", "lyrics offset +200", "lyrics offset -200", "lyrics offset 0"])
            ],
            check: { arguments in
                guard let word = arguments.first else { return nil }
                return word.lowercased() == "offset" && arguments.count == 2 && LyricNudge.parse(arguments[1]) != nil
                    ? nil : "usage: lyrics [offset +MS|-MS|MS]"
            }, controlToChange: true),
    ]

    /// The box itself: only for a client on the box (`Permission.local`: the Unix socket, a
    /// loopback peer such as jukebox-web, the consoles), so nobody elsewhere on the network
    /// restarts it or reads its paths; with `[network] password` set, a signed-in one.
    static let systemCommands: [BoxCommand] = [
        BoxCommand(
            name: "restart", help: "restart      save the place and start jukeboxd again (its config file read anew)",
            spec: Spec(permission: [.admin, .local], min: 0, max: 0) { w, _ in w.box.requests.append(.restart) },
            reference: [
                CommandReferenceEntry(
                    .box, "restart",
                    "save the place (as a stop does: the resume state written and synced) and start jukeboxd again, its config file read anew (below)",
                    examples: ["restart"])
            ]),
        BoxCommand(
            name: "system", help: "system       version, uptime, library size, free space, the config file",
            spec: Spec(permission: [.read, .local], min: 0, max: 0) { w, c in
                guard let facts = w.box.system else { throw MPDError(.system, "no system facts here") }
                for (key, value) in facts() { c.response.add(key, value) }
            },
            reference: [
                CommandReferenceEntry(
                    .box, "system",
                    "the daemon's facts: `version`, `build`, `pid`, `started_ms` (this start, ms since 1970), `uptime` (s), `tracks`, `music_dir`, `music_free` (bytes), `config`, `database`, `restart_by` (`systemd` or `exec`), and a `problem:` line for each of the last five errors it logged",
                    examples: ["system"])
            ]),
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

    /// `alarms`: the alarms' fields; `alarms skip|unskip NAME`: skip an alarm's next ring, or not.
    static func alarms(_ w: inout MPDWorld, _ c: inout Call) throws {
        guard let word = c.arguments.first?.lowercased() else {
            for (key, value) in w.box.alarmFields { c.response.add(key, value) }
            return
        }
        guard ["skip", "unskip"].contains(word), c.arguments.count == 2 else {
            throw MPDError(.argument, "usage: alarms [skip|unskip NAME]")
        }
        try requireControl(c, "alarms")
        guard let skip = w.box.skipAlarm else { throw MPDError(.argument, "no alarms (add [[alarm]] to the config)") }
        switch skip(c.arguments[1], word == "unskip") {
        case .success(let done): c.response.add("alarm", done)
        case .failure(let error): throw MPDError(.argument, error.message)
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
