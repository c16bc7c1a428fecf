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

    /// The key codes of a card reader typing digits: KEY_1...KEY_0 (2-11) and KEY_ENTER (28).
    public static let digitKeys = Array(2...11) + [28]

    /// Creates the device `name` sending `keys` (KEY_* codes) and `relativeAxes` (REL_* codes).
    public init(board: VirtualBoard, name: String, keys: [Int] = [], relativeAxes: [Int] = []) throws {
        self.board = board
        let tag = name.filter { $0.isLetter || $0.isNumber }
        fifo = "/tmp/uinput-\(tag).fifo"
        let log = "/tmp/uinput-\(tag).log"
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

    /// `send`, returning the guest's CLOCK_MONOTONIC in ns (/proc/timer_list's "now at") read
    /// just before the events go to the device: a latency's start on the guest's clock.
    public func sendTimed(_ events: [Event]) throws -> Int64 {
        let now = try board.check(
            "sed -n 's/^now at \\([0-9]*\\) nsecs$/\\1/p;3q' /proc/timer_list; echo '\(Self.words(events))' > \(fifo)")
        guard let ns = Int64(now.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw VirtualBoard.Failure("no time in /proc/timer_list: \(now)")
        }
        return ns
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
