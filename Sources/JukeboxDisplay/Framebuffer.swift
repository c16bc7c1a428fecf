import Glibc
import JukeboxCore
import LinuxSupport

/// A Linux framebuffer (`/dev/fbN`) or a file laid out like one, mapped into memory. The
/// geometry comes from the FBIOGET_VSCREENINFO/FBIOGET_FSCREENINFO ioctls for a device and
/// is given for a file. 16 bpp (RGB565) and 32 bpp (XRGB8888) pixels, with the channel
/// offsets the driver reports. Owns the fd and the mapping (released in deinit).
public final class Framebuffer {
    /// Size and pixel layout, as the device's ioctls report it.
    public typealias Geometry = FramebufferGeometry

    /// Failures opening or mapping.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let geometry: Geometry
    private let fd: FileDescriptor
    private let base: UnsafeMutableRawPointer
    private let length: Int

    private init(fd: FileDescriptor, geometry: Geometry) throws {
        guard geometry.bitsPerPixel == 16 || geometry.bitsPerPixel == 32 else {
            throw Failure(
                description: "\(fd.path ?? "framebuffer"): \(geometry.bitsPerPixel) bpp is not supported (16 or 32)")
        }
        let length = geometry.byteCount
        do {
            base = try fd.mapShared(length: length)
        } catch {
            throw Failure(description: "\(error)")
        }
        self.fd = fd
        self.geometry = geometry
        self.length = length
    }

    deinit { munmap(base, length) }

    /// A framebuffer device; the geometry comes from its ioctls.
    public static func open(device: String) throws -> Framebuffer {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor(path: device, flags: O_RDWR | O_CLOEXEC)
        } catch {
            throw Failure(description: "\(error)")
        }
        let geometry: Geometry
        do {
            geometry = try fd.framebufferGeometry()
        } catch {
            throw Failure(description: "\(error)")
        }
        return try Framebuffer(fd: fd, geometry: geometry)
    }

    /// A file laid out as a framebuffer of `geometry` (created or resized to fit), for tests
    /// and for looking at the screen without the hardware.
    public convenience init(file path: String, geometry: Geometry) throws {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor(path: path, flags: O_RDWR | O_CREAT | O_CLOEXEC)
            try fd.truncate(to: geometry.byteCount)
        } catch {
            throw Failure(description: "\(error)")
        }
        try self.init(fd: fd, geometry: geometry)
    }

    /// The device's pixel value for 0xRRGGBB.
    @inline(__always)
    func pixel(_ rgb: UInt32) -> UInt32 {
        let g = geometry
        let r = (rgb >> 16) & 0xFF
        let gr = (rgb >> 8) & 0xFF
        let b = rgb & 0xFF
        return (r >> UInt32(8 - g.red.length)) << UInt32(g.red.offset)
            | (gr >> UInt32(8 - g.green.length)) << UInt32(g.green.offset)
            | (b >> UInt32(8 - g.blue.length)) << UInt32(g.blue.offset)
    }

    /// Writes all of `canvas` (clipped to the screen). Returns the pixels written.
    @discardableResult
    public func write(_ canvas: PixelCanvas) -> Int { write(canvas, rows: 0..<canvas.height) }

    /// Writes rows `rows` of `canvas` (clipped to the screen). Returns the pixels written.
    @discardableResult
    public func write(_ canvas: PixelCanvas, rows: Range<Int>) -> Int {
        let w = min(canvas.width, geometry.width)
        let y0 = max(0, rows.lowerBound)
        let y1 = min(rows.upperBound, canvas.height, geometry.height)
        guard y0 < y1, w > 0 else { return 0 }
        canvas.pixels.withUnsafeBufferPointer { now in
            for y in y0..<y1 {
                let row = y * canvas.width
                let line = base + y * geometry.lineLength
                if geometry.bitsPerPixel == 16 {
                    let out = line.assumingMemoryBound(to: UInt16.self)
                    for x in 0..<w { out[x] = UInt16(truncatingIfNeeded: pixel(now[row + x])) }
                } else {
                    let out = line.assumingMemoryBound(to: UInt32.self)
                    for x in 0..<w { out[x] = pixel(now[row + x]) }
                }
            }
        }
        return (y1 - y0) * w
    }

    /// What the framebuffer holds, as 0xRRGGBB (channels widened by bit replication).
    public func readCanvas() -> PixelCanvas {
        let g = geometry
        var canvas = PixelCanvas(width: g.width, height: g.height)
        func channel(_ value: UInt32, _ c: (offset: Int, length: Int)) -> UInt32 {
            let v = (value >> UInt32(c.offset)) & ((1 << UInt32(c.length)) - 1)
            let shifted = v << UInt32(8 - c.length)
            return shifted | (shifted >> UInt32(c.length))
        }
        for y in 0..<g.height {
            let line = base + y * g.lineLength
            for x in 0..<g.width {
                let value: UInt32 =
                    g.bitsPerPixel == 16
                    ? UInt32(line.assumingMemoryBound(to: UInt16.self)[x])
                    : line.assumingMemoryBound(to: UInt32.self)[x]
                canvas.pixels[y * g.width + x] =
                    channel(value, g.red) << 16 | channel(value, g.green) << 8 | channel(value, g.blue)
            }
        }
        return canvas
    }
}

