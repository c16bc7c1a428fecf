import JukeboxCore

/// MPD's sticker database as the commands see it: name/value pairs attached to an object of a
/// type (`song`, by its path relative to music_dir). The daemon's keeps them in SQLite; tests
/// keep them in memory. Errors other than `MPDError` are reported as ACK 52 (system).
public protocol MPDStickerDatabase {
    /// The value of sticker `name`, or nil.
    func value(type: String, uri: String, name: String) throws -> String?
    /// Every sticker of one object.
    func values(type: String, uri: String) throws -> [(name: String, value: String)]
    /// Creates or replaces sticker `name`.
    func set(type: String, uri: String, name: String, value: String) throws
    /// Removes sticker `name`, or every sticker of the object when nil; false when none was there.
    func delete(type: String, uri: String, name: String?) throws -> Bool
    /// The objects whose uri starts with `prefix` (a folder with its slash, "" for all;
    /// bytewise) that have sticker `name` with a value matching `match`, by uri, with their values.
    func find(type: String, prefix: String, name: String, match: MPDStickerMatch) throws -> [(
        uri: String, value: String
    )]
    /// The names any object of `type` (of every type when nil) has a sticker of, each once,
    /// bytewise ascending.
    func names(type: String?) throws -> [String]
}

/// How `sticker find` compares values (MPD 0.23: none, `=`, `<`, `>`; as text).
public enum MPDStickerMatch: Sendable, Equatable {
    case exists
    case equals(String)
    case lessThan(String)
    case greaterThan(String)
}

/// `sticker get|set|delete|list|find song ...`, answered as MPD 0.23 answers them
/// (src/command/StickerCommands.cxx): the song must be in the library, an empty name is
/// ignored by `set` and missing for `get`, every change wakes `idle sticker`.
extension MPDCommands {
    static func sticker(_ w: inout MPDWorld, _ c: inout Call) throws {
        guard let stickers = w.stickers else { throw MPDError(.unknown, "sticker database is disabled") }
        let arguments = c.arguments
        guard arguments[1] == "song" else { throw MPDError(.argument, "unknown sticker domain") }
        let type = arguments[1]
        func song() throws -> String {
            guard let track = w.library.track(path: arguments[2]) else { throw MPDError(.noExist, "No such song") }
            return track.path
        }
        switch (arguments[0], arguments.count) {
        case ("get", 4):
            let uri = try song()
            let name = arguments[3]
            guard !name.isEmpty, let value = try io({ try stickers.value(type: type, uri: uri, name: name) }),
                !value.isEmpty
            else { throw MPDError(.noExist, "no such sticker") }
            c.response.add("sticker", "\(name)=\(value)")
        case ("list", 3):
            let uri = try song()
            let values = try io { try stickers.values(type: type, uri: uri) }
            // MPD keeps them in a std::map: by name, bytewise.
            for entry in values.sorted(by: { Array($0.name.utf8).lexicographicallyPrecedes($1.name.utf8) }) {
                c.response.add("sticker", "\(entry.name)=\(entry.value)")
            }
        case ("set", 5):
            let uri = try song()
            guard !arguments[3].isEmpty else { return }
            try io { try stickers.set(type: type, uri: uri, name: arguments[3], value: arguments[4]) }
            w.observer.mark(.stickers)
        case ("inc", 5), ("dec", 5):
            guard !arguments[3].isEmpty else { throw MPDError(.argument, "empty sticker name") }
            let uri = try song()
            let name = arguments[3]
            let old = try io { try stickers.value(type: type, uri: uri, name: name) }
            let value = old.map { stickerSum($0, arguments[4], subtract: arguments[0] == "dec") } ?? arguments[4]
            try io { try stickers.set(type: type, uri: uri, name: name, value: value) }
            w.observer.mark(.stickers)
        case ("delete", 3), ("delete", 4):
            let uri = try song()
            let name = arguments.count == 4 ? arguments[3] : nil
            guard try io({ try stickers.delete(type: type, uri: uri, name: name) }) else {
                throw MPDError(.noExist, "no such sticker")
            }
            w.observer.mark(.stickers)
        case ("find", _) where arguments.count >= 4:
            try stickerFind(stickers, &w, &c)
        default:
            throw MPDError(.argument, "bad request")
        }
    }

