/// Text made safe to put into HTML: element content and double- or single-quoted attribute
/// values. Every tag and file name the page shows goes through it, so a track titled
/// `<img src=x onerror=alert(1)>` shows as text.
public enum HTMLText {
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// `text` as a URL query value (RFC 3986 unreserved characters kept, the rest %XX).
    public static func queryValue(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded += "%"
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return encoded
    }
}

/// JSON text built by hand (the pure targets have no Foundation): strings escaped as RFC 8259
/// says, so that tags reach the browser's `textContent` unchanged.
public enum JSONText {
    public static func string(_ text: String) -> String {
        var escaped = "\""
        for character in text.unicodeScalars {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            // `</script>` and friends cannot end an inline script; U+2028/9 break old parsers.
            case "<": escaped += "\\u003c"
            case "\u{2028}": escaped += "\\u2028"
            case "\u{2029}": escaped += "\\u2029"
            default:
                if character.value < 0x20 {
                    let hex = String(character.value, radix: 16)
                    escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    escaped.unicodeScalars.append(character)
                }
            }
        }
        return escaped + "\""
    }

    /// An object from already-encoded values, in the given order.
    public static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// A number with up to three decimals (positions in seconds).
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let millis = Int64((value * 1000).rounded())
        let sign = millis < 0 ? "-" : ""
        let magnitude = millis.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
