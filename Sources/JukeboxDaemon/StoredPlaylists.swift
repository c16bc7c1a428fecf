import JukeboxStore
import MPDProtocol

/// The MPD commands' view of the playlist folder: the store's `PlaylistFolder` behind the
/// protocol's interface (the protocol target stays free of file I/O).
struct StoredPlaylists: MPDPlaylistFolder {
    let folder: PlaylistFolder

    func list() throws -> [MPDStoredPlaylist] {
        try folder.list().map { MPDStoredPlaylist(name: $0.name, modified: $0.modified) }
    }

    func entries(of name: String) throws -> [String]? { try folder.entries(of: name) }

    func write(_ name: String, entries: [String]) throws { try folder.write(name, entries: entries) }

    func remove(_ name: String) throws -> Bool { try folder.remove(name) }

    func rename(_ from: String, to: String) throws -> Bool { try folder.rename(from, to: to) }
}
