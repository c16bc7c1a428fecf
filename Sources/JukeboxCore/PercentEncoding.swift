/// `%XX` escapes turned back into bytes (read as UTF-8): `file://` URLs in playlists, and the
/// web page's forms and queries (where `+` is a space). A `%` not followed by two hex digits
/// stays as it is.
public enum PercentEncoding {
    public static func decoded(_ text: Substring, plusIsSpace: Bool = false) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if plusIsSpace, utf8[index] == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
                index += 1
            } else if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
