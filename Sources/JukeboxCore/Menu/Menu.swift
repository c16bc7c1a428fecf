/// What the menu is given: knob turns and presses, with the time they happened.
public enum MenuEvent: Sendable, Equatable {
    /// Opens the menu at its top (the opening gesture).
    case open
    /// Detents of the knob (+ clockwise), made at the event's time: spun fast, they move
    /// further (see `Menu`).
    case turn(Int)
    /// Exactly this many entries, whatever the speed: a typed `knob ±N`.
    case move(Int)
    /// The knob's switch: choose the highlighted entry (enter a list, play, set).
    case press
    /// A long press of the switch: one level up; at the top, close.
    case back
    /// The play-next gesture: add the highlighted entry after the current track.
    case playNext
    /// Time passes: an idle menu closes after `timeoutMs`.
    case tick
    /// Closes the menu from any depth (the opening gesture again).
    case close
}

/// What the menu asks the daemon to do.
public enum MenuAction: Sendable, Equatable {
    /// Replace the queue with `source` and play it from the track at `trackPath` (nil: from
    /// its first track), `positionMs` into it.
    case play(PlaySource, trackPath: String?, positionMs: Int64)
    /// Add `source` after the current track; with `trackPath`, only that track of it.
    case playNext(PlaySource, trackPath: String?)
    /// Set the play mode.
    case setMode(PlayMode)
    /// Set the sleep timer (nil: off).
    case setSleep(SleepTarget?)
    /// Set the playback speed.
    case setSpeed(PlaybackSpeed)
    /// Move the playing track's lyrics by this many milliseconds (+: later).
    case nudgeLyrics(Int64)
    /// Play a podcast episode (by its row) from where it was left.
    case playEpisode(Int64)
    /// The menu closed (chosen, backed out or idle): show what plays again.
    case closed
}

/// The menu as a state machine: the stack of lists being browsed, over a `MenuCatalog`.
/// Time is a parameter; nothing here reads a clock, and every step is a few array reads.
///
/// Turning: one entry per click when turned slowly; clicks less than `briskMs` apart move
/// `briskFactor` entries, less than `fastMs` apart `fastFactor`, except in a list of
/// `letterJumpMinimum` entries or more, where each such fast click jumps to the next (or
/// previous) initial letter, and the screen shows that letter until the knob has rested
/// `letterShownMs`. Moves stop at either end of a list. A typed `knob ±N` moves exactly N.
public struct Menu: Sendable {
    /// Where a list is.
    public enum Place: Sendable, Hashable {
        case top
        case folder(Int)
        case artists
        case artist(Int)
        case album(Int)
        case albums
        case favourites
        case recent
        case playlists
        case settings
        case playMode
        case lyricsOffset
        case sleepTimer
        case speed
        case podcasts
        case podcast(Int)
    }

    /// One list being browsed.
    struct Level: Sendable, Equatable {
        var place: Place
        var highlighted = 0
        /// Where each initial-letter group starts (lists with sort keys only).
        var groups: [Int] = []
    }

    /// What an entry does when chosen.
    public enum Entry: Sendable, Equatable {
        case open(Place)
        /// Plays `source` from a track (or from its start).
        case play(PlaySource, track: Int?)
        case playlist(String)
        case recent(RecentlyPlayed.Entry)
        case mode(PlayMode)
        case sleep(SleepTarget?)
        case speed(PlaybackSpeed)
        case episode(Int64)
        /// Does nothing (the lyrics offset's value).
        case value
    }

    public private(set) var catalog: MenuCatalog
    private var stack: [Level] = []
    private var lastActivity = Instant.zero
    private var lastDetent: (direction: Int, at: Instant)?
    private var letterUntil: Instant?

    /// The current play mode and lyrics offset, as the settings show them (the daemon keeps
    /// them up to date; nil offset: the track has no lyrics).
    public var playMode = PlayMode.inOrder
    public var lyricsOffsetMs: Int64?
    /// The sleep timer set, as Settings shows it (the daemon keeps it up to date).
    public var sleepTarget: SleepTarget?
    /// The speed playing, as Settings shows it (the daemon keeps it up to date).
    public var speed = PlaybackSpeed.normal
    /// The speed setting's choices.
    public static let speedChoices = [50, 75, 100, 125, 150, 175, 200].map { PlaybackSpeed(clamping: $0) }
    /// The sleep timer's choices.
    public static let sleepChoices: [SleepTarget?] = [
        nil, .after(ms: 15 * 60_000), .after(ms: 30 * 60_000), .after(ms: 60 * 60_000), .endOfTrack, .endOfAlbum,
        .endOfChapter,
    ]

