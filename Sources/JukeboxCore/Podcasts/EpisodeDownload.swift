/// One episode's download into its partial file, as a state machine: HTTP responses and
/// bytes in, file and network actions out. It resumes with a Range request from what was
/// made durable (`durable`, the bytes fdatasync'd and recorded with the expected length), so
/// a power cut loses at most `syncInterval` bytes and never leaves unverified bytes in the
/// middle of a file. The adapter performs the actions in order.
public struct EpisodeDownload: Sendable, Equatable {
    /// Bytes between durable checkpoints of the partial file.
    public static let syncInterval: Int64 = 1 << 20
    /// Failed attempts in a row (without a byte between them) before it gives up until asked again.
    public static let attemptLimit = 5

    /// What the adapter does next.
    public enum Action: Sendable, Equatable {
        /// Cut the partial file to this many bytes (what was durable, or 0 to start over).
        case truncate(to: Int64)
        /// GET the enclosure, with `Range: bytes=FROM-` when `from` > 0.
        case request(from: Int64)
        /// fdatasync the partial file, then record `bytes` and `expected` durably.
        case checkpoint(bytes: Int64, expected: Int64?)
        /// Wait this long before the next `.start` (a backoff after a failure).
        case wait(ms: Int64)
        /// fsync the file, rename it to its final name, record it complete.
        case complete(bytes: Int64)
        /// Stop: one line for the log; the partial file and its checkpoint stay for a later try.
        case giveUp(String)
    }

    /// What happened.
    public enum Event: Sendable, Equatable {
        /// Begin (or try again after a wait).
        case start
        /// The response's status and headers. `contentLength` is the body's length,
        /// `range` a 206's `Content-Range: bytes FIRST-LAST/TOTAL` (TOTAL nil for `*`).
        case response(status: Int, contentLength: Int64?, range: ContentRange?)
        /// `count` bytes of the body were written to the partial file.
        case wrote(count: Int64)
        /// The body ended as the server meant it to (the transfer said so).
        case ended
        /// The connection broke, timed out, or the server sent nonsense.
        case failed(String)
    }

    /// A 206's Content-Range.
    public struct ContentRange: Sendable, Equatable {
        public var first: Int64
        public var total: Int64?

        /// A range.
        public init(first: Int64, total: Int64?) {
            self.first = first
            self.total = total
        }

        /// `bytes 100-199/200` or `bytes 100-199/*`; nil for anything else.
        public static func parse(_ header: String) -> ContentRange? {
            let text = header.trimmedSpaces
            guard text.lowercased().hasPrefix("bytes ") else { return nil }
            let spec = text.dropFirst(6).split(separator: "/")
            guard spec.count == 2, let dash = spec[0].firstIndex(of: "-"), let first = Int64(spec[0][..<dash]) else {
                return nil
            }
            if spec[1] == "*" { return ContentRange(first: first, total: nil) }
            guard let total = Int64(spec[1]) else { return nil }
            return ContentRange(first: first, total: total)
        }
    }

    private enum Phase: Sendable, Equatable { case idle, requested, receiving, done }

    /// Bytes in the partial file.
    public private(set) var received: Int64
    /// Bytes made durable (fdatasync'd and recorded).
    public private(set) var durable: Int64
    /// The file's whole length, once a response told it.
    public private(set) var expected: Int64?
    /// No file may grow beyond this (the cache's limit).
    public let byteLimit: Int64
    private var phase = Phase.idle
    private var failures = 0

    /// A download that continues from a checkpoint (`durable` 0 and `expected` nil: a new one).
    public init(durable: Int64, expected: Int64?, byteLimit: Int64) {
        self.received = durable
        self.durable = durable
        self.expected = expected
        self.byteLimit = byteLimit
    }

    /// The actions for `event`.
    public mutating func handle(_ event: Event) -> [Action] {
        switch (phase, event) {
        case (.idle, .start):
            phase = .requested
            if let expected, durable >= expected { return finish() }
            // Bytes after the checkpoint may be what a power cut left of unwritten pages.
            received = durable
            return [.truncate(to: durable), .request(from: durable)]
        case (.requested, .response(let status, let length, let range)):
            return respond(status: status, length: length, range: range)
        case (.receiving, .wrote(let count)):
            received += count
            if let expected, received > expected {
                return fail("the server sent more than the \(expected) bytes it announced", restart: true)
            }
            if received > byteLimit { return giveUp("larger than the cache's limit (\(byteLimit) bytes)") }
            failures = 0
            if received - durable >= Self.syncInterval { return checkpoint() }
            return []
        case (.receiving, .ended):
            if let expected, received < expected {
                return fail("the connection ended at byte \(received) of \(expected)", restart: false)
            }
            return finish()
        case (.requested, .failed(let reason)), (.receiving, .failed(let reason)):
            return fail(reason, restart: false)
        case (.requested, .ended):
            return fail("no response", restart: false)
        default:
            preconditionFailure("Invalid state: \(event) in \(phase)")
        }
    }

    private mutating func respond(status: Int, length: Int64?, range: ContentRange?) -> [Action] {
        switch status {
        case 200 where received > 0:
            // A server that ignores Range sends the whole file again: start over from 0.
            return fail("the server ignores Range requests", restart: true)
        case 200:
            phase = .receiving
            expected = length
            if let length, length > byteLimit { return giveUp("larger than the cache's limit (\(byteLimit) bytes)") }
            return [.checkpoint(bytes: 0, expected: length)]
        case 206:
            guard let range, range.first == received else {
                return fail("the server answered a Range request with another range", restart: true)
            }
            if let total = range.total, let expected, total != expected {
                // The file changed on the server since the checkpoint: its bytes do not join.
                return fail("the file changed on the server (\(expected) bytes, now \(total))", restart: true)
            }
            phase = .receiving
            if expected == nil, let total = range.total {
                expected = total
                return [.checkpoint(bytes: durable, expected: total)]
            }
            return []
        case 416 where expected == received:
            // Asked for the bytes after the end: the file was already whole.
            return finish()
        default:
            return fail("HTTP status \(status)", restart: status == 416)
        }
    }

    private mutating func checkpoint() -> [Action] {
        durable = received
        return [.checkpoint(bytes: received, expected: expected)]
    }

    private mutating func finish() -> [Action] {
        phase = .done
        durable = received
        return [.complete(bytes: received)]
    }

    private mutating func giveUp(_ reason: String) -> [Action] {
        phase = .done
        return [.giveUp(reason)]
    }

    /// A failed attempt: keep what is durable (or nothing, when the bytes do not join) and
    /// try again after a backoff (1 s doubling), until `attemptLimit` failures in a row.
    private mutating func fail(_ reason: String, restart: Bool) -> [Action] {
        failures += 1
        if restart {
            received = 0
            durable = 0
            expected = nil
        }
        guard failures < Self.attemptLimit else { return giveUp("\(reason) (\(failures) attempts)") }
        phase = .idle
        var actions: [Action] = []
        if received > durable { actions += checkpoint() }
        if restart { actions.append(.checkpoint(bytes: 0, expected: nil)) }
        return actions + [.wait(ms: 1000 << (failures - 1))]
    }
}
