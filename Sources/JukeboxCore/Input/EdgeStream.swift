/// One recorded edge of a GPIO line: its time, the line offset and the physical level after it.
public struct RecordedEdge: Sendable, Equatable {
    public var at: Instant
    public var line: Int
    /// The physical level (rising edge = true), before any active-low inversion.
    public var level: Bool

    public init(at: Instant, line: Int, level: Bool) {
        self.at = at
        self.line = line
        self.level = level
    }
}

/// Reads edge recordings as text. Understood, one edge per line (`#` comments and blank lines
/// are skipped):
/// - libgpiod 1.6 `gpiomon`: `event:  RISING EDGE offset: 17 timestamp: [  1234.567890123]`
/// - libgpiod 2 `gpiomon`: `1234.567890123	rising	gpiochip0 17`
/// - plain: `seconds line value`, e.g. `0.0125 17 0` (value 0 or 1, the physical level).
public enum EdgeStreamParser {
    /// A line that is none of these: its number (from 1) and what is wrong.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String

        public var description: String { "line \(line): \(message)" }
    }

    /// Parses the whole text; stops at the first bad line.
    public static func parse(_ text: String) -> Result<[RecordedEdge], Problem> {
        var edges: [RecordedEdge] = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            switch parseLine(raw) {
            case .success(let edge?): edges.append(edge)
            case .success(nil): continue
            case .failure(let error): return .failure(Problem(line: number, message: error.message))
            }
        }
        return .success(edges)
    }

    /// One line: an edge, nil for a blank or comment line, or what is wrong.
    public static func parseLine(_ raw: Substring) -> Result<RecordedEdge?, MessageError> {
        let text = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map {
            $0.lowercased()
        }
        guard !words.isEmpty else { return .success(nil) }
        if words.contains("rising") || words.contains("falling") {
            let level = words.contains("rising")
            var line: Int?
            if let index = words.firstIndex(of: "offset:"), index + 1 < words.count {
                line = Int(words[index + 1])
            } else {
                line = words.last.flatMap { Int($0) }
            }
            let stamp = words.first { $0.contains(".") && parseTime($0) != nil }.flatMap(parseTime)
            guard let line else { return .failure(MessageError("no line offset in '\(raw)'")) }
            guard let stamp else { return .failure(MessageError("no timestamp in '\(raw)'")) }
            return .success(RecordedEdge(at: stamp, line: line, level: level))
        }
        guard words.count == 3, let stamp = parseTime(words[0]), let line = Int(words[1]), line >= 0,
            words[2] == "0" || words[2] == "1"
        else {
            return .failure(
                MessageError("expected 'seconds line value' (like 0.0125 17 0) or a gpiomon line, found '\(raw)'"))
        }
        return .success(RecordedEdge(at: stamp, line: line, level: words[2] == "1"))
    }

    /// `12`, `12.5`, `[  123.000000001]` as an instant, exact to the nanosecond.
    static func parseTime(_ word: String) -> Instant? {
        let trimmed = word.filter { $0 != "[" && $0 != "]" }
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = Int64(parts[0]), whole >= 0, whole < 10_000_000_000 else {
            return nil
        }
        var nanoseconds = whole * 1_000_000_000
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return nil
            }
            nanoseconds += Int64(fraction + String(repeating: "0", count: 9 - fraction.count))!
        }
        return Instant(nanoseconds: nanoseconds)
    }
}

/// An error that is just a message.
public struct MessageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Replays recorded edges through the same logic as the daemon, with a config's pin map.
public struct EdgeReplay: Sendable {
    /// Line offset → input, and whether the line is active-low.
    public var pins: [Int: (signal: InputSignal, activeLow: Bool)] = [:]
    public var controller: InputController

    /// Runs `edges`, returning every output with its time relative to the first edge, and
    /// the line offsets that are not in the pin map. Timers run out 10 s after the last edge.
    public mutating func run(_ edges: [RecordedEdge]) -> (outputs: [ControlOutput], unknownLines: [Int]) {
        guard let first = edges.first else { return ([], []) }
        var outputs: [ControlOutput] = []
        var unknown: [Int] = []
        var lastTime = first.at
        for edge in edges {
            let at = Instant(nanoseconds: max(edge.at, lastTime).nanoseconds - first.at.nanoseconds)
            lastTime = max(edge.at, lastTime)
            guard let pin = pins[edge.line] else {
                if !unknown.contains(edge.line) { unknown.append(edge.line) }
                continue
            }
            outputs += controller.handle(pin.signal, active: edge.level != pin.activeLow, at: at)
        }
        let end = Instant(nanoseconds: lastTime.nanoseconds - first.at.nanoseconds).adding(milliseconds: 10_000)
        while let deadline = controller.nextDeadline, deadline <= end {
            outputs += controller.advance(to: deadline)
        }
        return (outputs, unknown)
    }

    /// One output as a line of `jukeboxd input-replay`: `   0.512  next short`.
    public static func format(_ output: ControlOutput) -> String {
        let ms = output.at.nanoseconds / 1_000_000
        var seconds = "\(ms / 1000).\(String(String(ms % 1000 + 1000).dropFirst()))"
        while seconds.count < 8 { seconds = " " + seconds }
        return "\(seconds)  \(output)"
    }
}
