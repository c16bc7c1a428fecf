/// A change to a track's lyric offset (`lyrics offset +200`): relative (`+200`, `-200`) or
/// absolute (`0`, `350`). Positive shows the lyrics sooner, like LRC's `[offset:]`.
public struct LyricNudge: Sendable, Equatable {
    public var relative: Bool
    public var ms: Int64

    /// The largest offset accepted (10 minutes): anything bigger is a typo, not a correction.
    public static let limitMs: Int64 = 600_000

    public init(relative: Bool, ms: Int64) {
        self.relative = relative
        self.ms = ms
    }

    /// Reads `+200`, `-200` or `350` (milliseconds); nil for anything else.
    public static func parse(_ text: String) -> LyricNudge? {
        let relative = text.hasPrefix("+") || text.hasPrefix("-")
        let digits = text.hasPrefix("+") ? String(text.dropFirst()) : text
        guard let value = Int64(digits), abs(value) <= limitMs else { return nil }
        return LyricNudge(relative: relative, ms: value)
    }

    /// The offset after this nudge, kept within ±`limitMs`.
    public func applied(to current: Int64) -> Int64 {
        min(Self.limitMs, max(-Self.limitMs, relative ? current + ms : ms))
    }

    /// `+200`, `-200`, `350`: what `parse` reads back.
    public var text: String { relative && ms >= 0 ? "+\(ms)" : "\(ms)" }

    /// Why a nudge argument was refused, for people.
    public static let usage = "lyrics offset takes milliseconds, e.g. +200 (sooner) or -200 (later)"
}
