import JukeboxCore

/// The MPD command table: each command's permission, argument count and handler, answered
/// from the `MPDWorld` as MPD 0.23 answers (field names and order, error codes and texts).
public enum MPDCommands {
    /// What a client may do (MPD's permission bits).
    public struct Permission: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let read = Permission(rawValue: 1)
        public static let add = Permission(rawValue: 2)
        public static let control = Permission(rawValue: 4)
        public static let admin = Permission(rawValue: 8)
        public static let all: Permission = [.read, .add, .control, .admin]
        /// A client on the box itself (the Unix socket, a loopback TCP peer, the consoles),
        /// as MPD's `config` is for local clients only: `restart` and `system` need it, so a
        /// client elsewhere on the network cannot restart the box or read its paths. Not in
        /// `.all`: a password does not grant it.
        public static let local = Permission(rawValue: 16)
    }

    /// One call of a handler: the arguments, the response being built, and session effects.
    public struct Call {
        public var arguments: [String]
        public var response = MPDResponse()
        public var permission: Permission
        /// The configured password (nil: none).
        public var password: String?
        /// Set by `close`.
        public var close = false
        /// Set by `idle`: the subsystems to wait for (empty: all).
        public var idle: Set<MPDSubsystem>?
        /// For the human console: `help` lists plain words.
        public var human: Bool
        /// The most bytes of one binary chunk; `binarylimit` changes it for the session.
        public var binaryLimit: Int
        /// The session's number on the message board, once it subscribed to a channel.
        public var messageClient: Int?
        /// The protocol features the client turned on (`protocol enable`).
        public var protocolFeatures: Set<MPDProtocolFeature>
        /// The rows after `response`, made as the connection takes them.
        var rows: MPDReplyStream?

        init(
            arguments: [String], permission: Permission, password: String?, human: Bool, binaryLimit: Int = 8192,
            messageClient: Int? = nil, protocolFeatures: Set<MPDProtocolFeature> = []
        ) {
            self.arguments = arguments
            self.permission = permission
            self.password = password
            self.human = human
            self.binaryLimit = binaryLimit
            self.messageClient = messageClient
            self.protocolFeatures = protocolFeatures
        }
    }

    typealias Handler = @Sendable (inout MPDWorld, inout Call) throws -> Void

    struct Spec: Sendable {
        var permission: Permission
        var min: Int
        /// -1: no limit.
        var max: Int
        var handler: Handler
    }

    /// Looks up and runs one request: permission and argument count first, as MPD does.
    /// The error's command name is "" when the command is unknown.
    static func execute(_ request: MPDProtocol.Request, world: inout MPDWorld, call: inout Call) -> MPDError? {
        guard let spec = table[request.command] else {
            return MPDError(.unknown, "unknown command \"\(ReplyLine.oneLine(request.command))\"")
        }
        if !call.permission.isSuperset(of: spec.permission) {
            return MPDError(.permission, "you don't have permission for \"\(request.command)\"")
        }
        let count = request.arguments.count
        if spec.min >= 0 {
            if spec.min == spec.max, count != spec.max {
                return MPDError(.argument, "wrong number of arguments for \"\(request.command)\"")
            } else if count < spec.min {
                return MPDError(.argument, "too few arguments for \"\(request.command)\"")
            } else if spec.max >= 0, count > spec.max {
                return MPDError(.argument, "too many arguments for \"\(request.command)\"")
            }
        }
        do {
            let before = world.machine
            let actionCount = world.actions.count
            let requestCount = world.box.requests.count
            try spec.handler(&world, &call)
            if let refusal = world.box.startRefusal, before.state != .playing,
                world.actions[actionCount...].contains(where: \.startsPlaying)
                    || world.box.requests[requestCount...].contains(where: \.startsPlaying)
            {
                // The family's rules: nothing starts now (MPD has no such state; the box's
                // answer is an ACK and the player as it was). The box's words (`favourites`,
                // `recent N`, `podcast N M`) are refused here too, not answered OK and then
                // dropped by the daemon.
                world.machine = before
                world.actions.removeSubrange(actionCount...)
                world.box.requests.removeSubrange(requestCount...)
                return MPDError(.playerSync, refusal)
            }
            return nil
        } catch let error as MPDError {
            return error
        } catch {
            return MPDError(.unknown, "\(error)")
        }
    }

    /// Every command name, sorted (the `commands` reply).
    public static var names: [String] { table.keys.sorted() }

    /// Whether `name` is a command of the table.
    public static func isKnown(_ name: String) -> Bool { table[name] != nil }

    /// Whether a client with `permission` may run `name`.
    public static func allowed(_ name: String, permission: Permission) -> Bool {
        table[name].map { permission.isSuperset(of: $0.permission) } ?? false
    }

    // MARK: the table

    /// MPD's commands and the box's (MPD's meaning wins where a name is both).
    static let table: [String: Spec] = mpdTable.merging((boxCommands + systemCommands).map { ($0.name, $0.spec) }) {
        mpd, _ in mpd
    }

    static let mpdTable: [String: Spec] = [
        // status and the current song
        "status": Spec(permission: .read, min: 0, max: 0) { w, c in status(&w, &c) },
        "currentsong": Spec(permission: .read, min: 0, max: 0) { w, c in
            if let index = w.machine.queue.currentIndex { queueSong(index, w, into: &c.response) }
        },
        "stats": Spec(permission: .read, min: 0, max: 0) { w, c in
            c.response.add("uptime", w.host.uptimeSeconds)
            c.response.add("playtime", w.host.playTimeSeconds)
            c.response.add("artists", w.library.distinctCount(.artist))
            c.response.add("albums", w.library.distinctCount(.album))
            c.response.add("songs", w.library.tracks.count)
            c.response.add("db_playtime", w.library.totalSeconds)
            c.response.add("db_update", w.host.databaseUpdateTime)
        },
        "getvol": Spec(permission: .read, min: 0, max: 0) { w, c in c.response.add("volume", w.machine.volume) },
        "replay_gain_status": Spec(permission: .read, min: 0, max: 0) { w, c in
            c.response.add("replay_gain_mode", w.replayGainMode.rawValue)
        },
        "replay_gain_mode": Spec(permission: .control, min: 1, max: 1) { w, c in
            guard let mode = ReplayGainMode(rawValue: c.arguments[0]) else {
                throw MPDError(.argument, "Unrecognized replay gain mode")
            }
            w.replayGainMode = mode
            // MPD wakes `options` even when the mode stays the same.
            w.observer.mark(.options)
        },
        // No error is kept: a track that fails is skipped and logged.
        "clearerror": Spec(permission: .control, min: 0, max: 0) { _, _ in },
        // client-to-client messages, neighbors and storage (MPDMessages.swift)
        "subscribe": Spec(permission: .read, min: 1, max: 1) { w, c in try subscribe(&w, &c) },
        "unsubscribe": Spec(permission: .read, min: 1, max: 1) { w, c in try unsubscribe(&w, &c) },
        "channels": Spec(permission: .read, min: 0, max: 0) { w, c in
            for channel in w.messages.channels { c.response.add("channel", channel) }
        },
        "readmessages": Spec(permission: .read, min: 0, max: 0) { w, c in readMessages(&w, &c) },
        "sendmessage": Spec(permission: .control, min: 2, max: 2) { w, c in try sendMessage(&w, &c) },
        "listneighbors": Spec(permission: .read, min: 0, max: 0) { _, _ in
            throw MPDError(.unknown, "No neighbor plugin configured")
        },
        "listmounts": Spec(permission: .read, min: 0, max: 0) { _, c in c.response.add("mount", "") },
        "mount": Spec(permission: .admin, min: 2, max: 2) { w, c in try mount(&w, &c) },
        "unmount": Spec(permission: .admin, min: 1, max: 1) { w, c in try unmount(&w, &c) },
        "listpartitions": Spec(permission: .read, min: 0, max: 0) { _, c in c.response.add("partition", "default") },
        // the audio output (MPDOutputs.swift)
        "outputs": Spec(permission: .read, min: 0, max: 0) { w, c in outputs(&w, &c) },
        "enableoutput": Spec(permission: .admin, min: 1, max: 1) { w, c in try switchOutput(&w, &c) { _ in true } },
        "disableoutput": Spec(permission: .admin, min: 1, max: 1) { w, c in try switchOutput(&w, &c) { _ in false } },
        "toggleoutput": Spec(permission: .admin, min: 1, max: 1) { w, c in try switchOutput(&w, &c) { !$0 } },
        "outputset": Spec(permission: .admin, min: 3, max: 3) { w, c in try outputSet(&w, &c) },
        "decoders": Spec(permission: .read, min: 0, max: 0) { _, c in
            c.response.add("plugin", "mpg123")
            c.response.add("suffix", "mp3")
            c.response.add("mime_type", "audio/mpeg")
            c.response.add("plugin", "wave")
            c.response.add("suffix", "wav")
            c.response.add("mime_type", "audio/wav")
            // The Xiph formats, under MPD's plugin names and suffixes.
            c.response.add("plugin", "flac")
            c.response.add("suffix", "flac")
            c.response.add("mime_type", "audio/flac")
            c.response.add("plugin", "vorbis")
            c.response.add("suffix", "ogg")
            c.response.add("suffix", "oga")
            c.response.add("mime_type", "audio/ogg")
            c.response.add("plugin", "opus")
            c.response.add("suffix", "opus")
            c.response.add("mime_type", "audio/opus")
        },
        "urlhandlers": Spec(permission: .read, min: 0, max: 0) { _, _ in },
        "tagtypes": Spec(permission: [], min: 0, max: -1) { _, c in try tagTypes(&c) },
        "protocol": Spec(permission: [], min: 0, max: -1) { _, c in try protocolFeatures(&c) },
        // playback
        "play": Spec(permission: .control, min: 0, max: 1) { w, c in
            if let argument = c.arguments.first {
                let position = try signedInteger(argument)
                if position < 0 {
                    w.run(.play(index: nil))
                    return
                }
                guard position < w.machine.queue.count else { throw MPDError(.argument, "Bad song index") }
                w.run(.play(index: position))
            } else {
                w.run(.play(index: nil))
            }
        },
        "playid": Spec(permission: .control, min: 0, max: 1) { w, c in
            if let argument = c.arguments.first {
                let id = try signedInteger(argument)
                if id < 0 {
                    w.run(.play(index: nil))
                    return
                }
                w.run(.play(index: try position(ofID: id, in: w)))
            } else {
                w.run(.play(index: nil))
            }
        },
        "pause": Spec(permission: .control, min: 0, max: 1) { w, c in
            if let argument = c.arguments.first {
                if try boolean(argument) {
                    if w.machine.state == .playing { w.run(.pause) }
                } else if w.machine.state == .paused {
                    w.run(.resume)
                }
            } else if w.machine.state != .stopped {
                w.run(.toggle)
            }
        },
        "toggle": Spec(permission: .control, min: 0, max: 0) { w, _ in w.run(.toggle) },
        "stop": Spec(permission: .control, min: 0, max: 0) { w, _ in w.run(.stop) },
        "next": Spec(permission: .control, min: 0, max: 0) { w, _ in
            guard w.machine.state != .stopped else { throw MPDError(.playerSync, "Not playing") }
            w.run(.next)
        },
        // The song before, at any position, as MPD (the box's button restarts a song past 3 s).
        "previous": Spec(permission: .control, min: 0, max: 0) { w, _ in
            guard w.machine.state != .stopped else { throw MPDError(.playerSync, "Not playing") }
            w.run(.previousSong)
        },
        "seek": Spec(permission: .control, min: 2, max: 2) { w, c in
            let position = try unsigned(c.arguments[0])
            guard position < w.machine.queue.count else { throw MPDError(.argument, "Bad song index") }
            w.run(.seekEntry(index: position, ms: try songTime(c.arguments[1])))
        },
        "seekid": Spec(permission: .control, min: 2, max: 2) { w, c in
            let position = try position(ofID: try unsigned(c.arguments[0]), in: w)
            w.run(.seekEntry(index: position, ms: try songTime(c.arguments[1])))
        },
        "seekcur": Spec(permission: .control, min: 1, max: 1) { w, c in
            let argument = c.arguments[0]
            guard w.machine.state != .stopped, w.machine.queue.currentIndex != nil else {
                throw MPDError(.playerSync, "Not playing")
            }
            if argument.hasPrefix("+") || argument.hasPrefix("-") {
                let seconds = try float(argument)
                w.run(.seek(.relative(ms: Int64((seconds * 1000).rounded()))))
            } else {
                w.run(.seek(.absolute(ms: try songTime(argument))))
            }
        },
        "setvol": Spec(permission: .control, min: 1, max: 1) { w, c in
            let value = try signedInteger(c.arguments[0])
            guard (0...100).contains(value) else { throw MPDError(.argument, "Invalid volume value") }
            w.run(.setVolume(value))
        },
        "volume": Spec(permission: .control, min: 1, max: 1) { w, c in
            let value = try signedInteger(c.arguments[0])
            guard (-100...100).contains(value) else { throw MPDError(.argument, "Invalid volume value") }
            w.run(.changeVolume(value))
        },
        // Each flag on its own, as MPD: the others stay as they are.
        "random": Spec(permission: .control, min: 1, max: 1) { w, c in
            let on = try boolean(c.arguments[0])
            let wasOn = w.machine.options.random
            setOption(&w) { $0.random = on }
            // MPD starts the new random order afresh when nothing plays: no current entry.
            if on, !wasOn { w.run(.editQueue(.leaveCurrent)) }
        },
        "repeat": Spec(permission: .control, min: 1, max: 1) { w, c in
            let on = try boolean(c.arguments[0])
            setOption(&w) { $0.repeat = on }
        },
        "single": Spec(permission: .control, min: 1, max: 1) { w, c in
            guard let mode = SingleMode(rawValue: c.arguments[0]) else {
                throw MPDError(.argument, "Unrecognized single mode, expected 0, 1, or oneshot")
            }
            setOption(&w) { $0.single = mode }
        },
        "consume": Spec(permission: .control, min: 1, max: 1) { w, c in
            // MPD 0.24's modes: 0, 1, or `oneshot` (consume one song, then turn off).
            let oneshot = c.arguments[0] == "oneshot"
            guard oneshot || c.arguments[0] == "0" || c.arguments[0] == "1" else {
                throw MPDError(.argument, "Unrecognized consume mode, expected 0, 1, or oneshot")
            }
            setOption(&w) {
                $0.consume = c.arguments[0] != "0"
                $0.consumeOneshot = oneshot
            }
        },
        "crossfade": Spec(permission: .control, min: 1, max: 1) { w, c in
            w.crossfadeSeconds = try unsigned(c.arguments[0])
            // MPD wakes `options` even when the value stays the same.
            w.observer.mark(.options)
        },
        // MixRamp's settings are kept and shown; the crossfade does not use them (MPD needs
        // the songs' MixRamp tags, which the library does not keep).
        "mixrampdb": Spec(permission: .control, min: 1, max: 1) { w, c in
            w.mixRamp.db = try anyFloat(c.arguments[0])
            w.observer.mark(.options)
        },
        "mixrampdelay": Spec(permission: .control, min: 1, max: 1) { w, c in
            w.mixRamp.delay = try anyFloat(c.arguments[0])
            w.observer.mark(.options)
        },
        "mode": Spec(permission: .control, min: 0, max: 1) { w, c in
            guard let argument = c.arguments.first else {
                w.run(.cycleMode)
                return
            }
            guard let mode = PlayMode(rawValue: argument) else {
                throw MPDError(.argument, "expected in-order, repeat-all, repeat-one or shuffle")
            }
            w.run(.setMode(mode))
        },

        // the queue
        "playlistinfo": Spec(permission: .read, min: 0, max: 1) { w, c in
            let range = try c.arguments.first.map { try parseRange($0, count: w.machine.queue.count) }
            for index in range ?? 0..<w.machine.queue.count { queueSong(index, w, into: &c.response) }
        },
        "playlistid": Spec(permission: .read, min: 0, max: 1) { w, c in
            if let argument = c.arguments.first {
                queueSong(try position(ofID: try unsigned(argument), in: w), w, into: &c.response)
            } else {
                for index in 0..<w.machine.queue.count { queueSong(index, w, into: &c.response) }
            }
        },
        "playlist": Spec(permission: .read, min: 0, max: 0) { w, c in
            for (index, id) in w.machine.queue.entries.enumerated() {
                c.response.add("\(index):file", w.info(id).path)
            }
        },
        "plchanges": Spec(permission: .read, min: 1, max: 2) { w, c in
            for index in try changedPositions(c.arguments, w) { queueSong(index, w, into: &c.response) }
        },
        "plchangesposid": Spec(permission: .read, min: 1, max: 2) { w, c in
            for index in try changedPositions(c.arguments, w) {
                c.response.add("cpos", index)
                c.response.add("Id", w.machine.queue.items[index].id)
            }
        },
        "add": Spec(permission: .add, min: 1, max: 2) { w, c in
            let tracks = try station(c.arguments[0], in: &w).map { [$0] } ?? resolve(c.arguments[0], in: w)
            let at = try c.arguments.count > 1 ? insertPosition(c.arguments[1], in: w) : nil
            try addToQueue(tracks.map(\.id), at: at, &w)
        },
        "addid": Spec(permission: .add, min: 1, max: 2) { w, c in
            let uri = c.arguments[0]
            let station = try station(uri, in: &w)
            if station == nil, let problem = pathProblem(uri, in: w) { throw MPDError(.noExist, problem) }
            guard let track = station ?? w.library.track(path: uri) else { throw MPDError(.noExist, "No such song") }
            let at = try c.arguments.count > 1 ? insertPosition(c.arguments[1], in: w) : nil
            let added = at ?? w.machine.queue.count
            try addToQueue([track.id], at: at, &w)
            c.response.add("Id", w.machine.queue.items[added].id)
        },
        "findadd": Spec(permission: .add, min: 1, max: -1) { w, c in try addFound(exact: true, &w, &c) },
        "searchadd": Spec(permission: .add, min: 1, max: -1) { w, c in try addFound(exact: false, &w, &c) },
        "searchaddpl": Spec(permission: .control, min: 2, max: -1) { w, c in try searchAddToPlaylist(&w, &c) },
        "clear": Spec(permission: .control, min: 0, max: 0) { w, _ in
            w.run(.editQueue(.clear))
            w.lastLoadedPlaylist = ""
        },
        "delete": Spec(permission: .control, min: 1, max: 1) { w, c in
            let range = try parseRange(c.arguments[0], count: w.machine.queue.count)
            guard !range.isEmpty else { throw MPDError(.argument, "Bad song index") }
            w.run(.editQueue(.remove(range)))
        },
        "deleteid": Spec(permission: .control, min: 1, max: 1) { w, c in
            let index = try position(ofID: try unsigned(c.arguments[0]), in: w)
            w.run(.editQueue(.remove(index..<index + 1)))
        },
        "move": Spec(permission: .control, min: 2, max: 2) { w, c in
            // As MPD: the range is checked against the queue only after the destination.
            var range = try playlistRange(c.arguments[0])
            if c.arguments[0].hasSuffix(":") { range = range.lowerBound..<max(range.lowerBound, w.machine.queue.count) }
            try move(range, to: c.arguments[1], &w)
        },
        "moveid": Spec(permission: .control, min: 2, max: 2) { w, c in
            let from = try position(ofID: try unsigned(c.arguments[0]), in: w)
            try move(from..<from + 1, to: c.arguments[1], &w)
        },
        "swap": Spec(permission: .control, min: 2, max: 2) { w, c in try swap(&w, &c) },
        "swapid": Spec(permission: .control, min: 2, max: 2) { w, c in try swapid(&w, &c) },
        "prio": Spec(permission: .control, min: 2, max: -1) { w, c in try prio(&w, &c) },
        "prioid": Spec(permission: .control, min: 2, max: -1) { w, c in try prioid(&w, &c) },
        "playlistfind": Spec(permission: .read, min: 1, max: -1) { w, c in try playlistFind(exact: true, &w, &c) },
        "playlistsearch": Spec(permission: .read, min: 1, max: -1) { w, c in
            try playlistFind(exact: false, &w, &c)
        },
        "shuffle": Spec(permission: .control, min: 0, max: 1) { w, c in
            let count = w.machine.queue.count
            let range = try c.arguments.first.map { try parseRange($0, count: count) } ?? 0..<count
            w.run(.editQueue(.shuffle(range)))
        },

        // the library
        "lsinfo": Spec(permission: .read, min: 0, max: 1) { w, c in
            let uri = MPDLibrary.normalized(c.arguments.first ?? "")
            if let problem = pathProblem(uri, in: w) { throw MPDError(.noExist, problem) }
            if let track = w.library.track(path: uri) {
                song(track, into: &c.response)
                return
            }
            guard w.library.isFolder(uri) else { throw MPDError(.noExist, "No such directory") }
            // MPD's order: the folder's songs, then its subfolders.
            for track in w.library.files(in: uri) { song(track, into: &c.response) }
            for folder in w.library.subfolders(of: uri) { c.response.add("directory", folder) }
            if uri.isEmpty, !c.protocolFeatures.contains(.hidePlaylistsInRoot) { rootPlaylists(&w, &c) }
        },
        "listall": Spec(permission: .read, min: 0, max: 1) { w, c in
            try listAll(c.arguments.first ?? "", info: false, &w, &c)
        },
        "listallinfo": Spec(permission: .read, min: 0, max: 1) { w, c in
            try listAll(c.arguments.first ?? "", info: true, &w, &c)
        },
        "find": Spec(permission: .read, min: 1, max: -1) { w, c in try find(exact: true, &w, &c) },
        "listfiles": Spec(permission: .read, min: 0, max: 1) { w, c in try listFiles(&w, &c) },
        "albumart": Spec(permission: .read, min: 2, max: 2) { w, c in try albumArt(&w, &c) },
        "readpicture": Spec(permission: .read, min: 2, max: 2) { w, c in try readPicture(&w, &c) },
        "readcomments": Spec(permission: .read, min: 1, max: 1) { w, c in try readComments(&w, &c) },
        "sticker": Spec(permission: .admin, min: 3, max: -1) { w, c in try sticker(&w, &c) },
        "stickernames": Spec(permission: .admin, min: 0, max: 0) { w, c in try stickerNames(&w, &c) },
        "stickertypes": Spec(permission: .admin, min: 0, max: 0) { w, c in try stickerTypes(&w, &c) },
        "stickernamestypes": Spec(permission: .admin, min: 0, max: 1) { w, c in try stickerNamesTypes(&w, &c) },
        "search": Spec(permission: .read, min: 1, max: -1) { w, c in try find(exact: false, &w, &c) },
        "count": Spec(permission: .read, min: 1, max: -1) { w, c in try count(exact: true, &w, &c) },
        "searchcount": Spec(permission: .read, min: 1, max: -1) { w, c in try count(exact: false, &w, &c) },
        "list": Spec(permission: .read, min: 1, max: -1) { w, c in try list(&w, &c) },
        "update": Spec(permission: .control, min: 0, max: 1) { w, c in try update(&w, &c) },
        "rescan": Spec(permission: .control, min: 0, max: 1) { w, c in try update(&w, &c) },

        // stored playlists (MPDStoredPlaylists.swift)
        "listplaylists": Spec(permission: .read, min: 0, max: 0) { w, c in try listPlaylists(&w, &c) },
        "listplaylist": Spec(permission: .read, min: 1, max: 2) { w, c in try listPlaylist(&w, &c) },
        "listplaylistinfo": Spec(permission: .read, min: 1, max: 2) { w, c in try listPlaylistInfo(&w, &c) },
        "searchplaylist": Spec(permission: .read, min: 2, max: 4) { w, c in try searchPlaylist(&w, &c) },
        "playlistlength": Spec(permission: .read, min: 1, max: 1) { w, c in try playlistLength(&w, &c) },
        "load": Spec(permission: .add, min: 1, max: 3) { w, c in try load(&w, &c) },
        "save": Spec(permission: .control, min: 1, max: 2) { w, c in try save(&w, &c) },
        "playlistadd": Spec(permission: .control, min: 2, max: 3) { w, c in try playlistAdd(&w, &c) },
        "playlistclear": Spec(permission: .control, min: 1, max: 1) { w, c in try playlistClear(&w, &c) },
        "playlistdelete": Spec(permission: .control, min: 2, max: 2) { w, c in try playlistDelete(&w, &c) },
        "playlistmove": Spec(permission: .control, min: 3, max: 3) { w, c in try playlistMove(&w, &c) },
        "rename": Spec(permission: .control, min: 2, max: 2) { w, c in try renamePlaylist(&w, &c) },
        "rm": Spec(permission: .control, min: 1, max: 1) { w, c in try removePlaylist(&w, &c) },

        // the connection
        "ping": Spec(permission: [], min: 0, max: 0) { _, _ in },
        "binarylimit": Spec(permission: [], min: 1, max: 1) { _, c in try binaryLimit(&c) },
        "close": Spec(permission: [], min: -1, max: -1) { _, c in c.close = true },
        "password": Spec(permission: [], min: 1, max: 1) { _, c in
            guard let password = c.password, c.arguments[0] == password else {
                throw MPDError(.password, "incorrect password")
            }
            c.permission = Permission.all.union(c.permission.intersection(.local))
        },
        "commands": Spec(permission: [], min: 0, max: 0) { _, c in
            for name in names where allowed(name, permission: c.permission) { c.response.add("command", name) }
        },
        "notcommands": Spec(permission: [], min: 0, max: 0) { _, c in
            for name in names where !allowed(name, permission: c.permission) { c.response.add("command", name) }
        },
        "idle": Spec(permission: .read, min: 0, max: -1) { _, c in
            var wanted = Set<MPDSubsystem>()
            for name in c.arguments {
                guard let subsystem = MPDSubsystem(rawValue: name.lowercased()) else {
                    throw MPDError(.argument, "Unrecognized idle event: \(name)")
                }
                wanted.insert(subsystem)
            }
            c.idle = wanted
        },
        "help": Spec(permission: [], min: 0, max: 0) { _, c in
            c.response.append(c.human ? humanHelp : humanHelp.split(separator: "\n").map { "help: \($0)\n" }.joined())
        },
    ]

    /// `help`: every command in plain words.
    public static let humanHelp = """
        Jukebox speaks the MPD protocol. Commands (POS counts from 0):
          status              what is playing, volume, modes
          currentsong         the playing song's tags
          play [POS]          play, or play queue entry POS
          pause [0|1]         pause (1), continue (0), or switch
          toggle              pause or continue
          stop                stop
          next / previous     go to the next / previous track
          seekcur 90 / +10 / -5   jump to a second, or move from here
          setvol 40           volume 0-100;  volume +5 / volume -5
          random 0|1  repeat 0|1  single 0|1|oneshot  consume 0|1|oneshot   the play flags
          mode [in-order|repeat-all|repeat-one|shuffle]   a preset of the flags
          playlistinfo        the queue
          add "folder/song.mp3"   add to the queue (a folder adds everything in it)
          delete POS  move FROM TO  swap POS1 POS2  clear  shuffle   (deleteid, moveid, swapid: by Id)
          prio 255 POS        play entry POS first in random mode (0-255; prioid by Id)
          playlistfind artist "Name"  playlistsearch any "word"   search the queue
          lsinfo ["folder"]   browse the music folder
          save NAME [append|replace]  load NAME  listplaylists  listplaylist NAME  rm NAME   stored playlists
          search any "word"   find "artist" "Name"   list artist
          update              rescan the music folder
        \(boxHelp.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
          idle                wait for a change (noidle to stop waiting)
          ping  close  commands  help
        Arguments with spaces go in double quotes. Replies end with OK, or ACK and the problem.

        """

    /// A `knob` or `button` line for the daemon's controls; an unknown button or gesture is an ACK.
    static func inject(_ words: [String], into w: inout MPDWorld) throws {
        switch InjectedInput.parse(words: words) {
        case .success(let input)?: w.injectedInputs.append(input)
        case .failure(let error)?: throw MPDError(.argument, error.message)
        case nil: throw MPDError(.unknown, "unknown command \"\(words.first ?? "")\"")
        }
    }

    // MARK: responses

    static func status(_ w: inout MPDWorld, _ c: inout Call) {
        let machine = w.machine
        let options = machine.options
        var r = MPDResponse()
        r.add("volume", machine.volume)
        r.add("repeat", options.repeat ? 1 : 0)
        r.add("random", options.random ? 1 : 0)
        r.add("single", options.single.rawValue)
        r.add("consume", options.consume ? (options.consumeOneshot ? "oneshot" : "1") : "0")
        r.add("partition", "default")
        r.add("playlist", machine.queue.version)
        r.add("playlistlength", machine.queue.count)
        r.add("mixrampdb", MixRamp.shortest(w.mixRamp.db))
        r.add("state", machine.state.statusWord)
        // MPD 0.24 writes it always, empty when nothing was loaded.
        r.add("lastloadedplaylist", w.lastLoadedPlaylist)
        if w.crossfadeSeconds > 0 { r.add("xfade", w.crossfadeSeconds) }
        // Stored as a float, shown as the double it converts to (as MPD does).
        if w.mixRamp.delay > 0 { r.add("mixrampdelay", MixRamp.shortest(Double(w.mixRamp.delay))) }
        if let index = machine.queue.currentIndex, let entry = machine.queue.currentEntry {
            r.add("song", index)
            r.add("songid", entry.id)
            let duration = w.info(entry.track).durationMs
            if machine.state != .stopped {
                let elapsed = machine.positionMs
                r.add("time", "\((elapsed + 500) / 1000):\(((duration ?? 0) + 500) / 1000)")
                r.add("elapsed", ReplyLine.seconds(elapsed))
                if let bitrate = w.host.bitrate { r.add("bitrate", bitrate) }
            }
            if let duration { r.add("duration", ReplyLine.seconds(duration)) }
            if machine.state != .stopped, let audio = w.host.audioFormat { r.add("audio", audio) }
            // MPD's nextsong (playlist::GetNextPosition) leaves consume out: with single and
            // repeat it names the current song, although consume then plays the next one.
            var reported = options
            reported.consume = false
            if let next = machine.queue.following(with: reported), next < machine.queue.count {
                r.add("nextsong", next)
                r.add("nextsongid", machine.queue.items[next].id)
            }
        }
        if let job = w.host.updatingJob { r.add("updating_db", job) }
        r.add("speed", machine.speed.description)
        c.response.append(r)
    }

    /// The song block of a queue entry (currentsong, playlistinfo, plchanges, playlistfind):
    /// the song, then its position, id and priority (when not 0), as MPD prints them.
    static func queueSong(_ position: Int, _ w: MPDWorld, into r: inout MPDResponse) {
        let entry = w.machine.queue.items[position]
        song(w.info(entry.track), into: &r)
        if let name = w.stationNames[entry.track] { r.add("Name", name) }
        r.add("Pos", position)
        r.add("Id", entry.id)
        if entry.priority != 0 { r.add("Prio", entry.priority) }
    }

    /// The song block of lsinfo, find and the queue's commands.
    static func song(_ track: TrackInfo, into r: inout MPDResponse) {
        r.add("file", track.path)
        if let cue = track.cue { r.add("Range", cue.range) }
        if let seconds = track.modifiedSeconds { r.add("Last-Modified", ISO8601.utc(seconds)) }
        if let format = track.format { r.add("Format", format) }
        // MPD's ID3 scanner's order: the tags the library keeps are in it already.
        if let artist = track.artist { r.add("Artist", artist) }
        for value in track.values(.albumArtist) { r.add("AlbumArtist", value) }
        if let title = track.title { r.add("Title", title) }
        if let album = track.album { r.add("Album", album) }
        if let number = track.trackNumber { r.add("Track", number) }
        for tag in track.tags where tag.name != .albumArtist && tag.name != .comment {
            r.add(tag.name.rawValue, tag.value)
        }
        if let duration = track.durationMs {
            r.add("Time", (duration + 500) / 1000)
            r.add("duration", ReplyLine.seconds(duration))
        }
    }

    static func listAll(_ argument: String, info: Bool, _ w: inout MPDWorld, _ c: inout Call) throws {
        let uri = MPDLibrary.normalized(argument)
        if let problem = pathProblem(uri, in: w) { throw MPDError(.noExist, problem) }
        if let track = w.library.track(path: uri) {
            if info { song(track, into: &c.response) } else { c.response.add("file", track.path) }
            return
        }
        guard w.library.isFolder(uri) else { throw MPDError(.noExist, "No such directory") }
        c.rows = MPDReplyStream(w.library.walk(uri)) { row, r in
            switch row {
            case .directory(let folder): r.add("directory", folder)
            case .song(let track): if info { song(track, into: &r) } else { r.add("file", track.path) }
            }
        }
    }

    static func find(exact: Bool, _ w: inout MPDWorld, _ c: inout Call) throws {
        let (filter, options) = try MPDFilter.parse(c.arguments, exact: exact)
        // With `sort` or `window` the songs are chosen first; without, they are matched as sent.
        if options.isEmpty {
            c.rows = MPDReplyStream(w.library.tracks.lazy.filter(filter.matches).makeIterator(), write: song)
        } else {
            c.rows = MPDReplyStream(try selection(c.arguments, exact: exact, in: w).makeIterator(), write: song)
        }
    }

    /// `findadd`/`searchadd FILTER [sort TAG] [window RANGE] [position POS]`: the songs
    /// selected, added to the queue at its end or at POS (`+N`/`-N`: after/before the current song).
    static func addFound(exact: Bool, _ w: inout MPDWorld, _ c: inout Call) throws {
        var arguments = c.arguments
        let at = try takePosition(&arguments).map { try insertPosition($0, in: w) }
        let found = try selection(arguments, exact: exact, in: w)
        try addToQueue(found.map(\.id), at: at, &w)
    }

    /// Adds `tracks` at `position` (nil: at the end). Past the queue's limit it adds the first
    /// that fit, at the end, and fails as MPD's `playlist::AppendSong` does after them.
    static func addToQueue(_ tracks: [TrackID], at position: Int?, _ w: inout MPDWorld) throws {
        guard !tracks.isEmpty else { return }
        let room = w.machine.queue.room
        w.run(.editQueue(.add(tracks, at: position)))
        if tracks.count > room { throw MPDError(.playlistMax, "Playlist is too large") }
    }

    /// Removes a trailing `position POS` from `arguments` and returns POS.
    static func takePosition(_ arguments: inout [String]) -> String? {
        guard arguments.count >= 2, arguments[arguments.count - 2] == "position" else { return nil }
        defer { arguments.removeLast(2) }
        return arguments[arguments.count - 1]
    }

    /// The songs a filter with `sort` and `window` selects (find, search, findadd, searchaddpl).
    static func selection(_ arguments: [String], exact: Bool, in w: MPDWorld) throws -> [TrackInfo] {
        let (filter, rest) = try MPDFilter.parse(arguments, exact: exact)
        return try sortAndWindow(w.library.tracks.filter(filter.matches), rest) { $0 }
    }

    /// `[sort [-]TAG] [window RANGE]` applied to songs (the library's, or the queue's entries
    /// for MPD 0.24's `playlistfind`/`playlistsearch`), `track` telling each one's tags.
    static func sortAndWindow<Item>(_ items: [Item], _ rest: [String], track: (Item) -> TrackInfo) throws -> [Item] {
        var found = items
        var index = 0
        while index < rest.count {
            let option = rest[index].lowercased()
            guard index + 1 < rest.count else { throw MPDError(.argument, "Incorrect number of filter arguments") }
            let value = rest[index + 1]
            switch option {
            case "sort":
                let descending = value.hasPrefix("-")
                let name = descending ? String(value.dropFirst()) : value
                guard let tag = MPDTag(name: name) else { throw MPDError(.argument, "Unknown sort tag") }
                found.sort { tag.value(of: track($0)) < tag.value(of: track($1)) }
                if descending { found.reverse() }
            case "window":
                let window = try parseRange(value, count: found.count, strict: false)
                found = Array(found[window])
            default:
                throw MPDError(.argument, "Unknown filter type: \(rest[index])")
            }
            index += 2
        }
        return found
    }

    static func list(_ w: inout MPDWorld, _ c: inout Call) throws {
        let name = c.arguments[0]
        let isFile = name.lowercased() == "file"
        let tag = MPDTag(name: name)
        guard isFile || tag != nil else { throw MPDError(.argument, "Unknown tag type: \(name)") }
        var rest = Array(c.arguments.dropFirst())
        let group = try takeGroup(&rest)
        var tracks = w.library.tracks
        if rest.count == 1, tag == .album, !rest[0].hasPrefix("(") {
            // The old form `list album ARTIST`.
            let artist = rest[0]
            tracks = tracks.filter { $0.artist == artist }
        } else if !rest.isEmpty {
            let (filter, leftover) = try MPDFilter.parse(rest, exact: true)
            guard leftover.isEmpty else { throw MPDError(.argument, "Incorrect number of filter arguments") }
            tracks = tracks.filter(filter.matches)
        }
        let key = isFile ? "file" : tag!.rawValue
        func values(_ tracks: [TrackInfo]) -> [String] {
            if isFile { return tracks.map(\.path) }
            // A song without the tag counts as "" (MPD 0.23 lists it so).
            return Array(Set(tracks.flatMap { tag!.matchValues(of: $0).orEmpty })).sorted()
        }
        if let group {
            for (groupValue, members) in grouped(tracks, by: group) {
                c.response.add(group.rawValue, groupValue)
                for value in values(members) { c.response.add(key, value) }
            }
        } else {
            for value in values(tracks) { c.response.add(key, value) }
        }
    }

    /// `count [FILTER] [group TAG]`: songs and whole seconds, per value of TAG when grouped.
    /// `count` (`exact`) and MPD 0.24's `searchcount` (case-folded, as `search`).
    static func count(exact: Bool, _ w: inout MPDWorld, _ c: inout Call) throws {
        var rest = c.arguments
        let group = try takeGroup(&rest)
        var tracks = w.library.tracks
        if !rest.isEmpty {
            let (filter, leftover) = try MPDFilter.parse(rest, exact: exact)
            guard leftover.isEmpty else { throw MPDError(.argument, "Incorrect number of filter arguments") }
            tracks = tracks.filter(filter.matches)
        } else if group == nil {
            throw MPDError(.argument, "Incorrect number of filter arguments")
        }
        func totals(_ tracks: [TrackInfo]) {
            c.response.add("songs", tracks.count)
            c.response.add("playtime", tracks.reduce(Int64(0)) { $0 + ($1.durationMs ?? 0) } / 1000)
        }
        if let group {
            for (groupValue, members) in grouped(tracks, by: group) {
                c.response.add(group.rawValue, groupValue)
                totals(members)
            }
        } else {
            totals(tracks)
        }
    }

    /// Removes a trailing `group TAG` from `arguments` and returns the tag.
    static func takeGroup(_ arguments: inout [String]) throws -> MPDTag? {
        guard arguments.count >= 2, arguments[arguments.count - 2].lowercased() == "group" else { return nil }
        let name = arguments[arguments.count - 1]
        guard let tag = MPDTag(name: name) else { throw MPDError(.argument, "Unknown tag type: \(name)") }
        arguments.removeLast(2)
        return tag
    }

    /// `tracks` by each value of `tag` (a track without it under ""), sorted by value.
    static func grouped(_ tracks: [TrackInfo], by tag: MPDTag) -> [(String, [TrackInfo])] {
        var groups: [String: [TrackInfo]] = [:]
        for track in tracks {
            for value in tag.matchValues(of: track).orEmpty { groups[value, default: []].append(track) }
        }
        return groups.keys.sorted().map { ($0, groups[$0]!) }
    }

    static func update(_ w: inout MPDWorld, _ c: inout Call) throws {
        let uri = MPDLibrary.normalized(c.arguments.first ?? "")
        if let problem = pathProblem(uri, in: w) { throw MPDError(.noExist, problem) }
        if let job = w.host.updatingJob {
            c.response.add("updating_db", job)
            return
        }
        w.host.lastJob += 1
        w.host.updatingJob = w.host.lastJob
        w.updateRequests.append(uri)
        w.observer.mark(.update)
        c.response.add("updating_db", w.host.lastJob)
    }

    // MARK: arguments

    /// The tracks a URI names: one file, or a folder and everything below it.
    static func resolve(_ argument: String, in w: MPDWorld) throws -> [TrackInfo] {
        let uri = MPDLibrary.normalized(argument)
        if let problem = pathProblem(uri, in: w) { throw MPDError(.noExist, problem) }
        if let track = w.library.track(path: uri) { return [track] }
        guard w.library.isFolder(uri) else { throw MPDError(.noExist, "No such directory") }
        return w.library.tracks(under: uri)
    }

    /// The station `uri` names when it is an http(s) URL (told to the machine, so the queue
    /// shows its URL); nil for anything else.
    static func station(_ uri: String, in w: inout MPDWorld) throws -> TrackInfo? {
        guard StationPlaylist.isStreamURL(uri) else { return nil }
        guard let stations = w.stations else { throw MPDError(.noExist, "Unsupported URI scheme") }
        let id: TrackID
        do { id = try stations.trackID(url: uri) } catch { throw MPDError(.system, "\(error)") }
        let info = TrackInfo(id: id, path: uri)
        _ = w.machine.handle(.tracksDescribed([info]), now: w.now)
        return info
    }

    static func pathProblem(_ uri: String, in w: MPDWorld) -> String? {
        if let problem = MPDLibrary.pathProblem(uri) { return problem }
        return uri.isEmpty ? nil : w.hostPathProblem(uri)
    }

    static func position(ofID id: Int, in w: MPDWorld) throws -> Int {
        guard id <= Int(UInt32.max), let index = w.machine.queue.position(ofID: UInt32(id)) else {
            throw MPDError(.noExist, "No such song")
        }
        return index
    }

    /// Changes one play flag, keeping the others.
    static func setOption(_ w: inout MPDWorld, _ change: (inout PlayOptions) -> Void) {
        var options = w.machine.options
        change(&options)
        w.run(.setOptions(options))
    }

    /// Where to insert in the queue (MPD 0.23's ParseInsertPosition): an absolute position up
    /// to the queue's length, `+N` (N entries after the current one) or `-N` (N before it).
    static func insertPosition(_ argument: String, in w: MPDWorld) throws -> Int {
        let count = w.machine.queue.count
        guard let sign = argument.first, sign == "+" || sign == "-" else { return try unsigned(argument, max: count) }
        let current = try currentPosition(w)
        let offset = String(argument.dropFirst())
        return sign == "+"
            ? current + 1 + (try unsigned(offset, max: count - current - 1))
            : current - (try unsigned(offset, max: current))
    }

    /// `move`/`moveid`: `range` to `destination` (MPD 0.23's ParseMoveDestination), an
    /// absolute position or `+N`/`-N` relative to the current entry as it stands once the
    /// range is out; then the range and the destination are checked against the queue.
    static func move(_ range: Range<Int>, to destination: String, _ w: inout MPDWorld) throws {
        let count = w.machine.queue.count
        // MPD's unsigned arithmetic: a range longer than the queue leaves no bound here.
        func bound(_ limit: Int) -> Int { limit >= 0 ? limit : Int(UInt32.max) }
        let to: Int
        if let sign = destination.first, sign == "+" || sign == "-" {
            var current = try currentPosition(w)
            if range.contains(current) { throw MPDError(.argument, "Cannot move current song relative to itself") }
            if current >= range.upperBound { current -= range.count }
            // MPD bounds `-N` as it bounds `+N`; a destination before 0 is then a bad index.
            let offset = try unsigned(String(destination.dropFirst()), max: bound(count - current - range.count))
            to = sign == "+" ? current + 1 + offset : current - offset
        } else {
            to = try unsigned(destination, max: bound(count - range.count))
        }
        guard !range.isEmpty, range.upperBound <= count, to >= 0, to + range.count <= count else {
            throw MPDError(.argument, "Bad song index")
        }
        w.run(.editQueue(.move(range, to: to)))
    }

    /// The current entry's position, which relative positions need.
    static func currentPosition(_ w: MPDWorld) throws -> Int {
        guard let current = w.machine.queue.currentIndex else { throw MPDError(.playerSync, "No current song") }
        return current
    }

    /// A number from 0 to `max` (MPD's ParseCommandArgUnsigned with a maximum).
    static func unsigned(_ text: String, max: Int) throws -> Int {
        let value = try unsigned(text)
        guard value <= max else { throw MPDError(.argument, "Number too large: \(text)") }
        return value
    }

    /// A number as strtof reads one, infinities and NaN included (MPD's ParseCommandArgFloat).
    static func anyFloat(_ text: String) throws -> Float {
        guard let value = Float(text) else { throw MPDError(.argument, "Float expected: \(text)") }
        return value
    }

    static func signedInteger(_ text: String) throws -> Int {
        guard let value = parseInteger(text) else { throw MPDError(.argument, "Integer expected: \(text)") }
        guard value >= Int(Int32.min), value <= Int(Int32.max) else {
            throw MPDError(.argument, "Number too large: \(text)")
        }
        return value
    }

    static func unsigned(_ text: String) throws -> Int {
        guard let value = parseInteger(text) else { throw MPDError(.argument, "Integer expected: \(text)") }
        // strtoul takes "-1" as ULONG_MAX: MPD calls a negative number too large.
        guard value >= 0, value <= Int(UInt32.max) else { throw MPDError(.argument, "Number too large: \(text)") }
        return value
    }

    static func boolean(_ text: String) throws -> Bool {
        switch parseInteger(text) {
        case 0: return false
        case 1: return true
        default: throw MPDError(.argument, "Boolean (0/1) expected: \(text)")
        }
    }

    static func float(_ text: String) throws -> Double {
        guard let value = Double(text), value.isFinite, abs(value) < 1e9 else {
            throw MPDError(.argument, "Float expected: \(text)")
        }
        return value
    }

    static func songTime(_ text: String) throws -> Int64 {
        let seconds = try float(text)
        guard seconds >= 0 else { throw MPDError(.argument, "Negative value not allowed: \(text)") }
        return Int64((seconds * 1000).rounded())
    }

    /// `N` or `START:END` (END may be empty), clamped like MPD: `-1` means everything.
    static func parseRange(_ text: String, count: Int, strict: Bool = true) throws -> Range<Int> {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let start = parseInteger(String(parts[0])) else {
            throw MPDError(.argument, "Integer or range expected: \(text)")
        }
        if start == -1, parts.count == 1 { return 0..<count }
        guard start >= 0 else { throw MPDError(.argument, "Number is negative: \(text)") }
        guard start <= Int(Int32.max) else { throw MPDError(.argument, "Number too large: \(text)") }
        var end = start + 1
        if parts.count == 2 {
            if parts[1].isEmpty {
                end = count
            } else {
                guard let value = parseInteger(String(parts[1])) else {
                    throw MPDError(.argument, "Integer or range expected: \(text)")
                }
                guard value >= 0 else { throw MPDError(.argument, "Number is negative: \(text)") }
                end = min(value, Int(Int32.max))
            }
        }
        if strict {
            guard start < end || (parts.count == 2 && start == end) else {
                throw MPDError(.argument, "Bad song index")
            }
            guard end <= count, start <= count else { throw MPDError(.argument, "Bad song index") }
        }
        let low = min(start, count)
        return low..<max(low, min(end, count))
    }

    /// strtol-like but strict: optional sign and decimal digits only.
    static func parseInteger(_ text: String) -> Int? {
        let digits = text.hasPrefix("+") || text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text.hasPrefix("+") ? String(digits) : text)
    }
}

extension [String] {
    /// `[""]` for no values: how `list` and `group` count a song without the tag.
    fileprivate var orEmpty: [String] { isEmpty ? [""] : self }
}
