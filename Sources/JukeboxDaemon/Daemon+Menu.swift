import JukeboxCore
import JukeboxStore

// The knob's menu (control thread): gestures go to it while it is open, and what it chooses
// becomes queue edits and commands of the player, like any front end's.
//
// What it lists besides the library comes from here, in `refreshMenuLists`: the stored
// playlists' names, the favourites as the track paths of the `Favourites` stored playlist,
// and Recently played (`history`). Sources it plays go through `play(_:trackPath:positionMs:)`,
// which records them in Recently played.

extension Daemon {
    /// Opens the menu at its top, with the playlists and favourites as they are now.
    func openMenu(at now: Instant) {
        if !updateMenuCatalog() { refreshMenuLists() }
        perform(boxMachine.handle(.menu(.open), now: now))
        logger.debug("menu: open")
    }

    /// Builds the menu's catalog again if the library changed since (on a 10,000-track library
    /// that is tens of milliseconds, so it waits until the menu or a source needs it), with the
    /// lists of `refreshMenuLists`. True when it did.
    @discardableResult func updateMenuCatalog() -> Bool {
        guard menuCatalogIsStale else { return false }
        menuCatalogIsStale = false
        menu.replaceCatalog(MenuCatalog(tracks: Array(library.values)))
        refreshMenuLists()
        return true
    }

    /// Feeds the menu the stored playlists, the favourites and the recently played sources
    /// (and the display the favourites' paths, for the mark): on opening, after a scan, and
    /// when the stored playlists changed.
    func refreshMenuLists() {
        var catalog = menu.catalog
        do {
            catalog.setPlaylists(try playlistFolder.list().map(\.name))
            let favourites = try playlistFolder.entries(of: Favourites.playlistName) ?? []
            catalog.setFavourites(favourites)
            favouritePaths = Set(favourites)
        } catch {
            logger.warning("menu: cannot read the stored playlists: \(error)")
        }
        catalog.recent = history.recent
        catalog.podcasts = podcasts.menuList()
        menu.replaceCatalog(catalog)
    }

    /// A gesture while the menu is open: true when the menu took it (and the gesture's own
    /// mapping is not carried out).
    func menuTakes(_ event: GestureEvent) -> Bool {
        guard menu.isOpen else { return false }
        let menuEvent: MenuEvent?
        switch (event.control, event.gesture) {
        case ("switch", .short): menuEvent = .press
        case ("switch", .long): menuEvent = .back
        case _ where ControlMap(config: config).menuPlayNext?.matches(event) == true: menuEvent = .playNext
        case ("switch", _): menuEvent = nil
        default: return false
        }
        if let menuEvent { perform(boxMachine.handle(.menu(menuEvent), now: event.at)) }
        return true
    }

    /// What the menu chose.
    func perform(_ actions: [MenuAction]) {
        for action in actions {
            logger.debug("menu: \(action)")
            switch action {
            case .play(let source, let trackPath, let positionMs):
                learn(source)
                play(source, trackPath: trackPath, positionMs: positionMs)
            case .playNext(let source, let trackPath):
                guard let tracks = trackIDs(of: source, only: trackPath), !tracks.isEmpty else { continue }
                let at = machine.queue.currentIndex.map { $0 + 1 }
                perform(machine.handle(.command(.editQueue(.add(tracks, at: at))), now: Instant.now))
                console?.announce("menu: \(tracks.count) track\(tracks.count == 1 ? "" : "s") after the current one")
            case .setMode(let mode):
                perform(machine.handle(.command(.setMode(mode)), now: Instant.now))
            case .setSleep(let target):
                console?.announce("menu: " + setSleep(target))
            case .setSpeed(let speed):
                perform(machine.handle(.command(.setSpeed(speed)), now: Instant.now))
            case .nudgeLyrics(let ms):
                perform(.lyricsOffset(LyricNudge(relative: true, ms: ms)), source: "menu")
            case .playEpisode(let id):
                console?.announce("menu: " + playEpisode(id: id))
            case .closed:
                logger.debug("menu: closed")
                learningCard = nil
            }
        }
    }

    /// The queue becomes `source`, playing from the track at `trackPath` (its first when
    /// nil or gone), `positionMs` into it; Recently played notes where the old source was
    /// left and puts this one first. The number of tracks queued (0: none, nothing changed).
    @discardableResult
    func play(_ source: PlaySource, trackPath: String?, positionMs: Int64) -> Int {
        guard let tracks = trackIDs(of: source, only: nil), !tracks.isEmpty else {
            logger.warning("menu: \(source) has no tracks in the library")
            return 0
        }
        let start = trackPath.flatMap { path in tracks.firstIndex { library[$0]?.path == path } }
        recordHistory(.reached(currentPlace))
        let now = Instant.now
        perform(machine.handle(.command(.editQueue(.clear)), now: now))
        perform(machine.handle(.command(.editQueue(.add(tracks, at: nil))), now: now))
        perform(machine.handle(.command(.seekEntry(index: start ?? 0, ms: start == nil ? 0 : positionMs)), now: now))
        if let path = library[tracks[start ?? 0]]?.path {
            recordHistory(
                .chose(source, at: PlayHistory.Place(trackPath: path, positionMs: start == nil ? 0 : positionMs)))
        }
        logger.info("playing \(source.title) (\(tracks.count) tracks)")
        return tracks.count
    }

    /// The library tracks of `source` in order (or just the one at `only`); a playlist is read
    /// from its file, and its entries that are not in the library are left out.
    func trackIDs(of source: PlaySource, only path: String?) -> [TrackID]? {
        updateMenuCatalog()
        let catalog = menu.catalog
        if let path { return catalog.track(at: path).map { [catalog.tracks[$0].id] } }
        if case .playlist(let name) = source {
            do {
                guard let entries = try playlistFolder.entries(of: name) else { return nil }
                let found = entries.compactMap { catalog.track(at: $0) }
                if found.count < entries.count {
                    logger.info("playlist \(name): \(entries.count - found.count) entries not in the library skipped")
                }
                return found.map { catalog.tracks[$0].id }
            } catch {
                logger.warning("menu: playlist \(name): \(error)")
                return nil
            }
        }
        return catalog.tracks(of: source)?.map { catalog.tracks[$0].id }
    }
}
