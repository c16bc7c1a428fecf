/// How fast the music plays, with its pitch kept: 0.5× to 2.0× in hundredths, so that a
/// speed compares, prints and is stored exactly (1.5, not 1.4999…).
public struct PlaybackSpeed: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let hundredths: Int

    public static let normal = PlaybackSpeed(clamping: 100)
    public static let allowed = 50...200
    /// What `speed cycle` steps through (a button, a card): normal first, then faster.
    public static let cycle = [100, 125, 150, 175, 200, 75].map { PlaybackSpeed(clamping: $0) }

    /// The speed nearest to `hundredths` within 0.5...2.0.
    public init(clamping hundredths: Int) { self.hundredths = hundredths.clamped(to: Self.allowed) }

    /// The factor the audio is played at (1.0 plays the decoders' samples as they are).
    public var factor: Double { Double(hundredths) / 100 }

    /// `1`, `1.5`, `1.25`: as `parse` reads it back, and MPD's `speed:` line.
    public var description: String { Self.decimal(hundredths) }

    /// `hundredths` (not negative) as a decimal without trailing zeros: 150 → `1.5`, 5 → `0.05`.
    static func decimal(_ hundredths: Int) -> String {
        let fraction = hundredths % 100
        guard fraction != 0 else { return "\(hundredths / 100)" }
        let digits = fraction % 10 == 0 ? "\(fraction / 10)" : (fraction < 10 ? "0\(fraction)" : "\(fraction)")
        return "\(hundredths / 100).\(digits)"
    }

    public static func < (a: PlaybackSpeed, b: PlaybackSpeed) -> Bool { a.hundredths < b.hundredths }

    /// The next speed of `cycle` after this one (the first when this one is not in it).
    public var nextInCycle: PlaybackSpeed {
        guard let i = Self.cycle.firstIndex(of: self) else { return Self.cycle[0] }
        return Self.cycle[(i + 1) % Self.cycle.count]
    }

    /// `1.5`, `1.5x`, `150%`, `0.75`: nil when it is no number or outside 0.5...2.0.
    public static func parse(_ text: String) -> PlaybackSpeed? {
        var body = Substring(text.lowercased())
        var percent = false
        if body.hasSuffix("x") || body.hasSuffix("×") { body = body.dropLast() }
        if body.hasSuffix("%") {
            percent = true
            body = body.dropLast()
        }
        guard let hundredths = parseHundredths(body, percent: percent), allowed.contains(hundredths) else { return nil }
        return PlaybackSpeed(clamping: hundredths)
    }

    /// A signed step in hundredths (`+0.25`, `-0.1`), for `speed +0.25`.
    static func parseStep(_ text: String) -> Int? {
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        guard let step = parseHundredths(text.dropFirst(), percent: false), step > 0 else { return nil }
        return sign == "-" ? -step : step
    }

    private static func parseHundredths(_ text: Substring, percent: Bool) -> Int? {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count), pieces.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            !pieces[0].isEmpty || pieces.count == 2, pieces[0].count <= 3
        else { return nil }
        let whole = Int(pieces[0]) ?? 0
        if percent { return pieces.count == 1 ? whole : nil }
        guard pieces.count == 2 else { return whole * 100 }
        let fraction = pieces[1]
        guard !fraction.isEmpty, fraction.count <= 2, let digits = Int(fraction) else { return nil }
        return whole * 100 + (fraction.count == 1 ? digits * 10 : digits)
    }
}