    /// `sticker find song URI NAME [OP VALUE] [sort [-]uri|value|value_int] [window RANGE]`:
    /// `=`, `<`, `>` compare as text (MPD 0.23's), MPD 0.24's `eq`, `lt`, `gt` as the integers
    /// the values start with, `contains` and `starts_with` as text; `sort` and `window` are 0.24's.
    static func stickerFind(_ stickers: any MPDStickerDatabase, _ w: inout MPDWorld, _ c: inout Call) throws {
        var arguments = c.arguments
        var window = 0..<Int(Int32.max)
        if arguments.count >= 6, arguments[arguments.count - 2] == "window" {
            window = try playlistRange(arguments[arguments.count - 1])
            arguments.removeLast(2)
        }
        var sort: String?
        var descending = false
        if arguments.count >= 6, arguments[arguments.count - 2] == "sort" {
            var key = arguments[arguments.count - 1]
            if key.hasPrefix("-") {
                descending = true
                key.removeFirst()
            }
            guard ["uri", "value", "value_int"].contains(key) else {
                throw MPDError(.argument, "Unknown sort tag \"\(key)\"")
            }
            sort = key
            arguments.removeLast(2)
        }
        guard arguments.count == 4 || arguments.count == 6 else { throw MPDError(.argument, "bad request") }
        var match = MPDStickerMatch.exists
        var test: ((String) -> Bool)?
        if arguments.count == 6 {
            let wanted = arguments[5]
            switch arguments[4] {
            case "=": match = .equals(wanted)
            case "<": match = .lessThan(wanted)
            case ">": match = .greaterThan(wanted)
            case "eq": test = { stickerInteger($0) == stickerInteger(wanted) }
            case "lt": test = { stickerInteger($0) < stickerInteger(wanted) }
            case "gt": test = { stickerInteger($0) > stickerInteger(wanted) }
            case "contains": test = { $0.contains(wanted) }
            case "starts_with": test = { $0.hasPrefix(wanted) }
            default: throw MPDError(.argument, "bad operator")
            }
        }
        let base = arguments[2]
        let prefix = base.isEmpty ? "" : base + "/"
        let name = arguments[3]
        var found = try io { try stickers.find(type: arguments[1], prefix: prefix, name: name, match: match) }
        // Stickers of songs no longer in the library stay, unlisted, as in MPD.
        found.removeAll { w.library.track(path: $0.uri) == nil || test?($0.value) == false }
        switch sort {
        case "uri": found.sort { Array($0.uri.utf8).lexicographicallyPrecedes($1.uri.utf8) }
        case "value": found.sort { Array($0.value.utf8).lexicographicallyPrecedes($1.value.utf8) }
        case "value_int": found.sort { stickerInteger($0.value) < stickerInteger($1.value) }
        default: break
        }
        if descending { found.reverse() }
        let start = min(window.lowerBound, found.count)
        for entry in found[start..<max(start, min(window.upperBound, found.count))] {
            c.response.add("file", entry.uri)
            c.response.add("sticker", "\(name)=\(entry.value)")
        }
    }

    /// A value as SQLite's `CAST(value AS INTEGER)` reads it: the integer it starts with, else 0.
    static func stickerInteger(_ text: String) -> Int64 {
        let trimmed = text.drop(while: { $0 == " " })
        let sign = trimmed.prefix(1).filter { $0 == "+" || $0 == "-" }
        let digits = trimmed.dropFirst(sign.count).prefix { $0.isASCII && $0.isNumber }
        return Int64(sign + digits) ?? 0
    }

    /// `sticker inc|dec` (MPD 0.24) on an existing value: SQLite's `value + ?` in MPD's
    /// table, whose texts count as the number they start with (none: 0); a whole sum stays
    /// whole. A new sticker takes the value as given, for `dec` too, as in MPD.
    static func stickerSum(_ old: String, _ change: String, subtract: Bool) -> String {
        let a = leadingNumberText(old)
        let b = leadingNumberText(change)
        if let x = Int64(a.isEmpty ? "0" : a), let y = Int64(b.isEmpty ? "0" : b) {
            let (sum, overflow) = subtract ? x.subtractingReportingOverflow(y) : x.addingReportingOverflow(y)
            if !overflow { return String(sum) }
        }
        let x = Double(a) ?? 0
        let y = Double(b) ?? 0
        return String(subtract ? x - y : x + y)
    }

    /// The longest start of `text` (after spaces) that reads as a decimal number.
    static func leadingNumberText(_ text: String) -> String {
        let scalars = Array(text.drop(while: { $0 == " " }).unicodeScalars)
        var best = ""
        var prefix = String.UnicodeScalarView()
        for scalar in scalars.prefix(64) {
            prefix.append(scalar)
            let candidate = String(prefix)
            if Double(candidate) != nil, candidate.allSatisfy({ "+-.0123456789eE".contains($0) }) { best = candidate }
        }
        return best
    }

    /// The sticker types the database keeps (MPD 0.24's `stickertypes`): songs only.
    static let stickerTypes = ["song"]

    /// `stickernames` (MPD 0.24): every sticker name in use, once.
    static func stickerNames(_ w: inout MPDWorld, _ c: inout Call) throws {
        guard let stickers = w.stickers else { throw MPDError(.unknown, "sticker database is disabled") }
        for name in try io({ try stickers.names(type: nil) }) { c.response.add("name", name) }
    }

    /// `stickertypes` (MPD 0.24).
    static func stickerTypes(_ w: inout MPDWorld, _ c: inout Call) throws {
        guard w.stickers != nil else { throw MPDError(.unknown, "sticker database is disabled") }
        for type in stickerTypes { c.response.add("stickertype", type) }
    }

    /// `stickernamestypes [TYPE]` (MPD 0.24): each name in use with its type.
    static func stickerNamesTypes(_ w: inout MPDWorld, _ c: inout Call) throws {
        guard let stickers = w.stickers else { throw MPDError(.unknown, "sticker database is disabled") }
        let only = c.arguments.first
        if let only, !stickerTypes.contains(only) { throw MPDError(.argument, "unknown sticker domain") }
        for type in stickerTypes where only == nil || only == type {
            for name in try io({ try stickers.names(type: type) }) {
                c.response.add("name", name)
                c.response.add("stickertype", type)
            }
        }
    }
}
