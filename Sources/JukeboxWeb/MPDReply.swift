import MPDProtocol
/// One `key: value` line of an MPD reply.
public struct MPDField: Sendable, Equatable {
    public var key: String
    public var value: String

    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}

/// A complete reply: its lines, one section per command of a `command_list_ok_begin` list
/// (one section otherwise), and the bytes of its binary chunk if it had one.
public struct MPDReply: Sendable, Equatable {
    public var sections: [[MPDField]]
    public var binary: [UInt8]

    public init(sections: [[MPDField]] = [[]], binary: [UInt8] = []) {
        self.sections = sections
        self.binary = binary
    }

    /// Every line of every section.
    public var fields: [MPDField] { sections.flatMap { $0 } }

    /// The first value of `key` in `section`.
    public func value(_ key: String, section: Int = 0) -> String? {
        guard sections.indices.contains(section) else { return nil }
        return sections[section].first { $0.key == key }?.value
    }
}

/// Why a reply could not be read.
public enum MPDReplyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The daemon refused the command: its ACK line.
    case ack(String)
    /// The reply grew past `MPDReplyReader.maxReplyBytes`.
    case tooLarge
    /// A line that is not `key: value`, or a bad binary length.
    case malformed(String)

    public var description: String {
        switch self {
        case .ack(let line): line
        case .tooLarge: "the reply is larger than \(MPDReplyReader.maxReplyBytes) bytes"
        case .malformed(let line): "not an MPD reply line: \(line)"
        }
    }
}

/// Cuts the bytes a connection receives into replies (the greeting `OK MPD x.y.z` counts as
/// one). Bytes come in any pieces; a reply is returned once its `OK` arrived.
public struct MPDReplyReader: Sendable {
    /// A reply larger than this is refused (the queue and the folder list are the big ones).
    public static let maxReplyBytes = 16 << 20

    private var buffer: [UInt8] = []
    /// Where the next line of the reply being read starts in `buffer`.
    private var cursor = 0
    private var reply = MPDReply()

    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete reply; nil while more bytes are needed. An ACK line throws and ends
    /// the reply (the connection stays usable); a bad reply throws (close the connection).
    public mutating func nextReply() throws(MPDReplyError) -> MPDReply? {
        while let newline = buffer[cursor...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: buffer[cursor..<newline], as: UTF8.self)
            if line == "OK" || line.hasPrefix("OK MPD ") {
                if line != "OK" { reply.sections[reply.sections.count - 1].append(MPDField("greeting", line)) }
                return finish(after: newline + 1)
            }
            if line.hasPrefix("ACK ") {
                _ = finish(after: newline + 1)
                throw .ack(line)
            }
            if line == "list_OK" {
                reply.sections.append([])
                cursor = newline + 1
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { throw .malformed(line) }
            let key = String(line[..<colon])
            var value = line[line.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
            if key == "binary" {
                guard let count = Int(value), count >= 0, count <= Self.maxReplyBytes else { throw .malformed(line) }
                // The chunk, then a newline.
                guard buffer.count - (newline + 1) >= count + 1 else { return nil }
                reply.binary += buffer[(newline + 1)..<(newline + 1 + count)]
                cursor = newline + 1 + count + 1
                continue
            }
            reply.sections[reply.sections.count - 1].append(MPDField(key, String(value)))
            cursor = newline + 1
        }
        if buffer.count > Self.maxReplyBytes { throw .tooLarge }
        return nil
    }

    private mutating func finish(after end: Int) -> MPDReply {
        let complete = reply
        buffer.removeFirst(end)
        cursor = 0
        reply = MPDReply()
        return complete
    }

    /// `argument` quoted for a command line (MPD's rules; see `MPDProtocol.quote`).
    public static func quoted(_ argument: String) -> String { MPDProtocol.quote(argument) }
}
