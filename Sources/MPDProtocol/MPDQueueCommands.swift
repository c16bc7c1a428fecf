import JukeboxCore

// The queue commands that address entries by id or priority, or search the queue, as
// MPD 0.23's QueueCommands answer them.
extension MPDCommands {
    /// `prio PRIORITY RANGE...`: one edit per range, as MPD (each raises the version).
    static func prio(_ w: inout MPDWorld, _ c: inout Call) throws {
        let priority = try priorityArgument(c.arguments[0])
        for argument in c.arguments.dropFirst() {
            let count = w.machine.queue.count
            let range = try parseRange(argument, count: count, strict: false)
            // MPD's RangeArg::CheckClip: a start past the end is an error, the end is clipped.
            guard let start = parseInteger(String(argument.prefix { $0 != ":" })), start <= count else {
                throw MPDError(.argument, "Bad song index")
            }
            if !range.isEmpty { w.run(.editQueue(.prioritize(range, priority: priority))) }
        }
    }

    /// `prioid PRIORITY ID...`
    static func prioid(_ w: inout MPDWorld, _ c: inout Call) throws {
        let priority = try priorityArgument(c.arguments[0])
        for argument in c.arguments.dropFirst() {
            let index = try position(ofID: try unsigned(argument), in: w)
            w.run(.editQueue(.prioritize(index..<index + 1, priority: priority)))
        }
    }

    /// `swap POS1 POS2`
    static func swap(_ w: inout MPDWorld, _ c: inout Call) throws {
        let first = try unsigned(c.arguments[0])
        let second = try unsigned(c.arguments[1])
        let count = w.machine.queue.count
        guard first < count, second < count else { throw MPDError(.argument, "Bad song index") }
        w.run(.editQueue(.swap(first, second)))
    }

    /// `swapid ID1 ID2`
    static func swapid(_ w: inout MPDWorld, _ c: inout Call) throws {
        let first = try position(ofID: try unsigned(c.arguments[0]), in: w)
        let second = try position(ofID: try unsigned(c.arguments[1]), in: w)
        w.run(.editQueue(.swap(first, second)))
    }

    /// `playlistfind`/`playlistsearch FILTER`: the queue entries whose song matches, with
    /// their positions and ids (no sort or window: MPD takes those for tags and fails).
    /// `playlistfind`/`playlistsearch FILTER [sort TAG] [window RANGE]` (`sort` and `window`
    /// are MPD 0.24's): the queue's matching entries with their positions.
    static func playlistFind(exact: Bool, _ w: inout MPDWorld, _ c: inout Call) throws {
        let (filter, rest) = try MPDFilter.parse(c.arguments, exact: exact)
        let items = w.machine.queue.items
        let matching = items.indices.filter { filter.matches(w.info(items[$0].track)) }
        for index in try sortAndWindow(matching, rest, track: { w.info(items[$0].track) }) {
            queueSong(index, w, into: &c.response)
        }
    }

    /// The positions `plchanges VERSION [RANGE]` reports: the entries changed since VERSION
    /// (MPD's `Queue::IsNewerAtPosition`), within RANGE clipped to the queue.
    static func changedPositions(_ arguments: [String], _ w: MPDWorld) throws -> [Int] {
        let version = UInt32(try unsigned(arguments[0]))
        let queue = w.machine.queue
        let range =
            try arguments.count > 1 ? parseRange(arguments[1], count: queue.count, strict: false) : 0..<queue.count
        return range.filter { queue.changed(at: $0, since: version) }
    }

    /// A priority, 0-255, with MPD's messages (strtoul: a negative number is too large).
    static func priorityArgument(_ text: String) throws -> UInt8 {
        guard let value = parseInteger(text) else { throw MPDError(.argument, "Integer expected: \(text)") }
        guard (0...255).contains(value) else { throw MPDError(.argument, "Number too large: \(text)") }
        return UInt8(value)
    }
}
