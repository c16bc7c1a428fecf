/// Splits a SHOUTcast/Icecast body sent with `icy-metaint: N` into audio and metadata: N audio
/// bytes, then one length byte L, then 16·L bytes of metadata (`StreamTitle='…';`), again and
/// again. Fed the body in chunks of any size; returns the audio runs and reports each metadata
/// block. A server that sends no `icy-metaint` gets `interval` nil: everything is audio.
public struct ICYDemuxer: Sendable {
    public let interval: Int?
    /// Audio bytes left before the next length byte.
    private var audioLeft: Int
    /// Metadata bytes still to come, and those collected.
    private var metadataLeft = 0
    private var metadata: [UInt8] = []
    private var inMetadata = false

    public init(interval: Int?) {
        self.interval = interval.flatMap { $0 > 0 ? $0 : nil }
        audioLeft = self.interval ?? 0
    }

    /// Feeds `bytes`; calls `audio` with each run of audio bytes (in order) and returns the
    /// metadata blocks completed in them (empty blocks, L = 0, are left out).
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, audio: (UnsafeRawBufferPointer) -> Void) -> [ICYMetadata]
    {
        guard let interval else {
            audio(bytes)
            return []
        }
        var blocks: [ICYMetadata] = []
        var index = 0
        while index < bytes.count {
            if inMetadata {
                let take = min(metadataLeft, bytes.count - index)
                metadata.append(contentsOf: bytes[index..<index + take])
                index += take
                metadataLeft -= take
                if metadataLeft == 0 {
                    inMetadata = false
                    audioLeft = interval
                    blocks.append(ICYMetadata(block: metadata))
                    metadata.removeAll(keepingCapacity: true)
                }
            } else if audioLeft == 0 {
                metadataLeft = Int(bytes[index]) * 16
                index += 1
                if metadataLeft > 0 { inMetadata = true } else { audioLeft = interval }
            } else {
                let take = min(audioLeft, bytes.count - index)
                audio(UnsafeRawBufferPointer(rebasing: bytes[index..<index + take]))
                index += take
                audioLeft -= take
            }
        }
        return blocks
    }
}

/// One ICY metadata block: `Key='value';` pairs (values may hold quotes and semicolons; the
/// pair ends at `';` followed by the next key or the end), NUL-padded.
public struct ICYMetadata: Sendable, Equatable {
    public var fields: [(key: String, value: String)]

    public static func == (a: ICYMetadata, b: ICYMetadata) -> Bool {
        a.fields.elementsEqual(b.fields) { $0 == $1 }
    }

    public init(block: [UInt8]) {
        let bytes = block.prefix { $0 != 0 }
        // Stations send UTF-8 or Latin-1: UTF-8 when it decodes, else Latin-1.
        let text =
            String(validating: bytes, as: UTF8.self)
            ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        fields = Self.parse(text)
    }

    public var streamTitle: String? { fields.first { $0.key == "StreamTitle" }?.value }

    static func parse(_ text: String) -> [(key: String, value: String)] {
        var fields: [(key: String, value: String)] = []
        var rest = Substring(text)
        while let equals = rest.firstIndex(of: "=") {
            let key = String(rest[..<equals].drop { $0 == " " || $0 == ";" })
            var value = rest[rest.index(after: equals)...]
            guard value.first == "'" else { break }
            value = value.dropFirst()
            // The value ends at the first `';` that is followed by another `Key=` or the end.
            var end = value.endIndex
            var search = value.startIndex
            while let quote = value[search...].firstIndex(of: "'") {
                let after = value[value.index(after: quote)...]
                if after.isEmpty || (after.first == ";" && Self.startsPair(after.dropFirst())) {
                    end = quote
                    break
                }
                search = value.index(after: quote)
            }
            fields.append((key, String(value[..<end])))
            rest = end == value.endIndex ? "" : value[value.index(after: end)...].dropFirst()
        }
        return fields
    }

    private static func startsPair(_ text: Substring) -> Bool {
        if text.isEmpty { return true }
        guard let equals = text.firstIndex(of: "=") else { return false }
        return !text[..<equals].isEmpty && text[..<equals].allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }
}

/// When to reconnect a dropped station: 0.5 s after the drop, doubling to at most 8 s; a
/// connection that played for 30 s or more starts the series again.
public struct ReconnectBackoff: Sendable, Equatable {
    public static let first: Int64 = 500
    public static let longest: Int64 = 8000
    public static let steadyMs: Int64 = 30_000
    private var nextDelayMs = Self.first
    public private(set) var attempts = 0

    public init() {}

    /// The connection that started at `connectedAt` dropped at `now`: when to try again.
    public mutating func dropped(connectedAt: Instant?, now: Instant) -> Instant {
        if let connectedAt, now.milliseconds(since: connectedAt) >= Self.steadyMs { nextDelayMs = Self.first }
        let delay = nextDelayMs
        nextDelayMs = min(nextDelayMs * 2, Self.longest)
        attempts += 1
        return now.adding(milliseconds: delay)
    }
}

/// An Ogg station's title. Ogg streams carry no ICY metadata: each song is a new link of the
/// chained stream, with Vorbis comments of its own.
public enum OggStreamTitle {
    /// `ARTIST - TITLE` (the StreamTitle Icecast makes of them for MP3 relays), the title alone,
    /// or nil when the link has no TITLE. Field names are case-insensitive.
    public static func of(comments: [(key: String, value: String)]) -> String? {
        func first(_ name: String) -> String? {
            comments.first { $0.key.uppercased() == name && !$0.value.isEmpty }?.value
        }
        guard let title = first("TITLE") else { return nil }
        return first("ARTIST").map { "\($0) - \(title)" } ?? title
    }
}
