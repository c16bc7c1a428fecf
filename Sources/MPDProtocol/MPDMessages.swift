/// MPD's client-to-client messages: the channels each client subscribed to and the messages
/// waiting for it. One board is shared by every session of a daemon (a class, so that a
/// session can leave it when its connection closes); a session gets its number on the board
/// when it first subscribes. Limits as MPD 0.23's (Client.hxx): 16 channels and 64 waiting
/// messages per client (a message to a full inbox is dropped for that client).
public final class MPDMessageBoard {
    static let subscriptionLimit = 16
    static let inboxLimit = 64

    private var subscriptions: [Int: Set<String>] = [:]
    private var inboxes: [Int: [(channel: String, message: String)]] = [:]
    /// Clients with a message they have not been told of by idle `message`.
    private var unannounced: Set<Int> = []
    private var lastClient = 0

    public init() {}

    /// A number for a new client.
    func join() -> Int {
        lastClient += 1
        return lastClient
    }

    /// Drops a client's channels and messages (its connection closed).
    public func leave(_ client: Int) {
        inboxes[client] = nil
        unannounced.remove(client)
        subscriptions[client] = nil
    }

    /// Whether `client` got a message since it was last told; telling it now.
    public func takeAnnouncement(for client: Int) -> Bool { unannounced.remove(client) != nil }

    /// MPD's rule for channel names: ASCII letters and digits, `_`, `-`, `.` and `:`.
    static func isValidChannel(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: ":")
            }
    }

    func subscribe(_ client: Int, to channel: String) throws {
        guard Self.isValidChannel(channel) else { throw MPDError(.argument, "invalid channel name") }
        var channels = subscriptions[client] ?? []
        guard channels.count < Self.subscriptionLimit else { throw MPDError(.exist, "subscription list is full") }
        guard channels.insert(channel).inserted else { throw MPDError(.exist, "already subscribed to this channel") }
        subscriptions[client] = channels
    }

    func unsubscribe(_ client: Int, from channel: String) throws {
        guard subscriptions[client]?.remove(channel) != nil else {
            throw MPDError(.noExist, "not subscribed to this channel")
        }
    }

    /// Every channel some client subscribed to, sorted (MPD's `channels`).
    var channels: [String] { Set(subscriptions.values.joined()).sorted() }

    /// Queues `message` for every subscriber of `channel` with room in its inbox.
    func send(_ message: String, to channel: String) throws {
        guard Self.isValidChannel(channel) else { throw MPDError(.argument, "invalid channel name") }
        var sent = false
        for (client, channels) in subscriptions where channels.contains(channel) {
            guard inboxes[client, default: []].count < Self.inboxLimit else { continue }
            inboxes[client, default: []].append((channel, message))
            unannounced.insert(client)
            sent = true
        }
        guard sent else { throw MPDError(.noExist, "nobody is subscribed to this channel") }
    }

    /// The client's waiting messages, oldest first; its inbox is emptied.
    func read(_ client: Int) -> [(channel: String, message: String)] {
        defer { inboxes[client] = nil }
        return inboxes[client] ?? []
    }
}

/// `subscribe`, `unsubscribe`, `channels`, `readmessages`, `sendmessage` (MessageCommands.cxx),
/// and the neighbor and storage commands, answered as MPD 0.23 answers them with no
/// neighbor plugin and no mounted storage.
extension MPDCommands {
    static func subscribe(_ w: inout MPDWorld, _ c: inout Call) throws {
        let client = c.messageClient ?? w.messages.join()
        c.messageClient = client
        try w.messages.subscribe(client, to: c.arguments[0])
        w.observer.mark(.subscription)
    }

    static func unsubscribe(_ w: inout MPDWorld, _ c: inout Call) throws {
        guard let client = c.messageClient else { throw MPDError(.noExist, "not subscribed to this channel") }
        try w.messages.unsubscribe(client, from: c.arguments[0])
        w.observer.mark(.subscription)
    }

    static func sendMessage(_ w: inout MPDWorld, _ c: inout Call) throws {
        try w.messages.send(c.arguments[1], to: c.arguments[0])
        w.observer.mark(.message)
    }

    static func readMessages(_ w: inout MPDWorld, _ c: inout Call) {
        guard let client = c.messageClient else { return }
        for message in w.messages.read(client) {
            c.response.add("channel", message.channel)
            c.response.add("message", message.message)
        }
    }

    /// `mount LOCAL REMOTE`: MPD checks the mount point, then finds no storage plugin for the URI.
    static func mount(_ w: inout MPDWorld, _ c: inout Call) throws {
        let local = c.arguments[0]
        if local.isEmpty || local.contains("/") { throw MPDError(.argument, "Bad mount point") }
        throw MPDError(.argument, "Unrecognized storage URI")
    }

    /// `unmount LOCAL`: nothing is mounted but music_dir at the root.
    static func unmount(_ w: inout MPDWorld, _ c: inout Call) throws {
        if c.arguments[0].isEmpty { throw MPDError(.argument, "Bad mount point") }
        throw MPDError(.argument, "Not a mount point")
    }
}
