import SQLite

/// Stickers (MPD's name/value pairs per object, by type and uri) and the named player
/// settings. Each write is one small transaction, fsync'd: a rating set from a phone or a
/// changed setting survives a power cut, and such writes are rare.
extension LibraryStore {
    /// The value of sticker `name` of (`type`, `uri`), or nil.
    public func sticker(type: String, uri: String, name: String) throws -> String? {
        let statement = try cached("SELECT value FROM stickers WHERE type = ? AND uri = ? AND name = ?")
        defer { statement.reset() }
        try statement.bind(type, at: 1)
        try statement.bind(uri, at: 2)
        try statement.bind(name, at: 3)
        return try statement.step() ? statement.string(at: 0) : nil
    }

    /// Every sticker of (`type`, `uri`), by name.
    public func stickers(type: String, uri: String) throws -> [(name: String, value: String)] {
        let statement = try cached("SELECT name, value FROM stickers WHERE type = ? AND uri = ? ORDER BY name")
        defer { statement.reset() }
        try statement.bind(type, at: 1)
        try statement.bind(uri, at: 2)
        var result: [(name: String, value: String)] = []
        while try statement.step() { result.append((statement.string(at: 0) ?? "", statement.string(at: 1) ?? "")) }
        return result
    }

    /// Creates or replaces sticker `name` of (`type`, `uri`).
    public func setSticker(type: String, uri: String, name: String, value: String) throws {
        let statement = try cached("INSERT OR REPLACE INTO stickers(type, uri, name, value) VALUES (?, ?, ?, ?)")
        try connection.transaction(durable: true) {
            defer { statement.reset() }
            try statement.bind(type, at: 1)
            try statement.bind(uri, at: 2)
            try statement.bind(name, at: 3)
            try statement.bind(value, at: 4)
            try statement.run()
        }
    }

    /// Removes sticker `name` of (`type`, `uri`), or all of its stickers when `name` is nil;
    /// false when there was none (nothing is written then).
    public func deleteStickers(type: String, uri: String, name: String?) throws -> Bool {
        let statement =
            name == nil
            ? try cached("DELETE FROM stickers WHERE type = ? AND uri = ?")
            : try cached("DELETE FROM stickers WHERE type = ? AND uri = ? AND name = ?")
        guard try !stickers(type: type, uri: uri).filter({ name == nil || $0.name == name }).isEmpty else {
            return false
        }
        try connection.transaction(durable: true) {
            defer { statement.reset() }
            try statement.bind(type, at: 1)
            try statement.bind(uri, at: 2)
            if let name { try statement.bind(name, at: 3) }
            try statement.run()
        }
        return true
    }

    /// How `findStickers` compares values (as text, as MPD's SQL does).
    public enum StickerComparison: String, Sendable {
        case equal = "="
        case less = "<"
        case greater = ">"
    }

    /// The uris of `type` that start with `prefix` (bytewise, as MPD's check after its SQL
    /// `LIKE`) and have sticker `name`, with its value; only values that compare to `value`
    /// by `comparison` (as text) when one is given. By uri.
    public func findStickers(
        type: String, prefix: String, name: String, comparison: (StickerComparison, String)? = nil
    ) throws -> [(uri: String, value: String)] {
        let condition = comparison.map { " AND value \($0.0.rawValue) ?" } ?? ""
        let statement = try cached(
            "SELECT uri, value FROM stickers WHERE type = ? AND name = ?\(condition) ORDER BY uri")
        defer { statement.reset() }
        try statement.bind(type, at: 1)
        try statement.bind(name, at: 2)
        if let comparison { try statement.bind(comparison.1, at: 3) }
        var result: [(uri: String, value: String)] = []
        while try statement.step() {
            let uri = statement.string(at: 0) ?? ""
            if uri.utf8.starts(with: prefix.utf8) { result.append((uri, statement.string(at: 1) ?? "")) }
        }
        return result
    }

    /// The sticker names of `type` (of every type when nil), each once, bytewise ascending
    /// (SQLite's BINARY collation).
    public func stickerNames(type: String?) throws -> [String] {
        let statement = try cached(
            type == nil
                ? "SELECT DISTINCT name FROM stickers ORDER BY name"
                : "SELECT DISTINCT name FROM stickers WHERE type = ? ORDER BY name")
        defer { statement.reset() }
        if let type { try statement.bind(type, at: 1) }
        var names: [String] = []
        while try statement.step() { names.append(statement.string(at: 0) ?? "") }
        return names
    }

    /// A named player setting (`replay_gain_mode`), or nil when never set.
    public func setting(_ name: String) throws -> String? {
        let statement = try cached("SELECT value FROM settings WHERE name = ?")
        defer { statement.reset() }
        try statement.bind(name, at: 1)
        return try statement.step() ? statement.string(at: 0) : nil
    }

    /// Stores a named player setting.
    public func setSetting(_ name: String, to value: String) throws {
        let statement = try cached("INSERT OR REPLACE INTO settings(name, value) VALUES (?, ?)")
        try connection.transaction(durable: true) {
            defer { statement.reset() }
            try statement.bind(name, at: 1)
            try statement.bind(value, at: 2)
            try statement.run()
        }
    }
}
