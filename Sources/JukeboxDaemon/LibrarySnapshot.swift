import JukeboxCore
import JukeboxStore
import MPDProtocol

/// The scanned library as the control loop serves it: the playable tracks by id, the ones
/// decoded wider than 16 bits, and the MPD index. Reading 100,000 rows, decoding their tags
/// and indexing them takes seconds, so after a scan it is built on the scan thread and the
/// loop swaps it in (`Daemon.install`) in one step. `tracks` and `index` hold the same
/// `TrackInfo` objects, and the tracks share their repeated tag values (`SharedTrackStrings`).
struct LibrarySnapshot: Sendable {
    var tracks: [TrackID: TrackInfo]
    var wideTracks: Set<TrackID>
    var index: MPDLibrary

    /// No tracks (a database that cannot be read).
    init() {
        tracks = [:]
        wideTracks = []
        index = MPDLibrary()
    }

    init(store: LibraryStore) throws {
        var shared = SharedTrackStrings()
        let infos = try store.playableTracks().map { shared.shared($0.info) }
        tracks = Dictionary(uniqueKeysWithValues: infos.lazy.map { ($0.id, $0) })
        wideTracks = Set(infos.lazy.filter(\.isWide).map(\.id))
        index = MPDLibrary(tracks: infos)
    }
}
