import CLinuxShims
import Glibc
import LinuxSupport

/// A uinput device for tests: a real `/dev/input/eventN` whose KEY_* and REL_X events the
/// test writes, as the kernel's gpio-keys and rotary-encoder drivers would. Needs a
/// writable `/dev/uinput`; `isAvailable` says whether the kernel offers one here.
public final class VirtualInputDevice {
    private let fd: Int32
    /// The device node the events appear on (`/dev/input/event7`).
    public let eventPath: String

    public static var isAvailable: Bool { access("/dev/uinput", W_OK) == 0 }

    /// Creates a device that sends `keys` (KEY_* codes) and REL_X.
    public init(name: String, keys: [Int32]) throws(Errno) {
        let fd = keys.withUnsafeBufferPointer { jb_uinput_create(name, $0.baseAddress, Int32($0.count)) }
        if fd < 0 { throw Errno.current("uinput create", path: "/dev/uinput") }
        var buffer = [CChar](repeating: 0, count: 64)
        guard jb_uinput_sysname(fd, &buffer, Int32(buffer.count)) == 0 else {
            let error = Errno.current("UI_GET_SYSNAME", path: "/dev/uinput")
            jb_uinput_destroy(fd)
            throw error
        }
        let sysname = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // The event node appears under the device's sysfs folder once udev-less creation is done.
        let folder = "/sys/devices/virtual/input/\(sysname)"
        var found: String?
        waitUntil(timeout: .seconds(2), pollingEvery: .milliseconds(10)) {
            if let dir = opendir(folder) {
                while let entry = readdir(dir) {
                    let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                    }
                    if entryName.hasPrefix("event") { found = "/dev/input/\(entryName)" }
                }
                closedir(dir)
            }
            if found == nil || access(found!, R_OK) != 0 { found = nil }
            return found != nil
        }
        guard let found else {
            jb_uinput_destroy(fd)
            throw Errno(code: ENOENT, call: "find the event node", path: folder)
        }
        self.fd = fd
        eventPath = found
    }

    deinit { jb_uinput_destroy(fd) }

    /// Sends one event and a SYN_REPORT.
    public func send(type: Int32, code: Int32, value: Int32) throws(Errno) {
        guard jb_uinput_emit(fd, type, code, value) == 0, jb_uinput_emit(fd, 0, 0, 0) == 0 else {
            throw Errno.current("write", path: "/dev/uinput")
        }
    }
}
