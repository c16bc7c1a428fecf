import JukeboxAudio
import JukeboxCore
import JukeboxStore
import MPDProtocol

/// The web radio stations the queue can hold (`streams`, track ids below 0) and what the
/// playing one says of itself (ICY), for the screen and MPD.
struct RadioState {
    /// Every station, by its track id.
    var stations: [TrackID: String] = [:]
    /// The playing station's name (icy-name) and StreamTitle, as last shown.
    var name: String?
    var title: String?
    /// Grows with each change of `title` (the screen redraws the lyric line).
    var version = 0
}

/// `add URL` from an MPD client: the station's id from the store (added when new).
final class StationList: MPDStationList {
    let store: LibraryStore
    private(set) var added: [TrackID: String] = [:]

    init(store: LibraryStore) { self.store = store }

    func trackID(url: String) throws -> TrackID {
        let id = try store.streamTrackID(url: url)
        added[id] = url
        return id
    }
}

extension Daemon {
    func loadStations() {
        do { radio.stations = try store.streams() } catch { logger.error("cannot read the radio stations: \(error)") }
        perform(
            machine.handle(.tracksDescribed(radio.stations.map { TrackInfo(id: $0, path: $1) }), now: Instant.now))
    }

    /// Every track id the queue may hold: the library's and the stations'.
    var playableIDs: Set<TrackID> { Set(library.keys).union(radio.stations.keys) }

    /// The station `id` as a track for the screen: its name as the title.
    func stationTrack(_ id: TrackID) -> TrackInfo? {
        radio.stations[id].map { TrackInfo(id: id, path: $0, title: radio.name ?? $0) }
    }

    /// Follows the playing station's ICY name and title (polled each turn of the loop): MPD's
    /// `Title` and `Name`, and the screen's lyric line.
    func followStation(_ streams: LiveStreams) {
        guard let id = machine.queue.currentTrack, let url = radio.stations[id] else {
            radio.name = nil
            radio.title = nil
            return
        }
        let info = streams.info(url: url)
        guard info?.name != radio.name || info?.title != radio.title else { return }
        radio.name = info?.name
        if info?.title != radio.title {
            radio.title = info?.title
            radio.version += 1
        }
        perform(machine.handle(.tracksDescribed([TrackInfo(id: id, path: url, title: radio.title)]), now: Instant.now))
        mpd.observer.mark(.player)
    }

    /// A card's stream: the queue becomes that station, playing.
    func playStation(_ url: String) {
        do {
            let id = try store.streamTrackID(url: url)
            radio.stations[id] = url
            perform(machine.handle(.tracksDescribed([TrackInfo(id: id, path: url)]), now: Instant.now))
            perform(machine.handle(.command(.editQueue(.clear)), now: Instant.now))
            perform(machine.handle(.command(.editQueue(.add([id], at: nil))), now: Instant.now))
            perform(machine.handle(.command(.play(index: 0)), now: Instant.now))
        } catch {
            logger.error("cannot store the station \(url): \(error)")
        }
    }
}
