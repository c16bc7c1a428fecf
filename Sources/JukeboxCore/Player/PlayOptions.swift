/// MPD's `single` flag: off, on, or on for one song (`oneshot`, which turns itself off).
public enum SingleMode: String, CaseIterable, Sendable, Hashable {
    case off = "0"
    case on = "1"
    case oneshot
}

/// How the queue moves on, as MPD's four independent flags.
///
/// - `repeat`: after the last entry, start again (with `single`: replay the current entry).
/// - `random`: play a shuffled order (`previous` walks back through what was played).
/// - `single`: without `repeat`, pause at the next entry when a song ends (MPD 0.23's
///   "border pause"); `oneshot` does so once and turns itself off.
/// - `consume`: remove each entry from the queue once it has been played; with
///   `consumeOneshot` (MPD 0.24's `consume oneshot`) only the next one, then it turns off.
public struct PlayOptions: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var `repeat`: Bool
    public var random: Bool
    public var single: SingleMode
    public var consume: Bool
    /// With `consume`: consume turns itself off once one entry was removed.
    public var consumeOneshot: Bool

    /// Flags as given; all off by default (the in-order preset).
    public init(
        repeat: Bool = false, random: Bool = false, single: SingleMode = .off, consume: Bool = false,
        consumeOneshot: Bool = false
    ) {
        self.repeat = `repeat`
        self.random = random
        self.single = single
        self.consume = consume
        self.consumeOneshot = consumeOneshot
    }

    /// The flags of a preset.
    public init(_ preset: PlayMode) {
        switch preset {
        case .inOrder: self.init()
        case .repeatAll: self.init(repeat: true)
        case .repeatOne: self.init(repeat: true, single: .on)
        case .shuffle: self.init(repeat: true, random: true)
        }
    }

    /// The preset these flags are, if any.
    public var preset: PlayMode? { PlayMode.allCases.first { PlayOptions($0) == self } }

    /// Whether the entry that ends is played again (MPD: `single` with `repeat`, unless `consume`).
    var replaysCurrent: Bool { single != .off && `repeat` && !consume }

    /// Whether playback pauses when a song ends (MPD's border pause: `single` without `repeat`).
    var pausesAtSongEnd: Bool { single != .off && !`repeat` }

    /// The preset the `mode` command without an argument switches to: the next one, or
    /// in-order from flags that are no preset.
    public var cycled: PlayOptions { PlayOptions(preset?.cycled ?? .inOrder) }

    /// The preset's name, else the flags that are on (`random consume`, `single-oneshot`):
    /// what the screen, the console's `status` and the saved playback record show.
    public var description: String {
        if let preset { return preset.rawValue }
        var words: [String] = []
        if `repeat` { words.append("repeat") }
        if random { words.append("random") }
        switch single {
        case .off: break
        case .on: words.append("single")
        case .oneshot: words.append("single-oneshot")
        }
        if consume { words.append(consumeOneshot ? "consume-oneshot" : "consume") }
        return words.joined(separator: " ")
    }

    /// Reads `description` back: a preset's name or flag words. Nil for anything else.
    public init?(description text: String) {
        if let preset = PlayMode(rawValue: text) {
            self.init(preset)
            return
        }
        self.init()
        let words = text.split(separator: " ")
        guard !words.isEmpty else { return nil }
        for word in words {
            switch word {
            case "repeat": self.repeat = true
            case "random": random = true
            case "single": single = .on
            case "single-oneshot": single = .oneshot
            case "consume": consume = true
            case "consume-oneshot":
                consume = true
                consumeOneshot = true
            default: return nil
            }
        }
    }
}

/// The seed apps' play modes: presets over `PlayOptions` (the `mode` command, the knob and
/// the `m` key, `[queue] mode`).
public enum PlayMode: String, CaseIterable, Sendable {
    /// Play the queue once, then stop.
    case inOrder = "in-order"
    /// Play the queue, then start again from the first entry.
    case repeatAll = "repeat-all"
    /// Replay the current track; a user `next` still moves on.
    case repeatOne = "repeat-one"
    /// Play every entry once in a shuffled order, then reshuffle and continue.
    case shuffle = "shuffle"

    /// The mode after this one, for the `mode` command without an argument.
    public var cycled: PlayMode {
        let all = PlayMode.allCases
        let index = all.firstIndex(of: self)!
        return all[(index + 1) % all.count]
    }
}
