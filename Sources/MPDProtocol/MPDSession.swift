import JukeboxCore

/// One MPD client's protocol state: command lists, idle, password and permissions. It takes
/// request lines and returns the bytes to send back; the connection itself is the daemon's.
///
/// As in MPD 0.23: a line that does not tokenize, or an empty line, gets an ACK (and the
/// network connection is closed, since the client does not speak the protocol); during
/// `idle` only `noidle` is allowed (anything else closes); command lists are capped in bytes.
/// A `human` session (the serial console) keeps the connection on every error, ignores
/// empty lines, and leaves `idle` when another command is typed.
public struct MPDSession {
    /// Session settings.
    public struct Options: Sendable, Equatable {
        /// The password that unlocks the commands (nil: everything is open).
        public var password: String?
        /// The most bytes a command list may hold (MPD's `max_command_list_size`, 2 MiB).
        public var commandListLimit: Int
        /// A person at a terminal: no kicking, empty lines ignored, `help` in plain words.
        public var human: Bool
        /// The client is on the box itself (`Permission.local`).
        public var local: Bool

        /// Settings; the defaults are MPD's.
        public init(
            password: String? = nil, commandListLimit: Int = 2 << 20, human: Bool = false, local: Bool = false
        ) {
            self.password = password
            self.commandListLimit = commandListLimit
            self.human = human
            self.local = local
        }
    }

    /// What to do after a line.
    public struct Output: Sendable, Equatable {
        /// Bytes to send (may be empty; a picture chunk is raw bytes).
        public var bytes: [UInt8]
        /// Close the connection after sending.
        public var close: Bool

        init(text: String, close: Bool) {
            bytes = Array(text.utf8)
            self.close = close
        }

        init(bytes: [UInt8], close: Bool) {
            self.bytes = bytes
            self.close = close
        }

        /// The bytes as text (for the human consoles and tests).
        public var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    public let options: Options
    /// What this client may do.
    public private(set) var permission: MPDCommands.Permission
    /// The most bytes of a binary chunk (`albumart`, `readpicture`) this client takes at once
    /// (MPD's default, changed by `binarylimit`).
    public private(set) var binaryLimit = 8192
    /// MPD 0.24's protocol features this client turned on (`protocol enable`).
    public private(set) var protocolFeatures: Set<MPDProtocolFeature> = []
    /// The session's number on the message board and the board, once it subscribed.
    private var messageClient: (number: Int, board: MPDMessageBoard)?
    private var list: (ok: Bool, lines: [String], bytes: Int)?
    /// The subsystems this client waits for (nil: not idle; empty set: any).
    public private(set) var idle: Set<MPDSubsystem>?
    /// Changes since the client last heard of them.
    private var pending: Set<MPDSubsystem> = []

    /// A new client: with a password set it may only log in (and ping, close, commands).
    public init(options: Options = Options()) {
        self.options = options
        let unlocked: MPDCommands.Permission = options.password == nil ? .all : []
        permission = unlocked.union(options.local ? .local : [])
    }

    /// Whether the client waits in `idle`.
    public var isIdle: Bool { idle != nil }

    /// Whether the client is in the middle of a command list.
    public var inCommandList: Bool { list != nil }

    /// Handles one request line (without its newline): the whole reply.
    public mutating func handle(line: String, world: inout MPDWorld) -> Output {
        var rows: MPDReplyStream?
        var output = handle(line: line, world: &world, rows: &rows)
        rows?.drain(into: &output.bytes)
        return output
    }

    /// Handles one request line: the reply's start, and when it lists songs of the library,
    /// its rows still to be made (sent after `output`, the `OK` last; the client's next line
    /// waits until they were).
    public mutating func handleStreaming(line: String, world: inout MPDWorld) -> (
        output: Output, rows: MPDReplyStream?
    ) {
        var rows: MPDReplyStream?
        let output = handle(line: line, world: &world, rows: &rows)
        return (output, rows)
    }

