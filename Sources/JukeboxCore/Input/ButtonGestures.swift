/// What a user did with a button (or two), as the config names it.
public enum Gesture: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Pressed and released before `long_press_ms` (or, for a button with nothing else mapped,
    /// just pressed: it fires on the debounced press edge).
    case short
    /// Two short presses within `double_press_ms`; fires on the second press edge.
    case double
    /// Held for `long_press_ms`; fires while still held.
    case long
    /// Still held after a long press: fires every `repeat_ms` (seeking through a track).
    case repeated = "repeat"
    /// Held for `very_long_press_ms` (shutdown).
    case veryLong = "very_long"
    /// Two buttons held together for `long_press_ms`.
    case chord
}

/// One detected gesture: `control` is a button name (`next`) or a chord (`play_pause+next`).
public struct GestureEvent: Sendable, Equatable, CustomStringConvertible {
    public var control: String
    public var gesture: Gesture
    public var at: Instant

    public init(control: String, gesture: Gesture, at: Instant) {
        self.control = control
        self.gesture = gesture
        self.at = at
    }

    /// `next short`, `play_pause+next chord`.
    public var description: String { "\(control) \(gesture.rawValue)" }
}

/// The timings of gesture detection, in milliseconds.
public struct GestureTiming: Sendable, Equatable {
    public var longPressMs: Int64 = 800
    public var repeatMs: Int64 = 300
    public var doublePressMs: Int64 = 300
    public var veryLongPressMs: Int64 = 5000

    public init(
        longPressMs: Int64 = 800, repeatMs: Int64 = 300, doublePressMs: Int64 = 300, veryLongPressMs: Int64 = 5000
    ) {
        self.longPressMs = longPressMs
        self.repeatMs = repeatMs
        self.doublePressMs = doublePressMs
        self.veryLongPressMs = veryLongPressMs
    }
}

/// Turns debounced press/release changes of named buttons into gestures. Pure; time passed in.
///
/// Only what is mapped is waited for: a button with just a `short` mapping (and in no chord)
/// fires on the press edge; one with `long`, `repeat` or `very_long` fires `short` on the
/// release; one with `double` waits `double_press_ms` after the release for a second press.
/// A second button pressed while another is held (before its long press) makes both part
/// of a chord attempt: their own gestures are dropped for these presses, and the chord fires
/// when both stayed down for `long_press_ms`.
public struct GestureDetector: Sendable, Equatable {
    /// Which gestures of a button are mapped.
    public struct Profile: Sendable, Equatable {
        public var gestures: Set<Gesture>

        public init(_ gestures: Set<Gesture>) { self.gestures = gestures }
    }

    private struct Button: Sendable, Equatable {
        var profile: Profile
        var inChord: Bool
        /// Held while the knob turns (scrubbing): a press may turn out to be no gesture.
        var isModifier = false
        var isDown = false
        var pressedAt = Instant.zero
        /// This press belongs to a chord attempt, is a double press's second, or fired on its
        /// press edge: no timers and a quiet release.
        var silenced = false
        var longFired = false
        var veryLongFired = false
        var repeats = 0
        /// Released after a short press, waiting for a second one (`double` mapped).
        var waitingSince: Instant?

        /// A long, repeat or very long press fired during this press.
        var heldGestureFired: Bool { longFired || veryLongFired || repeats > 0 }

        /// Fires `short` on the press edge: nothing else is mapped that would need waiting.
        var firesOnPress: Bool {
            profile.gestures.contains(.short) && !inChord && !isModifier
                && profile.gestures.isDisjoint(with: [.long, .repeated, .veryLong, .double])
        }
    }

    private struct Chord: Sendable, Equatable {
        var first: String
        var second: String
        var name: String { "\(first)+\(second)" }
        /// Both went down (the later press), while attempting this chord.
        var armedAt: Instant?
        var fired = false
    }

    public let timing: GestureTiming
    private var buttons: [String: Button]
    private var chords: [Chord]

    /// `profiles` by button name; `chords` as pairs of button names; `modifiers`: buttons held
    /// while the knob turns (they fire `short` on the release, never on the press).
    public init(
        profiles: [String: Profile], chords: [(String, String)] = [], timing: GestureTiming = GestureTiming(),
        modifiers: Set<String> = []
    ) {
        self.timing = timing
        let chordMembers = Set(chords.flatMap { [$0.0, $0.1] })
        buttons = profiles.mapValues { Button(profile: $0, inChord: false) }
        for name in chordMembers.union(modifiers) where buttons[name] == nil {
            buttons[name] = Button(profile: Profile([]), inChord: false)
        }
        for name in chordMembers { buttons[name]?.inChord = true }
        for name in modifiers { buttons[name]?.isModifier = true }
        self.chords = chords.map { Chord(first: $0.0, second: $0.1) }
    }

    /// Whether button `name` is held down.
    public func isDown(_ name: String) -> Bool { buttons[name]?.isDown ?? false }

    /// Makes the press of `name` (held down) no gesture: no long press or repeat fires, and
    /// its release is quiet. For a modifier that the knob was turned with.
    public mutating func silence(_ name: String) {
        guard buttons[name]?.isDown == true else { return }
        buttons[name]?.silenced = true
    }

