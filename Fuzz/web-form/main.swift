import JukeboxWeb
import MPDProtocol

// What the web page parses of a request (jukebox-web's routes): the body or query as a form
// (`application/x-www-form-urlencoded`), the Cookie header for the session, the CSRF token
// compared, the actions the forms ask for (player, cards) as the MPD command line sent to the
// daemon, which must read back as one command with the form's values as its arguments. The
// input is the request's text; its lines, split at a tab into a name and a value, are also
// written as a form and must read back as written.
var generator = FixedGenerator()
let token = CSRFToken(using: &generator)

/// The same words every run, so that an input replays the same way.
struct FixedGenerator: RandomNumberGenerator {
    var state: UInt64 = 0x4A75_6B65_626F_78
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return state
    }
}

/// A name or value as a browser writes it into a form: unreserved bytes as they are, a space
/// as `+`, every other byte `%XX`.
func encoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "~"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        case UInt8(ascii: " "): out += "+"
        default:
            let digits = Array("0123456789ABCDEF")
            out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
        }
    }
    return out
}

/// `action`'s command line is one line that the daemon reads as the action's words.
func checkCommand(_ action: WebAction) {
    let line = action.command
    require(!line.utf8.contains(0x0A) && !line.utf8.contains(0x0D), "a line break in \(line)")
    guard case .success(let request) = MPDProtocol.tokenize(line) else { fatalError("\(line) does not read") }
    // Line breaks in a value are sent as spaces (the protocol cannot carry them).
    let sent = { (text: String) in
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
    }
    let expected: [String]
    switch action {
    case .assignFolder(let card, let folder): expected = ["card", "assign", sent(card), "folder", sent(folder)]
    case .forget(let card): expected = ["card", "forget", sent(card)]
    default: return
    }
    let words = [request.command] + request.arguments
    // Compared as bytes: String's == takes canonically equal text as equal.
    require(words.map { Array($0.utf8) } == expected.map { Array($0.utf8) }, "\(line) reads as \(words)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    // As the server reads a body or a query: invalid UTF-8 repaired.
    let text = String(decoding: bytes, as: UTF8.self)
    let form = FormData(text)
    let csrf = form["csrf"]
    require(
        token.accepts(csrf) == (csrf.map { Array($0.utf8) == Array(token.value.utf8) } ?? false),
        "the CSRF check of \(csrf ?? "nothing")")
    for action in [WebAction.player(form), WebAction.assign(form), WebAction.forget(form)].compactMap({ $0 }) {
        checkCommand(action)
    }

    if let session = WebLogin.sessionToken(cookieHeader: text) {
        require(!session.contains(";"), "a session token with a ';': \(session)")
        require(session.first != " " && session.last != " ", "a session token with spaces: \(session)")
        // Spaces around the name and the `=` are allowed (RFC 6265 trims them).
        require(
            text.contains(WebLogin.cookieName) && text.contains(session), "\(session): not the cookie's value")
    }

    // Written as a form and read back: the first value of each name, as given.
    var firstValues: [String: String] = [:]
    var body: [String] = []
    for line in fuzzLines(bytes).prefix(64) {
        let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        let value = parts.count == 2 ? String(parts[1]) : ""
        guard !name.isEmpty || !value.isEmpty else { continue }
        if firstValues[name] == nil { firstValues[name] = value }
        body.append(encoded(name) + "=" + encoded(value))
    }
    let written = FormData(body.joined(separator: "&"))
    for (name, value) in firstValues {
        require(written[name] == value, "\(name): read back \(written[name] ?? "nothing"), written \(value)")
    }
    return 0
}