    /// An idle menu closes after this long.
    public var timeoutMs: Int64 = 30_000
    public static let briskMs: Int64 = 80
    public static let fastMs: Int64 = 40
    public static let briskFactor = 2
    public static let fastFactor = 5
    public static let letterJumpMinimum = 50
    public static let letterShownMs: Int64 = 700
    /// Milliseconds per click in the lyrics offset setting.
    public static let lyricsStepMs: Int64 = 100
    /// The most clicks one event nudges the lyrics by (a minute).
    static let maximumNudgeClicks = 600

    /// A closed menu over `catalog`.
    public init(catalog: MenuCatalog) {
        self.catalog = catalog
    }

    public var isOpen: Bool { !stack.isEmpty }

    /// The list shown, if open.
    public var place: Place? { stack.last?.place }

    /// The highlighted entry of the list shown.
    public var highlighted: Int? { stack.last?.highlighted }

    /// When `tick` has something to do (the idle timeout, the end of a shown letter).
    public var nextDeadline: Instant? {
        guard isOpen else { return nil }
        let timeout = lastActivity + timeoutMs
        return letterUntil.map { min($0, timeout) } ?? timeout
    }

    /// A new catalog (the library was scanned again, playlists or favourites changed): the
    /// lists open are re-read from it, and a highlight past a shorter list's end moves back.
    public mutating func replaceCatalog(_ catalog: MenuCatalog) {
        self.catalog = catalog
        stack = stack.filter { level in
            switch level.place {
            case .folder(let i): return i < catalog.folders.count
            case .artist(let i): return i < catalog.artists.count
            case .album(let i): return i < catalog.albums.count
            case .podcast(let i): return i < catalog.podcasts.count
            default: return true
            }
        }
        for i in stack.indices {
            stack[i].highlighted = min(stack[i].highlighted, max(0, count(stack[i].place) - 1))
            stack[i].groups = groups(stack[i].place)
        }
    }

    /// One event at `now`.
    public mutating func handle(_ event: MenuEvent, now: Instant) -> [MenuAction] {
        if case .open = event {
            stack = [Level(place: .top)]
            lastActivity = now
            lastDetent = nil
            letterUntil = nil
            return []
        }
        guard var level = stack.last else { return [] }
        if case .close = event { return close() }
        if case .tick = event {
            if let until = letterUntil, now >= until { letterUntil = nil }
            if now >= lastActivity + timeoutMs { return close() }
            return []
        }
        lastActivity = now
        switch event {
        case .open, .tick, .close:
            return []
        case .turn(let detents):
            if level.place == .lyricsOffset { return [.nudgeLyrics(Self.nudge(clicks: detents))] }
            let direction = detents > 0 ? 1 : -1
            // Each click moves at least one entry until an end, so more clicks than entries
            // change nothing more: the loop is bounded whatever the caller sends.
            for _ in 0..<min(detents.magnitude, UInt(count(level.place))) { step(direction, at: now, level: &level) }
            stack[stack.count - 1] = level
        case .move(let entries):
            if level.place == .lyricsOffset { return [.nudgeLyrics(Self.nudge(clicks: entries))] }
            let total = count(level.place)
            level.highlighted = clamp(level.highlighted + entries.clamped(to: -total...total), level.place)
            lastDetent = nil
            letterUntil = nil
            stack[stack.count - 1] = level
        case .back:
            stack.removeLast()
            letterUntil = nil
            if stack.isEmpty { return [.closed] }
        case .press:
            if level.place == .lyricsOffset {
                stack.removeLast()
                return []
            }
            guard count(level.place) > 0 else { return [] }
            switch entry(level.place, level.highlighted) {
            case .open(let place):
                var next = Level(place: place)
                if place == .playMode { next.highlighted = PlayMode.allCases.firstIndex(of: playMode) ?? 0 }
                if place == .sleepTimer { next.highlighted = Self.sleepChoices.firstIndex(of: sleepTarget) ?? 0 }
                if place == .speed { next.highlighted = Self.speedChoices.firstIndex(of: speed) ?? 2 }
                next.groups = groups(place)
                stack.append(next)
                letterUntil = nil
            case .play(let source, let track):
                return [.play(source, trackPath: track.map { catalog.tracks[$0].path }, positionMs: 0)] + close()
            case .playlist(let name):
                return [.play(.playlist(name: name), trackPath: nil, positionMs: 0)] + close()
            case .recent(let entry):
                return [.play(entry.source, trackPath: entry.trackPath, positionMs: entry.positionMs)] + close()
            case .mode(let mode):
                playMode = mode
                stack.removeLast()
                return [.setMode(mode)]
            case .sleep(let target):
                sleepTarget = target
                stack.removeLast()
                return [.setSleep(target)]
            case .speed(let chosen):
                speed = chosen
                stack.removeLast()
                return [.setSpeed(chosen)]
            case .episode(let id):
                return [.playEpisode(id)] + close()
            case .value:
                return []
            }
        case .playNext:
            guard count(level.place) > 0 else { return [] }
            switch entry(level.place, level.highlighted) {
            case .open(.folder(let i)): return [.playNext(.folder(path: catalog.folders[i].path), trackPath: nil)]
            case .open(.album(let i)): return [.playNext(Self.source(catalog.albums[i]), trackPath: nil)]
            case .open(.favourites): return [.playNext(.favourites, trackPath: nil)]
            case .play(let source, let track?): return [.playNext(source, trackPath: catalog.tracks[track].path)]
            case .play(let source, nil): return [.playNext(source, trackPath: nil)]
            case .playlist(let name): return [.playNext(.playlist(name: name), trackPath: nil)]
            case .recent(let entry): return [.playNext(entry.source, trackPath: nil)]
            default: return []
            }
        }
        return []
    }

