import JukeboxCore
import LinuxSupport

/// A bitmap font in GNU Unifont's .hex format: 8x16 glyphs for narrow characters and 16x16
/// for wide ones (CJK). The built-in one covers ASCII, Latin-1 and the layout's symbols;
/// `unifont.hex` (Debian package `unifont`) adds every BMP script, indexed once at start
/// (one pass over the file) and decoded glyph by glyph on first use.
public final class BitmapFont {
    /// One glyph: 16 rows of up to 16 pixels, bit 15 = leftmost pixel.
    public struct Glyph: Sendable, Equatable {
        public var width: Int
        public var rows: [UInt16]
    }

    public let height = 16
    private let data: [UInt8]
    private let codepoints: [UInt32]
    private let offsets: [Int32]
    private var cache: [UInt32: Glyph] = [:]
    private let fallback: BitmapFont?

    /// A font over .hex `data` (sorted by code point, as unifont.hex is), with `fallback`
    /// for code points it lacks.
    init(hex data: [UInt8], fallback: BitmapFont?) {
        self.data = data
        self.fallback = fallback
        var codepoints: [UInt32] = []
        var offsets: [Int32] = []
        codepoints.reserveCapacity(data.count / 40)
        offsets.reserveCapacity(data.count / 40)
        var i = 0
        let n = data.count
        while i < n {
            while i < n, data[i] == 0x0A || data[i] == 0x20 || data[i] == 0x0D { i += 1 }
            let start = i
            var cp: UInt32 = 0
            while i < n, let v = Self.hexValue(data[i]) {
                cp = cp << 4 | UInt32(v)
                i += 1
            }
            if i < n, data[i] == 0x3A, i > start {
                codepoints.append(cp)
                offsets.append(Int32(i + 1))
            }
            while i < n, data[i] != 0x0A { i += 1 }
        }
        self.codepoints = codepoints
        self.offsets = offsets
    }

    /// The built-in glyphs (a new instance: a font caches decoded glyphs and belongs to one thread).
    public static func builtin() -> BitmapFont { BitmapFont(hex: Array(BuiltinFont.hex.utf8), fallback: nil) }

    /// Where Debian's `unifont` package puts the full font.
    public static let unifontPath = "/usr/share/unifont/unifont.hex"

    /// `path` (a .hex font) over the built-in glyphs.
    public static func load(path: String) throws(Errno) -> BitmapFont {
        BitmapFont(hex: try readWholeFile(path, limit: 64 << 20), fallback: builtin())
    }

    /// Unifont when installed, else the built-in glyphs.
    public static func system() -> BitmapFont {
        (try? load(path: unifontPath)) ?? builtin()
    }

    /// Glyphs in this font (without the fallback).
    public var count: Int { codepoints.count }

    /// The glyph for `scalar`, or nil when neither this font nor its fallback has it.
    public func glyph(_ scalar: Unicode.Scalar) -> Glyph? {
        let cp = scalar.value
        if let cached = cache[cp] { return cached }
        var low = 0
        var high = codepoints.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if codepoints[mid] < cp {
                low = mid + 1
            } else if codepoints[mid] > cp {
                high = mid - 1
            } else {
                let glyph = decode(at: Int(offsets[mid]))
                cache[cp] = glyph
                return glyph
            }
        }
        return fallback?.glyph(scalar)
    }

    private func decode(at offset: Int) -> Glyph {
        var digits: [UInt8] = []
        var i = offset
        while i < data.count, let v = Self.hexValue(data[i]) {
            digits.append(v)
            i += 1
        }
        let wide = digits.count >= 64
        var rows: [UInt16] = []
        for row in 0..<16 {
            if wide {
                let d = digits[row * 4..<row * 4 + 4].reduce(UInt16(0)) { $0 << 4 | UInt16($1) }
                rows.append(d)
            } else if digits.count >= 32 {
                let d = digits[row * 2..<row * 2 + 2].reduce(UInt16(0)) { $0 << 4 | UInt16($1) }
                rows.append(d << 8)
            } else {
                rows.append(0)
            }
        }
        return Glyph(width: wide ? 16 : 8, rows: rows)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}

/// An off-screen RGB picture (0xRRGGBB per pixel) that the pixel screen is drawn into.
public struct PixelCanvas: Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt32]

    /// A canvas filled with `color`.
    public init(width: Int, height: Int, color: UInt32 = 0) {
        self.width = width
        self.height = height
        pixels = Array(repeating: color, count: width * height)
    }

    /// Fills a rectangle (clipped).
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, color: UInt32) {
        let x0 = max(0, x)
        let y0 = max(0, y)
        let x1 = min(width, x + w)
        let y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            let base = row * width
            for col in x0..<x1 { pixels[base + col] = color }
        }
    }

    /// Draws `text` (cells as `TextCells` counts them, 8 px per cell at scale 1) at (x, y);
    /// `colorAt(cell)` picks each cell's colour. Returns the width drawn in pixels.
    @discardableResult
    public mutating func draw(
        _ text: String, x: Int, y: Int, scale: Int = 1, font: BitmapFont, color colorAt: (Int) -> UInt32
    ) -> Int {
        var cell = 0
        for character in text {
            let cells = TextCells.width(of: character)
            if cells == 0 { continue }
            guard let scalar = character.unicodeScalars.first else { continue }
            let glyph = font.glyph(scalar) ?? font.glyph("\u{FFFD}")
            let color = colorAt(cell)
            if let glyph, scalar != " " {
                let left = x + cell * 8 * scale
                let maxColumns = min(glyph.width, cells * 8)
                for (r, bits) in glyph.rows.enumerated() where bits != 0 {
                    for c in 0..<maxColumns where bits & (0x8000 >> UInt16(c)) != 0 {
                        fill(x: left + c * scale, y: y + r * scale, width: scale, height: scale, color: color)
                    }
                }
            }
            cell += cells
        }
        return cell * 8 * scale
    }
}
