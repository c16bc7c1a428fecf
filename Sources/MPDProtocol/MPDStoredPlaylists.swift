import JukeboxCore

/// The stored playlists (MPD's `playlist_directory`) as the commands see them: named lists of
/// paths relative to music_dir. The daemon's implementation keeps them as `.m3u` files; tests
/// keep them in memory. Errors other than `MPDError` are reported as ACK 52 (system).
public protocol MPDPlaylistFolder {
    /// Every stored playlist with its modification time (Unix seconds).
    func list() throws -> [MPDStoredPlaylist]
    /// The entries of playlist `name`, or nil when there is no such playlist.
    func entries(of name: String) throws -> [String]?
    /// Creates or replaces playlist `name` (atomically: a reader sees the old or the new list).
    func write(_ name: String, entries: [String]) throws
    /// Removes playlist `name`; false when there was none.
    func remove(_ name: String) throws -> Bool
    /// Renames playlist `from` to `to` (which does not exist); false when `from` does not exist.
    func rename(_ from: String, to: String) throws -> Bool
}

/// One stored playlist in `listplaylists`.
public struct MPDStoredPlaylist: Sendable, Equatable {
    public var name: String
    /// Unix seconds.
    public var modified: Int64

    public init(name: String, modified: Int64) {
        self.name = name
        self.modified = modified
    }
}

/// The stored-playlist commands, answered as MPD 0.23 answers them (src/PlaylistFile.cxx,
/// src/command/PlaylistCommands.cxx): the same ACK codes and texts, the same range and
/// position rules. Every change marks the `stored_playlist` idle subsystem.
extension MPDCommands {
    static func listPlaylists(_ w: inout MPDWorld, _ c: inout Call) throws {
        let folder = try enabledFolder(w)
        printPlaylists(try io({ try folder.list() }), into: &c.response)
    }

    /// The end of `lsinfo` at the root, where MPD lists the stored playlists too (mpc's
    /// `lsplaylists` reads them there); a folder that cannot be read is logged, not an error.
    static func rootPlaylists(_ w: inout MPDWorld, _ c: inout Call) {
        guard let folder = w.playlists else { return }
        do {
            printPlaylists(try folder.list(), into: &c.response)
        } catch {
            w.notices.append("stored playlists: \(error)")
        }
    }

    static func printPlaylists(_ playlists: [MPDStoredPlaylist], into r: inout MPDResponse) {
        for playlist in playlists.sorted(by: { $0.name < $1.name }) {
            r.add("playlist", playlist.name)
            r.add("Last-Modified", ISO8601.utc(playlist.modified))
        }
    }

    /// `listplaylist NAME [RANGE]` (the range is MPD 0.24's).
    static func listPlaylist(_ w: inout MPDWorld, _ c: inout Call) throws {
        for entry in try existingEntries(c, in: w) { c.response.add("file", entry) }
    }

    /// The entries of playlist `c.arguments[0]` within the range `c.arguments[1]`, when given
    /// (MPD 0.24's `listplaylist`/`listplaylistinfo NAME START:END`; past the end is left out).
    static func existingEntries(_ c: Call, in w: MPDWorld) throws -> ArraySlice<String> {
        let range = try c.arguments.count > 1 ? playlistRange(c.arguments[1]) : nil
        let entries = try existing(c.arguments[0], in: w)
        guard let range else { return entries[...] }
        let start = min(range.lowerBound, entries.count)
        return entries[start..<max(start, min(range.upperBound, entries.count))]
    }

    /// `playlistlength NAME` (MPD 0.24): its entries and their time in whole seconds (an entry
    /// not in the library counts, with no time).
    static func playlistLength(_ w: inout MPDWorld, _ c: inout Call) throws {
        let entries = try existing(c.arguments[0], in: w)
        let ms = entries.reduce(Int64(0)) { $0 + (w.library.track(path: $1)?.durationMs ?? 0) }
        c.response.add("songs", entries.count)
        c.response.add("playtime", ms / 1000)
    }

    /// `listplaylistinfo NAME [RANGE]` (the range is MPD 0.24's).
    static func listPlaylistInfo(_ w: inout MPDWorld, _ c: inout Call) throws {
        for entry in try existingEntries(c, in: w) {
            // An entry that is no longer in the library shows its path only, as in MPD.
            if let track = w.library.track(path: entry) {
                song(track, into: &c.response)
            } else {
                c.response.add("file", entry)
            }
        }
    }