    private mutating func handle(line: String, world: inout MPDWorld, rows: inout MPDReplyStream?) -> Output {
        if idle != nil {
            if line == "noidle" {
                idle = nil
                return Output(text: "OK\n", close: false)
            }
            // A person who types something else while waiting just stops waiting.
            guard options.human else { return Output(text: "", close: true) }
            idle = nil
        }
        if var current = list {
            if line == "command_list_end" {
                list = nil
                return runList(current, world: &world)
            }
            current.bytes += line.utf8.count + 1
            if current.bytes > options.commandListLimit {
                list = nil
                let error = MPDError(.unknown, "command list size is too big")
                return Output(text: error.ack(index: 0, command: ""), close: !options.human)
            }
            current.lines.append(line)
            list = current
            return Output(text: "", close: false)
        }
        switch line {
        case "command_list_begin":
            list = (false, [], 0)
            return Output(text: "", close: false)
        case "command_list_ok_begin":
            list = (true, [], 0)
            return Output(text: "", close: false)
        case "noidle":
            return Output(text: "", close: false)
        default:
            break
        }
        if options.human, line.allSatisfy({ $0 == " " || $0 == "\t" }) { return Output(text: "", close: false) }
        var bytes: [UInt8] = []
        let result = process(line, index: 0, world: &world, into: &bytes, rows: &rows)
        switch result {
        case .ok:
            if rows != nil {
                rows?.tail = Array("OK\n".utf8)
            } else {
                bytes += "OK\n".utf8
            }
        case .error(let kick):
            return Output(bytes: bytes, close: kick && !options.human)
        case .close:
            return Output(bytes: bytes, close: true)
        case .idle:
            if let flushed = flushIdle() { bytes += flushed.utf8 }
        }
        return Output(bytes: bytes, close: false)
    }

    /// Adds changes; returns what to send when the client is idle and waits for one of them.
    /// `message` counts only when a message came for this client.
    public mutating func notify(_ changes: Set<MPDSubsystem>) -> String? {
        var changes = changes
        if changes.contains(.message), messageClient?.board.takeAnnouncement(for: messageClient!.number) != true {
            changes.remove(.message)
        }
        pending.formUnion(changes)
        return flushIdle()
    }

    /// The connection closed: the client's channels and messages go.
    public func leave() {
        if let messageClient { messageClient.board.leave(messageClient.number) }
    }

    private mutating func flushIdle() -> String? {
        guard let wanted = idle else { return nil }
        let matching = pending.filter { wanted.isEmpty ? $0.isReportedToAll : wanted.contains($0) }
        guard !matching.isEmpty else { return nil }
        pending.subtract(matching)
        idle = nil
        var text = ""
        for subsystem in MPDSubsystem.allCases where matching.contains(subsystem) {
            text += "changed: \(subsystem.rawValue)\n"
        }
        return text + "OK\n"
    }

    private enum Result {
        case ok
        /// An ACK was written; `kick`: the client does not speak the protocol.
        case error(kick: Bool)
        case close
        case idle
    }

    private mutating func runList(_ list: (ok: Bool, lines: [String], bytes: Int), world: inout MPDWorld) -> Output {
        var bytes: [UInt8] = []
        for (index, line) in list.lines.enumerated() {
            var rows: MPDReplyStream?
            let result = process(line, index: index, world: &world, into: &bytes, rows: &rows)
            rows?.drain(into: &bytes)
            switch result {
            case .ok, .idle:
                idle = nil
                if list.ok { bytes += "list_OK\n".utf8 }
            case .error(let kick):
                return Output(bytes: bytes, close: kick && !options.human)
            case .close:
                return Output(bytes: bytes, close: true)
            }
        }
        return Output(bytes: bytes + "OK\n".utf8, close: false)
    }

    /// Runs one command: its reply goes to `bytes`, and its rows still to be made to `rows`.
    private mutating func process(
        _ line: String, index: Int, world: inout MPDWorld, into bytes: inout [UInt8], rows: inout MPDReplyStream?
    ) -> Result {
        var request: MPDProtocol.Request
        switch MPDProtocol.tokenize(line) {
        case .success(let parsed): request = parsed
        case .failure(let error):
            bytes += error.ack(index: index, command: "").utf8
            // MPD kicks a client whose command word does not parse; a bad argument only errs.
            let kick =
                error.message == "No command given" || error.message == "Letter expected"
                || error.message == "Invalid word character"
            return .error(kick: kick)
        }
        // A person may type `Status` or `SLEEP 30`; clients spell commands as MPD does.
        if options.human { request.command = request.command.lowercased() }
        var call = MPDCommands.Call(
            arguments: request.arguments, permission: permission, password: options.password, human: options.human,
            binaryLimit: binaryLimit, messageClient: messageClient?.number, protocolFeatures: protocolFeatures)
        if let error = MPDCommands.execute(request, world: &world, call: &call) {
            let known = MPDCommands.table[request.command] != nil
            bytes += call.response.bytes
            bytes += error.ack(index: index, command: known ? request.command : "").utf8
            return .error(kick: false)
        }
        permission = call.permission
        binaryLimit = call.binaryLimit
        protocolFeatures = call.protocolFeatures
        if let number = call.messageClient, messageClient == nil { messageClient = (number, world.messages) }
        bytes += call.response.bytes
        rows = call.rows
        if call.close { return .close }
        if let wanted = call.idle {
            idle = wanted
            return .idle
        }
        return .ok
    }
}
