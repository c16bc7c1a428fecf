/// A small PNG writer (8-bit RGB) with its own deflate: fixed Huffman codes and matches
/// one pixel to the left or one row up, which is what flat screen pictures need (a 320x240
/// screen shot is a few kilobytes). Deterministic, so snapshots compare byte for byte.
public enum PNG {
    /// The PNG file for `canvas`.
    public static func encode(_ canvas: PixelCanvas) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((canvas.width * 3 + 1) * canvas.height)
        for y in 0..<canvas.height {
            raw.append(0)  // filter: none
            for x in 0..<canvas.width {
                let p = canvas.pixels[y * canvas.width + x]
                raw.append(UInt8(p >> 16 & 0xFF))
                raw.append(UInt8(p >> 8 & 0xFF))
                raw.append(UInt8(p & 0xFF))
            }
        }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header += bigEndian(UInt32(canvas.width)) + bigEndian(UInt32(canvas.height))
        header += [8, 2, 0, 0, 0]  // 8-bit, RGB, deflate, adaptive filtering, no interlace
        chunk("IHDR", header, into: &out)
        chunk("IDAT", zlib(raw, stride: canvas.width * 3 + 1), into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        out += bigEndian(UInt32(data.count))
        let body = Array(type.utf8) + data
        out += body
        out += bigEndian(crc32(body))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        let table = crcTable
        var c: UInt32 = 0xFFFF_FFFF
        for byte in data { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    /// zlib stream: header, one fixed-Huffman deflate block, Adler-32.
    static func zlib(_ data: [UInt8], stride: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE = 01, fixed Huffman
        let candidates = [3, stride].filter { $0 <= 32768 }
        var i = 0
        let n = data.count
        while i < n {
            var bestLength = 0
            var bestDistance = 0
            for d in candidates where d <= i {
                var length = 0
                while length < 258 && i + length < n && data[i + length] == data[i + length - d] { length += 1 }
                if length > bestLength {
                    bestLength = length
                    bestDistance = d
                }
            }
            if bestLength >= 3 {
                bits.writeLength(bestLength)
                bits.writeDistance(bestDistance)
                i += bestLength
            } else {
                bits.writeLiteral(Int(data[i]))
                i += 1
            }
        }
        bits.writeLiteral(256)
        return [0x78, 0x01] + bits.finish() + bigEndian(adler32(data))
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var filled: UInt32 = 0

        /// LSB-first bits.
        mutating func write(_ value: Int, count: Int) {
            for k in 0..<count {
                current |= UInt32((value >> k) & 1) << filled
                filled += 1
                if filled == 8 {
                    bytes.append(UInt8(current))
                    current = 0
                    filled = 0
                }
            }
        }

        /// A Huffman code, most significant bit first.
        mutating func writeCode(_ code: Int, length: Int) {
            for k in stride(from: length - 1, through: 0, by: -1) { write((code >> k) & 1, count: 1) }
        }

        mutating func writeLiteral(_ v: Int) {
            switch v {
            case 0...143: writeCode(0x30 + v, length: 8)
            case 144...255: writeCode(0x190 + v - 144, length: 9)
            case 256...279: writeCode(v - 256, length: 7)
            default: writeCode(0xC0 + v - 280, length: 8)
            }
        }

        static let lengthBase = [
            3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
            227, 258,
        ]
        static let lengthExtra = [
            0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
        ]
        static let distanceBase = [
            1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
            6145, 8193, 12289, 16385, 24577,
        ]
        static let distanceExtra = [
            0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
        ]

        mutating func writeLength(_ length: Int) {
            var code = Self.lengthBase.count - 1
            while Self.lengthBase[code] > length { code -= 1 }
            if length == 258 { code = 28 } else if code == 28 { code = 27 }
            writeLiteral(257 + code)
            write(length - Self.lengthBase[code], count: Self.lengthExtra[code])
        }

        mutating func writeDistance(_ distance: Int) {
            var code = Self.distanceBase.count - 1
            while Self.distanceBase[code] > distance { code -= 1 }
            writeCode(code, length: 5)
            write(distance - Self.distanceBase[code], count: Self.distanceExtra[code])
        }

        mutating func finish() -> [UInt8] {
            if filled > 0 { bytes.append(UInt8(current)) }
            current = 0
            filled = 0
            return bytes
        }
    }
}
