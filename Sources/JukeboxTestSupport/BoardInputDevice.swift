/// An input device on a `VirtualBoard`, made with uinput by the image's `vboard-uinput`
/// (Tests/Tools/vboard/uinput.c): a real `/dev/input/eventN` in the guest whose KEY_* and
/// REL_* events the test sends, as the kernel's gpio-keys and rotary-encoder drivers (or a
/// USB card reader typing as a keyboard) deliver them. Released, the device goes away.
public final class BoardInputDevice {
    public let board: VirtualBoard
    /// The guest's event node (`/dev/input/event1`).
    public let eventPath: String
    private let pid: Int
    private let fifo: String
    /// vboard-uinput's output in the guest: the event node, then each event sent.
    private let log: String

    /// The key codes of a card reader typing digits: KEY_1...KEY_0 (2-11) and KEY_ENTER (28).
    public static let digitKeys = Array(2...11) + [28]

    /// Creates the device `name` sending `keys` (KEY_* codes) and `relativeAxes` (REL_* codes).
    public init(board: VirtualBoard, name: String, keys: [Int] = [], relativeAxes: [Int] = []) throws {
        self.board = board
        let tag = name.filter { $0.isLetter || $0.isNumber }
        fifo = "/tmp/uinput-\(tag).fifo"
        let log = "/tmp/uinput-\(tag).log"
        self.log = log
        let codes = keys.map { "key:\($0)" } + relativeAxes.map { "rel:\($0)" }
        pid = try board.start("exec vboard-uinput '\(name)' \(fifo) \(codes.joined(separator: " "))", log: log)
        var node = ""
        let created = try waitUntil(timeout: .seconds(20), pollingEvery: .milliseconds(20)) {
            node = try board.run("cat \(log)").output.trimmingCharacters(in: .whitespacesAndNewlines)
            return node.hasPrefix("/dev/input/event")
        }
        guard created else { throw VirtualBoard.Failure("vboard-uinput \(name): \(node)") }
        eventPath = node
    }

    deinit { _ = try? board.run("kill \(pid)") }

    /// Sends events in order, each with a SYN_REPORT; `.pause(ms)` waits between them.
    public func send(_ events: [Event]) throws {
        try board.check("echo '\(Self.words(events))' > \(fifo)")
    }

    /// What vboard-uinput sent so far, in order, each with the guest's CLOCK_MONOTONIC (ns)
    /// just before it went to the device, within which write the kernel stamps the event:
    /// where a latency starts, without the shell's and the FIFO's hop before it.
    public func emitted() throws -> [Emitted] {
        try board.check("cat \(log)").split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").compactMap { Int64($0) }
            guard words.count == 4 else { return nil }
            return Emitted(type: Int(words[0]), code: Int(words[1]), value: Int(words[2]), nanoseconds: words[3])
        }
    }

    public struct Emitted: Sendable, Equatable {
        public var type: Int
        public var code: Int
        public var value: Int
        public var nanoseconds: Int64
    }

    private static func words(_ events: [Event]) -> String {
        events.map { event in
            switch event {
            case .key(let code, let pressed): "1 \(code) \(pressed ? 1 : 0)"
            case .relative(let code, let value): "2 \(code) \(value)"
            case .pause(let ms): "-1 0 \(ms)"
            }
        }.joined(separator: " ")
    }

    /// A press and release of `code`, held `ms` (longer than the daemon's debounce, shorter
    /// than a long press), then a pause as long.
    public func tap(_ code: Int, ms: Int = 60) throws {
        try send([.key(code, pressed: true), .pause(ms), .key(code, pressed: false), .pause(ms)])
    }

    /// Types `digits` and Enter, as a USB card reader does.
    public func type(_ digits: String) throws {
        let codes = digits.compactMap(\.wholeNumberValue).map { $0 == 0 ? 11 : $0 + 1 } + [28]
        try send(codes.flatMap { [Event.key($0, pressed: true), .key($0, pressed: false)] })
    }

    public enum Event {
        case key(Int, pressed: Bool)
        case relative(Int, Int)
        /// Milliseconds.
        case pause(Int)
    }
}