/// The framebuffer display: a `PixelScreen` rendered off-screen, then only the changed
/// pixels copied to the mapped framebuffer.
public final class FramebufferScreen: Screen {
    public let framebuffer: Framebuffer
    private var layout: PixelScreen
    private let font: BitmapFont
    private var canvas: PixelCanvas
    /// What each band shows now (nil before the first refresh).
    private var renderedKeys: [[String]]?
    /// Pixels written by the last refresh (for tests and the benchmark).
    public private(set) var lastWritten = 0
    private let menuLayout: PixelMenu
    /// The menu page on the screen (nil when it shows what plays).
    private var shownMenu: MenuPage?

    /// A screen on `framebuffer` drawn with `font`.
    public init(framebuffer: Framebuffer, font: BitmapFont) {
        self.framebuffer = framebuffer
        self.font = font
        layout = PixelScreen(width: framebuffer.geometry.width, height: framebuffer.geometry.height)
        menuLayout = PixelMenu(width: framebuffer.geometry.width, height: framebuffer.geometry.height)
        canvas = PixelCanvas(width: framebuffer.geometry.width, height: framebuffer.geometry.height)
        canvas.fill(x: 0, y: 0, width: canvas.width, height: canvas.height, color: PixelScreen.background)
        framebuffer.write(canvas)
    }

    public func handle(_ event: ScreenEvent, now: Instant) { layout.handle(event, now: now) }

    public func refresh(_ playing: NowPlaying?, lyrics: LyricTimeline?, now: Instant) {
        let keys = layout.bandKeys(playing, lyrics: lyrics, now: now)
        let bands = layout.bands
        lastWritten = 0
        if shownMenu != nil {
            // The menu covered the gaps between the bands too: the whole screen again.
            shownMenu = nil
            layout.render(playing, lyrics: lyrics, now: now, font: font, into: &canvas)
            lastWritten = framebuffer.write(canvas)
            renderedKeys = keys
            return
        }
        for band in bands.indices where renderedKeys?[band] != keys[band] {
            layout.renderBand(band, playing, lyrics: lyrics, now: now, font: font, into: &canvas)
            lastWritten += framebuffer.write(canvas, rows: bands[band])
        }
        renderedKeys = keys
    }

    public func show(_ menu: Menu, now: Instant) {
        lastWritten = 0
        guard let page = menu.page(rows: menuLayout.rows, now: now), page != shownMenu else { return }
        shownMenu = page
        menuLayout.render(page, font: font, into: &canvas)
        lastWritten = framebuffer.write(canvas)
    }

    public func overlayEnds(after now: Instant) -> Instant? { layout.overlayEnds(after: now) }

    public func close() {}
}
