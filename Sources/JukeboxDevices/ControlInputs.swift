import Glibc
import JukeboxCore
import LinuxSupport
import Logging

/// The physical controls as the control loop sees them: the edge sources (libgpiod lines,
/// Linux input devices, a test FIFO), their fds for the poll, and the pure `InputController`
/// that turns edges into gestures and actions. Used on `jb-control` only.
///
/// A source that cannot be opened (no chip, line busy, no permission) is logged with what to
/// do about it and left out; the player runs without it.
public final class ControlInputs {
    private var sources: [any EdgeEventSource]
    private var owners: [Int32: any EdgeEventSource] = [:]
    private var controller: InputController
    private let logger: Logger

    init(sources: [any EdgeEventSource], controller: InputController, logger: Logger) {
        self.sources = sources
        self.controller = controller
        self.logger = logger
        for source in sources {
            for fd in source.fds { owners[fd] = source }
        }
    }

    /// Opens what `config` wires (and the replay FIFO, when given); nil when nothing is wired.
    public static func open(config: JukeboxConfig, replayFifo: String?, logger: Logger) -> ControlInputs? {
        var sources: [any EdgeEventSource] = []
        let pins = PinMap(config: config).pins
        var chips: [String] = []
        for pin in pins where !chips.contains(pin.chip) { chips.append(pin.chip) }
        for chip in chips {
            let chipPins = pins.filter { $0.chip == chip }
            do {
                sources.append(try GPIOEdgeSource(chip: chip, pins: chipPins))
                let list = chipPins.map { "\($0.signal)=\($0.line)" }.joined(separator: " ")
                logger.info("controls: \(chip): \(list)")
            } catch {
                logger.error(
                    "controls: \(error); going on without \(chipPins.map { "\($0.signal)" }.joined(separator: ", "))")
            }
        }
        var devices: [String] = []
        // Each setting may list several devices, separated by commas (one per gpio-key overlay).
        for setting in [config.buttons.inputDevice, config.encoder.inputDevice] {
            for part in setting.split(separator: ",") {
                let device = String(part).trimmedSpaces
                if !device.isEmpty, !devices.contains(device) { devices.append(device) }
            }
        }
        for device in devices {
            do {
                sources.append(try EvdevSource(path: device))
                logger.info("controls: reading input events from \(device)")
            } catch {
                let hint = error.code == EACCES ? " (add the user to the 'input' group)" : ""
                logger.error("controls: \(error)\(hint); going on without it")
            }
        }
        if let replayFifo {
            do {
                sources.append(try ReplayFifoSource(path: replayFifo, config: config, logger: logger))
                logger.info("controls: replaying edges written to \(replayFifo)")
            } catch {
                logger.error("controls: \(error)")
            }
        }
        guard !sources.isEmpty else { return nil }
        var levels: [InputSignal: Bool] = [:]
        for source in sources { levels.merge(source.initialLevels) { first, _ in first } }
        let controller = InputController(
            map: ControlMap(config: config), settings: InputController.Settings(config: config), initialLevels: levels)
        return ControlInputs(sources: sources, controller: controller, logger: logger)
    }

    /// The fds to poll for reading.
    public var fds: [Int32] { owners.keys.sorted() }

    /// Whether `fd` is one of ours.
    public func owns(_ fd: Int32) -> Bool { owners[fd] != nil }

    /// When the controller has a timer due (long press, repeat, coalesced turn...).
    public var nextDeadline: Instant? { controller.nextDeadline }

    /// Reads a readable fd and runs its edges through the controller.
    public func read(fd: Int32, now: Instant) -> [ControlOutput] {
        guard let source = owners[fd] else { return [] }
        let readings: [InputReading]
        do {
            readings = try source.read(fd: fd, now: now)
        } catch {
            logger.error("controls: \(source.name): \(error); no longer reading it")
            drop(source)
            return []
        }
        var outputs: [ControlOutput] = []
        for reading in readings {
            switch reading {
            case .edge(let signal, let active, let at):
                outputs += controller.handle(signal, active: active, at: at)
            case .key(let name, let pressed, let at):
                outputs += controller.handle(key: name, pressed: pressed, at: at)
            case .detents(let count, let at):
                outputs += controller.handle(detents: count, at: at)
            }
        }
        return outputs
    }

    /// Fires the timers due by `now`.
    public func advance(to now: Instant) -> [ControlOutput] {
        controller.advance(to: now)
    }

    private func drop(_ source: any EdgeEventSource) {
        for fd in source.fds { owners[fd] = nil }
        sources.removeAll { $0 === source }
    }

    /// Runs the configured shutdown command with `/bin/sh -c`, without waiting for it to
    /// finish (it usually stops this daemon). The child is reaped by `reapChildren()`.
    public static func runShutdownCommand(_ command: String, reason: String, logger: Logger) {
        guard !command.isEmpty else {
            logger.warning("\(reason), but [buttons] shutdown_command is empty")
            return
        }
        logger.notice("\(reason): running \(command)")
        var pid = pid_t()
        let arguments = ["/bin/sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        do {
            try SystemCall.code("posix_spawn") { posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ) }
        } catch {
            logger.error("controls: cannot run the shutdown command: \(error)")
        }
    }

    /// Collects exited children (the shutdown command) so that none stays a zombie.
    public static func reapChildren() {
        var status: Int32 = 0
        while waitpid(-1, &status, WNOHANG) > 0 {}
    }
}
