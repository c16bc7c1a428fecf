/// The words of a command line, split as the MPD protocol splits a request's arguments, so
/// that every front end quotes alike (`card assign 04A1B2 folder "Name With Spaces"`): words
/// are separated by whitespace; a word in double quotes may hold spaces, a backslash in it
/// takes the next character as it is, and the closing quote must end the word. An unquoted
/// word holds no quote.
public enum CommandWords {
    /// Why a line does not split.
    public enum Problem: Error, Sendable, Equatable {
        case missingClosingQuote
        case spaceExpectedAfterClosingQuote
        case invalidUnquotedCharacter
        /// More than the limit given to `split`.
        case tooManyWords

        /// MPD's words for it.
        public var message: String {
            switch self {
            case .missingClosingQuote: "Missing closing '\"'"
            case .spaceExpectedAfterClosingQuote: "Space expected after closing '\"'"
            case .invalidUnquotedCharacter: "Invalid unquoted character"
            case .tooManyWords: "Too many arguments"
            }
        }
    }

    /// The words of `bytes` from `start` on, at most `limit` of them.
    public static func split(_ bytes: [UInt8], from start: Int = 0, limit: Int = .max) -> Result<[String], Problem> {
        var index = start
        skipSpaces(bytes, &index)
        var words: [String] = []
        while index < bytes.count {
            var word: [UInt8] = []
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                var closed = false
                while index < bytes.count {
                    var byte = bytes[index]
                    if byte == UInt8(ascii: "\"") {
                        closed = true
                        index += 1
                        break
                    }
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                        guard index < bytes.count else { break }
                        byte = bytes[index]
                    }
                    word.append(byte)
                    index += 1
                }
                guard closed else { return .failure(.missingClosingQuote) }
                if index < bytes.count, !isSpace(bytes[index]) { return .failure(.spaceExpectedAfterClosingQuote) }
            } else {
                while index < bytes.count, !isSpace(bytes[index]) {
                    let byte = bytes[index]
                    guard byte > 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "'") else {
                        return .failure(.invalidUnquotedCharacter)
                    }
                    word.append(byte)
                    index += 1
                }
            }
            guard words.count < limit else { return .failure(.tooManyWords) }
            words.append(String(decoding: word, as: UTF8.self))
            skipSpaces(bytes, &index)
        }
        return .success(words)
    }

    /// A space, tab, newline, vertical tab, form feed or carriage return.
    public static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    private static func skipSpaces(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
    }
}
