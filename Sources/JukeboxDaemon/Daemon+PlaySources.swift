import JukeboxCore
import JukeboxStore

// Music the box chooses itself: the Favourites playlist (the `favourite` gesture and command)
// and Recently played (the sources chosen, each where it was left). Control thread only.

extension Daemon {
    // MARK: favourites

    /// Marks or unmarks the playing track: `Favourites.m3u` is rewritten atomically, clients
    /// idling on `stored_playlist` wake, the display shows the mark.
    func editFavourites(_ edit: Favourites.Edit, source: String) {
        guard let track = currentTrackInfo else {
            logger.info("\(source): favourite: nothing is playing")
            console?.announce("favourite: nothing is playing")
            return
        }
        let folder = playlistFolder
        do {
            let entries = try folder.entries(of: Favourites.playlistName) ?? []
            let (changed, marked) = Favourites.apply(edit, path: track.path, to: entries)
            if let changed {
                try folder.write(Favourites.playlistName, entries: changed)
                mpd.observer.mark(.storedPlaylist)
                refreshMenuLists()
            }
            let text =
                marked
                ? "\(ScreenLayout.favouriteGlyph) favourite: \(track.spoken)" : "not a favourite: \(track.spoken)"
            logger.info("\(source): \(text)")
            console?.announce(text)
            display?.announce(marked ? "\(ScreenLayout.favouriteGlyph) Favourite" : "Not a favourite", now: Instant.now)
        } catch {
            logger.error("favourites: \(error)")
            console?.announce("favourite: \(error)")
        }
    }

    // MARK: recently played

    func loadHistory() {
        do {
            let stored = try store.recentlyPlayed()
            history = PlayHistory(entries: stored.entries, newestHoldsQueue: stored.newestHoldsQueue)
        } catch {
            logger.error("cannot read Recently played: \(error)")
        }
        findHoldingCard()
    }

    /// Where playback is (the playing track and position), if anything is current.
    var currentPlace: PlayHistory.Place? {
        currentTrackInfo.map { PlayHistory.Place(trackPath: $0.path, positionMs: machine.positionMs) }
    }

    func place(of snapshot: PlayerMachine.Snapshot) -> PlayHistory.Place? {
        snapshot.currentTrack.flatMap { library[$0] }.map {
            PlayHistory.Place(trackPath: $0.path, positionMs: snapshot.positionMs)
        }
    }

    /// Performs what the history asks to save (unsynced: the resume commit after it, or the
    /// next one, makes it durable).
    func recordHistory(_ event: PlayHistory.Event) {
        for action in history.handle(event) {
            switch action {
            case .save(let entry, let holdsQueue):
                do {
                    try store.saveRecentlyPlayed(entry, holdsQueue: holdsQueue)
                } catch {
                    logger.error("cannot save Recently played: \(error)")
                }
                saveCardPlace(entry)
            }
        }
    }

    /// Plays `source` (as the menu does) and says so on the console.
    func reply(playing source: PlaySource, trackPath: String? = nil, positionMs: Int64 = 0) -> String {
        let count = play(source, trackPath: trackPath, positionMs: positionMs)
        return count == 0 ? "error: nothing to play in \(source.title)" : "OK playing \(source.title) (\(count) tracks)"
    }
}
