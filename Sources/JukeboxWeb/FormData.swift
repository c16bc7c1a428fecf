import JukeboxCore

/// An `application/x-www-form-urlencoded` body: `+` is a space, `%XX` a byte. The first value
/// of a name wins; a body over `maxBytes` is refused by the server before it gets here.
public struct FormData: Sendable, Equatable {
    public static let maxBytes = 64 * 1024

    private var values: [String: String] = [:]

    public init(_ body: String) {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEncoding.decoded(parts[0], plusIsSpace: true)
            if values[name] == nil {
                values[name] = parts.count == 2 ? PercentEncoding.decoded(parts[1], plusIsSpace: true) : ""
            }
        }
    }

    public subscript(name: String) -> String? { values[name] }
}

/// The token every state-changing POST must carry (CSRF): made once per process from the
/// system's random source, put into each page, compared in constant time. Another site's
/// page cannot read ours, so it cannot learn the token.
public struct CSRFToken: Sendable, Equatable {
    public let value: String

    public init(using generator: inout some RandomNumberGenerator) {
        value = RandomToken.hex(using: &generator)
    }

    /// A given token (tests).
    init(value: String) { self.value = value }

    /// Whether `candidate` is the token; the time taken does not tell how much of it matched.
    public func accepts(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        return SecretText.equal(value, candidate)
    }
}

/// 256 random bits as 64 hexadecimal digits: CSRF tokens and session cookies.
public enum RandomToken {
    public static func hex(using generator: inout some RandomNumberGenerator) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for _ in 0..<4 {
            var word = generator.next() as UInt64
            for _ in 0..<16 {
                text.append(digits[Int(word & 0xF)])
                word >>= 4
            }
        }
        return text
    }
}

/// Comparing secrets (tokens, codes, hashes) in a time that does not tell how much matched.
public enum SecretText {
    public static func equal(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
