import JukeboxCore
import SQLite

// Web radio stations (`streams`): a station in the queue is the track id -N of stream N.

extension LibraryStore {
    /// The track id of the station at `url` (negative), added when it is new.
    public func streamTrackID(url: String) throws -> TrackID {
        let insert = try cached("INSERT INTO streams(url) VALUES (?) ON CONFLICT(url) DO NOTHING")
        defer { insert.reset() }
        try insert.bind(url, at: 1)
        _ = try insert.step()
        let row = try cached("SELECT id FROM streams WHERE url = ?")
        defer { row.reset() }
        try row.bind(url, at: 1)
        guard try row.step() else { throw SQLiteError(code: 1, message: "stream \(url) was not stored", path: path) }
        return -row.int64(at: 0)
    }

    /// Every station, by its (negative) track id.
    public func streams() throws -> [TrackID: String] {
        let rows = try cached("SELECT id, url FROM streams")
        defer { rows.reset() }
        var streams: [TrackID: String] = [:]
        while try rows.step() { streams[-rows.int64(at: 0)] = rows.string(at: 1) ?? "" }
        return streams
    }
}