    /// Whether `name` fires on its press edge (short-only).
    public func firesOnPress(_ name: String) -> Bool { buttons[name]?.firesOnPress ?? false }

    /// One debounced change of button `name`.
    public mutating func handle(button name: String, pressed: Bool, at: Instant) -> [GestureEvent] {
        var events = advance(to: at)
        guard var button = buttons[name], button.isDown != pressed else { return events }
        if pressed {
            button.isDown = true
            button.pressedAt = at
            button.silenced = false
            button.longFired = false
            button.veryLongFired = false
            button.repeats = 0
            if button.waitingSince != nil {
                button.waitingSince = nil
                button.silenced = true
                events.append(GestureEvent(control: name, gesture: .double, at: at))
            } else if button.firesOnPress {
                button.silenced = true
                events.append(GestureEvent(control: name, gesture: .short, at: at))
            }
            buttons[name] = button
            for index in chords.indices where chords[index].armedAt == nil {
                let chord = chords[index]
                let other = chord.first == name ? chord.second : (chord.second == name ? chord.first : nil)
                guard let other, let partner = buttons[other], partner.isDown, !partner.silenced,
                    !partner.heldGestureFired
                else { continue }
                chords[index].armedAt = at
                chords[index].fired = false
                buttons[name]?.silenced = true
                buttons[other]?.silenced = true
            }
        } else {
            button.isDown = false
            if !button.silenced, !button.heldGestureFired, at.milliseconds(since: button.pressedAt) < timing.longPressMs
            {
                if button.profile.gestures.contains(.double) {
                    button.waitingSince = at
                } else if button.profile.gestures.contains(.short) {
                    events.append(GestureEvent(control: name, gesture: .short, at: at))
                }
            }
            buttons[name] = button
            for index in chords.indices where chords[index].first == name || chords[index].second == name {
                chords[index].armedAt = nil
            }
        }
        return events
    }

    /// The next instant at which `advance(to:)` fires something, if any.
    public var nextDeadline: Instant? {
        var best: Instant?
        func consider(_ instant: Instant) { if best == nil || instant < best! { best = instant } }
        for button in buttons.values {
            if let deadline = deadline(of: button) { consider(deadline.at) }
        }
        for chord in chords where !chord.fired {
            if let armed = chord.armedAt { consider(armed + timing.longPressMs) }
        }
        return best
    }

    /// Fires every timed gesture due by `now`, in time order.
    public mutating func advance(to now: Instant) -> [GestureEvent] {
        var events: [GestureEvent] = []
        while true {
            var next: (at: Instant, name: String, gesture: Gesture)?
            for (name, button) in buttons {
                guard let deadline = deadline(of: button), deadline.at <= now else { continue }
                if next == nil || deadline.at < next!.at || (deadline.at == next!.at && name < next!.name) {
                    next = (deadline.at, name, deadline.gesture)
                }
            }
            var chordIndex: Int?
            for (index, chord) in chords.enumerated() where !chord.fired {
                guard let armed = chord.armedAt else { continue }
                let at = armed + timing.longPressMs
                if at <= now, next == nil || at < next!.at {
                    next = (at, chord.name, .chord)
                    chordIndex = index
                }
            }
            guard let fire = next else { return events }
            if let chordIndex {
                chords[chordIndex].fired = true
                events.append(GestureEvent(control: fire.name, gesture: .chord, at: fire.at))
                continue
            }
            var button = buttons[fire.name]!
            switch fire.gesture {
            case .short:
                button.waitingSince = nil
                buttons[fire.name] = button
                if !button.profile.gestures.contains(.short) { continue }
            case .long:
                button.longFired = true
            case .repeated:
                button.longFired = true
                button.repeats += 1
            case .veryLong:
                button.veryLongFired = true
            case .double, .chord:
                break
            }
            buttons[fire.name] = button
            events.append(GestureEvent(control: fire.name, gesture: fire.gesture, at: fire.at))
        }
    }

    /// The button's next timed gesture: the end of a double-press window, or a hold stage.
    private func deadline(of button: Button) -> (at: Instant, gesture: Gesture)? {
        if let since = button.waitingSince {
            return (since + timing.doublePressMs, .short)
        }
        guard button.isDown, !button.silenced else { return nil }
        let gestures = button.profile.gestures
        var candidates: [(Instant, Gesture)] = []
        if !button.longFired, gestures.contains(.long) || gestures.contains(.repeated) {
            candidates.append(
                (button.pressedAt + timing.longPressMs, gestures.contains(.long) ? .long : .repeated))
        } else if button.longFired, gestures.contains(.repeated) {
            let first = gestures.contains(.long) ? 1 : 0
            let k = Int64(button.repeats + first)
            candidates.append((button.pressedAt + timing.longPressMs + k * timing.repeatMs, .repeated))
        }
        if !button.veryLongFired, gestures.contains(.veryLong) {
            candidates.append((button.pressedAt + timing.veryLongPressMs, .veryLong))
        }
        return candidates.min { $0.0 < $1.0 }
    }
}