    /// `searchplaylist NAME FILTER [window RANGE]` (MPD 0.24): the entries that match, case
    /// folded as `search`, each with its position in the playlist (`Pos`); `window` counts
    /// matches. An entry no longer in the library is matched by its path and shows it only.
    static func searchPlaylist(_ w: inout MPDWorld, _ c: inout Call) throws {
        var arguments = Array(c.arguments.dropFirst())
        var window = 0..<Int(Int32.max)
        // As MPD: `window` only after a single filter expression.
        if arguments.count == 3, arguments[1] == "window" {
            window = try playlistRange(arguments[2])
            arguments.removeLast(2)
        }
        let (filter, rest) = try MPDFilter.parse(arguments, exact: false)
        guard rest.isEmpty else { throw MPDError(.argument, "Incorrect number of filter arguments") }
        let entries = try existing(c.arguments[0], in: w)
        var matched = 0
        for (position, entry) in entries.enumerated() {
            guard matched < window.upperBound else { break }
            let track = w.library.track(path: entry)
            guard filter.matches(track ?? TrackInfo(id: 0, path: entry)) else { continue }
            matched += 1
            guard matched > window.lowerBound else { continue }
            if let track {
                song(track, into: &c.response)
                c.response.add("Pos", position)
            } else {
                c.response.add("file", entry)
            }
        }
    }

    static func load(_ w: inout MPDWorld, _ c: inout Call) throws {
        let name = c.arguments[0]
        let entries = try existing(name, in: w)
        let range = try c.arguments.count > 1 ? playlistRange(c.arguments[1]) : 0..<Int(Int32.max)
        let at = try c.arguments.count > 2 ? insertPosition(c.arguments[2], in: w) : nil
        var ids: [TrackID] = []
        var missing: [String] = []
        for (index, entry) in entries.enumerated() where range.contains(index) {
            if let track = w.library.track(path: entry) ?? (try? station(entry, in: &w)) ?? nil {
                ids.append(track.id)
            } else {
                missing.append(entry)
            }
        }
        if let first = missing.first {
            let more = missing.count > 1 ? " and \(missing.count - 1) more" : ""
            w.notices.append("load \(name): skipped \(missing.count) missing: \(first)\(more)")
        }
        try addToQueue(ids, at: at, &w)
        w.lastLoadedPlaylist = name
    }

    /// `save NAME [create|append|replace]` (the mode is MPD 0.24's): `create` refuses an
    /// existing playlist, `append` and `replace` a missing one.
    static func save(_ w: inout MPDWorld, _ c: inout Call) throws {
        let mode = c.arguments.count > 1 ? c.arguments[1] : "create"
        guard ["create", "append", "replace"].contains(mode) else {
            throw MPDError(.argument, "Unrecognized save mode, expected one of 'create', 'append', 'replace'")
        }
        let name = try validName(c.arguments[0])
        let folder = try enabledFolder(w)
        let queue = w.machine.queue.entries.map { w.info($0).path }
        switch (mode, try io({ try folder.entries(of: name) })) {
        case ("create", _?): throw MPDError(.exist, "Playlist already exists")
        case ("create", nil): try store(name, queue, in: &w)
        case (_, nil): throw MPDError(.noExist, "No such playlist")
        case ("append", let entries?): try store(name, entries + queue, in: &w)
        default: try store(name, queue, in: &w)
        }
    }

    static func playlistAdd(_ w: inout MPDWorld, _ c: inout Call) throws {
        let name = try validName(c.arguments[0])
        let folder = try enabledFolder(w)
        var entries = try io({ try folder.entries(of: name) }) ?? []
        var at = entries.count
        if c.arguments.count > 2 {
            at = try unsigned(c.arguments[2])
            guard at <= entries.count else { throw MPDError(.argument, "Bad position") }
        }
        let tracks = try station(c.arguments[1], in: &w).map { [$0] } ?? resolve(c.arguments[1], in: w)
        guard !tracks.isEmpty else { return }
        entries.insert(contentsOf: tracks.map(\.path), at: at)
        try store(name, entries, in: &w)
    }

    /// `searchaddpl NAME FILTER [sort TAG] [window RANGE] [position POS]`: the songs a
    /// search selects, appended to (or inserted at POS in) the playlist, which is created
    /// when missing and songs match (MPD 0.23 src/db/DatabasePlaylist.cxx).
    static func searchAddToPlaylist(_ w: inout MPDWorld, _ c: inout Call) throws {
        let name = try validName(c.arguments[0])
        var arguments = Array(c.arguments.dropFirst())
        let position = try takePosition(&arguments).map { try unsigned($0) }
        let found = try selection(arguments, exact: false, in: w)
        let folder = try enabledFolder(w)
        var entries = try io({ try folder.entries(of: name) }) ?? []
        let at = position ?? entries.count
        guard at <= entries.count else { throw MPDError(.argument, "Bad position") }
        guard !found.isEmpty else { return }
        entries.insert(contentsOf: found.map(\.path), at: at)
        try store(name, entries, in: &w)
    }

    static func playlistClear(_ w: inout MPDWorld, _ c: inout Call) throws {
        let name = try validName(c.arguments[0])
        _ = try existing(name, in: w)
        try store(name, [], in: &w)
    }

