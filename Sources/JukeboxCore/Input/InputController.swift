/// Which physical input an edge belongs to.
public enum InputSignal: Sendable, Hashable, CustomStringConvertible {
    /// A button by name (`play_pause`, `next`, `previous`, `switch`).
    case button(String)
    case encoderA
    case encoderB

    public var description: String {
        switch self {
        case .button(let name): name
        case .encoderA: "encoder.a"
        case .encoderB: "encoder.b"
        }
    }
}

/// What the input logic made of the edges.
public enum ControlOutput: Sendable, Equatable, CustomStringConvertible {
    /// A button gesture (mapped or not: only mapped gestures are detected).
    case gesture(GestureEvent)
    /// One detent of the encoder (+1 clockwise after inversion).
    case detent(Int, at: Instant)
    /// An action to carry out.
    case action(ControlAction, at: Instant)
    /// Clicks of the knob (after acceleration) turned with the scrub button held.
    case scrub(Int, at: Instant)
    /// The scrub button let go after scrubbing: jump to the target.
    case scrubEnd(at: Instant)

    public var at: Instant {
        switch self {
        case .gesture(let event): event.at
        case .detent(_, let at), .action(_, let at), .scrub(_, let at), .scrubEnd(let at): at
        }
    }

    /// `next short`, `encoder +1`, `-> seek +10`, `scrub +2`, `scrub end`.
    public var description: String {
        switch self {
        case .gesture(let event): "\(event)"
        case .detent(let direction, _): "encoder \(direction > 0 ? "+" : "")\(direction)"
        case .action(let action, _): "-> \(action)"
        case .scrub(let units, _): "scrub \(units > 0 ? "+" : "")\(units)"
        case .scrubEnd: "scrub end"
        }
    }
}

/// All the input logic in one pure value: button debouncers, gesture detection, the
/// encoder's decoder and acceleration, the mapping to actions, and the coalescing of encoder
/// turns into at most one command per output period (the first at once). Used by the daemon
/// and by `jukeboxd input-replay`, so both make the same of the same edges.
public struct InputController: Sendable, Equatable {
    public let map: ControlMap
    private var debouncers: [String: Debouncer]
    private var detector: GestureDetector
    private var decoder: RotaryDecoder?
    private var acceleration: RotaryAcceleration
    private let coalesceNs: Int64
    private var pendingUnits = 0
    private var lastTurnAction: Instant?
    /// The knob turned while the scrub button was held, since it went down.
    private var scrubbing = false

    /// Settings beyond the mapping.
    public struct Settings: Sendable, Equatable {
        /// A button's level counts once it has been stable this long.
        public var buttonDebounceMs = 5
        public var timing = GestureTiming()
        /// Nil when no quadrature encoder is wired (an input device may still send detents).
        public var stepsPerDetent: Int? = 4
        /// Bounce on an encoder line is hidden for this long after each transition taken;
        /// nil: the decoder's default for `stepsPerDetent`.
        public var encoderLockoutUs: Int?
        public var inverted = false
        public var acceleration = 1
        /// Encoder turns are coalesced to one command per this many milliseconds (the output period).
        public var coalesceMs = 10

        public init() {}
    }

    /// `initialLevels` are the (logical) levels of the lines when they were requested.
    public init(map: ControlMap, settings: Settings, initialLevels: [InputSignal: Bool] = [:]) {
        self.map = map
        detector = GestureDetector(
            profiles: map.profiles, chords: map.chords.map { ($0.first, $0.second) }, timing: settings.timing,
            modifiers: map.scrubButton.map { [$0] } ?? [])
        var debouncers: [String: Debouncer] = [:]
        for name in ControlDefaults.buttonNames {
            debouncers[name] = Debouncer(
                settleMs: settings.buttonDebounceMs, initial: initialLevels[.button(name)] ?? false)
        }
        self.debouncers = debouncers
        decoder = settings.stepsPerDetent.map {
            RotaryDecoder(
                stepsPerDetent: $0, inverted: settings.inverted, lockoutUs: settings.encoderLockoutUs,
                initialA: initialLevels[.encoderA] ?? false, initialB: initialLevels[.encoderB] ?? false)
        }
        acceleration = RotaryAcceleration(maxFactor: settings.acceleration)
        coalesceNs = Int64(max(1, settings.coalesceMs)) * 1_000_000
    }

    /// The next instant at which `advance(to:)` has something to do.
    public var nextDeadline: Instant? {
        var candidates = debouncers.values.compactMap(\.nextDeadline)
        if let deadline = detector.nextDeadline { candidates.append(deadline) }
        if let deadline = decoder?.nextDeadline { candidates.append(deadline) }
        if pendingUnits != 0, let last = lastTurnAction { candidates.append(last.adding(nanoseconds: coalesceNs)) }
        return candidates.min()
    }