    private mutating func close() -> [MenuAction] {
        stack = []
        lastDetent = nil
        letterUntil = nil
        return [.closed]
    }

    /// One click of the knob, accelerated by its time since the last click.
    private mutating func step(_ direction: Int, at now: Instant, level: inout Level) {
        var gap = Int64.max
        if let last = lastDetent, last.direction == direction { gap = now.milliseconds(since: last.at) }
        lastDetent = (direction, now)
        if gap < Self.fastMs && count(level.place) >= Self.letterJumpMinimum && level.groups.count > 1 {
            level.highlighted = jumpByLetter(from: level.highlighted, direction: direction, groups: level.groups)
            letterUntil = now + Self.letterShownMs
            return
        }
        let factor = gap < Self.fastMs ? Self.fastFactor : gap < Self.briskMs ? Self.briskFactor : 1
        level.highlighted = clamp(level.highlighted + direction * factor, level.place)
    }

    /// The start of the next letter group, or of this one (or the one before) going back.
    private func jumpByLetter(from index: Int, direction: Int, groups: [Int]) -> Int {
        // groups is sorted; find the group holding `index`.
        var low = 0
        var high = groups.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if groups[mid] <= index { low = mid } else { high = mid - 1 }
        }
        if direction > 0 { return low + 1 < groups.count ? groups[low + 1] : index }
        if groups[low] < index { return groups[low] }
        return low > 0 ? groups[low - 1] : index
    }

    /// The lyrics offset's change for `clicks` (at most a minute either way, so any count is
    /// a valid offset).
    private static func nudge(clicks: Int) -> Int64 {
        Int64(clicks.clamped(to: -maximumNudgeClicks...maximumNudgeClicks)) * lyricsStepMs
    }

    private func clamp(_ index: Int, _ place: Place) -> Int { max(0, min(index, count(place) - 1)) }

    // MARK: - the lists

    /// The top list.
    static let topEntries: [(String, Place)] = [
        ("Folders", .folder(0)), ("Artists", .artists), ("Albums A–Z", .albums), ("Favourites", .favourites),
        ("Recently played", .recent), ("Playlists", .playlists), ("Settings", .settings),
    ]

    /// The top list: Podcasts (before Settings) only when some are followed.
    var topList: [(String, Place)] {
        if catalog.podcasts.isEmpty { return Self.topEntries }
        return Self.topEntries.dropLast() + [("Podcasts", .podcasts)] + Self.topEntries.suffix(1)
    }

    /// Lists of playable tracks start with this entry.
    public static let playAll = "▶ Play all"

    /// How many entries a list has.
    public func count(_ place: Place) -> Int {
        switch place {
        case .top: return topList.count
        case .folder(let i):
            let folder = catalog.folders[i]
            return 1 + folder.folders.count + folder.tracks.count
        case .artists: return catalog.artists.count
        case .artist(let i): return catalog.artists[i].albums.count
        case .album(let i): return 1 + catalog.albums[i].tracks.count
        case .albums: return catalog.albums.count
        case .favourites: return catalog.favourites.isEmpty ? 0 : 1 + catalog.favourites.count
        case .recent: return catalog.recent.entries.count
        case .playlists: return catalog.playlists.count
        case .settings: return 4
        case .playMode: return PlayMode.allCases.count
        case .lyricsOffset: return 1
        case .sleepTimer: return Self.sleepChoices.count
        case .speed: return Self.speedChoices.count
        case .podcasts: return catalog.podcasts.count
        case .podcast(let i): return catalog.podcasts[i].episodes.count
        }
    }

    /// What entry `index` of a list does.
    public func entry(_ place: Place, _ index: Int) -> Entry {
        switch place {
        case .top: return .open(topList[index].1)
        case .folder(let i):
            let folder = catalog.folders[i]
            let source = PlaySource.folder(path: folder.path)
            if index == 0 { return .play(source, track: nil) }
            if index - 1 < folder.folders.count { return .open(.folder(folder.folders[index - 1])) }
            return .play(source, track: folder.tracks[index - 1 - folder.folders.count])
        case .artists: return .open(.artist(index))
        case .artist(let i): return .open(.album(catalog.artists[i].albums[index]))
        case .album(let i):
            let album = catalog.albums[i]
            return .play(Self.source(album), track: index == 0 ? nil : album.tracks[index - 1])
        case .albums: return .open(.album(index))
        case .favourites: return .play(.favourites, track: index == 0 ? nil : catalog.favourites[index - 1])
        case .recent: return .recent(catalog.recent.entries[index])
        case .playlists: return .playlist(catalog.playlists[index])
        case .settings: return .open([.playMode, .lyricsOffset, .sleepTimer, .speed][index])
        case .playMode: return .mode(PlayMode.allCases[index])
        case .lyricsOffset: return .value
        case .sleepTimer: return .sleep(Self.sleepChoices[index])
        case .speed: return .speed(Self.speedChoices[index])
        case .podcasts: return .open(.podcast(index))
        case .podcast(let i): return .episode(catalog.podcasts[i].episodes[index].id)
        }
    }

    /// The text of entry `index` of a list.
    public func label(_ place: Place, _ index: Int) -> String {
        switch place {
        case .top: return topList[index].0
        case .folder(let i):
            let folder = catalog.folders[i]
            if index == 0 { return Self.playAll }
            if index - 1 < folder.folders.count { return catalog.folders[folder.folders[index - 1]].name + "/" }
            let track = folder.tracks[index - 1 - folder.folders.count]
            return TrackInfo.fileStem(catalog.tracks[track].path)
        case .artists: return Self.name(catalog.artists[index].name, or: "Unknown artist")
        case .artist(let i): return Self.name(catalog.albums[catalog.artists[i].albums[index]].name, or: "No album")
        case .album(let i):
            if index == 0 { return Self.playAll }
            let track = catalog.albums[i].tracks[index - 1]
            return catalog.tracks[track].trackNumber.map { "\($0). " + catalog.title(track) } ?? catalog.title(track)
        case .albums:
            let album = catalog.albums[index]
            let name = Self.name(album.name, or: "No album")
            return album.artist.isEmpty ? name : "\(name) – \(album.artist)"
        case .favourites:
            if index == 0 { return Self.playAll }
            let track = catalog.favourites[index - 1]
            let artist = catalog.tracks[track].artist ?? ""
            return artist.isEmpty ? catalog.title(track) : "\(catalog.title(track)) – \(artist)"
        case .recent: return describe(catalog.recent.entries[index])
        case .playlists: return catalog.playlists[index]
        case .settings:
            if index == 0 { return "Play mode: \(playMode.rawValue)" }
            if index == 2 { return "Sleep timer: " + (sleepTarget.map { "\($0)" } ?? "off") }
            if index == 3 { return "Speed: \(speed)×" }
            return "Lyrics offset: " + (lyricsOffsetMs.map { "\($0 > 0 ? "+" : "")\($0) ms" } ?? "no lyrics")
        case .playMode:
            let mode = PlayMode.allCases[index]
            return (mode == playMode ? "✓ " : "  ") + mode.rawValue
        case .lyricsOffset:
            return lyricsOffsetMs.map { "\($0 > 0 ? "+" : "")\($0) ms (turn)" } ?? "No lyrics"
        case .sleepTimer:
            let target = Self.sleepChoices[index]
            return (target == sleepTarget ? "✓ " : "  ") + (target.map { "\($0)" } ?? "off")
        case .speed:
            let choice = Self.speedChoices[index]
            return (choice == speed ? "✓ " : "  ") + "\(choice)×"
        case .podcasts: return catalog.podcasts[index].title
        case .podcast(let i): return catalog.podcasts[i].episodes[index].title
        }
    }

    /// What the title row says for a list.
    public func title(_ place: Place) -> String {
        switch place {
        case .top: return "Menu"
        case .folder(let i): return i == 0 ? "Folders" : catalog.folders[i].name
        case .artists: return "Artists"
        case .artist(let i): return Self.name(catalog.artists[i].name, or: "Unknown artist")
        case .album(let i): return Self.name(catalog.albums[i].name, or: "No album")
        case .albums: return "Albums A–Z"
        case .favourites: return "Favourites"
        case .recent: return "Recently played"
        case .playlists: return "Playlists"
        case .settings: return "Settings"
        case .playMode: return "Play mode"
        case .lyricsOffset: return "Lyrics offset"
        case .sleepTimer: return "Sleep timer"
        case .speed: return "Speed"
        case .podcasts: return "Podcasts"
        case .podcast(let i): return catalog.podcasts[i].title
        }
    }

    /// The initial letter of entry `index`, for lists sorted by name.
    func initial(_ place: Place, _ index: Int) -> String? {
        switch place {
        case .folder(let i):
            let folder = catalog.folders[i]
            if index == 0 { return nil }
            if index - 1 < folder.folders.count { return catalog.folders[folder.folders[index - 1]].key.initial }
            return catalog.fileKeys[folder.tracks[index - 1 - folder.folders.count]].initial
        case .artists: return catalog.artists[index].key.initial
        case .artist(let i): return catalog.albums[catalog.artists[i].albums[index]].key.initial
        case .albums: return catalog.albums[index].key.initial
        case .playlists: return SortKey(catalog.playlists[index]).initial
        default: return nil
        }
    }

    /// Where each initial-letter group of a list starts (once, when the list is entered).
    private func groups(_ place: Place) -> [Int] {
        var starts: [Int] = []
        var previous: String?
        for index in 0..<count(place) {
            guard let letter = initial(place, index) else { continue }
            if letter != previous { starts.append(index) }
            previous = letter
        }
        return starts
    }

    /// "Abbey Road – The Beatles, 3:12".
    private func describe(_ entry: RecentlyPlayed.Entry) -> String {
        let where_ = ScreenLayout.clock(entry.positionMs)
        switch entry.source {
        case .album(let artist, let album):
            let name = Self.name(album, or: "No album")
            return (artist.isEmpty ? name : "\(name) – \(artist)") + ", \(where_)"
        case .folder(let path): return (path.isEmpty ? "All music" : path) + "/, \(where_)"
        case .artist(let name): return "\(Self.name(name, or: "No artist")), \(where_)"
        case .playlist(let name): return "\(name), \(where_)"
        case .favourites: return "Favourites, \(where_)"
        }
    }

    static func source(_ album: MenuCatalog.Album) -> PlaySource { .album(artist: album.artist, album: album.name) }

    private static func name(_ name: String, or fallback: String) -> String { name.isEmpty ? fallback : name }

    // MARK: - the screen

    /// What the screen shows of the open menu with room for `rows` entries, at `now`.
    public func page(rows: Int, now: Instant) -> MenuPage? {
        guard let level = stack.last else { return nil }
        let total = count(level.place)
        let visible = max(1, rows)
        let first = max(0, min(level.highlighted - (visible - 1) / 2, total - visible))
        var entries: [MenuPage.Row] = []
        for index in first..<min(total, first + visible) {
            let opens: Bool
            if case .open = entry(level.place, index) { opens = true } else { opens = false }
            entries.append(
                MenuPage.Row(label: label(level.place, index), highlighted: index == level.highlighted, opens: opens))
        }
        var letter: String?
        if let until = letterUntil, now < until, total > 0 { letter = initial(level.place, level.highlighted) }
        return MenuPage(
            title: title(level.place), rows: entries, first: first, total: total,
            highlighted: total == 0 ? nil : level.highlighted, letter: letter)
    }
}