    static func playlistDelete(_ w: inout MPDWorld, _ c: inout Call) throws {
        let name = try validName(c.arguments[0])
        let range = try playlistRange(c.arguments[1])
        var entries = try existing(name, in: w)
        // MPD 0.23's text for a range past the end (PlaylistError::BadRange).
        guard range.lowerBound <= entries.count else { throw MPDError(.argument, "Bad song index") }
        entries.removeSubrange(range.lowerBound..<min(range.upperBound, entries.count))
        try store(name, entries, in: &w)
    }

    /// `playlistmove NAME FROM|START:END TO` (the range is MPD 0.24's): TO is where the
    /// first moved entry ends up.
    static func playlistMove(_ w: inout MPDWorld, _ c: inout Call) throws {
        if c.arguments[1].hasSuffix(":") { throw MPDError(.argument, "Open-ended range not supported") }
        let from = try c.arguments[1].contains(":") ? playlistRange(c.arguments[1]) : single(c.arguments[1])
        let to = try unsigned(c.arguments[2])
        // MPD does not even look for the playlist when nothing moves.
        if from.isEmpty || from.lowerBound == to { return }
        let name = try validName(c.arguments[0])
        var entries = try existing(name, in: w)
        guard from.upperBound <= entries.count, to + from.count <= entries.count else {
            throw MPDError(.argument, "Bad range")
        }
        let moved = Array(entries[from])
        entries.removeSubrange(from)
        entries.insert(contentsOf: moved, at: to)
        try store(name, entries, in: &w)
    }

    /// One position as a range (`playlistmove FROM`), with MPD's unsigned checks.
    static func single(_ text: String) throws -> Range<Int> {
        let position = try unsigned(text)
        return position..<position + 1
    }

    static func renamePlaylist(_ w: inout MPDWorld, _ c: inout Call) throws {
        let from = try validName(c.arguments[0])
        let to = try validName(c.arguments[1])
        let folder = try enabledFolder(w)
        if try io({ try folder.entries(of: to) }) != nil {
            throw MPDError(.exist, "Playlist exists already")
        }
        guard try io({ try folder.rename(from, to: to) }) else { throw MPDError(.noExist, "No such playlist") }
        w.observer.mark(.storedPlaylist)
    }

    static func removePlaylist(_ w: inout MPDWorld, _ c: inout Call) throws {
        let name = try validName(c.arguments[0])
        let folder = try enabledFolder(w)
        guard try io({ try folder.remove(name) }) else { throw MPDError(.noExist, "No such playlist") }
        w.observer.mark(.storedPlaylist)
    }

    /// Why MPD refuses a playlist name (`spl_valid_name`): empty, a slash, a line break.
    public static func playlistNameProblem(_ name: String) -> String? {
        if name.isEmpty || name.contains("/") || name.contains("\n") || name.contains("\r") {
            return "Bad playlist name"
        }
        return nil
    }

    static func validName(_ name: String) throws -> String {
        if let problem = playlistNameProblem(name) { throw MPDError(.argument, problem) }
        return name
    }

    static func enabledFolder(_ w: MPDWorld) throws -> any MPDPlaylistFolder {
        guard let folder = w.playlists else { throw MPDError(.unknown, "Stored playlists are disabled") }
        return folder
    }

    /// The entries of an existing playlist. A name MPD would not store (a path) is looked for
    /// in music_dir by MPD; the box keeps playlists in the folder only, so it is missing too.
    static func existing(_ name: String, in w: MPDWorld) throws -> [String] {
        let folder = try enabledFolder(w)
        guard playlistNameProblem(name) == nil, let entries = try io({ try folder.entries(of: name) }) else {
            throw MPDError(.noExist, "No such playlist")
        }
        return entries
    }

    static func store(_ name: String, _ entries: [String], in w: inout MPDWorld) throws {
        let folder = try enabledFolder(w)
        try io { try folder.write(name, entries: entries) }
        w.observer.mark(.storedPlaylist)
    }

    /// Runs a folder call; its failures become ACK 52, as MPD reports a system error.
    static func io<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MPDError {
            throw error
        } catch {
            throw MPDError(.system, "\(error)")
        }
    }

    /// `N`, `START:` or `START:END` as MPD parses a range argument (unclipped; `-1` is all).
    static func playlistRange(_ text: String) throws -> Range<Int> {
        let range = try parseRange(text, count: Int(Int32.max), strict: false)
        let parts = text.split(separator: ":", maxSplits: 1)
        if parts.count == 2, let start = parseInteger(String(parts[0])), let end = parseInteger(String(parts[1])),
            end < start
        {
            throw MPDError(.argument, "Malformed range: \(text)")
        }
        return range
    }
}
