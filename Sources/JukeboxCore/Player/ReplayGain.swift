/// A file's ReplayGain values, as its tags give them (ID3 `TXXX` frames or Vorbis comments
/// named `REPLAYGAIN_TRACK_GAIN`, `REPLAYGAIN_TRACK_PEAK`, `REPLAYGAIN_ALBUM_GAIN`,
/// `REPLAYGAIN_ALBUM_PEAK`, any case). Gains are in dB ("-6.02 dB"), peaks linear (1.0 = full scale).
public struct ReplayGainInfo: Sendable, Equatable {
    /// One gain with its peak (nil when the tag is missing: no clipping guard then).
    public struct Value: Sendable, Equatable {
        public var gainDb: Double
        public var peak: Double?

        public init(gainDb: Double, peak: Double? = nil) {
            self.gainDb = gainDb
            self.peak = peak
        }
    }

    public var track: Value?
    public var album: Value?

    public init(track: Value? = nil, album: Value? = nil) {
        self.track = track
        self.album = album
    }

    /// The values among `tags` (name, text); nil when there is no gain. A text is read as
    /// MPD reads it (strtod): its leading number, so "-6.02 dB" and "+1.5" both work.
    public init?(tags: [(key: String, value: String)]) {
        var gains: [String: Double] = [:]
        for (name, value) in tags {
            let key = name.uppercased()
            guard key.hasPrefix("REPLAYGAIN_"), gains[key] == nil, let number = Self.leadingNumber(value) else {
                continue
            }
            gains[key] = number
        }
        let track = gains["REPLAYGAIN_TRACK_GAIN"].map { Value(gainDb: $0, peak: gains["REPLAYGAIN_TRACK_PEAK"]) }
        let album = gains["REPLAYGAIN_ALBUM_GAIN"].map { Value(gainDb: $0, peak: gains["REPLAYGAIN_ALBUM_PEAK"]) }
        guard track != nil || album != nil else { return nil }
        self.init(track: track, album: album)
    }

    /// An Opus file's values as MPD 0.23's Opus decoder takes them from its OpusTags:
    /// R128_TRACK_GAIN and R128_ALBUM_GAIN (any case; the whole text an integer in 1/256 dB,
    /// Q7.8; the last of each wins), each 5 dB more (ReplayGain's reference is 5 dB louder
    /// than EBU R128's -23 LUFS); without either, a track gain of those 5 dB alone. No peaks,
    /// so no clipping guard. MPD leaves the ID header's output gain out of its samples and
    /// adds it to these gains; libopusfile has applied it to the samples already (as RFC 7845
    /// asks), so these gains leave it out, and the level comes out the same.
    public init(opusComments comments: [(key: String, value: String)]) {
        var track: Double?
        var album: Double?
        for (name, value) in comments where value.utf8.count < 4096 {
            let key = name.uppercased()
            guard key == "R128_TRACK_GAIN" || key == "R128_ALBUM_GAIN", let q8 = Self.wholeInteger(value) else {
                continue
            }
            // MPD counts a gain at or below -100 dB as none.
            let gain = Double(q8) / 256
            guard gain > -100 else { continue }
            if key == "R128_TRACK_GAIN" { track = gain } else { album = gain }
        }
        let offset = 5.0
        if track == nil && album == nil {
            self.init(track: Value(gainDb: offset))
        } else {
            self.init(
                track: track.map { Value(gainDb: $0 + offset) }, album: album.map { Value(gainDb: $0 + offset) })
        }
    }

    /// `text` as a whole decimal integer as strtoll reads it (leading blanks, a sign); nil
    /// when anything else follows or it does not fit.
    static func wholeInteger(_ text: String) -> Int64? {
        let trimmed = text.drop {
            $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}"
        }
        let digits = trimmed.first == "+" ? trimmed.dropFirst() : trimmed[...]
        guard digits.first != "+" else { return nil }
        return Int64(digits)
    }

    static func leadingNumber(_ text: String) -> Double? {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        var end = trimmed.startIndex
        var seenDigit = false
        var seenPoint = false
        for (i, c) in zip(trimmed.indices, trimmed) {
            if (c == "-" || c == "+") && i == trimmed.startIndex {
            } else if c == "." && !seenPoint {
                seenPoint = true
            } else if c.isASCII && c.isNumber {
                seenDigit = true
            } else {
                break
            }
            end = trimmed.index(after: i)
        }
        guard seenDigit else { return nil }
        return Double(trimmed[..<end])
    }
}

/// `[audio] replaygain_preamp` and `replaygain_missing_preamp`, as MPD's keys of the same
/// names. The clipping guard (MPD's `replaygain_limit`, on by default there) is always on.
public struct ReplayGainSettings: Sendable, Equatable {
    /// Added to every tagged gain, in dB.
    public var preampDb: Double
    /// The gain of a file without ReplayGain tags, in dB (while ReplayGain is on).
    public var missingPreampDb: Double

    public init(preampDb: Double = 0, missingPreampDb: Double = 0) {
        self.preampDb = preampDb
        self.missingPreampDb = missingPreampDb
    }
}

extension ReplayGainMode {
    /// The mode in effect: `auto` is the album's gain when playing in order and the track's
    /// in random mode (MPD's Partition::UpdateEffectiveReplayGainMode).
    public func effective(random: Bool) -> ReplayGainMode {
        self == .auto ? (random ? .track : .album) : self
    }
}

/// The linear factor ReplayGain applies to a file's samples, as MPD's ReplayGainFilter does.
public enum ReplayGain {
    /// MPD caps the factor at 15 (+23.5 dB).
    static let maximumScale = 15.0

    /// The factor for `info` under the effective `mode` (see `ReplayGainMode.effective`):
    /// 1 when off; the album's value in album mode (the track's when the album has none);
    /// the missing preamp for a file without values. The factor is limited so that the
    /// tagged peak times the factor stays at or below full scale (1.0).
    public static func scale(_ info: ReplayGainInfo?, mode: ReplayGainMode, settings: ReplayGainSettings) -> Double {
        guard mode != .off else { return 1 }
        let value = mode == .album ? (info?.album ?? info?.track) : info?.track
        guard let value else { return decibels(settings.missingPreampDb) }
        var scale = min(decibels(value.gainDb + settings.preampDb), maximumScale)
        if let peak = value.peak, peak > 0, scale * peak > 1 { scale = 1 / peak }
        return scale
    }

    /// 10^(dB/20), without Foundation: e^(dB · ln 10 / 20) by its series after halving the
    /// exponent until it is small (then squaring back).
    static func decibels(_ db: Double) -> Double {
        var x = db * 0.115_129_254_649_702_28  // ln(10) / 20
        var halvings = 0
        while abs(x) > 0.5 {
            x /= 2
            halvings += 1
        }
        var term = 1.0
        var sum = 1.0
        for n in 1...20 {
            term *= x / Double(n)
            sum += term
        }
        for _ in 0..<halvings { sum *= sum }
        return sum
    }
}
