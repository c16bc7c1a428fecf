import CLinuxShims
import Glibc

/// A framebuffer's size and pixel layout, as FBIOGET_VSCREENINFO and FBIOGET_FSCREENINFO
/// report it.
public struct FramebufferGeometry: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bitsPerPixel: Int
    /// Bytes per row (at least width × bytes per pixel).
    public var lineLength: Int
    public var red: (offset: Int, length: Int)
    public var green: (offset: Int, length: Int)
    public var blue: (offset: Int, length: Int)

    public init(
        width: Int, height: Int, bitsPerPixel: Int, lineLength: Int, red: (offset: Int, length: Int),
        green: (offset: Int, length: Int), blue: (offset: Int, length: Int)
    ) {
        self.width = width
        self.height = height
        self.bitsPerPixel = bitsPerPixel
        self.lineLength = lineLength
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static func == (a: FramebufferGeometry, b: FramebufferGeometry) -> Bool {
        a.width == b.width && a.height == b.height && a.bitsPerPixel == b.bitsPerPixel
            && a.lineLength == b.lineLength && a.red == b.red && a.green == b.green && a.blue == b.blue
    }

    /// 16 bpp RGB565, as most SPI TFTs (fbtft, tinydrm) present themselves.
    public static func rgb565(width: Int, height: Int) -> FramebufferGeometry {
        FramebufferGeometry(
            width: width, height: height, bitsPerPixel: 16, lineLength: width * 2, red: (11, 5), green: (5, 6),
            blue: (0, 5))
    }

    /// 32 bpp XRGB8888, as HDMI (vc4/simplefb) presents itself.
    public static func xrgb8888(width: Int, height: Int) -> FramebufferGeometry {
        FramebufferGeometry(
            width: width, height: height, bitsPerPixel: 32, lineLength: width * 4, red: (16, 8), green: (8, 8),
            blue: (0, 8))
    }

    /// Bytes of the mapping.
    public var byteCount: Int { lineLength * height }
}

/// Device ioctls and mappings of the display drivers.
extension FileDescriptor {
    public func framebufferGeometry() throws(Errno) -> FramebufferGeometry {
        var info = jb_fb_info()
        _ = try call("ioctl(FBIOGET_VSCREENINFO)") { jb_fb_get_info($0, &info) }
        return FramebufferGeometry(
            width: Int(info.xres), height: Int(info.yres), bitsPerPixel: Int(info.bits_per_pixel),
            lineLength: Int(info.line_length), red: (Int(info.red_offset), Int(info.red_length)),
            green: (Int(info.green_offset), Int(info.green_length)),
            blue: (Int(info.blue_offset), Int(info.blue_length)))
    }

    /// Addresses the I2C device at `address` on this bus (ioctl I2C_SLAVE).
    public func setI2CAddress(_ address: Int) throws(Errno) {
        _ = try call("ioctl(I2C_SLAVE)") { jb_i2c_set_address($0, Int32(address)) }
    }

    /// What the I2C adapter of this bus can do (ioctl I2C_FUNCS): plain I2C transfers (a
    /// `write()` of several bytes is one message), SMBus "send byte" writes. SMBus-only
    /// adapters (i2c-stub, some SoC and PC controllers) refuse plain writes with EOPNOTSUPP.
    public func i2cFunctions() throws(Errno) -> (plainTransfers: Bool, smbusSendByte: Bool) {
        var plain: Int32 = 0
        var sendByte: Int32 = 0
        _ = try call("ioctl(I2C_FUNCS)") { jb_i2c_functions($0, &plain, &sendByte) }
        return (plain != 0, sendByte != 0)
    }

    /// One SMBus "send byte" to the addressed device (ioctl I2C_SMBUS): on the wire the same
    /// as a one-byte plain write.
    public func smbusSendByte(_ value: UInt8) throws(Errno) {
        _ = try call("ioctl(I2C_SMBUS send byte)") { jb_i2c_smbus_send_byte($0, value) }
    }

    /// Maps `length` bytes from the start, shared and writable (mmap); unmap with munmap.
    public func mapShared(length: Int) throws(Errno) -> UnsafeMutableRawPointer {
        let fd = rawValue
        return try SystemCall.nonNil("mmap", context) {
            let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
            return mapped == MAP_FAILED ? nil : mapped
        }
    }
}

/// A virtual input device made through /dev/uinput, sending EV_KEY for its keys and EV_REL
/// REL_X, as the kernel's gpio-keys and rotary-encoder drivers would. Destroyed on release.
public final class UInputDevice {
    private let fd: FileDescriptor
    /// The device's sysfs name (`input7`).
    public let sysname: String

    public init(name: String, keys: [Int32]) throws(Errno) {
        let raw = try SystemCall.value("uinput create", "/dev/uinput") {
            keys.withUnsafeBufferPointer { jb_uinput_create(name, $0.baseAddress, Int32($0.count)) }
        }
        fd = FileDescriptor(owning: raw, path: "/dev/uinput")
        var buffer = [CChar](repeating: 0, count: 64)
        do {
            _ = try fd.call("ioctl(UI_GET_SYSNAME)") { jb_uinput_sysname($0, &buffer, Int32(buffer.count)) }
        } catch {
            jb_uinput_destroy(fd.rawValue)
            throw error
        }
        sysname = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { jb_uinput_destroy(fd.rawValue) }

    /// Writes one input event.
    public func emit(type: Int32, code: Int32, value: Int32) throws(Errno) {
        _ = try fd.call("write") { jb_uinput_emit($0, type, code, value) }
    }
}
