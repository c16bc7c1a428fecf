/// What a card reader reports to the control loop: the same two events the consoles'
/// `card ID` and `card none` inject.
public enum CardEvent: Sendable, Equatable, CustomStringConvertible {
    /// A card was read: its number as a keyboard reader typed it, or its UID in upper-case
    /// hex (`04A1B2C3D4E5F6`) from a board reader.
    case read(String)
    /// The card that was read is no longer seen.
    case removed

    public var description: String {
        switch self {
        case .read(let id): "card \(id)"
        case .removed: "card none"
        }
    }
}

/// A card's UID as the consoles name it: upper-case hex, no separators.
public func cardID(uid: some Collection<UInt8>) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var text: [UInt8] = []
    for byte in uid {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
}

/// Turns a polled reader's per-poll results into edges.
///
/// Reports edges, not presence per poll: `.read` when a card is first seen (or another card
/// replaces it), `.removed` at the first poll that does not see it. That first miss is only
/// "maybe gone": boards lose a card for 300-800 ms, and the debounce of about a second that
/// decides a real removal belongs to what handles the events (a `.read` of the same card
/// soon after a `.removed` is no removal there). A reader that stops answering sees no card.
public struct CardPresence: Sendable, Equatable {
    public private(set) var current: String?

    public init() {}

    /// The edge for one poll that saw `id` (nil: no card).
    public mutating func poll(sees id: String?) -> CardEvent? {
        guard id != current else { return nil }
        current = id
        return id.map { .read($0) } ?? .removed
    }
}

/// A board reader's health: counts failures, says when to try again (a backoff doubling
/// from `firstRetryMs` to `maximumRetryMs`), and makes one log line when it stops answering
/// and one when it is back, not one per attempt.
public struct ReaderRecovery: Sendable, Equatable {
    public static let firstRetryMs: Int64 = 250
    public static let maximumRetryMs: Int64 = 8000

    public private(set) var failures = 0
    public private(set) var retryAt: Instant?

    public init() {}

    /// A failed exchange (`reason` says what went wrong); returns the line to log, if any.
    public mutating func failed(_ reason: String, now: Instant) -> String? {
        failures += 1
        let delay = min(Self.maximumRetryMs, Self.firstRetryMs << Int64(min(failures - 1, 10)))
        retryAt = now.adding(milliseconds: delay)
        guard failures == 1 else { return nil }
        return "not answering (\(reason)); trying again, every \(Self.maximumRetryMs / 1000) s at most"
    }

    /// A good exchange; returns the line to log when the reader was failing.
    public mutating func answered() -> String? {
        defer {
            failures = 0
            retryAt = nil
        }
        guard failures > 0 else { return nil }
        return "answering again after \(failures) failed attempt\(failures == 1 ? "" : "s")"
    }
}
