import Glibc
import LinuxSupport

/// A uinput device for tests: a real `/dev/input/eventN` whose KEY_* and REL_X events the
/// test writes, as the kernel's gpio-keys and rotary-encoder drivers would. Needs a
/// writable `/dev/uinput`; `isAvailable` says whether the kernel offers one here.
public final class VirtualInputDevice {
    private let device: UInputDevice
    /// The device node the events appear on (`/dev/input/event7`).
    public let eventPath: String

    public static var isAvailable: Bool { (try? FileSystem.checkAccess("/dev/uinput", W_OK)) != nil }

    /// Creates a device that sends `keys` (KEY_* codes) and REL_X.
    public init(name: String, keys: [Int32]) throws(Errno) {
        device = try UInputDevice(name: name, keys: keys)
        // The event node appears under the device's sysfs folder once udev-less creation is done.
        let folder = "/sys/devices/virtual/input/\(device.sysname)"
        var found: String?
        waitUntil(timeout: .seconds(2), pollingEvery: .milliseconds(10)) {
            let entries = (try? FileSystem.entries(of: folder)) ?? []
            if let event = entries.last(where: { $0.name.hasPrefix("event") }),
                (try? FileSystem.checkAccess("/dev/input/\(event.name)", R_OK)) != nil
            {
                found = "/dev/input/\(event.name)"
            }
            return found != nil
        }
        guard let found else { throw Errno(code: ENOENT, call: "find the event node", path: folder) }
        eventPath = found
    }

    /// Sends one event and a SYN_REPORT.
    public func send(type: Int32, code: Int32, value: Int32) throws(Errno) {
        try device.emit(type: type, code: code, value: value)
        try device.emit(type: 0, code: 0, value: 0)
    }
}