    /// One raw edge; `active` is the logical level (pressed) after it. Edges must come in
    /// time order (the kernel's timestamps).
    public mutating func handle(_ signal: InputSignal, active: Bool, at: Instant) -> [ControlOutput] {
        var outputs = advance(to: at)
        switch signal {
        case .button(let name):
            guard var debouncer = debouncers[name] else { return outputs }
            let changes = debouncer.handle(edge: active, at: at)
            debouncers[name] = debouncer
            for change in changes { outputs += buttonChanged(name, pressed: change.active, at: change.at) }
        case .encoderA, .encoderB:
            guard var decoder else { return outputs }
            let steps = decoder.handle(signal == .encoderA ? .a : .b, level: active, at: at)
            self.decoder = decoder
            outputs += turned(steps)
        }
        return outputs
    }

    /// A press or release of button `name` that the kernel already debounced (a key of an
    /// input device: gpio-keys waits its `debounce-interval` before reporting it): straight
    /// to the gestures, without a second wait (5 ms on every press and release).
    public mutating func handle(key name: String, pressed: Bool, at: Instant) -> [ControlOutput] {
        var outputs = advance(to: at)
        guard debouncers[name] != nil else { return outputs }
        outputs += buttonChanged(name, pressed: pressed, at: at)
        return outputs
    }

    /// Detents reported by a kernel driver (the rotary-encoder overlay's REL_* events).
    public mutating func handle(detents: Int, at: Instant) -> [ControlOutput] {
        var outputs = advance(to: at)
        let direction = detents > 0 ? 1 : -1
        let steps = (0..<abs(detents)).map { _ in RotaryDecoder.Step(direction: direction, at: at) }
        outputs += turned(steps)
        return outputs
    }

    /// Fires whatever is due by `now`: ended lockouts, long presses, repeats, double-press
    /// windows, chords and coalesced encoder turns.
    public mutating func advance(to now: Instant) -> [ControlOutput] {
        var outputs: [ControlOutput] = []
        while let (name, deadline) = debouncers.compactMap({ entry in entry.value.nextDeadline.map { (entry.key, $0) } }
        )
        .min(by: { $0.1 < $1.1 }), deadline <= now {
            let changes = debouncers[name]!.advance(to: deadline)
            for change in changes { outputs += buttonChanged(name, pressed: change.active, at: change.at) }
        }
        outputs += gestures(detector.advance(to: now))
        if var decoder {
            let steps = decoder.advance(to: now)
            self.decoder = decoder
            outputs += turned(steps)
        }
        if pendingUnits != 0, let last = lastTurnAction {
            let due = last.adding(nanoseconds: coalesceNs)
            if due <= now { outputs += flushTurn(at: due) }
        }
        return outputs.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// A debounced press or release: its gestures, and the end of a scrub when it is the
    /// scrub button's release.
    private mutating func buttonChanged(_ name: String, pressed: Bool, at: Instant) -> [ControlOutput] {
        var outputs = gestures(detector.handle(button: name, pressed: pressed, at: at))
        if name == map.scrubButton, !pressed, scrubbing {
            scrubbing = false
            outputs.append(.scrubEnd(at: at))
        }
        return outputs
    }

    private func gestures(_ events: [GestureEvent]) -> [ControlOutput] {
        var outputs: [ControlOutput] = []
        for event in events {
            outputs.append(.gesture(event))
            if let action = map.action(for: event) { outputs.append(.action(action, at: event.at)) }
        }
        return outputs
    }

    private mutating func turned(_ steps: [RotaryDecoder.Step]) -> [ControlOutput] {
        var outputs: [ControlOutput] = []
        for step in steps {
            outputs.append(.detent(step.direction, at: step.at))
            if let button = map.scrubButton, detector.isDown(button) {
                // Turned while held: a scrub, and the press is no gesture of its own.
                detector.silence(button)
                scrubbing = true
                outputs.append(.scrub(step.direction * acceleration.factor(for: step), at: step.at))
                continue
            }
            if let last = lastTurnAction, pendingUnits != 0, last.adding(nanoseconds: coalesceNs) <= step.at {
                outputs += flushTurn(at: last.adding(nanoseconds: coalesceNs))
            }
            pendingUnits += step.direction * acceleration.factor(for: step)
            if lastTurnAction == nil || lastTurnAction!.adding(nanoseconds: coalesceNs) <= step.at {
                outputs += flushTurn(at: step.at)
            }
        }
        return outputs
    }

    private mutating func flushTurn(at: Instant) -> [ControlOutput] {
        let units = pendingUnits
        pendingUnits = 0
        lastTurnAction = at
        guard let action = map.turnAction(units: units) else { return [] }
        return [.action(action, at: at)]
    }
}
