/// The favourites: the stored playlist `Favourites`, so that MPD clients list and edit them
/// like any playlist and a file written on a computer counts too. A track is a favourite
/// while its path is in that list.
public enum Favourites {
    /// The stored playlist's name (`Favourites.m3u` in the playlist folder).
    public static let playlistName = "Favourites"

    /// What the `favourite` command does to the playing track.
    public enum Edit: String, Sendable, Equatable, CaseIterable {
        /// Marks it, or unmarks it when it is marked.
        case toggle
        case add
        case remove
    }

    /// What `edit` of `path` makes of the list `entries`: the new list (nil when it stays as
    /// it is) and whether `path` is a favourite afterwards. Removing takes every copy (a
    /// client may have added one twice); adding appends, as MPD's `playlistadd` does.
    public static func apply(_ edit: Edit, path: String, to entries: [String]) -> (entries: [String]?, marked: Bool) {
        let marked = entries.contains(path)
        switch (edit, marked) {
        case (.add, true): return (nil, true)
        case (.remove, false): return (nil, false)
        case (.add, false), (.toggle, false): return (entries + [path], true)
        case (.remove, true), (.toggle, true): return (entries.filter { $0 != path }, false)
        }
    }
}
