import Foundation

/// A GPIO chip on a `VirtualBoard` from gpio-sim (built out of tree by
/// `Tests/Tools/vboard/gpio-sim.sh`: Debian's kernel lacks it): a real `/dev/gpiochipN` whose
/// input lines the test drives through gpio-sim's sysfs `pull` files with the image's
/// `vboard-gpio` (Tests/Tools/vboard/gpio.c), at microsecond spacing. The daemon reads them
/// through libgpiod and the kernel's GPIO character device, with the kernel's edge
/// timestamps, as on a board. Released, the chip goes away.
public final class BoardGPIOChip {
    public let board: VirtualBoard
    /// The chip's name for libgpiod (`gpiochip0`).
    public let chipName: String
    /// gpio-sim's sysfs folder of the chip (with `sim_gpioN/pull`).
    public let sysfsFolder: String
    private let configFolder: String

    /// Why no gpio-sim chip can be made here (no board, or the module could not be built:
    /// `gpio-sim.sh`'s reason), or nil.
    public static let unavailableReason: String? = {
        if let reason = VirtualBoard.unavailableReason { return reason }
        switch VirtualBoard.image {
        case .failure(let failure): return failure.description
        case .success(let image):
            let folder = (image.kernel as NSString).deletingLastPathComponent + "/gpio-sim"
            if let reason = try? String(contentsOfFile: folder + "/unavailable", encoding: .utf8) {
                return "gpio-sim: " + reason.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return FileManager.default.fileExists(atPath: folder + "/gpio-sim.ko")
                ? nil : "gpio-sim: make-image.sh made no \(folder)/gpio-sim.ko"
        }
    }()

    /// Loads gpio-sim (and configfs) unless loaded, and makes the chip `name` with `lines` lines.
    public init(board: VirtualBoard, name: String, lines: Int) throws {
        self.board = board
        configFolder = "/sys/kernel/config/gpio-sim/\(name)"
        try board.check(
            "grep -q '^gpio_sim ' /proc/modules || vboard-load gpio-sim; "
                + "grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config; "
                + "mkdir \(configFolder) \(configFolder)/bank0 && echo \(lines) > \(configFolder)/bank0/num_lines "
                + "&& echo 1 > \(configFolder)/live")
        let names = try board.check("cat \(configFolder)/dev_name \(configFolder)/bank0/chip_name")
            .split(separator: "\n").map(String.init)
        guard names.count == 2 else { throw VirtualBoard.Failure("gpio-sim \(name): no device: \(names)") }
        chipName = names[1]
        sysfsFolder = "/sys/devices/platform/\(names[0])/\(names[1])"
    }

    deinit {
        _ = try? board.run(
            "echo 0 > \(configFolder)/live; rmdir \(configFolder)/bank0 \(configFolder)")
    }

    /// One level change of a line: `after` microseconds after the previous one (the first:
    /// after the call), the line pulled to `level`.
    public struct Step: Sendable, Equatable {
        public var afterMicroseconds: Int
        public var line: Int
        public var level: Bool
        public init(afterMicroseconds: Int, line: Int, level: Bool) {
            self.afterMicroseconds = afterMicroseconds
            self.line = line
            self.level = level
        }
    }

    /// A level change as it was made: when (the guest's CLOCK_MONOTONIC, the clock of the
    /// kernel's edge timestamps) and, when `drive` was given a PCM, where its capture was.
    public struct Write: Sendable {
        public var line: Int
        public var level: Bool
        public var nanoseconds: Int64
        public var frame: Int?
    }

    /// Makes the level changes on schedule and returns when each was made. `pcmStatus` (a
    /// `/proc/asound/.../status` file of the guest) is read before each change: its hw_ptr is
    /// `Write.frame`.
    @discardableResult
    public func drive(_ steps: [Step], pcmStatus: String? = nil) throws -> [Write] {
        let words = steps.map { "\($0.afterMicroseconds) \($0.line) \($0.level ? 1 : 0)" }
        let output = try board.check(
            "vboard-gpio \(sysfsFolder) \(pcmStatus ?? "") \(words.joined(separator: " "))", timeout: .seconds(120))
        let writes = output.split(separator: "\n").compactMap { line -> Write? in
            let fields = line.split(separator: " ").compactMap { Int64($0) }
            guard fields.count >= 3 else { return nil }
            return Write(
                line: Int(fields[0]), level: fields[1] == 1, nanoseconds: fields[2],
                frame: fields.count > 3 ? Int(fields[3]) : nil)
        }
        guard writes.count == steps.count else { throw VirtualBoard.Failure("vboard-gpio: \(output)") }
        return writes
    }
}
