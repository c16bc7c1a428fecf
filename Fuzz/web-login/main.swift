import JukeboxWeb

// The web page's sign-in (`WebLogin`) fed events and times from the input, two bytes each:
// the event (a wrong password, a right one, the setup code set, a sign-out, a check) and the
// seconds since the event before. The throttle must never ask for a negative or longer wait
// than `longestWait`, never let a guesser try more than `freeAttempts` times without a wait,
// and a session must be valid from its sign-in until it ends, no more than `maxSessions` kept.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    var login = WebLogin(passwordIsSet: first & 1 != 0, setupCode: "123456")
    var now = 1000.0
    var tokens: [(token: String, end: Double)] = []
    var signedOut: Set<String> = []
    var failuresInARow = 0
    var issued = 0
    var index = 1
    // 1,024 events at most: every step checks every session issued.
    while index + 1 < min(bytes.count, 2049) {
        let (event, step) = (bytes[index], bytes[index + 1])
        index += 2
        // Steps from a millisecond to an hour, and a month (a session's end).
        now += step == 0xFF ? WebLogin.sessionSeconds : Double(step) * Double(step) / 16 + 0.001
        let gate = login.gate(at: now)
        if case .wait(let seconds) = gate {
            require(seconds > 0 && seconds <= WebLogin.longestWait, "a wait of \(seconds) s")
        }
        switch event % 6 {
        case 0, 1:
            guard gate == .open else { break }
            login.failed(at: now)
            failuresInARow += 1
            if failuresInARow >= WebLogin.freeAttempts {
                require(login.gate(at: now) != .open, "\(failuresInARow) wrong tries, no wait")
            }
        case 2, 3:
            guard gate == .open else { break }
            issued += 1
            let token = "session-\(issued)"
            if event % 6 == 2 {
                login.succeeded(at: now, token: token)
            } else {
                login.passwordSet(at: now, token: token)
            }
            require(login.setupCode == nil || event % 6 == 2, "the setup code stays after it was used")
            require(login.gate(at: now) == .open, "a wait after a right password")
            failuresInARow = 0
            tokens.append((token, now + WebLogin.sessionSeconds))
            require(login.isSignedIn(token, at: now), "not signed in right after")
        case 4:
            var random = generatorOf(event)
            if let (token, _) = tokens.randomElement(using: &random) {
                login.signOut(token)
                signedOut.insert(token)
            }
        default:
            _ = login.acceptsSetupCode(String(decoding: bytes[index...].prefix(6), as: UTF8.self))
        }
        var live = 0
        for (token, end) in tokens where login.isSignedIn(token, at: now) {
            require(end > now && !signedOut.contains(token), "\(token) still signed in")
            live += 1
        }
        require(live <= WebLogin.maxSessions, "\(live) sessions")
        if let newest = tokens.last, !signedOut.contains(newest.token), newest.end > now {
            require(login.isSignedIn(newest.token, at: now), "the newest session was dropped")
        }
    }
    return 0
}

/// A generator seeded by the event byte: which session signs out.
func generatorOf(_ byte: UInt8) -> SplitMix {
    SplitMix(state: UInt64(byte) &* 0x9E37_79B9_7F4A_7C15)
}

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
