/// A knob turn or a button gesture typed on a console instead of made on the hardware: to
/// test the wiring and the mappings, and to drive a box that has no knob. `knob +3`,
/// `knob -1`, `knob press`, `knob long`, `button next long`.
public enum InjectedInput: Sendable, Equatable, CustomStringConvertible {
    /// Detents of the knob, + clockwise.
    case turn(Int)
    /// A gesture of a button (`switch` is the knob's push switch).
    case gesture(button: String, Gesture)
    /// Clicks of the knob turned with the scrub button held (`knob scrub +3`).
    case scrub(Int)
    /// The scrub button let go (`knob scrub end`): the player jumps to the target.
    case scrubEnd

    /// The most detents one `knob` line turns.
    public static let maximumDetents = 100

    /// The console words, as `help` lists them (one per line).
    public static let helpText = """
        knob +N      turn the knob N clicks clockwise (knob -N: back)
        knob press   press the knob's switch (knob long: hold it)
        knob scrub ±N  turn N clicks with the scrub button held (the target shows); knob scrub end: let go and jump
        button B G   gesture G of button B (button next long); B: play_pause, next, previous, switch; \
        G: short, long, double, repeat, very_long; two buttons held together: button next+previous chord
        """

    /// The gestures a button can be given, as the config names them.
    static let gestureNames = Gesture.allCases.filter { $0 != .chord }.map(\.rawValue)

    /// Parses `knob ARG` or `button NAME GESTURE` (words in any case); nil when the first
    /// word is neither.
    public static func parse(words: [String]) -> Result<InjectedInput, CommandError>? {
        let lowered = words.map { $0.lowercased() }
        switch lowered.first {
        case "knob": return parseKnob(Array(lowered.dropFirst()))
        case "button": return parseButton(Array(lowered.dropFirst()))
        default: return nil
        }
    }

    private static func parseKnob(_ arguments: [String]) -> Result<InjectedInput, CommandError> {
        let usage = "expected +N or -N (clicks, up to \(maximumDetents)), press, long, scrub ±N or scrub end"
        if arguments.count == 2, arguments[0] == "scrub" {
            if arguments[1] == "end" { return .success(.scrubEnd) }
            guard let detents = Int(arguments[1]), detents != 0, abs(detents) <= maximumDetents else {
                return .failure(.badArgument(command: "knob", problem: "\(usage), found 'scrub \(arguments[1])'"))
            }
            return .success(.scrub(detents))
        }
        guard arguments.count == 1 else { return .failure(.badArgument(command: "knob", problem: usage)) }
        switch arguments[0] {
        case "press": return .success(.gesture(button: "switch", .short))
        case "long": return .success(.gesture(button: "switch", .long))
        default:
            guard let detents = Int(arguments[0]), detents != 0, abs(detents) <= maximumDetents else {
                return .failure(.badArgument(command: "knob", problem: "\(usage), found '\(arguments[0])'"))
            }
            return .success(.turn(detents))
        }
    }

    private static func parseButton(_ arguments: [String]) -> Result<InjectedInput, CommandError> {
        guard arguments.count == 2 else {
            return .failure(.badArgument(command: "button", problem: "expected a button and a gesture, like next long"))
        }
        if arguments[0].contains("+") { return parseChord(arguments) }
        guard ControlDefaults.buttonNames.contains(arguments[0]) else {
            let names = ControlDefaults.buttonNames.joined(separator: ", ")
            return .failure(.badArgument(command: "button", problem: "unknown button '\(arguments[0])' (\(names))"))
        }
        guard let gesture = Gesture(rawValue: String(arguments[1].map { $0 == "-" ? "_" : $0 })), gesture != .chord
        else {
            let names = gestureNames.joined(separator: ", ")
            return .failure(.badArgument(command: "button", problem: "unknown gesture '\(arguments[1])' (\(names))"))
        }
        return .success(.gesture(button: arguments[0], gesture))
    }

    /// `button next+previous chord` (either order): the chord by its config name.
    private static func parseChord(_ arguments: [String]) -> Result<InjectedInput, CommandError> {
        let names = arguments[0].split(separator: "+").map(String.init)
        let order = names.compactMap { ControlDefaults.buttonNames.firstIndex(of: $0) }.sorted()
        guard names.count == 2, order.count == 2, order[0] != order[1] else {
            let buttons = ControlDefaults.buttonNames.joined(separator: ", ")
            return .failure(
                .badArgument(command: "button", problem: "unknown chord '\(arguments[0])' (two of \(buttons))"))
        }
        guard arguments[1] == Gesture.chord.rawValue else {
            return .failure(
                .badArgument(command: "button", problem: "two buttons make a chord: button \(arguments[0]) chord"))
        }
        let name = order.map { ControlDefaults.buttonNames[$0] }.joined(separator: "+")
        return .success(.gesture(button: name, .chord))
    }

    /// `knob +3`, `button next long`.
    public var description: String {
        switch self {
        case .turn(let detents): "knob \(detents > 0 ? "+" : "")\(detents)"
        case .gesture(let button, let gesture): "button \(button) \(gesture.rawValue)"
        case .scrub(let detents): "knob scrub \(detents > 0 ? "+" : "")\(detents)"
        case .scrubEnd: "knob scrub end"
        }
    }

    /// What the hardware would have given `InputController`'s user: the detents or the
    /// gesture, and the action `map` gives them (all the detents as one turn).
    public func outputs(map: ControlMap, at: Instant) -> [ControlOutput] {
        switch self {
        case .turn(let detents):
            let direction = detents > 0 ? 1 : -1
            var outputs = Array(repeating: ControlOutput.detent(direction, at: at), count: abs(detents))
            if let action = map.turnAction(units: detents) { outputs.append(.action(action, at: at)) }
            return outputs
        case .gesture(let button, let gesture):
            let event = GestureEvent(control: button, gesture: gesture, at: at)
            var outputs = [ControlOutput.gesture(event)]
            if let action = map.action(for: event) { outputs.append(.action(action, at: at)) }
            return outputs
        case .scrub(let detents): return [.scrub(detents, at: at)]
        case .scrubEnd: return [.scrubEnd(at: at)]
        }
    }
}
